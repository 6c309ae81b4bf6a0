"""enqueue (catalogue §4.5) and backfill (§4.4) actions."""

from __future__ import annotations

import pytest

from tests.scheduler.harness import conf, node, opt, pc, pg, pod, queue, res, run
from volcano.scheduler.actions.backfill import pick_up_pending_tasks


def enqueue_conf():  # type: ignore[no-untyped-def]
    # Upstream also enables sla{jobOrder, jobEnqueued}; no job here has a waiting time, so sla
    # abstains everywhere and leaving it out cannot change an outcome.
    return conf(["enqueue"], [opt("drf", "jobOrder", "jobEnqueued"), opt("proportion", "queueOrder", "jobEnqueued"),
                              opt("gang", "jobOrder")])


CAP = res(4, "4G")


@pytest.mark.parametrize(
    ("queues", "pgs", "pods", "expected"),
    [
        pytest.param(
            [queue("c1", capability=CAP), queue("c2", capability=CAP)],
            [pg("pg1", "c1", "c1", 2, "Inqueue")],
            [pod("c1", "p1", req=res(1, "1G"), group="pg1"), pod("c1", "p2", req=res(1, "1G"), group="pg1")],
            {"c1/pg1": "Inqueue"},
            id="inqueue stays inqueue",
        ),
        pytest.param(
            [queue("c1", capability=CAP), queue("c2", capability=CAP)],
            [pg("pg1", "c1", "c1", 1, "Pending"), pg("pg2", "c1", "c2", 1, "Pending")],
            [pod("c1", "p1", req=res(3, "1G"), group="pg1"), pod("c1", "p2", req=res(1, "1G"), group="pg2")],
            {"c1/pg1": "Inqueue", "c1/pg2": "Inqueue"},
            id="pending without minResources is enqueued",
        ),
        pytest.param(
            [queue("c1")],
            [pg("pg1", "c1", "c1", 2, "Running")],
            [
                pod("c1", "p1", node_name="n1", phase="Running", req=res(1, "1G"), group="pg1"),
                pod("c1", "p2", node_name="n1", phase="Running", req=res(1, "1G"), group="pg1"),
            ],
            {"c1/pg1": "Running"},
            id="running stays running",
        ),
        pytest.param(
            [queue("c2")], [pg("pg1", "c1", "c1", 0, "Pending")], [], {}, id="queue missing: job not in session"
        ),
        pytest.param(
            [queue("c1", capability=res(1, "1G"))],
            [pg("pg1", "c1", "c1", 1, "Pending", min_resources=res(8, "8G"))],
            [],
            {"c1/pg1": "Pending"},
            id="minResources above capability stays pending",
        ),
    ],
)
def test_enqueue(queues, pgs, pods, expected):  # type: ignore[no-untyped-def]
    r = run(enqueue_conf(), queues=queues, podgroups=pgs, pods=pods)
    assert {k: v["phase"] for k, v in r.outcome.statuses.items()} == expected


def test_enqueue_without_plugins_admits_everything() -> None:
    r = run(
        conf(["enqueue"], [opt("gang", "jobOrder")]),
        queues=[queue("q")],
        podgroups=[pg("a", "ns", "q", 1, "Pending", min_resources=res(100))],
    )
    assert r.phase("ns/a") == "Inqueue"


def test_pick_up_pending_tasks_order() -> None:
    """TestPickUpPendingTasks: only best-effort tasks, by job priority then task priority,
    pipelined ones (un-pipelined first) included."""
    c = conf(["backfill"], [opt("priority", "preemptable", "taskOrder", "jobOrder"), opt("drf", "queueOrder")])
    pods = []
    for g in ("pg1", "pg2"):
        for prio in (1, 2, 3, 4):
            pods.append(pod("default", f"{g}-besteffort-task-{prio}", group=g, priority=prio))
            pods.append(pod("default", f"{g}-unbesteffort-task-{prio}", req=res("500m"), group=g, priority=prio))
    r = run(
        c,
        nodes=[node("node1", res(8, "8G"))],
        queues=[queue("q1")],
        pods=pods,
        actions=[],
        podgroups=[
            pg("pg1", "default", "q1", 1, task_min={"": 3}, pc_name="job-priority-1"),
            pg("pg2", "default", "q1", 1, task_min={"": 3}, pc_name="job-priority-2"),
        ],
        pcs=[pc("job-priority-1", 1), pc("job-priority-2", 2)],
    )
    ssn = r.session
    from volcano.scheduler.framework.statement import Statement

    stmt = Statement(ssn)
    for job in ssn.jobs.values():
        for t in job.tasks.values():
            if t.priority in (2, 4):
                stmt.pipeline(t, ssn.nodes[0])
    names = [t.name for t in pick_up_pending_tasks(ssn)]
    assert names == [f"{g}-besteffort-task-{p}" for g in ("pg2", "pg1") for p in (4, 3, 2, 1)]


def test_backfill_pod_count_limit() -> None:
    """TestNodeNum: best-effort pods respect the node's pod limit (allocate + backfill, predicates)."""
    c = conf(["allocate", "backfill"], [opt("predicates", "predicate")])
    pods = [
        pod("ns", "worker-1", group="pg1"),
        pod("ns", "worker-2", group="pg1"),
        pod("ns", "worker-3", group="pg2"),
    ]
    r = run(
        c,
        nodes=[node("node1", res(4, "4k", pods=2))],
        queues=[queue("q1")],
        pods=pods,
        podgroups=[pg("pg1", "ns", "q1", 2), pg("pg2", "ns", "q1", 1)],
    )
    assert r.binds == {"ns/worker-1": "node1", "ns/worker-2": "node1"}
