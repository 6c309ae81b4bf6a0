"""allocate action: upstream TestAllocate / TestFareShareAllocate tables (catalogue §4.1)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.scheduler.harness import conf, node, opt, pg, pod, queue, res, run


def allocate_conf():  # type: ignore[no-untyped-def]
    return conf(["allocate"], [opt("gang", "jobOrder", "jobReady", "jobPipelined", "jobStarving"),
                               opt("drf", "preemptable", "jobOrder"),
                               opt("proportion", "queueOrder", "reclaimable", "allocatable"),
                               opt("predicates", "predicate"), opt("nodeorder", "nodeOrder")])


def _two_masters_two_workers(worker_cpu: int, task_min: dict[str, int]) -> tuple[list[Any], ...]:
    """Nodes, queues, PodGroups and pods of upstream's two "prepredicate" cases: a 1-cpu master node
    and a ``worker_cpu``-cpu worker node; job pg1 (minMember 2, per-task ``task_min``) of two master and
    two worker pods, each selecting its role's node."""
    return ([node("n1", res(1, "2Gi"), {"nodeRole": "master"}),
             node("n2", res(worker_cpu, "2Gi"), {"nodeRole": "worker"})],
            [queue("c1")],
            [pg("pg1", "c1", "c1", 2, task_min=task_min)],
            [pod("c1", f"p{i}", req=res(1, "1G"), group="pg1", labels={"volcano.sh/task-spec": role},
                 selector={"nodeRole": role}) for i, role in enumerate(["master", "master", "worker", "worker"])])


CASES = [
    pytest.param(
        [node("n1", res(2, "4Gi", pods=10), {"nodeRole": "worker"})],
        [queue("c1")],
        [pg("pg1", "c1", "c1", 1)],
        [
            pod("c1", "p1", req=res(1, "1G"), group="pg1", labels={"volcano.sh/task-spec": "master"},
                selector={"nodeRole": "master"}),
            pod("c1", "p2", req=res(1, "1G"), group="pg1", labels={"volcano.sh/task-spec": "worker"},
                selector={"nodeRole": "worker"}),
        ],
        {"c1/p2": "n1"},
        id="prepredicate failed: node selector does not match",
    ),
    pytest.param(*_two_masters_two_workers(1, {"master": 1, "worker": 1}), {"c1/p0": "n1", "c1/p2": "n2"},
                 id="prepredicate failed and tasks are not used up"),
    pytest.param(*_two_masters_two_workers(2, {"master": 2, "worker": 0}), {},
                 id="master's min member can not be allocated"),
    pytest.param(
        [node("n1", res(2, "4Gi"))],
        [queue("c1")],
        [pg("pg1", "c1", "c1", 0)],
        [pod("c1", "p1", req=res(1, "1G"), group="pg1"), pod("c1", "p2", req=res(1, "1G"), group="pg1")],
        {"c1/p1": "n1", "c1/p2": "n1"},
        id="one Job with two Pods on one node",
    ),
    pytest.param(
        [node("n1", res(2, "4G"))],
        [queue("c1"), queue("c2")],
        [pg("pg1", "c1", "c1", 0), pg("pg2", "c2", "c2", 0)],
        [
            pod("c1", "pg1-p-1", req=res(1, "1G"), group="pg1"),
            pod("c1", "pg1-p-2", req=res(1, "1G"), group="pg1"),
            pod("c2", "pg2-p-1", req=res(1, "1G"), group="pg2"),
            pod("c2", "pg2-p-2", req=res(1, "1G"), group="pg2"),
        ],
        {"c1/pg1-p-1": "n1", "c2/pg2-p-1": "n1"},
        id="two Jobs on one node",
    ),
    pytest.param(
        [node("n1", res(2, "4G"))],
        [queue("c1"), queue("c2")],
        [pg("pg1", "c1", "c1", 0), pg("pg2", "c1", "c2", 0)],
        [pod("c1", "p1", req=res(3, "1G"), group="pg1"), pod("c1", "p2", req=res(1, "1G"), group="pg2")],
        {"c1/p2": "n1"},
        id="high priority queue should not block others",
    ),
]


@pytest.mark.parametrize(("nodes", "queues", "pgs", "pods", "expected"), CASES)
def test_allocate(nodes, queues, pgs, pods, expected):  # type: ignore[no-untyped-def]
    r = run(allocate_conf(), nodes=nodes, queues=queues, podgroups=pgs, pods=pods)
    assert r.binds == expected


def fair_conf():  # type: ignore[no-untyped-def]
    return conf(["allocate"], [opt("drf", "preemptable", "jobOrder"), opt("proportion", "queueOrder", "reclaimable"),
                               opt("predicates", "predicate"), opt("nodeorder", "nodeOrder")])


@pytest.mark.parametrize(
    ("pgs", "pods", "expected"),
    [
        pytest.param(
            [
                pg("pg-small-1", "c1", "q-1", 0, "Running"),
                pg("pg-large-1", "c1", "q-1", 0),
                pg("pg-large-2", "c1", "q-2", 0),
            ],
            [
                pod("c1", "pod-small-1", node_name="node-1", phase="Running", req=res(1, "1G"), group="pg-small-1"),
                pod("c1", "pod-large-1", req=res(2, "2G"), group="pg-large-1"),
                pod("c1", "pod-large-2", req=res(3, "2G"), group="pg-large-2"),
            ],
            {"c1/pod-large-2": "node-1"},
            id="low DRF share queue first",
        ),
        pytest.param(
            [
                pg("pg-small-1", "c1", "q-1", 0, "Running"),
                pg("pg-large-1", "c1", "q-1", 0),
                pg("pg-small-2", "c1", "q-2", 0),
                pg("pg-large-2", "c1", "q-2", 0),
            ],
            [
                pod("c1", "pod-small-1", node_name="node-1", phase="Running", req=res(1, "1G"), group="pg-small-1"),
                pod("c1", "pod-large-1", req=res(2, "2G"), group="pg-large-1"),
                pod("c1", "pod-small-2", req=res(1, "1G"), group="pg-small-2"),
                pod("c1", "pod-large-2", req=res(2, "2G"), group="pg-large-2"),
            ],
            {"c1/pod-large-1": "node-1", "c1/pod-large-2": "node-1"},
            id="share updated before re-queue",
        ),
        pytest.param(
            [pg("pg-1", "c1", "q-1", 0, "Running"), pg("pg-2", "c1", "q-1", 0)],
            [
                pod("c1", "pod-1", node_name="node-1", phase="Running", req=res(1, "1G"), group="pg-1"),
                pod("c1", "pod-2", req=res(2, "2G"), group="pg-2"),
            ],
            {"c1/pod-2": "node-1"},
            id="job without pending tasks put back",
        ),
    ],
)
def test_fair_share_allocate(pgs, pods, expected):  # type: ignore[no-untyped-def]
    r = run(
        fair_conf(),
        nodes=[node("node-1", res(5, "5G", pods=10))],
        queues=[queue("q-1"), queue("q-2")],
        podgroups=pgs,
        pods=pods,
    )
    assert r.binds == expected


def test_gang_discard_message_and_phase() -> None:
    """Reference §14.1: a gang that cannot fit is discarded; the condition and pod messages."""
    c = conf(["allocate"], [opt("priority", "jobOrder", "taskOrder"),
                            opt("gang", "jobOrder", "jobReady", "jobPipelined", "jobStarving"),
                            opt("predicates", "predicate")])
    nodes = [node("n1", res(4)), node("n2", res(4)), node("n3", res(2))]
    pods = [pod("ns1", f"j-{i}", req=res(3), group="j", labels={"volcano.sh/task-spec": "worker"}) for i in range(3)]
    r = run(c, nodes=nodes, podgroups=[pg("j", "ns1", "default", 3)], pods=pods, queues=[queue("default")])
    assert r.binds == {}
    cond = next(c for c in r.outcome.statuses["ns1/j"]["conditions"] if c["type"] == "Unschedulable")
    assert cond["message"] == (
        "1/3 tasks in gang unschedulable: pod group is not ready, 3 Pending, 3 minAvailable; "
        "Pending: 1 Unschedulable, 2 Schedulable. Origin reason is j-2: 0/3 nodes are unavailable: "
        "3 Insufficient cpu."
    )
    assert r.phase("ns1/j") == "Inqueue"
    msgs = {t.name: c["message"] for t, c, _ in r.outcome.pod_conditions}
    assert msgs["j-0"] == "Pod ns1/j-0 can possibly be assigned to n1, once minAvailable is satisfied"
    assert msgs["j-1"] == "Pod ns1/j-1 can possibly be assigned to n2, once minAvailable is satisfied"
    assert msgs["j-2"] == "0/3 nodes are unavailable: 3 Insufficient cpu."
    ev = [e for e in r.outcome.events if e.kind == "PodGroup"]
    assert ev[0].type == "Warning" and ev[0].message.startswith("3/3 tasks in gang unschedulable: pod group is not")


def test_successful_gang_binds_and_stays_inqueue() -> None:
    """Reference §14.2 cycle 1: both pods bound, phase Inqueue, Scheduled condition."""
    c = conf(["allocate"], [opt("gang", "jobOrder", "jobReady", "jobPipelined"), opt("predicates", "predicate")])
    pods = [pod("ns", "a-0", req=res(1), group="a"), pod("ns", "a-1", req=res(1), group="a")]
    r = run(
        c, nodes=[node("n1", res(4))], podgroups=[pg("a", "ns", "default", 2)], pods=pods, queues=[queue("default")]
    )
    assert r.binds == {"ns/a-0": "n1", "ns/a-1": "n1"}
    assert r.phase("ns/a") == "Inqueue"
    st = r.outcome.statuses["ns/a"]
    assert st["conditions"][0]["type"] == "Scheduled"
    assert st["conditions"][0]["reason"] == "tasks in gang are ready to be scheduled"
    ev = [e for e in r.outcome.events if e.kind == "PodGroup"]
    assert ev[0].message == "0/2 tasks in gang unschedulable: pod group is ready, 2 Binding, 2 minAvailable"
