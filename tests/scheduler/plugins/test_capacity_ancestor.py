"""capacity ``ancestorReclaimLevel``: Test_capacityPlugin_AncestorReclaimScenarios (catalogue §5.8).

Actions enqueue, reclaim, allocate; capacity with hierarchy, predicates, gang
(jobStarving) and, where upstream adds it, priority (job and task order).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.scheduler.harness import Result, conf, node, opt, pg, pod, queue, res, run
from volcano.scheduler.plugins.capacity import CapacityPlugin

A100, HCA = "nvidia.com/a100", "rdma/hca"
Obj = dict[str, Any]


def _conf(level: int, with_priority: bool) -> Any:
    plugins = [opt("capacity", "allocatable", "preemptive", "reclaimable", "queueOrder", "hierarchy", "jobEnqueued",
                   ancestorReclaimLevel=level),
               opt("predicates", "predicate"), opt("gang", "jobStarving")]
    if with_priority:
        plugins.append(opt("priority", "jobOrder", "taskOrder"))
    return conf(["enqueue", "reclaim", "allocate"], plugins)


def hq(name: str, parent: str = "root", deserved: dict[str, str] | None = None,
       capability: dict[str, str] | None = None) -> Obj:
    q = queue(name, capability=capability, deserved=deserved)
    if name != "root":
        q["spec"]["parent"] = parent
    return q


def P(name: str, group: str, node_name: str = "", phase: str = "Pending", req: dict[str, str] | None = None,
      **kw: Any) -> Obj:
    return pod("ns1", name, node_name=node_name, phase=phase, req=req or res(1, "1Gi", **{A100: 1, HCA: 1}),
               group=group, **kw)


def _run(level: int, queues: list[Obj], pods: list[Obj], pgs: list[Obj], nodes: list[Obj],
         with_priority: bool = False) -> Result:
    return run(_conf(level, with_priority), nodes=nodes, queues=queues, pods=pods, podgroups=pgs)


BIG = [node("n1", res(16, "16Gi", pods=11, **{A100: 4, HCA: 1001}))]
ROOT = hq("root", deserved=res(16, "16Gi", **{A100: 4, "rdma": 1000}))


def _project_tree() -> list[Obj]:
    return [ROOT,
            hq("project1_root", deserved={A100: "1"}, capability={A100: "2"}),
            hq("project1_non-preemptable", "project1_root", deserved={A100: "1"}, capability={A100: "1"}),
            hq("project1_preemptable", "project1_root"),
            hq("project2_root", deserved={A100: "3"}, capability={A100: "4"}),
            hq("project2_non-preemptable", "project2_root", deserved={A100: "3"}, capability={A100: "3"}),
            hq("project2_preemptable", "project2_root")]


@pytest.mark.parametrize(("level", "evicted", "pipelined"), [
    pytest.param(1, ["ns1/p1"], ["n1"], id="level 1 reclaims on the parent's deserved"),
    # Without ancestor reclaim the leaf (no deserved) may not reclaim: nothing is evicted.
    pytest.param(0, [], [], id="level 0 keeps the leaf rule"),
])
def test_case1_ancestor_reclaim_level(level: int, evicted: list[str], pipelined: list[str]) -> None:
    queues = [ROOT, hq("case1_queue1", deserved={A100: "1"}), hq("case1_queue11", "case1_queue1"),
              hq("case1_queue2")]
    pods = [P("p1", "pg1", "n1", "Running", res(1, "1Gi", **{A100: 4, HCA: 1})), P("p2", "pg2")]
    pgs = [pg("pg1", "ns1", "case1_queue2", 1, "Running"), pg("pg2", "ns1", "case1_queue11", 1)]
    r = _run(level, queues, pods, pgs, BIG, with_priority=True)
    assert r.evicted == evicted
    assert r.pipelined("ns1/pg2") == pipelined


def test_case2_cross_parent_reclaim_takes_the_lowest_priority_task() -> None:
    pods = [P(f"p{i}", f"pg{i}", "n1", "Running", priority=2) for i in (1, 2, 3)]
    pods += [P("p4", "pg4", "n1", "Running", priority=1), P("p5", "pg5")]
    pgs = [pg(f"pg{i}", "ns1", "project2_preemptable", 1, "Running") for i in (1, 2, 3, 4)]
    pgs.append(pg("pg5", "ns1", "project1_preemptable", 1, "Pending"))
    r = _run(1, _project_tree(), pods, pgs, BIG, with_priority=True)
    assert r.evicted == ["ns1/p4"]
    assert r.pipelined("ns1/pg5") == ["n1"]


def test_case3_cross_parent_reclaim_evicts_the_sibling_queue_first() -> None:
    pods = [P(f"p{i}", f"pg{i}", "n1", "Running", priority=2) for i in (1, 2, 3)]
    pods += [P("p4", "pg4_reclaimed"), P("p5", "pg5_pipelined", "n1", "Running"), P("p6", "pg6")]
    pgs = [pg(f"pg{i}", "ns1", "project2_preemptable", 1, "Running") for i in (1, 2, 3)]
    pgs += [pg("pg4_reclaimed", "ns1", "project2_preemptable", 1, "Inqueue"),
            pg("pg5_pipelined", "ns1", "project1_preemptable", 1, "Running"),
            pg("pg6", "ns1", "project2_non-preemptable", 1, "Pending")]
    r = _run(1, _project_tree(), pods, pgs, BIG, with_priority=True)
    assert r.evicted == ["ns1/p3"]
    assert r.pipelined("ns1/pg6") == ["n1"]


def test_case4_blocked_when_the_victim_child_is_not_over_deserved() -> None:
    nodes = [node("n1", res(8, "8Gi", pods=11, **{A100: 1, HCA: 1001}))]
    queues = [ROOT, hq("case4_parent1", deserved={A100: "1"}),
              hq("case4_child1", "case4_parent1", deserved={A100: "1"}), hq("case4_child1_sibling", "case4_parent1"),
              hq("case4_parent2", deserved={A100: "1"}), hq("case4_child2", "case4_parent2", deserved={A100: "1"})]
    pods = [P("p1", "pg1", "n1", "Running"), P("p2", "pg2"),
            P("p3", "pg3", "n1", "Running", annotations={"volcano.sh/preemptable": "false"})]
    pgs = [pg("pg1", "ns1", "case4_child1", 1, "Running"), pg("pg2", "ns1", "case4_child2", 1, "Pending"),
           pg("pg3", "ns1", "case4_child1_sibling", 1, "Running")]
    r = _run(1, queues, pods, pgs, nodes, with_priority=True)
    assert r.evicted == []
    assert r.binds == {}


SMALL = [node("n1", res(2, "2Gi", pods=10))]


def _level_tree() -> list[Obj]:
    return [hq("root"),
            hq("grand-a", deserved=res(2, "2Gi"), capability=res(4, "4Gi")),
            hq("parent-a", "grand-a", deserved=res(2, "2Gi"), capability=res(2, "2Gi")),
            hq("queue-a", "parent-a", deserved=res(2, "2Gi"), capability=res(2, "2Gi")),
            hq("grand-b", deserved=res(3, "3Gi"), capability=res(4, "4Gi")),
            hq("parent-b", "grand-b", deserved=res(1, "1Gi"), capability=res(2, "2Gi")),
            hq("queue-b", "parent-b", deserved=res(1, "1Gi"), capability=res(2, "2Gi"))]


def _victim_and_reclaimer(victim_queue: str, reclaimer_queue: str, victim_req: dict[str, str] | None = None,
                          reclaimer_req: dict[str, str] | None = None) -> tuple[list[Obj], list[Obj]]:
    pods = [pod("ns1", "p-victim", node_name="n1", phase="Running", req=victim_req or res(2, "2Gi"),
                group="pg-victim"),
            pod("ns1", "p-reclaimer", req=reclaimer_req or res(2, "2Gi"), group="pg-reclaimer")]
    pgs = [pg("pg-victim", "ns1", victim_queue, 1, "Running"), pg("pg-reclaimer", "ns1", reclaimer_queue, 1)]
    return pods, pgs


@pytest.mark.parametrize(("level", "evicted"), [(0, ["ns1/p-victim"]), (1, ["ns1/p-victim"]), (2, [])],
                         ids=["case5-level0-leaf-checks", "case6-level1-parent-passes", "case7-level2-grand-fails"])
def test_cases5_to_7_level_semantics(level: int, evicted: list[str]) -> None:
    pods, pgs = _victim_and_reclaimer("queue-b", "queue-a")
    r = _run(level, _level_tree(), pods, pgs, SMALL)
    assert r.evicted == evicted
    assert r.pipelined("ns1/pg-reclaimer") == (["n1"] if evicted else [])


def test_case8_level1_blocks_sibling_reclaim_without_leaf_deserved() -> None:
    queues = [hq("root"), hq("parent", deserved=res(4, "4Gi"), capability=res(4, "4Gi")),
              hq("queue-a", "parent"), hq("queue-b", "parent")]
    pods, pgs = _victim_and_reclaimer("queue-b", "queue-a")
    r = _run(1, queues, pods, pgs, SMALL)
    assert r.evicted == []


def test_case9_level2_blocks_reclaim_under_a_shared_grandparent() -> None:
    queues = [hq("root"), hq("grand", deserved=res(2, "2Gi"), capability=res(2, "2Gi")),
              hq("parent-a", "grand"), hq("queue-a", "parent-a"), hq("parent-b", "grand"), hq("queue-b", "parent-b")]
    pods, pgs = _victim_and_reclaimer("queue-b", "queue-a")
    r = _run(2, queues, pods, pgs, SMALL)
    assert r.evicted == []


def test_case10_level2_blocks_reclaim_in_an_unbalanced_shared_tree() -> None:
    queues = [hq("root"), hq("grand", deserved=res(1, "1Gi"), capability=res(2, "2Gi")),
              hq("parent-deep", "grand", deserved=res(1, "1Gi"), capability=res(2, "2Gi")),
              hq("queue-deep", "parent-deep"), hq("queue-shallow", "grand")]
    pods, pgs = _victim_and_reclaimer("queue-deep", "queue-shallow")
    r = _run(2, queues, pods, pgs, SMALL)
    assert r.evicted == []


def test_case11_level2_blocks_when_the_depth2_ancestor_is_not_over_deserved() -> None:
    nodes = [node("n1", res(4, "4Gi", pods=10, **{A100: 2}))]
    queues = [hq("root"), hq("shallow-parent", deserved={A100: "1"}),
              hq("queue-shallow", "shallow-parent", deserved={A100: "1"}),
              hq("deep-grand", deserved={A100: "2"}), hq("deep-parent", "deep-grand", deserved={A100: "1"}),
              hq("queue-deep", "deep-parent", deserved={A100: "1"})]
    pods, pgs = _victim_and_reclaimer("queue-deep", "queue-shallow", res(1, "1Gi", **{A100: 2}),
                                      res(1, "1Gi", **{A100: 1}))
    r = _run(2, queues, pods, pgs, nodes)
    assert r.evicted == []


def test_negative_level_falls_back_to_zero() -> None:
    pods, pgs = _victim_and_reclaimer("queue-b", "queue-a")
    r = _run(-3, _level_tree(), pods, pgs, SMALL)
    plugin = r.session.plugins["capacity"]
    assert isinstance(plugin, CapacityPlugin) and plugin.ancestor_reclaim_level == 0
    assert r.evicted == ["ns1/p-victim"]
