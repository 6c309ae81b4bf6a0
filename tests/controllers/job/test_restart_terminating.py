"""Restarting holds while the killed pods terminate (reference §3.4 restart rule).

Pods here are bound to a node, so deleting a running one is graceful: it keeps a
``deletionTimestamp`` until the test, playing the kubelet, removes it with grace 0.
Requests processed in the same instant as the kill must see the controller's own
deletions (terminating pods, PodGroup gone), never the informers' stale copies.
"""

from __future__ import annotations

from typing import Any

from tests.controllers.job.conftest import NS, Cluster, job, task
from volcano.api.frozen import thaw


def _bind_all(c: Cluster, name: str) -> None:
    for pod_name, pod in sorted(c.pods(name).items()):
        if not pod["spec"].get("nodeName"):
            c.server.bind(pod_name, NS, "node-0")
    c.run(10)


def _restart_job(c: Cluster) -> str:
    name = "restart-hold"
    c.submit(job(name, [task("ok", 2), task("bad", 2)], policies=[{"event": "PodFailed", "action": "RestartJob"}]))
    c.set_pg_phase(name, "Inqueue")
    _bind_all(c, name)
    c.set_pods(name, "Running")
    assert c.phase(name) == "Running"
    # Both pods of task "bad" fail in the same instant: two PodFailed requests back to back.
    for pod_name in (f"{name}-bad-0", f"{name}-bad-1"):
        pod = thaw(c.server.get("Pod", pod_name, NS))
        pod["status"] = {"phase": "Failed", "containerStatuses": [
            {"name": "main", "ready": False, "restartCount": 0, "state": {"terminated": {"exitCode": 1}}}]}
        c.server.update_status(pod)
    c.run(50)
    return name


def _phase_records(c: Cluster, name: str) -> list[tuple[int, str]]:
    return [(r.time_ms, r.detail) for r in c.trace.records(component="job-controller", event="JobPhase",
                                                           obj=f"{NS}/{name}")]


def _finish_terminating(c: Cluster, name: str) -> None:
    for pod_name, pod in sorted(c.pods(name).items()):
        if pod["metadata"].get("deletionTimestamp"):
            c.server.delete("Pod", pod_name, NS, grace_period_seconds=0)
    c.run(50)


def test_restarting_is_not_left_in_the_instant_of_the_kill(cluster: Cluster) -> None:
    name = _restart_job(cluster)
    assert cluster.phase(name) == "Restarting"
    kill_time = next(t for t, d in _phase_records(cluster, name) if d == "Running -> Restarting")
    later_same_instant = [d for t, d in _phase_records(cluster, name)
                          if t == kill_time and d != "Running -> Restarting"]
    assert later_same_instant == [], later_same_instant
    status = cluster.status(name)
    assert status["terminating"] == 4 and status.get("running", 0) == 0 and status.get("failed", 0) == 0, status


def test_restarting_lasts_while_pods_terminate(cluster: Cluster) -> None:
    name = _restart_job(cluster)
    terminating = sorted(n for n, p in cluster.pods(name).items() if p["metadata"].get("deletionTimestamp"))
    assert terminating == [f"{name}-ok-0", f"{name}-ok-1"]  # the failed pods went at once
    # The recreated PodGroup is admitted: missing pods come back, terminating ones block the restart.
    cluster.set_pg_phase(name, "Inqueue")
    assert cluster.phase(name) == "Restarting"
    status: dict[str, Any] = cluster.status(name)
    assert status["terminating"] == 2 and status["pending"] == 2, status
    cluster.run(60_000)
    assert cluster.phase(name) == "Restarting"
    _finish_terminating(cluster, name)
    assert cluster.phase(name) == "Pending"
    pods = cluster.pods(name)
    assert sorted(pods) == [f"{name}-bad-0", f"{name}-bad-1", f"{name}-ok-0", f"{name}-ok-1"]
    assert all(p["metadata"]["annotations"]["volcano.sh/job-version"] == "1" for p in pods.values())
    _bind_all(cluster, name)
    cluster.set_pods(name, "Running")
    assert cluster.phase(name) == "Running"
    assert cluster.status(name)["retryCount"] == 1


def test_restarting_holds_without_a_scheduler_decision(cluster: Cluster) -> None:
    """Until the new PodGroup leaves Pending nothing is recreated and the kill's counters stand."""
    name = _restart_job(cluster)
    _finish_terminating(cluster, name)
    cluster.run(10_000)
    assert cluster.phase(name) == "Restarting"
    assert cluster.pods(name) == {}
    pg = cluster.podgroup(name)
    assert pg is not None and not (pg.get("status") or {}).get("phase")
