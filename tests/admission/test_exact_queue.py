"""Exact verdicts of Volcano's Queue webhook (upstream ``validate_queue.go``, ``mutate_queue.go``): the depth
walk and its boundary, the missing ancestor it names, allocated pods read as ``Quantity.Value()``, delete,
the hierarchy annotations and the resource chain."""

from __future__ import annotations

from typing import Any

import pytest

from volcano.admission.lookup import StaticView, queue_parent
from volcano.admission.queue import mutate_queue, validate_queue, validate_queue_delete


def _q(name: str, parent: str = "", pods: str | None = None, **spec: Any) -> dict[str, Any]:
    obj: dict[str, Any] = {"metadata": {"name": name}, "spec": dict(spec)}
    if parent:
        obj["spec"]["parent"] = parent
    if pods is not None:
        obj["status"] = {"state": "Open", "allocated": {"pods": pods}}
    return obj


def _chain(length: int) -> list[dict[str, Any]]:
    """Queues a1 (under root) .. a<length>, each the parent of the next."""
    return [_q(f"a{i}", f"a{i - 1}" if i > 1 else "") for i in range(1, length + 1)]


def _view(*queues: dict[str, Any]) -> StaticView:
    return StaticView(queues=[_q("root"), _q("default"), *queues])


@pytest.mark.parametrize(("ancestors", "expected"), [
    (1, ""), (3, ""), (4, ""), (5, "queue q exceeds the maximum allowed depth of 5"),
    (6, "queue q exceeds the maximum allowed depth of 5")])
def test_depth_boundary(ancestors: int, expected: str) -> None:
    """The new queue is depth 1 and each non-root ancestor adds one; more than 5 is refused."""
    q = _q("q", f"a{ancestors}")
    assert validate_queue(q, None, _view(*_chain(ancestors))) == expected


def test_missing_ancestor_is_named() -> None:
    assert validate_queue(_q("q", "nope"), None, _view()) == (
        'failed to get parent queue nope of queue q: queue.scheduling.volcano.sh "nope" not found')
    broken = [_q("a1", "gone"), _q("a2", "a1")]
    assert validate_queue(_q("q", "a2"), None, _view(*broken)) == (
        'failed to get parent queue gone of queue q: queue.scheduling.volcano.sh "gone" not found')
    # The depth is counted before the ancestor is read: past the limit the depth is reported.
    deep = [*_chain(4), _q("a5", "a4"), _q("a6", "a5")]
    deep[0]["spec"]["parent"] = "gone"
    assert validate_queue(_q("q", "a6"), None, _view(*deep)) == "queue q exceeds the maximum allowed depth of 5"


@pytest.mark.parametrize(("pods", "expected"), [
    ("0", ""), ("1", "queue busy cannot be the parent queue of queue q because it has allocated Pods: 1"),
    ("500m", "queue busy cannot be the parent queue of queue q because it has allocated Pods: 1"),
    ("3", "queue busy cannot be the parent queue of queue q because it has allocated Pods: 3")])
def test_parent_with_allocated_pods(pods: str, expected: str) -> None:
    assert validate_queue(_q("q", "busy"), None, _view(_q("busy", pods=pods))) == expected
    # a parent that already has a child may take another whatever it runs
    assert validate_queue(_q("q", "busy"), None, _view(_q("busy", pods=pods), _q("kid", "busy"))) == ""


def test_parent_change_only_is_checked_on_update() -> None:
    view = _view(_q("busy", pods="2"), _q("q", "busy"))
    old = _q("q", "busy")
    assert validate_queue(_q("q", "busy", weight=3), old, view) == ""
    assert validate_queue(_q("q", "busy"), _q("q"), _view(_q("busy", pods="2"))) == (
        "queue busy cannot be the parent queue of queue q because it has allocated Pods: 2")


@pytest.mark.parametrize(("name", "check", "expected"), [
    ("default", False, "`default` queue can not be deleted"),
    ("root", False, "`root` queue can not be deleted"),
    ("ghost", False, 'queues.scheduling.volcano.sh "ghost" not found'),
    ("busy", False, ""),
    ("busy", True, "queue busy cannot be deleted because it has allocated Pods: 1"),
    ("idle", True, ""),
    ("parent", True, "queue parent can not be deleted because it has 2 child queues: k1, k2"),
])
def test_delete(name: str, check: bool, expected: str) -> None:
    view = _view(_q("busy", pods="200m"), _q("idle", pods="0"), _q("parent"), _q("k2", "parent"),
                 _q("k1", "parent"))
    assert validate_queue_delete(name, view, check_allocated_pods=check) == expected


def test_state_and_several_errors_aggregated() -> None:
    q = _q("q", capability={"cpu": "1"}, deserved={"cpu": "2"})
    q["status"] = {"state": "Unknown"}
    assert validate_queue(q, None, _view()) == (
        '[requestBody.spec.deserved.cpu: Invalid value: "2": deserved[cpu]=2 must be <= capability[cpu]=1, '
        'requestBody.spec.state: Invalid value: "Unknown": queue state must be in [Open Closed]]')
    q = _q("q", deserved={"cpu": "1"}, guarantee={"resource": {"cpu": "1", "memory": "1Gi"}})
    assert validate_queue(q, None, _view()) == (
        'requestBody.spec.deserved.memory: Invalid value: "<nil>": deserved[memory] must be >= guarantee[memory]=1Gi')
    q = _q("q", deserved={"cpu": "1", "memory": "0"}, guarantee={"resource": {"cpu": "1", "memory": "0"}})
    assert validate_queue(q, None, _view()) == ""
    q = _q("q", deserved={"cpu": "999m"}, guarantee={"resource": {"cpu": "1"}})
    assert validate_queue(q, None, _view()) == (
        'requestBody.spec.deserved.cpu: Invalid value: "999m": deserved[cpu]=999m must be >= guarantee[cpu]=1')


def test_mutate_queue_exactly() -> None:
    q: dict[str, Any] = {"metadata": {"name": "q", "annotations": {"volcano.sh/hierarchy": "a/b",
                                                                   "volcano.sh/hierarchy-weights": "2/3"}}}
    mutate_queue(q)
    assert q == {"metadata": {"name": "q", "annotations": {"volcano.sh/hierarchy": "root/a/b",
                                                           "volcano.sh/hierarchy-weights": "1/2/3"}},
                 "spec": {"reclaimable": True, "weight": 1}}
    q = {"metadata": {"name": "q", "annotations": {"volcano.sh/hierarchy": "root/a",
                                                   "volcano.sh/hierarchy-weights": "1/3"}},
         "spec": {"reclaimable": False, "weight": 4}}
    mutate_queue(q)
    assert q["metadata"]["annotations"] == {"volcano.sh/hierarchy": "root/a", "volcano.sh/hierarchy-weights": "1/3"}
    assert q["spec"] == {"reclaimable": False, "weight": 4}
    q = {"metadata": {"name": "q", "annotations": {"volcano.sh/hierarchy": "a"}}, "spec": {"weight": 0}}
    mutate_queue(q)
    assert q["metadata"]["annotations"] == {"volcano.sh/hierarchy": "a"}
    assert q["spec"] == {"weight": 1, "reclaimable": True}


@pytest.mark.parametrize(("field", "spec", "path"), [
    ("capability", {"capability": {"cpu": "1e1000000"}}, "capability.cpu"),
    ("deserved", {"deserved": {"memory": "1x"}}, "deserved.memory"),
    ("guarantee", {"guarantee": {"resource": {"cpu": "one"}}}, "guarantee.resource.cpu")])
def test_unparseable_quantity_names_field_and_pattern(field: str, spec: dict[str, Any], path: str) -> None:
    value = next(iter((spec[field].get("resource") or spec[field]).values()))
    assert validate_queue(_q("q", **spec), None, _view()) == (
        f'requestBody.spec.{path}: Invalid value: "{value}": quantities must match the regular expression '
        "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")


def test_negative_quantities_each_reported() -> None:
    q = _q("q", capability={"cpu": "-1", "memory": "-1Gi"})
    assert validate_queue(q, None, _view()) == (
        '[requestBody.spec.capability.cpu: Invalid value: "-1": must be greater than or equal to 0, '
        'requestBody.spec.capability.memory: Invalid value: "-1Gi": must be greater than or equal to 0]')


@pytest.mark.parametrize(("queue", "parent"), [
    ({"metadata": {"name": "root"}}, ""), ({"metadata": {"name": "root"}, "spec": {"parent": "x"}}, ""),
    ({"metadata": {"name": "q"}}, "root"), ({"metadata": {"name": "q"}, "spec": {"parent": ""}}, "root"),
    ({"metadata": {"name": "q"}, "spec": {"parent": "p"}}, "p")])
def test_effective_parent(queue: dict[str, Any], parent: str) -> None:
    assert queue_parent(queue) == parent


def test_root_is_not_its_own_child() -> None:
    """Deleting root is refused by name; deleting a queue lists only its real children."""
    view = _view(_q("a"), _q("b", "a"))
    assert validate_queue_delete("a", view) == "queue a can not be deleted because it has 1 child queues: b"
    assert validate_queue_delete("b", view) == ""


def test_parent_change_alone_runs_the_resource_checks() -> None:
    small = _q("small", capability={"cpu": "2"})
    old = _q("mover", capability={"cpu": "4"})
    new = _q("mover", "small", capability={"cpu": "4"})
    assert validate_queue(new, old, _view(small, old)) == (
        "queue mover capability[cpu]=4 exceeds its ancestor's capability=2")
    assert validate_queue(_q("mover", weight=2, capability={"cpu": "4"}), old, _view(small, old)) == ""
