"""``validatequeue.volcano.sh``, whole: every rule of ``validate_queue`` and ``validate_queue_delete``
at its limit and one each side, with the full denial message (quantities, the guarantee <= deserved
<= capability chain, the state, the legacy hierarchy annotations, the parent: itself, depth, missing
ancestors, allocated pods; root protection; which updates re-run the parent and hierarchical checks:
only those changing the parent or a resource list)."""

from __future__ import annotations

from typing import Any

import pytest

from volcano.admission.lookup import StaticView
from volcano.admission.queue import validate_queue, validate_queue_delete

HIER = "volcano.sh/hierarchy"
WEIGHTS = "volcano.sh/hierarchy-weights"
PATTERN = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"


def _q(name: str, parent: str | None = None, state: str = "Open", annotations: dict[str, str] | None = None,
       pods: str | None = None, **spec: Any) -> dict[str, Any]:
    obj: dict[str, Any] = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue",
                           "metadata": {"name": name}, "spec": dict(spec), "status": {"state": state}}
    if parent is not None:
        obj["spec"]["parent"] = parent
    if annotations is not None:
        obj["metadata"]["annotations"] = annotations
    if pods is not None:
        obj["status"]["allocated"] = {"pods": pods}
    return obj


def _edit(queue: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return {**queue, "spec": {**queue["spec"], **spec}}


ROOT = _q("root")
DEFAULT = _q("default")
CHAIN = [_q("l1", "root"), _q("l2", "l1"), _q("l3", "l2"), _q("l4", "l3"), _q("l5", "l4")]
VIEW = StaticView([ROOT, DEFAULT, *CHAIN])


@pytest.mark.parametrize(("spec", "message"), [
    ({"capability": {"cpu": "1"}, "deserved": {"cpu": "1"}, "guarantee": {"resource": {"cpu": "1"}}}, ""),
    ({"capability": {"cpu": "1"}, "deserved": {"cpu": "1001m"}, "guarantee": {"resource": {"cpu": "1"}}},
     'requestBody.spec.deserved.cpu: Invalid value: "1001m": deserved[cpu]=1001m must be <= capability[cpu]=1'),
    ({"capability": {"cpu": "1"}, "deserved": {"cpu": "999m"}, "guarantee": {"resource": {"cpu": "1"}}},
     'requestBody.spec.deserved.cpu: Invalid value: "999m": deserved[cpu]=999m must be >= guarantee[cpu]=1'),
    ({"guarantee": {"resource": {"cpu": "0"}}},
     'requestBody.spec.deserved.cpu: Invalid value: "<nil>": deserved[cpu] must be >= guarantee[cpu]=0'),
    ({"capability": {"cpu": "0"}}, ""),
    ({"capability": {"cpu": "-1m"}},
     'requestBody.spec.capability.cpu: Invalid value: "-1m": must be greater than or equal to 0'),
    ({"deserved": {"memory": "1Gi"}, "capability": {"memory": "1024Mi"}}, ""),
    ({"deserved": {"memory": "1025Mi"}, "capability": {"memory": "1Gi"}},
     'requestBody.spec.deserved.memory: Invalid value: "1025Mi": deserved[memory]=1025Mi must be <= '
     "capability[memory]=1Gi"),
    ({"capability": {"cpu": "-1", "memory": "x"}},
     '[requestBody.spec.capability.cpu: Invalid value: "-1": must be greater than or equal to 0, '
     f'requestBody.spec.capability.memory: Invalid value: "x": {PATTERN}]'),
    ({"guarantee": {"resource": {"cpu": "y"}}, "deserved": {"cpu": "1"}},
     f'requestBody.spec.guarantee.resource.cpu: Invalid value: "y": {PATTERN}'),
    ({"capability": "4"}, 'requestBody.spec.capability: Invalid value: "4": must be a resource list'),
])
def test_resource_chain(spec: dict[str, Any], message: str) -> None:
    assert validate_queue(_q("g", **spec), None, VIEW) == message


@pytest.mark.parametrize(("state", "message"), [
    ("Open", ""), ("Closed", ""), ("", ""),
    ("Closing", 'requestBody.spec.state: Invalid value: "Closing": queue state must be in [Open Closed]'),
    ("Unknown", 'requestBody.spec.state: Invalid value: "Unknown": queue state must be in [Open Closed]'),
])
def test_state_seen_by_the_webhook(state: str, message: str) -> None:
    assert validate_queue(_q("s", state=state), None, VIEW) == message


def _annotated(hierarchy: str, weights: str) -> dict[str, Any]:
    return _q("h", annotations={HIER: hierarchy, WEIGHTS: weights})


@pytest.mark.parametrize(("hierarchy", "weights", "message"), [
    ("root/h", "1/1", ""),
    ("root/h", "1/0.001", ""),
    ("root/h", "1/0", 'requestBody.metadata.annotations: Invalid value: "1/0": 0 in the 1/0 must be larger than 0'),
    ("root/h", "1/-1",
     'requestBody.metadata.annotations: Invalid value: "1/-1": -1 in the 1/-1 must be larger than 0'),
    ("root/h", "1/abc", 'requestBody.metadata.annotations: Invalid value: "1/abc": abc in the 1/abc is invalid '
                        'number: strconv.ParseFloat: parsing "abc": invalid syntax'),
    ("root/h", "1", 'requestBody.metadata.annotations: Invalid value: "root/h": volcano.sh/hierarchy must have the '
                    "same length with volcano.sh/hierarchy-weights"),
    ("root/h", "1/1/1", 'requestBody.metadata.annotations: Invalid value: "root/h": volcano.sh/hierarchy must have '
                        "the same length with volcano.sh/hierarchy-weights"),
    ("root/a", "1/1", 'requestBody.metadata.annotations: Invalid value: "root/a": root/a is not allowed to be in the '
                      "sub path of root/a/b of queue s"),
    ("root/ab", "1/1", ""),
    ("root/a/b", "1/1/1", ""),
    ("root/a/b/c", "1/1/1/1", ""),
])
def test_hierarchy_annotations(hierarchy: str, weights: str, message: str) -> None:
    view = StaticView([ROOT, _q("s", annotations={HIER: "root/a/b", WEIGHTS: "1/1/1"})])
    assert validate_queue(_annotated(hierarchy, weights), None, view) == message


@pytest.mark.parametrize(("queue", "message"), [
    (_q("x", "x"), "queue x cannot use itself as parent"),
    (_q("m", "l4"), ""),  # m, l4, l3, l2, l1: depth 5, the limit
    (_q("l6", "l5"), "queue l6 exceeds the maximum allowed depth of 5"),
    (_q("m", "l3"), ""),
    (_q("m", "nope"), 'failed to get parent queue nope of queue m: queue.scheduling.volcano.sh "nope" not found'),
    (_q("m", "root"), ""),
])
def test_parent_checks_on_create(queue: dict[str, Any], message: str) -> None:
    assert validate_queue(queue, None, VIEW) == message


@pytest.mark.parametrize(("pods", "siblings", "message"), [
    ("0", [], ""),
    ("1", [], "queue p cannot be the parent queue of queue c because it has allocated Pods: 1"),
    ("1m", [], "queue p cannot be the parent queue of queue c because it has allocated Pods: 1"),
    ("1", [_q("d", "p")], ""),  # a parent that has children already may hold pods
])
def test_a_parent_with_pods_and_no_children(pods: str, siblings: list[dict[str, Any]], message: str) -> None:
    view = StaticView([ROOT, _q("p", "root", pods=pods), *siblings])
    assert validate_queue(_q("c", "p"), None, view) == message


def test_updates_rerun_the_hierarchy_only_when_parent_or_resources_change() -> None:
    parent = _q("a", capability={"cpu": "1"})
    child = _q("b", "a", capability={"cpu": "2"})  # a hierarchy already out of line below ``a``
    view = StaticView([ROOT, DEFAULT, parent, child])
    assert validate_queue(_edit(parent, weight=3), parent, view) == ""
    assert validate_queue(_edit(parent, capability={"cpu": "1000m"}), parent, view) == ""  # the same quantity
    assert validate_queue(_edit(parent, capability={"cpu": "1500m"}), parent, view) == (
        "queue a capability[cpu]=1500m is smaller than its descendants' max capability=2")
    assert validate_queue(_edit(parent, parent="root"), parent, view) == (
        "queue a capability[cpu]=1 is smaller than its descendants' max capability=2")
    moved = _q("l3", "l1")
    assert validate_queue(_edit(moved, weight=2), moved, VIEW) == ""
    assert validate_queue(_edit(moved, parent="nope"), moved, VIEW) == (
        'failed to get parent queue nope of queue l3: queue.scheduling.volcano.sh "nope" not found')


def test_root_resources_are_frozen() -> None:
    assert validate_queue(_edit(ROOT, capability={"cpu": "1"}), ROOT, VIEW) == (
        "root queue's resource attributes (capability, deserved, guarantee) cannot be modified")
    assert validate_queue(_edit(ROOT, guarantee={"resource": {"cpu": "1"}}, deserved={"cpu": "1"}), ROOT, VIEW) == (
        "root queue's resource attributes (capability, deserved, guarantee) cannot be modified")
    assert validate_queue(_edit(ROOT, weight=2), ROOT, VIEW) == ""
    assert validate_queue(_q("root", capability={"cpu": "1"}), None, VIEW) == ""  # a create is no modification


@pytest.mark.parametrize(("name", "queues", "check_pods", "message"), [
    ("default", [], False, "`default` queue can not be deleted"),
    ("root", [], False, "`root` queue can not be deleted"),
    ("zz", [], False, 'queues.scheduling.volcano.sh "zz" not found'),
    ("p", [_q("p", "root", pods="1")], False, ""),
    ("p", [_q("p", "root", pods="1")], True, "queue p cannot be deleted because it has allocated Pods: 1"),
    ("p", [_q("p", "root", pods="0")], True, ""),
    ("p", [_q("p", "root"), _q("d", "p"), _q("c", "p")], False,
     "queue p can not be deleted because it has 2 child queues: c, d"),
    ("p", [_q("p", "root"), _q("c", "p")], False, "queue p can not be deleted because it has 1 child queues: c"),
])
def test_delete(name: str, queues: list[dict[str, Any]], check_pods: bool, message: str) -> None:
    view = StaticView([ROOT, DEFAULT, *queues])
    assert validate_queue_delete(name, view, check_allocated_pods=check_pods) == message
