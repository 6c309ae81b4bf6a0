"""gangpreempt plans only the starving job's pending tasks that need a place: a scheduling-gated pod and a
best-effort pod (no requests) neither add to the demand nor get pipelined (upstream ``collectPendingTasks``
skips ``SchGated`` and best-effort tasks)."""

from __future__ import annotations

from typing import Any

from tests.scheduler.harness import HIGH_MID_LOW, PRE_T, Result, node, pg, pod, queue, res, run
from tests.scheduler.test_gang_evict import gang_conf
from volcano.scheduler.actions.gang_evict import collect_pending


def _pending(name: str, *, gated: bool = False, best_effort: bool = False) -> dict[str, Any]:
    p = pod("ns", name, group="p", req=None if best_effort else res(1, "1Gi"))
    if gated:
        p["spec"]["schedulingGates"] = [{"name": "example.com/wait"}]
    return p


def _run(*pending: dict[str, Any], act: bool = True) -> Result:
    nodes = [node(f"n{i}", res(1, "1Gi")) for i in range(3)]
    victims = [pod("ns", f"v{i}-0", group=f"v{i}", node_name=f"n{i}", phase="Running", req=res(1, "1Gi"),
                   labels=PRE_T) for i in range(3)]
    extra: dict[str, Any] = {} if act else {"actions": []}
    return run(gang_conf(), **extra, nodes=nodes, queues=[queue("q", deserved=res(3, "3Gi"))], pcs=HIGH_MID_LOW,
               pods=[*victims, *pending],
               podgroups=[*(pg(f"v{i}", "ns", "q", 1, "Running", pc_name="low") for i in range(3)),
                          pg("p", "ns", "q", 1, "Inqueue", pc_name="high")])


def test_gated_and_best_effort_pods_are_not_planned() -> None:
    pending = (_pending("p-0"), _pending("p-1", gated=True), _pending("p-2", best_effort=True))
    before = _run(*pending, act=False)
    assert [t.key for t in collect_pending(before.session, before.session.jobs["ns/p"])] == ["ns/p-0"]
    r = _run(*pending)
    job = r.session.jobs["ns/p"]
    assert len(r.evicted) == 1, r.evicted  # one CPU of demand: one victim job (one pod each)
    assert len(r.pipelined("ns/p")) == 1
    statuses = {t.name: t.status.name for t in job.tasks.values()}
    assert statuses == {"p-0": "Pipelined", "p-1": "Pending", "p-2": "Pending"}


def test_only_gated_pods_make_no_demand() -> None:
    before = _run(_pending("p-0", gated=True), _pending("p-1", gated=True), act=False)
    assert collect_pending(before.session, before.session.jobs["ns/p"]) == []
    r = _run(_pending("p-0", gated=True), _pending("p-1", gated=True))
    assert r.evicted == [] and r.pipelined("ns/p") == []
