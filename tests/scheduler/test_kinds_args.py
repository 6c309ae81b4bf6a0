"""Kinds pinned whole: the plugin and action arguments the scheduler parses.

The typed getters as Volcano's argument parser reads them (a bool or a string Go's
``strconv.ParseBool`` accepts; an int only as a YAML int; a float as a YAML number), every
``binpack.*`` weight parsed as a whole (negative weights become 1, wrong types keep the default),
and for each argument an outcome it changes: the taint check switched off by a quoted
``"false"``, the overcommit factor at its limit and one step each side, a negative GPU weight, the
balanced-allocation scorer deciding for a pod that requests no memory.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.scheduler.harness import conf, node, opt, pg, pod, queue, res, run
from volcano.scheduler.framework.extension import Arguments
from volcano.scheduler.framework.task import parse_bool
from volcano.scheduler.plugins.binpack import BinpackWeights, parse_binpack_arguments

TRUE_TEXTS = ("1", "t", "T", "true", "TRUE", "True")
FALSE_TEXTS = ("0", "f", "F", "false", "FALSE", "False")


def test_parse_bool_is_gos_parse_bool() -> None:
    assert [parse_bool(t) for t in TRUE_TEXTS] == [True] * 6
    assert [parse_bool(t) for t in FALSE_TEXTS] == [False] * 6
    assert [parse_bool(v) for v in (True, False, "yes", "no", "", "tRUE", " true", "2", 1, 0)] == \
        [True, False, None, None, None, None, None, None, True, False]


@pytest.mark.parametrize("default", [True, False])
def test_get_bool_reads_bools_and_parse_bool_texts_else_the_default(default: bool) -> None:
    values: dict[str, Any] = {"t": True, "f": False, "st": "true", "sf": "false", "s1": "1", "s0": "0",
                              "bad": "maybe", "int1": 1, "int0": 0, "none": None, "list": ["true"]}
    a = Arguments(values)
    got = {k: a.get_bool(k, default) for k in [*values, "missing"]}
    assert got == {"t": True, "f": False, "st": True, "sf": False, "s1": True, "s0": False, "bad": default,
                   "int1": default, "int0": default, "none": default, "list": default, "missing": default}


def test_get_int_float_and_str_take_only_their_yaml_types() -> None:
    a = Arguments({"i": 3, "neg": -2, "f": 1.5, "s": "7", "b": True, "sf": "1.5", "z": 0})
    assert {k: a.get_int(k, 9) for k in ("i", "neg", "f", "s", "b", "sf", "z", "missing")} == \
        {"i": 3, "neg": -2, "f": 9, "s": 9, "b": 9, "sf": 9, "z": 0, "missing": 9}
    assert {k: a.get_float(k, 0.25) for k in ("i", "neg", "f", "s", "b", "sf", "z", "missing")} == \
        {"i": 3.0, "neg": -2.0, "f": 1.5, "s": 0.25, "b": 0.25, "sf": 0.25, "z": 0.0, "missing": 0.25}
    assert {k: a.get_str(k, "d") for k in ("i", "s", "sf", "b", "missing")} == \
        {"i": "d", "s": "7", "sf": "1.5", "b": "d", "missing": "d"}
    assert sorted(a) == ["b", "f", "i", "neg", "s", "sf", "z"] and len(a) == 7 and a["s"] == "7"


GPU = "nvidia.com/gpu"


@pytest.mark.parametrize(("args", "expected"), [
    ({}, BinpackWeights(1, {"cpu": 1, "memory": 1})),
    ({"binpack.weight": 5, "binpack.cpu": 0, "binpack.memory": 3}, BinpackWeights(5, {"cpu": 0, "memory": 3})),
    ({"binpack.cpu": -1, "binpack.memory": -7}, BinpackWeights(1, {"cpu": 1, "memory": 1})),
    ({"binpack.weight": "5", "binpack.cpu": "2", "binpack.memory": 2.0}, BinpackWeights(1, {"cpu": 1, "memory": 1})),
    ({"binpack.resources": f"{GPU}, example.com/foo", f"binpack.resources.{GPU}": 3},
     BinpackWeights(1, {"cpu": 1, "memory": 1, GPU: 3, "example.com/foo": 1})),
    ({"binpack.resources": GPU, f"binpack.resources.{GPU}": -1}, BinpackWeights(1, {"cpu": 1, "memory": 1, GPU: 1})),
    ({"binpack.resources": GPU, f"binpack.resources.{GPU}": 0}, BinpackWeights(1, {"cpu": 1, "memory": 1, GPU: 0})),
    ({"binpack.resources": GPU, f"binpack.resources.{GPU}": "4"}, BinpackWeights(1, {"cpu": 1, "memory": 1, GPU: 1})),
    ({"binpack.resources": f"cpu,,{GPU}", "binpack.resources.cpu": 9, "binpack.cpu": 2},
     BinpackWeights(1, {"cpu": 2, "memory": 1, GPU: 1})),
    ({"binpack.resources": 3}, BinpackWeights(1, {"cpu": 1, "memory": 1})),
])
def test_binpack_arguments_parse_whole(args: dict[str, Any], expected: BinpackWeights) -> None:
    got = parse_binpack_arguments(Arguments(args))
    assert (got.weight, dict(got.resources)) == (expected.weight, dict(expected.resources))
    assert list(got.resources) == list(expected.resources)


@pytest.mark.parametrize(("gpu_weight", "chosen"), [(2, "full"), (1, "full"), (0, "empty"), (-1, "full")])
def test_a_gpu_task_goes_where_binpack_gpu_weight_sends_it(gpu_weight: int, chosen: str) -> None:
    """Two 4-GPU nodes, ``full`` with 2 GPUs in use, cpu and memory weighted 0: a positive GPU weight (or a
    negative one, read as 1) packs the GPU task onto the fuller node; weight 0 scores both nodes alike and
    the first by name wins."""
    c = conf(["allocate"], [opt("gang", "jobReady", "jobPipelined"), opt("predicates", "predicate"),
                            opt("binpack", "nodeOrder", **{"binpack.cpu": 0, "binpack.memory": 0,
                                                           "binpack.resources": GPU,
                                                           f"binpack.resources.{GPU}": gpu_weight})])
    gpus = {GPU: 4}
    r = run(c, nodes=[node("empty", res(8, "16Gi", **gpus)), node("full", res(8, "16Gi", **gpus))],
            queues=[queue("q")], podgroups=[pg("busy", "ns", "q", 1, "Running"), pg("j", "ns", "q", 1)],
            pods=[pod("ns", "busy-0", group="busy", node_name="full", phase="Running",
                      req=res(1, "1Gi", **{GPU: 2})),
                  pod("ns", "j-0", group="j", req=res(1, "1Gi", **{GPU: 1}))])
    assert r.binds == {"ns/j-0": chosen}


TAINTED = node("n1", res(4, "8Gi"), taints=[{"key": "dedicated", "value": "x", "effect": "NoSchedule"}])


@pytest.mark.parametrize(("value", "bound"), [
    *[(t, False) for t in (*TRUE_TEXTS, True)], *[(f, True) for f in (*FALSE_TEXTS, False)],
    ("no", False), ("", False), (None, False)])
def test_the_taint_check_is_switched_off_only_by_a_false_argument(value: Any, bound: bool) -> None:
    """``predicate.TaintTolerationEnable`` quoted or not: a pod without tolerations binds to the only,
    tainted, node exactly when the argument parses as false (unparsable keeps the default: on)."""
    args = {} if value is None else {"predicate.TaintTolerationEnable": value}
    c = conf(["allocate"], [opt("gang", "jobReady", "jobPipelined"), opt("predicates", "predicate", **args)])
    r = run(c, nodes=[TAINTED], queues=[queue("q")], podgroups=[pg("j", "ns", "q", 1)],
            pods=[pod("ns", "j-0", group="j", req=res(1, "1Gi"))])
    assert r.binds == ({"ns/j-0": "n1"} if bound else {})


@pytest.mark.parametrize(("value", "bound"), [("false", True), ("0", True), ("true", False), ("x", False)])
def test_node_affinity_check_switched_off_by_a_quoted_false(value: str, bound: bool) -> None:
    """``predicate.NodeAffinityEnable``: a pod selecting a label no node has binds only with the check off."""
    c = conf(["allocate"], [opt("gang", "jobReady", "jobPipelined"),
                            opt("predicates", "predicate", **{"predicate.NodeAffinityEnable": value})])
    p = pod("ns", "j-0", group="j", req=res(1, "1Gi"), selector={"zone": "nowhere"})
    r = run(c, nodes=[node("n1", res(4, "8Gi"))], queues=[queue("q")], podgroups=[pg("j", "ns", "q", 1)], pods=[p])
    assert r.binds == ({"ns/j-0": "n1"} if bound else {})


@pytest.mark.parametrize(("factor", "cpu", "admitted"), [
    (1.0, "10", True), (1.0, "10001m", False), (0.999, "12", True), (0.999, "12001m", False),
    ("1.0", "12", True), ("1.0", "12001m", False), (1.5, "15", True), (1.5, "15001m", False),
    (True, "12", True), (True, "12001m", False)])
def test_overcommit_factor_at_its_limit(factor: Any, cpu: str, admitted: bool) -> None:
    """A 10-cpu node: the factor admits minResources up to ``10 * factor`` cpu; below 1 (0.999) the default
    1.2 applies, and so it does for a quoted or boolean value, which the parser does not take as a number."""
    c = conf(["enqueue"], [opt("overcommit", "jobEnqueued", **{"overcommit-factor": factor})])
    r = run(c, nodes=[node("n1", res(10, "100Gi"))], queues=[queue("q")],
            podgroups=[pg("j", "ns", "q", 1, "Pending", min_resources=res(cpu, "1Gi"))],
            pods=[pod("ns", "j-0", group="j", req=res(1, "1Gi"))])
    assert r.phase("ns/j") == ("Inqueue" if admitted else "Pending")


@pytest.mark.parametrize(("weights", "chosen"), [
    ({"leastrequested.weight": 0}, "n2"),
    ({"leastrequested.weight": 0, "balancedresource.weight": 0}, "n1"),
    ({"balancedresource.weight": 0}, "n1"),
    ({"leastrequested.weight": 1, "balancedresource.weight": 2}, "n2"),
])
def test_balanced_allocation_scores_a_pod_without_memory_on_the_cpu_memory_pair(weights: dict[str, int],
                                                                                chosen: str) -> None:
    """Two 4-cpu 8Gi nodes, ``n2`` holding a 4Gi memory-only pod; a 2-cpu pod requesting no memory: the
    balanced scorer (cpu 50% against memory 0% on n1, 50% on n2) prefers n2; least-requested prefers the
    emptier n1; with both weights 0 the first node by name wins."""
    c = conf(["allocate"], [opt("gang", "jobReady", "jobPipelined"), opt("predicates", "predicate"),
                            opt("nodeorder", "nodeOrder", **weights)])
    r = run(c, nodes=[node("n1", res(4, "8Gi")), node("n2", res(4, "8Gi"))], queues=[queue("q")],
            podgroups=[pg("busy", "ns", "q", 1, "Running"), pg("j", "ns", "q", 1)],
            pods=[pod("ns", "busy-0", group="busy", node_name="n2", phase="Running", req={"memory": "4Gi"}),
                  pod("ns", "j-0", group="j", req={"cpu": "2"})])
    assert r.binds == {"ns/j-0": chosen}
