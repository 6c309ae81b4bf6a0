"""preempt action: upstream TestPreempt table (catalogue §4.2) and §14.4."""

from __future__ import annotations

import pytest

from tests.scheduler.harness import PRE_F, PRE_T, conf, node, opt, pc, pg, pod, queue, res, run
from tests.scheduler.harness import table_pod as P

PCS = [pc("high-priority", 100000), pc("low-priority", 10)]


def preempt_conf():  # type: ignore[no-untyped-def]
    return conf(["preempt"], [opt("conformance", "preemptable"),
                              opt("gang", "preemptable", "jobPipelined", "jobStarving"),
                              opt("priority", "taskOrder", "jobOrder", "preemptable", "jobPipelined", "jobStarving"),
                              opt("proportion", "overused", "allocatable", "queueOrder")])


CASES = [
    pytest.param(
        [node("n1", res(10, "10G"))],
        [queue("q1")],
        [pg("pg1", "c1", "q1", 3, task_min={"": 3})],
        [
            P("preemptee1", "n1", "Running", res(1, "1G"), "pg1"),
            P("preemptee2", "n1", "Running", res(1, "1G"), "pg1"),
            P("preemptor1", "", "Pending", res(1, "1G"), "pg1"),
        ],
        [],
        id="enough idle: no preemption",
    ),
    pytest.param(
        [node("n1", res(3, "3G"))],
        [queue("q1")],
        [pg("pg1", "c1", "q1", 1, task_min={"": 2}), pg("pg2", "c1", "q1", 1, task_min={"": 2})],
        [
            P("preemptee1", "n1", "Running", res(1, "1G"), "pg1"),
            P("preemptee2", "n1", "Running", res(1, "1G"), "pg1"),
            P("preemptee3", "n1", "Running", res(1, "1G"), "pg2"),
            P("preemptor2", "", "Pending", res(1, "1G"), "pg2"),
        ],
        [],
        id="job pipelined: no preemption",
    ),
    pytest.param(
        [node("n1", res(2, "2G"))],
        [queue("q1")],
        [
            pg("pg1", "c1", "q1", 1, task_min={"": 2}, pc_name="low-priority"),
            pg("pg2", "c1", "q1", 1, task_min={"": 2}, pc_name="high-priority"),
        ],
        [
            P("preemptee1", "n1", "Running", res(1, "1G"), "pg1", PRE_T),
            P("preemptee2", "n1", "Running", res(1, "1G"), "pg1", PRE_F),
            P("preemptor1", "", "Pending", res(1, "1G"), "pg2"),
            P("preemptor2", "", "Pending", res(1, "1G"), "pg2"),
        ],
        ["c1/preemptee1"],
        id="preempt one task of different job",
    ),
    pytest.param(
        [node("n1", res(6, "6G"))],
        [queue("q1")],
        [
            pg("pg1", "c1", "q1", 1, task_min={"": 3}, pc_name="low-priority"),
            pg("pg2", "c1", "q1", 1, task_min={"": 1}, pc_name="high-priority"),
        ],
        [
            P("preemptee1", "n1", "Running", res(1, "1G"), "pg1", PRE_T),
            P("preemptee2", "n1", "Running", res(1, "1G"), "pg1", PRE_T),
            P("preemptee3", "n1", "Running", res(1, "1G"), "pg1", PRE_F),
            P("preemptor1", "", "Pending", res(5, "5G"), "pg2"),
        ],
        ["c1/preemptee2", "c1/preemptee1"],
        id="preempt enough tasks for a large task",
    ),
    pytest.param(
        [node("n1", res(12, "12G"))],
        [queue("q1", capability=res(4, "4G"))],
        [
            pg("pg1", "c1", "q1", 0, pc_name="low-priority"),
            pg("pg2", "c1", "q1", 1, task_min={"": 1}, pc_name="high-priority"),
        ],
        [
            P("preemptee1", "n1", "Running", res(3, "3G"), "pg1", PRE_T),
            P("preemptor1", "", "Pending", res(3, "3G"), "pg2"),
        ],
        ["c1/preemptee1"],
        id="preempt low priority job in same queue",
    ),
    pytest.param(
        [node("n1", res(12, "12G"))],
        [queue("q1", capability=res(6, "6G"))],
        [pg("pg1", "c1", "q1", 1, pc_name="low-priority"), pg("pg2", "c1", "q1", 1, pc_name="high-priority")],
        [
            P("preemptee1", "n1", "Running", res(3, "3G"), "pg1", PRE_T),
            P("preemptor1", "", "Pending", res(3, "3G"), "pg2"),
        ],
        [],
        id="allocatable and enough resource: no preemption",
    ),
    pytest.param(
        [node("n1", res(12, "12G"))],
        [queue("q1", capability=res(3, "3G"))],
        [pg("pg1", "c1", "q1", 1, pc_name="low-priority"), pg("pg2", "c1", "q1", 1, pc_name="high-priority")],
        [
            P("preemptee1", "n1", "Running", res(1, "1G"), "pg1", PRE_F),
            P("preemptee2", "n1", "Running", res(1, "1G"), "pg1", PRE_T),
            P("preemptee3", "n1", "Running", res(1, "1G"), "pg1", PRE_T, priority=100000),
            P("preemptor1", "", "Pending", res(1, "1G"), "pg2"),
        ],
        ["c1/preemptee2"],
        id="not preemptable=false nor higher priority pod",
    ),
    pytest.param(
        [node("n1", res(12, "12G", pods=1))],
        [queue("q1", capability=res(6, "6G"))],
        [pg("pg1", "c1", "q1", 0, pc_name="low-priority"), pg("pg2", "c1", "q1", 1, pc_name="high-priority")],
        [P("preemptee1", "n1", "Running", None, "pg1", PRE_T), P("preemptor1", "", "Pending", res(3, "3G"), "pg2")],
        ["c1/preemptee1"],
        id="non-BestEffort preempts BestEffort for the pod slot",
    ),
    pytest.param(
        [node("n1", res(12, "12G", pods=1))],
        [queue("q1", capability=res(6, "6G"))],
        [pg("pg1", "c1", "q1", 0, pc_name="low-priority"), pg("pg2", "c1", "q1", 1, pc_name="high-priority")],
        [P("preemptee1", "n1", "Running", None, "pg1", PRE_T), P("preemptor1", "", "Pending", None, "pg2")],
        ["c1/preemptee1"],
        id="BestEffort preempts BestEffort",
    ),
    pytest.param(
        [node("n1", res(1, "1Gi", pods=1))],
        [queue("q1")],
        [pg("pg1", "c1", "q1", 0, pc_name="low-priority"), pg("pg2", "c1", "q1", 1, pc_name="high-priority")],
        [
            P("preemptee1", "n1", "Running", res(1, "1G"), "pg1", PRE_T),
            P("preemptor1", "", "Pending", res(1, "1G"), "pg2", policy="Never"),
        ],
        [],
        id="preemptionPolicy Never",
    ),
    pytest.param(
        [node("n1", res(10, "10G"))],
        [queue("q1", capability=res(3, "3G"))],
        [
            pg("pg1", "c1", "q1", 1, task_min={"": 2}, pc_name="low-priority"),
            pg("pg2", "c1", "q1", 1, task_min={"": 1}, pc_name="high-priority"),
        ],
        [
            P("preemptee1", "n1", "Running", res(1, "1G"), "pg1", PRE_T),
            P("preemptee2", "n1", "Running", res(1, "1G"), "pg1", PRE_T),
            P("preemptor1", "", "Pending", res(4, "4G"), "pg2"),
        ],
        [],
        id="rollback evictions when the queue capacity is exceeded",
    ),
    pytest.param(
        [node("n1", res(3, "3G")), node("n2", res(4, "4G"))],
        [queue("q1", capability=res(6, "6G"))],
        [
            pg("pg1", "c1", "q1", 0, pc_name="low-priority"),
            pg("pg2", "c1", "q1", 1, pc_name="high-priority"),
            pg("pg3", "c1", "q1", 0, pc_name="low-priority"),
        ],
        [
            P("preemptee1", "n1", "Running", res(1, "1G"), "pg1", PRE_T),
            P("preemptee2", "n2", "Running", res(4, "4G"), "pg3", PRE_T),
            P("preemptor1", "", "Pending", res(3, "3G"), "pg2"),
        ],
        ["c1/preemptee2"],
        id="only commit evictions on the node where preemption succeeds",
    ),
    pytest.param(
        [node("n1", res(2, "2G"))],
        [queue("q1"), queue("q2", capability=res(4, "4G"))],
        [
            pg("pg1", "c1", "q1", 1),
            pg("pg2", "c1", "q2", 0, pc_name="low-priority"),
            pg("pg3", "c1", "q2", 1, pc_name="high-priority"),
        ],
        [
            P("q1-runner1", "n1", "Running", res(1, "1G"), "pg1"),
            P("q2-preemptee1", "n1", "Running", res(1, "1G"), "pg2", PRE_T),
            P("q2-preemptor1", "", "Pending", res(1, "1G"), "pg3"),
        ],
        ["c1/q2-preemptee1"],
        id="multi-queue preemptor tasks not overwritten",
    ),
]


@pytest.mark.parametrize(("nodes", "queues", "pgs", "pods", "expected"), CASES)
def test_preempt(nodes, queues, pgs, pods, expected):  # type: ignore[no-untyped-def]
    r = run(preempt_conf(), nodes=nodes, queues=queues, podgroups=pgs, pods=pods, pcs=PCS)
    assert sorted(r.evicted) == sorted(expected)
    if expected:
        assert r.evicted == expected or len(expected) == 1


def test_same_queue_priority_preemption_worked_example() -> None:
    """Reference §14.4 with tier 1 only (priority, gang with preemptable disabled, conformance)."""
    c = conf(["preempt"], [opt("priority", "taskOrder", "jobOrder", "preemptable", "jobStarving"),
                           opt("gang", "jobPipelined", "jobStarving", "jobReady"), opt("conformance", "preemptable")])
    pods = [
        pod("ns", "l-worker-0", node_name="n1", phase="Running", req=res(2), group="l"),
        pod("ns", "l-worker-1", node_name="n1", phase="Running", req=res(2), group="l"),
        pod("ns", "h-worker-0", req=res(2), group="h"),
    ]
    r = run(
        c,
        nodes=[node("n1", res(4))],
        queues=[queue("default")],
        pods=pods,
        podgroups=[
            pg("l", "ns", "default", 1, "Running", pc_name="low"),
            pg("h", "ns", "default", 1, "Inqueue", pc_name="high"),
        ],
        pcs=[pc("low", 1), pc("high", 100)],
    )
    assert r.evicted == ["ns/l-worker-1"]
    assert r.pipelined("ns/h") == ["n1"]
    _task, cond, nominated = next(x for x in r.outcome.pod_conditions if x[0].name == "h-worker-0")
    assert cond["message"] == (
        "Pod ns/h-worker-0 can possibly be assigned to n1, once resource is released and minAvailable is satisfied"
    )
    assert nominated == "n1"
    gang = next(c for c in r.outcome.statuses["ns/h"]["conditions"] if c["type"] == "Unschedulable")
    assert gang["message"] == ("1/1 tasks in gang unschedulable: pod group is not ready, 1 Pipelined, 1 minAvailable")
    assert r.phase("ns/l") == "Running"


def test_equal_priority_yields_no_victims() -> None:
    c = conf(["preempt"], [opt("priority", "taskOrder", "jobOrder", "preemptable", "jobStarving"),
                           opt("gang", "jobPipelined", "jobStarving"), opt("conformance", "preemptable")])
    pods = [pod("ns", "l-0", node_name="n1", phase="Running", req=res(4), group="l"),
            pod("ns", "h-0", req=res(2), group="h")]
    r = run(
        c,
        nodes=[node("n1", res(4))],
        queues=[queue("default")],
        pods=pods,
        podgroups=[pg("l", "ns", "default", 1, "Running"), pg("h", "ns", "default", 1)],
    )
    assert r.evicted == []
    assert r.pipelined("ns/h") == []
