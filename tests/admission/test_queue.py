"""Volcano's Queue admission rules (mutating defaults, validation, deletion)."""

from __future__ import annotations

from typing import Any

import pytest

from volcano.admission.lookup import StaticView
from volcano.admission.queue import mutate_queue, validate_queue, validate_queue_delete


def _q(name: str, *, parent: str = "", annotations: dict[str, str] | None = None,
       allocated_pods: int | None = None, **spec: Any) -> dict[str, Any]:
    obj: dict[str, Any] = {"metadata": {"name": name}, "spec": dict(spec)}
    if parent:
        obj["spec"]["parent"] = parent
    if annotations:
        obj["metadata"]["annotations"] = annotations
    if allocated_pods is not None:
        obj["status"] = {"state": "Open", "allocated": {"pods": str(allocated_pods)}}
    return obj


def _view(*queues: dict[str, Any]) -> StaticView:
    return StaticView(queues=[_q("root"), _q("default"), *queues])


# -- mutating (e2e 76-79) ---------------------------------------------------------------------------

@pytest.mark.parametrize(("spec", "weight", "reclaimable"), [
    ({"weight": 1}, 1, True),               # 76
    ({"reclaimable": True}, 1, True),       # 77
    ({}, 1, True),                          # 78
    ({"weight": 5, "reclaimable": False}, 5, False),  # 79
])
def test_mutate_defaults(spec: dict[str, Any], weight: int, reclaimable: bool) -> None:
    q = _q("q", **spec)
    mutate_queue(q)
    assert q["spec"]["weight"] == weight
    assert q["spec"]["reclaimable"] is reclaimable


def test_mutate_creates_missing_spec() -> None:
    q: dict[str, Any] = {"metadata": {"name": "q"}}
    mutate_queue(q)
    assert q["spec"] == {"reclaimable": True, "weight": 1}


def test_mutate_prefixes_hierarchy() -> None:
    q = _q("q", annotations={"volcano.sh/hierarchy": "eng/prod", "volcano.sh/hierarchy-weights": "2/8"})
    mutate_queue(q)
    assert q["metadata"]["annotations"] == {"volcano.sh/hierarchy": "root/eng/prod",
                                            "volcano.sh/hierarchy-weights": "1/2/8"}
    q = _q("q", annotations={"volcano.sh/hierarchy": "root/eng", "volcano.sh/hierarchy-weights": "1/2"})
    mutate_queue(q)
    assert q["metadata"]["annotations"]["volcano.sh/hierarchy"] == "root/eng"


# -- validating (e2e 80-101) ------------------------------------------------------------------------

@pytest.mark.parametrize("state", ["Open", "Closed", None])  # 80, 81, 82
def test_states_allowed(state: str | None) -> None:
    q = _q("q")
    if state:
        q["status"] = {"state": state}
    assert validate_queue(q, None, _view()) == ""


def test_state_closing_denied() -> None:
    q = _q("q")
    q["status"] = {"state": "Closing"}
    assert validate_queue(q, None, _view()) == \
        'requestBody.spec.state: Invalid value: "Closing": queue state must be in [Open Closed]'


@pytest.mark.parametrize(("spec", "fragment"), [
    ({"deserved": {"cpu": "1", "memory": "1Gi"}}, ""),                                               # 85
    ({"guarantee": {"resource": {"cpu": "1", "memory": "1Gi"}}}, "must be >= guarantee"),                          # 86
    ({"capability": {"cpu": "1", "memory": "1Gi"}, "deserved": {"cpu": "2", "memory": "1Gi"}},
     "deserved[cpu]=2 must be <= capability[cpu]=1"),                                                # 87
    ({"capability": {"cpu": "1", "memory": "1Gi"}, "guarantee": {"resource": {"cpu": "2", "memory": "3Gi"}}},
     "must be >= guarantee"),                                                                        # 88
    ({"deserved": {"cpu": "2", "memory": "1Gi"}, "guarantee": {"resource": {"cpu": "2", "memory": "3Gi"}}},
     "deserved[memory]=1Gi must be >= guarantee[memory]=3Gi"),                                       # 89
    ({"capability": {"cpu": "10"}, "deserved": {"cpu": "5", "memory": "10Gi"}}, ""),                # 90
    ({"capability": {"cpu": "10"}, "deserved": {"cpu": "5", "memory": "8Gi"},
      "guarantee": {"resource": {"cpu": "5", "memory": "8Gi"}}}, ""),                                              # 91
    ({"deserved": {"cpu": "10"}, "guarantee": {"resource": {"cpu": "5", "memory": "8Gi"}}},
     "deserved[memory] must be >= guarantee[memory]=8Gi"),                                           # 92
    ({"capability": {"cpu": "abc"}}, "quantities must match the regular expression"),
    ({"capability": {"cpu": "-1"}}, "must be greater than or equal to 0"),
])
def test_resource_consistency(spec: dict[str, Any], fragment: str) -> None:
    msg = validate_queue(_q("q", **spec), None, _view())
    assert (fragment in msg) if fragment else msg == ""
    if fragment:
        assert msg


def test_several_errors_are_aggregated() -> None:
    q = _q("q", capability={"cpu": "1"}, deserved={"cpu": "2"}, guarantee={"resource": {"memory": "1Gi"}})
    msg = validate_queue(q, None, _view())
    assert msg.startswith("[") and msg.endswith("]") and ", " in msg


@pytest.mark.parametrize(("annotations", "fragment"), [
    ({"volcano.sh/hierarchy": "a"}, "in the  is invalid number"),                                     # 93
    ({"volcano.sh/hierarchy": "a/b", "volcano.sh/hierarchy-weights": "1/2/3"}, "must have the same length"),  # 94
    ({"volcano.sh/hierarchy": "root/a/b", "volcano.sh/hierarchy-weights": "1/2/3/4"}, "must have the same length"),
    ({"volcano.sh/hierarchy": "root/a/b", "volcano.sh/hierarchy-weights": "1/-1/3"}, "-1 in the 1/-1/3 must be "
     "larger than 0"),                                                                                # 96
    ({"volcano.sh/hierarchy": "root/a/b", "volcano.sh/hierarchy-weights": "1/a/3"},
     'a in the 1/a/3 is invalid number: strconv.ParseFloat: parsing "a": invalid syntax'),            # 97
])
def test_hierarchy_annotations(annotations: dict[str, str], fragment: str) -> None:
    msg = validate_queue(_q("q", annotations=annotations), None, _view())
    assert fragment in msg
    assert msg.startswith("requestBody.metadata.annotations: Invalid value: ")


def test_hierarchy_sub_path_conflict() -> None:
    other = _q("deep", annotations={"volcano.sh/hierarchy": "root/sci/dev", "volcano.sh/hierarchy-weights": "1/2/3"})
    q = _q("q", annotations={"volcano.sh/hierarchy": "root/sci", "volcano.sh/hierarchy-weights": "1/2"})
    assert "root/sci is not allowed to be in the sub path of root/sci/dev of queue deep" in \
        validate_queue(q, None, _view(other))


def test_parent_rules() -> None:
    assert validate_queue(_q("p", parent="p"), None, _view()) == "queue p cannot use itself as parent"
    assert validate_queue(_q("c", parent="nope"), None, _view()) == \
        'failed to get parent queue nope of queue c: queue.scheduling.volcano.sh "nope" not found'
    busy = _q("busy", allocated_pods=3)
    assert validate_queue(_q("c", parent="busy"), None, _view(busy)) == \
        "queue busy cannot be the parent queue of queue c because it has allocated Pods: 3"
    sibling = _q("s", parent="busy")
    assert validate_queue(_q("c", parent="busy"), None, _view(busy, sibling)) == ""
    chain = [_q("l1")] + [_q(f"l{i}", parent=f"l{i - 1}") for i in range(2, 6)]
    assert validate_queue(_q("l6", parent="l5"), None, _view(*chain)) == \
        "queue l6 exceeds the maximum allowed depth of 5"
    assert validate_queue(_q("l5b", parent="l4"), None, _view(*chain)) == ""  # 101-style valid parent


def test_root_resources_protected() -> None:
    old = _q("root")
    new = _q("root", capability={"cpu": "10"})
    assert validate_queue(new, old, _view()) == \
        "root queue's resource attributes (capability, deserved, guarantee) cannot be modified"
    assert validate_queue(_q("root", weight=2), old, _view()) == ""


def test_hierarchical_resources() -> None:
    parent = _q("p", capability={"cpu": "4"}, guarantee={"resource": {"cpu": "2"}}, deserved={"cpu": "3"})
    sib = _q("s", parent="p", guarantee={"resource": {"cpu": "1"}}, deserved={"cpu": "1"})
    msg = validate_queue(_q("c", parent="p", capability={"cpu": "8"}), None, _view(parent, sib))
    assert msg == "queue c capability[cpu]=8 exceeds its ancestor's capability=4"
    msg = validate_queue(_q("c", parent="p", guarantee={"resource": {"cpu": "2"}}, deserved={"cpu": "2"}), None,
                         _view(parent, sib))
    assert msg == ("parent queue p validation failed: sum of children's guarantee (cpu 3000.00, memory 0.00) "
                   "exceeds parent's guarantee limit (cpu 2000.00, memory 0.00)")
    child = _q("k", parent="p", capability={"cpu": "4"})
    shrink = _q("p", capability={"cpu": "2"})
    assert "queue p capability[cpu]=2 is smaller than its descendants' max capability=4" in \
        validate_queue(shrink, parent, _view(parent, child))


def test_update_open_to_closed_allowed() -> None:  # 98
    old = _q("q")
    old["status"] = {"state": "Open"}
    new = _q("q")
    new["status"] = {"state": "Closed"}
    assert validate_queue(new, old, _view()) == ""


# -- deletion (e2e 100, 101) ------------------------------------------------------------------------

def test_delete_rules() -> None:
    view = _view(_q("p"), _q("c1", parent="p"), _q("c2", parent="p"), _q("plain", allocated_pods=2))
    assert validate_queue_delete("default", view) == "`default` queue can not be deleted"
    assert validate_queue_delete("root", view) == "`root` queue can not be deleted"
    assert validate_queue_delete("ghost", view) == 'queues.scheduling.volcano.sh "ghost" not found'
    assert validate_queue_delete("p", view) == "queue p can not be deleted because it has 2 child queues: c1, c2"
    assert validate_queue_delete("c1", view) == ""
    assert validate_queue_delete("plain", view) == ""
    assert validate_queue_delete("plain", view, check_allocated_pods=True) == \
        "queue plain cannot be deleted because it has allocated Pods: 2"
