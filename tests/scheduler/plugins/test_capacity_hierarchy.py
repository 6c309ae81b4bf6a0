"""capacity with enableHierarchy: Test_capacityPlugin_OnSessionOpenWithHierarchy (catalogue §5.8), cases 0-12."""

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
    return pod("ns", name, node_name=node_name, phase=phase, req=req or res(1, "1Gi"), group=group, **kw)


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


Q3_TREE = [hq("root"), hq("q3", deserved=res(4, "4Gi", pods=10), capability=res(4, "4Gi", pods=10)),
           hq("q4", deserved=res(2, "2Gi", pods=1), capability=res(4, "4Gi", pods=4)),
           hq("q31", "q3", deserved=res(2, "2Gi", pods=2), capability=res(4, "4Gi", pods=4)),
           hq("q32", "q3", deserved=res(2, "2Gi", pods=2), capability=res(4, "4Gi", pods=4))]


def test_case2_leaf_within_capability_allocates_a_gang() -> None:
    r = _run(Q3_TREE, [P("p3", "pg3", req=res(2, "2Gi")), P("p4", "pg3", req=res(2, "2Gi"))],
             [pg("pg3", "ns", "q31", 2)])
    assert r.binds == {"ns/p3": "n1", "ns/p4": "n1"}


def test_case3_reclaims_from_another_queue_while_below_deserved() -> None:
    pods = [P("p5", "pg4", "n1", "Running", res(4, "4Gi")),
            P("p6", "pg5", "n1", "Running", res(2, "2Gi"), annotations={"volcano.sh/preemptable": "false"}),
            P("p7", "pg5", "n1", "Running", res(2, "2Gi")), P("p8", "pg6", req=res(2, "2Gi"))]
    pgs = [pg("pg4", "ns", "q4", 1, "Running"), pg("pg5", "ns", "q31", 1, "Running"), pg("pg6", "ns", "q32", 1)]
    r = _run(Q3_TREE, pods, pgs)
    assert r.evicted == ["ns/p7"]
    assert r.pipelined("ns/pg6") == ["n1"]
    assert r.binds == {}


GPU = "nvidia.com/gpu"


def test_case8_scalar_in_deserved_still_allocates() -> None:
    tree = [hq("root"), hq("q8", deserved=res(4, "4Gi", **{GPU: 8})),
            hq("q81", "q8", deserved=res(2, "2Gi", **{GPU: 4})), hq("q82", "q8", deserved=res(2, "2Gi", **{GPU: 4}))]
    nodes = [node("n-gpu", res(8, "8Gi", pods=10, **{GPU: 8}))]
    r = _run(tree, [P("p12", "pg12", req=res(2, "2Gi", **{GPU: 1}))], [pg("pg12", "ns", "q81", 1)], nodes)
    assert r.binds == {"ns/p12": "n-gpu"}


N2 = [node("n2", res(8, "8Gi", pods=10, **{GPU: 8, "hugepages-1Gi": 0}))]


def test_case9_zero_scalars_in_deserved_do_not_block() -> None:
    tree = [hq("root"), hq("q9", deserved=res(2, "2Gi", **{GPU: 8, "hugepages-1Gi": 0})),
            hq("q91", "q9", deserved=res(2, "2Gi", **{GPU: 4, "hugepages-1Gi": 0}))]
    r = _run(tree, [P("p13", "pg13", req=res(2, "2Gi", **{GPU: 1}))], [pg("pg13", "ns", "q91", 1)], N2)
    assert r.binds == {"ns/p13": "n2"}


def test_case10_root_capability_beyond_cluster_total() -> None:
    tree = [hq("root", capability=res(16, "16Gi")), hq("q10", capability=res(10, "4Gi"))]
    r = _run(tree, [], [])
    plugin = r.session.plugins["capacity"]
    assert isinstance(plugin, CapacityPlugin) and plugin.tree is not None and plugin.tree.valid
    assert plugin.attrs["root"].quota.real["cpu"] == 16000
    assert plugin.attrs["q10"].quota.real["cpu"] == 10000
    assert plugin.attrs["q10"].quota.real["memory"] == 4 * 1024**3 * 1000


def test_case11_scalar_capability_inherited_from_parent() -> None:
    tree = [hq("root"), hq("case11_queue1"),
            hq("case11_queue11", "case11_queue1", capability=res(4, "4Gi", **{GPU: 4})),
            hq("case11_queue12", "case11_queue1", capability=res(4, "4Gi", **{GPU: 4}))]
    pods = [P("p14", "pg14", req=res(1, "1Gi", **{GPU: 4})), P("p15", "pg15", req=res(1, "1Gi", **{GPU: 4}))]
    pgs = [pg("pg14", "ns", "case11_queue11", 1), pg("pg15", "ns", "case11_queue12", 1)]
    r = _run(tree, pods, pgs, N2)
    assert r.binds == {"ns/p14": "n2", "ns/p15": "n2"}


A100, HCA = "nvidia.com/a100", "rdma/hca"


def test_case12_reclaims_when_within_deserved_on_one_scalar() -> None:
    tree = [hq("root", deserved=res(16, "16Gi", **{A100: 4, "rdma": 1000})),
            hq("case12_queue1", deserved={A100: "2"}), hq("case12_queue11", "case12_queue1", deserved={A100: "2"}),
            hq("case12_queue12", "case12_queue1")]
    nodes = [node("n3", res(16, "16Gi", pods=11, **{A100: 5, HCA: 1001}))]
    req = res(1, "1Gi", **{A100: 2, HCA: 1})
    pods = [P("p16", "pg16", req=req), P("p17", "pg17", "n3", "Running", req),
            P("p18", "pg18", "n3", "Running", req, annotations={"volcano.sh/preemptable": "false"})]
    pgs = [pg("pg16", "ns", "case12_queue11", 1), pg("pg17", "ns", "case12_queue12", 1, "Running"),
           pg("pg18", "ns", "case12_queue12", 1, "Running")]
    r = _run(tree, pods, pgs, nodes)
    assert r.evicted == ["ns/p17"]
    assert r.pipelined("ns/pg16") == ["n3"]
