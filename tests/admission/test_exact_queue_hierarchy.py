"""Exact verdicts of the Queue webhook's hierarchical checks as upstream ``validate_queue.go`` writes them:
``api.Resource`` sums printed as ``cpu <milli>.00, memory <bytes>.00, <name> <milli>.00``, ``LessPartly``
with absent resources as zero, the nearest ancestor per resource, the descendants' subtree maximum, the
first error only after the aggregated field errors, and quantities printed in canonical form."""

from __future__ import annotations

from typing import Any

import pytest

from volcano.admission.lookup import StaticView
from volcano.admission.queue import validate_queue
from volcano.admission.queue_resources import Res, canonical_quantity, format_single, new_resource


def _q(name: str, parent: str = "", **spec: Any) -> dict[str, Any]:
    obj: dict[str, Any] = {"metadata": {"name": name}, "spec": dict(spec)}
    if parent:
        obj["spec"]["parent"] = parent
    return obj


def _g(**resources: str) -> dict[str, Any]:
    return {"resource": dict(resources)}


def _view(*queues: dict[str, Any]) -> StaticView:
    return StaticView(queues=[_q("root"), _q("default"), *queues])


@pytest.mark.parametrize(("text", "canonical"), [
    ("4000m", "4"), ("2001m", "2001m"), ("0.5", "500m"), ("1024Mi", "1Gi"), ("1.5Ki", "1536"), ("0.5Ki", "512"),
    ("1500", "1500"), ("2000", "2k"), ("1G", "1G"), ("1E", "1E"), ("1e3", "1e3"), ("1e0", "1"),
    ("1500e-3", "1500e-3"), ("0.1n", "1n"), ("-1", "-1"), ("0", "0"), ("000", "0"), (5, "5"), (0.5, "500m")])
def test_canonical_quantity(text: object, canonical: str) -> None:
    """``Quantity.String()``: the suffix picks the format, the value the largest exact suffix."""
    assert canonical_quantity(text) == canonical


def test_resource_string_and_parse() -> None:
    res = new_resource({"cpu": "1500m", "memory": "1Ki", "pods": "2500m", "nvidia.com/gpu": "2",
                        "ephemeral-storage": "1", "hugepages-2Mi": "0", "count/pods": "3", "foo": "1"})
    assert str(res) == ("cpu 1500.00, memory 1024.00, ephemeral-storage 1000.00, hugepages-2Mi 0.00, "
                        "nvidia.com/gpu 2000.00, pods 3.00")
    assert list(res.names()) == ["cpu", "memory", "ephemeral-storage", "nvidia.com/gpu", "pods"]
    assert str(new_resource(None)) == "cpu 0.00, memory 0.00"


@pytest.mark.parametrize(("left", "right", "less"), [
    ({"cpu": "1"}, {"cpu": "1"}, False), ({"cpu": "1"}, {"cpu": "1001m"}, True),
    ({"memory": "1Gi"}, {"memory": "1025Mi"}, True), ({"cpu": "2"}, {"memory": "1"}, True),
    ({}, {"nvidia.com/gpu": "0"}, True), ({"nvidia.com/gpu": "1"}, {}, False),
    ({"nvidia.com/gpu": "1"}, {"nvidia.com/gpu": "1"}, False), ({"nvidia.com/gpu": "1"}, {"nvidia.com/gpu": "2"}, True),
    ({"cpu": "1"}, {}, False)])
def test_less_partly_zero(left: dict[str, str], right: dict[str, str], less: bool) -> None:
    assert new_resource(left).less_partly(new_resource(right)) is less


@pytest.mark.parametrize(("name", "value", "text"), [
    ("cpu", 4001, "4001m"), ("cpu", 4000, "4"), ("memory", 2 * 1024**3, "2Gi"), ("memory", 1_500_000_000, "1500000000"),
    ("memory", 1000, "1k"), ("nvidia.com/gpu", 4000, "4000.00"), ("pods", 3, "3.00")])
def test_format_single(name: str, value: int, text: str) -> None:
    assert format_single(name, value) == text


@pytest.mark.parametrize(("cap", "ancestor", "message"), [
    ({"cpu": "4001m"}, {"cpu": "4"}, "queue c capability[cpu]=4001m exceeds its ancestor's capability=4"),
    ({"cpu": "4"}, {"cpu": "4000m"}, ""),
    ({"memory": "2Gi"}, {"memory": "1Gi"}, "queue c capability[memory]=2Gi exceeds its ancestor's capability=1Gi"),
    ({"memory": "1.5G"}, {"memory": "1G"},
     "queue c capability[memory]=1500000000 exceeds its ancestor's capability=1000000000"),
    ({"nvidia.com/gpu": "4"}, {"nvidia.com/gpu": "2"},
     "queue c capability[nvidia.com/gpu]=4000.00 exceeds its ancestor's capability=2000.00"),
    ({"cpu": "8", "memory": "8Gi"}, {"cpu": "4", "memory": "4Gi"},
     "queue c capability[cpu]=8 exceeds its ancestor's capability=4"),
    ({"cpu": "1", "memory": "8Gi"}, {"cpu": "4", "memory": "4Gi"},
     "queue c capability[memory]=8Gi exceeds its ancestor's capability=4Gi"),
    ({"cpu": "8"}, {"cpu": "0"}, ""), ({"cpu": "8"}, {"memory": "1Gi"}, "")])
def test_capability_against_its_ancestor(cap: dict[str, str], ancestor: dict[str, str], message: str) -> None:
    """The first resource over the ancestor's (cpu, memory, then the others) is named; an ancestor's zero or
    absent resource sets no limit."""
    assert validate_queue(_q("c", "p", capability=cap), None, _view(_q("p", capability=ancestor))) == message


def test_nearest_ancestor_is_found_per_resource() -> None:
    """A parent with a memory capability only does not hide the grandparent's cpu capability."""
    view = _view(_q("g", capability={"cpu": "2"}), _q("p", "g", capability={"memory": "1Gi"}))
    assert validate_queue(_q("c", "p", capability={"cpu": "3"}), None, view) == (
        "queue c capability[cpu]=3 exceeds its ancestor's capability=2")
    assert validate_queue(_q("c", "p", capability={"cpu": "2", "memory": "1Gi"}), None, view) == ""


@pytest.mark.parametrize(("parent", "child", "message"), [
    (_q("p"), {"guarantee": _g(cpu="1"), "deserved": {"cpu": "1"}},
     "parent queue p validation failed: sum of children's guarantee (cpu 1000.00, memory 0.00) exceeds parent's "
     "guarantee limit (cpu 0.00, memory 0.00)"),
    (_q("p", guarantee=_g(cpu="1")), {"guarantee": _g(**{"nvidia.com/gpu": "0"}), "deserved": {"nvidia.com/gpu": "0"}},
     "parent queue p validation failed: sum of children's guarantee (cpu 0.00, memory 0.00, nvidia.com/gpu 0.00) "
     "exceeds parent's guarantee limit (cpu 1000.00, memory 0.00)"),
    (_q("p", deserved={"cpu": "1"}), {"deserved": {"cpu": "1", "memory": "1"}},
     "parent queue p validation failed: sum of children's deserved (cpu 1000.00, memory 1.00) exceeds parent's "
     "deserved limit (cpu 1000.00, memory 0.00)"),
    (_q("p", deserved={"cpu": "1"}), {"deserved": {"cpu": "1"}}, ""),
    (_q("p", deserved={"pods": "2"}), {"deserved": {"pods": "3"}},
     "parent queue p validation failed: sum of children's deserved (cpu 0.00, memory 0.00, pods 3.00) exceeds "
     "parent's deserved limit (cpu 0.00, memory 0.00, pods 2.00)")])
def test_sum_against_the_parent_treats_absent_as_zero(parent: dict[str, Any], child: dict[str, Any],
                                                      message: str) -> None:
    """``LessPartly(sum, Zero)``: a resource the parent does not set is a zero limit, even for a zero sum."""
    assert validate_queue(_q("c", "p", **child), None, _view(parent)) == message


def test_running_sum_reports_the_first_overflow_in_name_order() -> None:
    """Siblings in name order, the guarantee checked before the deserved of the same sibling, the new queue
    last: the sum printed is the running one."""
    parent = _q("p", guarantee=_g(cpu="2"), deserved={"cpu": "4"})
    siblings = [_q("a", "p", guarantee=_g(cpu="1"), deserved={"cpu": "3"}),
                _q("b", "p", guarantee=_g(cpu="1"), deserved={"cpu": "3"})]
    assert validate_queue(_q("z", "p", guarantee=_g(cpu="1"), deserved={"cpu": "1"}), None,
                          _view(parent, *siblings)) == (
        "parent queue p validation failed: sum of children's deserved (cpu 6000.00, memory 0.00) exceeds parent's "
        "deserved limit (cpu 4000.00, memory 0.00)")


def test_only_the_first_hierarchy_error_is_returned() -> None:
    parent = _q("p", capability={"cpu": "1"}, guarantee=_g(cpu="1"), deserved={"cpu": "1"})
    child = _q("c", "p", capability={"cpu": "2"}, guarantee=_g(cpu="2"), deserved={"cpu": "2"})
    assert validate_queue(child, None, _view(parent)) == "queue c capability[cpu]=2 exceeds its ancestor's capability=1"


def test_field_errors_come_alone() -> None:
    """The aggregated field errors are returned before any parent or hierarchy check runs."""
    assert validate_queue(_q("c", "missing", capability={"cpu": "-1"}), None, _view()) == (
        'requestBody.spec.capability.cpu: Invalid value: "-1": must be greater than or equal to 0')


def test_descendants_max_reads_the_subtree() -> None:
    """A child without a capability passes on its own children's largest."""
    old = _q("p", capability={"cpu": "8"})
    view = _view(old, _q("k", "p"), _q("g1", "k", capability={"cpu": "4"}), _q("g2", "k", capability={"cpu": "3"}))
    assert validate_queue(_q("p", capability={"cpu": "3"}), old, view) == (
        "queue p capability[cpu]=3 is smaller than its descendants' max capability=4")
    assert validate_queue(_q("p", capability={"cpu": "4"}), old, view) == ""


def test_children_sum_on_update() -> None:
    old = _q("p", deserved={"cpu": "4"})
    view = _view(old, _q("a", "p", deserved={"cpu": "2"}), _q("b", "p", deserved={"cpu": "2"}))
    assert validate_queue(_q("p", deserved={"cpu": "3"}), old, view) == (
        "queue p validation failed: sum of children's deserved (cpu 4000.00, memory 0.00) exceeds parent's "
        "deserved limit (cpu 3000.00, memory 0.00)")


def test_semantically_equal_update_skips_the_hierarchy_checks() -> None:
    """``equality.Semantic``: ``1`` and ``1000m`` are the same capability, so an existing excess is not
    re-checked; a real change is."""
    old = _q("c", "p", capability={"cpu": "2"})
    view = _view(_q("p", capability={"cpu": "1"}), old)
    assert validate_queue(_q("c", "p", capability={"cpu": "2000m"}), old, view) == ""
    assert validate_queue(_q("c", "p", capability={"cpu": "2001m"}), old, view) == (
        "queue c capability[cpu]=2001m exceeds its ancestor's capability=1")
    root = _q("root", capability={"cpu": "1"})
    assert validate_queue(_q("root", capability={"cpu": "1000m"}), root, _view()) == ""
    assert validate_queue(_q("root", capability={"cpu": "2"}), root, _view()) == (
        "root queue's resource attributes (capability, deserved, guarantee) cannot be modified")


@pytest.mark.parametrize(("spec", "message"), [
    ({"guarantee": _g(cpu="0")},
     'requestBody.spec.deserved.cpu: Invalid value: "<nil>": deserved[cpu] must be >= guarantee[cpu]=0'),
    ({"guarantee": _g(cpu="-1")},
     '[requestBody.spec.guarantee.resource.cpu: Invalid value: "-1": must be greater than or equal to 0, '
     'requestBody.spec.deserved.cpu: Invalid value: "<nil>": deserved[cpu] must be >= guarantee[cpu]=-1]'),
    ({"deserved": {"cpu": "1000m"}, "guarantee": _g(cpu="2")},
     'requestBody.spec.deserved.cpu: Invalid value: "1": deserved[cpu]=1 must be >= guarantee[cpu]=2'),
    ({"capability": {"memory": "1024Mi"}, "deserved": {"memory": "1025Mi"}},
     'requestBody.spec.deserved.memory: Invalid value: "1025Mi": deserved[memory]=1025Mi must be <= '
     "capability[memory]=1Gi"),
    ({"capability": {"nvidia.com/gpu": "-2"}},
     'requestBody.spec.capability.nvidia.com/gpu: Invalid value: "-2": must be greater than or equal to 0')])
def test_field_chain_messages(spec: dict[str, Any], message: str) -> None:
    """Every guarantee resource needs a deserved one (zero too); quantities print in canonical form."""
    assert validate_queue(_q("q", **spec), None, _view()) == message


def test_res_add_keeps_zero_entries() -> None:
    total = Res()
    total.add(new_resource({"nvidia.com/gpu": "0"}))
    assert total.scalars == {"nvidia.com/gpu": 0}
    assert total.get("nvidia.com/gpu") == 0 and total.get("cpu") == 0


@pytest.mark.parametrize(("pods", "shown"), [("2002", 2002), ("1001500m", 1002), ("1", 1)])
def test_allocated_pods_are_read_as_quantity_value(pods: str, shown: int) -> None:
    """``Quantity.Value()`` (rounded up) of ``status.allocated.pods``, whatever its size."""
    busy = _q("busy")
    busy["status"] = {"state": "Open", "allocated": {"pods": pods}}
    assert validate_queue(_q("c", "busy"), None, _view(busy)) == (
        f"queue busy cannot be the parent queue of queue c because it has allocated Pods: {shown}")
