"""capacity with enableHierarchy: Test_capacityPlugin_OnSessionOpenWithHierarchy (catalogue §5.8)."""

from __future__ import annotations

from typing import Any

from tests.scheduler.harness import Result, conf, node, opt, pg, pod, queue, res, run
from volcano.scheduler.plugins.capacity import CapacityPlugin

CONF = conf(["enqueue", "reclaim", "allocate"],
            [opt("gang", "jobStarving", "jobReady", "jobPipelined"),
             opt("capacity", "allocatable", "preemptive", "reclaimable", "queueOrder", "jobEnqueued", "hierarchy"),
             opt("predicates", "predicate")])


def hq(name: str, parent: str = "root", deserved: dict[str, str] | None = None,
       capability: dict[str, str] | None = None, guarantee: dict[str, str] | None = None) -> dict[str, Any]:
    q = queue(name, capability=capability, deserved=deserved)
    if name != "root":
        q["spec"]["parent"] = parent
    if guarantee:
        q["spec"]["guarantee"] = {"resource": guarantee}
    return q


TREE = [hq("root"), hq("q1", capability=res(4, "4Gi")), hq("q2", capability=res(4, "4Gi")),
        hq("q11", "q1", capability=res(1, "1Gi")), hq("q12", "q1", capability=res(3, "3Gi"))]
N1 = [node("n1", res(8, "8Gi", pods=11))]


def P(name: str, group: str, node_name: str = "", phase: str = "Pending", req: dict[str, str] | None = None,
      **kw: Any) -> dict[str, Any]:
    return pod("ns", name, node_name, phase, req or res(1, "1Gi"), group, **kw)


def _run(queues: list[dict[str, Any]], pods: list[dict[str, Any]], pgs: list[dict[str, Any]],
         nodes: list[dict[str, Any]] | None = None) -> Result:
    return run(CONF, nodes=nodes or N1, queues=queues, pods=pods, podgroups=pgs)


def test_case0_leaf_queue_allocates() -> None:
    r = _run(TREE, [P("p1", "pg1")], [pg("pg1", "ns", "q11", 1)])
    assert r.binds == {"ns/p1": "n1"}


def test_case1_non_leaf_queue_never_allocates() -> None:
    r = _run(TREE, [P("p2", "pg2")], [pg("pg2", "ns", "q1", 1, "Pending")])
    assert r.binds == {}
    assert r.session.jobs["ns/pg2"].ready_task_num() == 0


def test_case4_ancestor_real_capability_blocks() -> None:
    tree = [hq("root"), hq("q3", deserved=res(4, "4Gi"), capability=res(4, "4Gi")),
            hq("q31", "q3", capability=res(4, "4Gi")), hq("q32", "q3", capability=res(4, "4Gi")),
            hq("q33", "q3", capability=res(4, "4Gi"))]
    pods = [P("p6", "pg5", "n1", "Running", res(2, "2Gi")), P("p9", "pg7", "n1", "Running", res(2, "2Gi")),
            P("p10", "pg8", req=res(3, "3Gi"))]
    r = _run(tree, pods, [pg("pg5", "ns", "q31", 1, "Running"), pg("pg7", "ns", "q32", 1, "Running"),
                          pg("pg8", "ns", "q33", 1)])
    assert r.binds == {}


def test_case5_capability_inherited_from_parent() -> None:
    tree = [hq("root"), hq("q5", capability={"memory": "4Gi"}), hq("q51", "q5", capability={"memory": "2Gi"})]
    r = _run(tree, [P("p11", "pg9", req={"cpu": "1"})], [pg("pg9", "ns", "q51", 1, "Running")])
    assert r.binds == {"ns/p11": "n1"}


def test_case6_enqueue_checks_every_ancestor() -> None:
    tree = [hq("root"), hq("q6", capability=res(2, "4Gi")), hq("q61", "q6"), hq("q62", "q6")]
    pgs = [pg("pg10", "ns", "q61", 1, "Pending", min_resources=res(2, "4Gi")),
           pg("pg11", "ns", "q62", 1, "Pending", min_resources=res(2, "4Gi"))]
    r = _run(tree, [], pgs)
    assert (r.phase("ns/pg10"), r.phase("ns/pg11")) == ("Inqueue", "Pending")


def test_case7_children_guarantees_beyond_parent_do_not_break() -> None:
    tree = [hq("root"), hq("q7", capability=res(6, "4Gi")),
            hq("q71", "q7", capability=res(6, "4Gi"), guarantee=res(4, "3Gi")),
            hq("q72", "q7", capability=res(6, "4Gi"), guarantee=res(4, "3Gi"))]
    r = _run(tree, [], [])
    plugin = r.session.plugins["capacity"]
    assert isinstance(plugin, CapacityPlugin) and plugin.tree is not None and plugin.tree.valid
    assert plugin.attrs["q7"].quota.real["cpu"] == 6000  # unbounded root, capped by q7's capability
    assert plugin.attrs["q71"].quota.real["cpu"] == 4000  # max(0, 6 − 8) + 4


def test_cycle_in_parents_makes_the_tree_invalid() -> None:
    tree = [hq("root"), hq("a", "b"), hq("b", "a")]
    r = _run(tree, [P("p", "g")], [pg("g", "ns", "a", 1)])
    plugin = r.session.plugins["capacity"]
    assert isinstance(plugin, CapacityPlugin) and plugin.tree is not None and not plugin.tree.valid
    assert r.binds == {}
