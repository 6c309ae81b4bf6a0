"""capacity plugin through full cycles: upstream Test_capacityPlugin_OnSessionOpenWithoutHierarchy
(allocate + reclaim, catalogue §5.8 cases 0-10) and TestEnqueueAndAllocatable (enqueue + allocate)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.scheduler.harness import conf, node, opt, pg, pod, queue, res, run

PRE_F = {"volcano.sh/preemptable": "false"}
A100 = "nvidia.com/A100"
GPU = "nvidia.com/gpu"

CYCLE = conf(["allocate", "reclaim"],
             [opt("capacity", "allocatable", "preemptive", "reclaimable", "queueOrder"),
              opt("predicates", "predicate"), opt("gang", "jobStarving")])


def P(name: str, node_name: str, req: dict[str, str], group: str, *, selector: dict[str, str] | None = None,
      ann: dict[str, str] | None = None) -> dict[str, Any]:
    phase = "Running" if node_name else "Pending"
    return pod("ns1", name, node_name=node_name, phase=phase, req=req, group=group, selector=selector,
               annotations=ann)


def G(name: str, q: str, phase: str) -> dict[str, Any]:
    return pg(name, "ns1", q, 1, phase)


def Q(name: str, deserved: dict[str, str] | None = None, cap: dict[str, str] | None = None,
      priority: int = 0) -> dict[str, Any]:
    return queue(name, capability=cap, deserved=deserved, priority=priority)


N12 = [node("n1", res(2, "4Gi"), {"selector": "worker"}), node("n2", res(2, "4Gi"))]
ZERO = {"cpu": "0", "memory": "0"}

CASES = [
    pytest.param(N12, [Q("q1", cap=res(2, "2Gi"))], [G("pg1", "q1", "Running"), G("pg2", "q1", "Inqueue")],
                 [P("p1", "n1", res(1, "1Gi"), "pg1"),
                  P("p2", "", res(1, "1Gi"), "pg2", selector={"selector": "worker"})],
                 {"ns1/p2": "n1"}, [], {}, id="case0: allocatable when queue has not exceeded capability"),
    pytest.param(N12, [Q("q2", cap=res("1.5", "1.5Gi"))], [G("pg3", "q2", "Running"), G("pg4", "q2", "Inqueue")],
                 [P("p3", "n1", res(1, "1Gi"), "pg3"), P("p4", "", res(1, "1Gi"), "pg4")],
                 {}, [], {}, id="case1: not allocatable when queue exceeds capability"),
    pytest.param(N12, [Q("q3", res(2, "4Gi")), Q("q4", res(2, "4Gi"))],
                 [G("pg5", "q3", "Running"), G("pg6", "q4", "Inqueue")],
                 [P("p5", "n1", res(2, "4Gi"), "pg5", ann=PRE_F), P("p6", "n2", res(2, "4Gi"), "pg5"),
                  P("p7", "", res(2, "4Gi"), "pg6")],
                 {}, ["ns1/p6"], {"ns1/pg6": ["n2"]}, id="case2: reclaim from other queues when allocated < deserved"),
    pytest.param([node("n3", res(2, "4Gi", **{A100: 10})), node("n4", res(2, "4Gi", **{A100: 10}))],
                 [Q("q5", res(2, "4Gi", **{A100: 10})), Q("q6", res(2, "4Gi", **{A100: 10}))],
                 [G("pg7", "q5", "Running"), G("pg8", "q6", "Running"), G("pg9", "q6", "Inqueue")],
                 [P("p8", "n3", {A100: "10"}, "pg7", ann=PRE_F), P("p9", "n4", {A100: "10"}, "pg7"),
                  P("p10", "n3", res(2, "4Gi"), "pg8"), P("p11", "n4", res(2, "4Gi"), "pg8"),
                  P("p12", "", {A100: "10"}, "pg9")],
                 {}, ["ns1/p9"], {"ns1/pg9": ["n4"]},
                 id="case3: scalar not overused, reclaimer requests no cpu/memory: reclaim"),
    pytest.param([node("n5", res(2, "4Gi")), node("n6", res(2, "4Gi"))],
                 [Q("q7", cap=res(2, "4Gi"), priority=5), Q("q8", cap=res(2, "4Gi"), priority=1),
                  Q("q9", cap=res(2, "4Gi"), priority=10)],
                 [G("pg10", "q7", "Running"), G("pg11", "q8", "Inqueue"), G("pg12", "q9", "Inqueue")],
                 [P("p13", "n5", res(2, "4Gi"), "pg10"), P("p14", "", res(2, "4Gi"), "pg11"),
                  P("p15", "", res(2, "4Gi"), "pg12")],
                 {"ns1/p15": "n6"}, [], {}, id="case4: assigned in the order of queue priority"),
    pytest.param([node("n1", res(2, "4Gi"))],
                 [Q("q10", res(2, "2Gi"), res(4, "4Gi")), Q("q11", ZERO, res(2, "2Gi"))],
                 [G("pg16", "q10", "Running"), G("pg17", "q10", "Inqueue"), G("pg18", "q11", "Running")],
                 [P("p16", "n1", res(1, "3Gi"), "pg16"), P("p17", "", res(1, "1Gi"), "pg17"),
                  P("p18", "n1", res(1, "1Gi"), "pg18")],
                 {}, ["ns1/p18"], {"ns1/pg17": ["n1"]},
                 id="case5: reclaim when allocated + request <= deserved on one dimension"),
    pytest.param([node("n1", res(2, "4Gi"))],
                 [Q("q12", res(1, "2Gi"), res(4, "4Gi")), Q("q13", ZERO, res(2, "2Gi"))],
                 [G("pg19", "q12", "Running"), G("pg20", "q12", "Inqueue"), G("pg21", "q13", "Running")],
                 [P("p19", "n1", res(1, "1Gi"), "pg19"), P("p20", "", res(1, "2Gi"), "pg20"),
                  P("p21", "n1", res(1, "1Gi"), "pg21")],
                 {}, [], {}, id="case6: no reclaim when allocated + request > deserved"),
    pytest.param([node("n7", res(4, "8Gi", **{GPU: 4}))],
                 [Q("queue14", res(2, "4Gi", **{GPU: 2})), Q("queue15"), Q("queue16", res(2, "4Gi", **{GPU: 2}))],
                 [G("pg22", "queue14", "Running"), G("pg23", "queue15", "Running"), G("pg24", "queue16", "Running"),
                  G("pg25", "queue16", "Inqueue")],
                 [P("p22", "n7", res(2, "4Gi"), "pg22"), P("p23", "n7", {GPU: "1"}, "pg23"),
                  P("p24", "n7", res(2, "1Gi", **{GPU: 1}), "pg24"), P("p25", "", res(2, "3Gi", **{GPU: 1}), "pg25")],
                 {}, [], {}, id="case7: allocated lacks the scalar deserved has: no reclaim"),
    pytest.param([node("n8", res(4, "8Gi", **{GPU: 1}))],
                 [Q("queue17", res(2, "2Gi")), Q("queue18", res(2, "4Gi", **{GPU: 1}))],
                 [G("pg26", "queue17", "Running"), G("pg27", "queue17", "Running"), G("pg28", "queue17", "Running"),
                  G("pg29", "queue18", "Running"), G("pg30", "queue18", "Inqueue")],
                 [P("p26", "n8", res(0, "4Gi"), "pg26"), P("p27", "n8", res(1, "0"), "pg27"),
                  P("p28", "n8", {GPU: "1"}, "pg28"), P("p29", "n8", res(2, "4Gi"), "pg29"),
                  P("p30", "", res(1, "0", **{GPU: 1}), "pg30")],
                 {}, ["ns1/p28"], {"ns1/pg30": ["n8"]},
                 id="case8: reclaimer dimensions decide which reclaimees are evicted"),
    pytest.param([node("n8", res(4, "8Gi", **{GPU: 1}))],
                 [Q("queue19", {GPU: "1"}), Q("queue20", res(2, "2Gi"))],
                 [G("pg31", "queue19", "Running"), G("pg32", "queue20", "Inqueue")],
                 [P("p31", "n8", res(4, "4Gi", **{GPU: 1}), "pg31"), P("p32", "", res(1, "1Gi"), "pg32")],
                 {}, [], {}, id="case9: reclaimee within deserved on its scalar is not reclaimed for cpu/memory"),
    pytest.param([node("n9", res(8, "100Gi")), node("n10", res(8, "100Gi"))],
                 [Q("queue21", res(8, "100Gi"), res(8, "100Gi")), Q("queue22", cap=res(2, "5Gi"))],
                 [G("pg33", "queue21", "Running"), G("pg34", "queue21", "Inqueue"), G("pg35", "queue22", "Running")],
                 [P("p33", "n9", res(7, "90Gi"), "pg33"), P("p34", "", res(2, "5Gi"), "pg34"),
                  P("p35", "n10", res(2, "5Gi"), "pg35")],
                 {}, [], {}, id="case10: preemptive respects capability"),
]


@pytest.mark.parametrize(("nodes", "queues", "pgs", "pods", "binds", "evicted", "pipelined"), CASES)
def test_capacity_allocate_and_reclaim(nodes: list[dict[str, Any]], queues: list[dict[str, Any]],
                                       pgs: list[dict[str, Any]], pods: list[dict[str, Any]], binds: dict[str, str],
                                       evicted: list[str], pipelined: dict[str, list[str]]) -> None:
    r = run(CYCLE, nodes=nodes, pods=pods, podgroups=pgs, queues=queues)
    assert r.binds == binds
    assert r.evicted == evicted
    for job, where in pipelined.items():
        assert r.pipelined(job) == where


ENQ = [node("n1", res(3, "3G")), node("n2", res(3, "3G"))]
ENQ_QUEUES = [Q("q1", res(2, "2G"), res(2, "2G")), Q("q2", res(2, "2G"), res(3, "3G")),
              queue("q3", capability=res(3, "3G"), state="Closed")]


def _enq_job(name: str, q: str, req: dict[str, str], node_name: str = "") -> tuple[dict[str, Any], dict[str, Any]]:
    phase = "Running" if node_name else "Pending"
    group = pg(f"pg{name[3:]}", "ns1", q, 1, phase, min_resources=req)
    return group, pod("ns1", name, node_name=node_name, phase=phase, req=req, group=f"pg{name[3:]}")


@pytest.mark.parametrize(("pending", "expected"), [
    pytest.param(("pod3", "q1", res(1, "0G")), {"ns1/pod3": "n1"}, id="case0: memory over deserved, cpu-only job runs"),
    pytest.param(("pod4", "q2", res(0, "1G")), {"ns1/pod4": "n2"}, id="case1: cpu over deserved, memory-only job runs"),
    pytest.param(("pod5", "q1", res(1, "1G")), {}, id="case2: over capability, not enqueued"),
    pytest.param(("pod6", "q3", res(1, "1G")), {}, id="case4: closed queue, not enqueued"),
])
def test_capacity_enqueue_and_allocatable(pending: tuple[str, str, dict[str, str]], expected: dict[str, str]) -> None:
    c = conf(["enqueue", "allocate"],
             [opt("capacity", "allocatable", "preemptive", "overused", "jobEnqueued"), opt("predicates", "predicate"),
              opt("gang", "jobReady", "jobPipelined")])
    jobs = [_enq_job("pod1", "q1", res(1, "3G"), "n1"), _enq_job("pod2", "q2", res(3, "1G"), "n2"),
            _enq_job(*pending)]
    r = run(c, nodes=ENQ, pods=[p for _, p in jobs], podgroups=[g for g, _ in jobs], queues=ENQ_QUEUES)
    assert r.binds == expected
    name = pending[0]
    # admitted jobs stay Inqueue until their pods are bound (Binding is not yet scheduled)
    assert r.phase(f"ns1/pg{name[3:]}") == ("Inqueue" if expected else "Pending")
