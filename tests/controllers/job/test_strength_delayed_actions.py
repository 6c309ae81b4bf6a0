"""Which pod requests cancel a pod's delayed policy action (Volcano's ``CleanPodDelayActionsIfNeed``):
only the four pod events do; a pending pod's status update (an OutOfSync request, such as the
scheduler writing its Unschedulable condition) leaves a PodPending timeout running."""

from __future__ import annotations

from tests.controllers.job.conftest import Cluster, job, task

PENDING_ABORT = [{"event": "PodPending", "action": "AbortJob", "timeout": "1m"}]


def test_a_pending_pods_status_update_keeps_the_pod_pending_timeout(cluster: Cluster) -> None:
    name = "pending-update"
    cluster.submit(job(name, [task("task", 1)], policies=PENDING_ABORT))
    cluster.set_pg_phase(name)
    cluster.run(10_000)
    cluster.set_pod(f"{name}-task-0", "Pending")  # a status write that leaves the pod Pending
    cluster.run(48_000)
    assert cluster.phase(name) == "Pending"
    cluster.run(3_000)
    assert cluster.phase(name) == "Aborted"


def test_a_pending_pod_that_runs_cancels_the_timeout(cluster: Cluster) -> None:
    name = "pending-runs"
    cluster.submit(job(name, [task("task", 1)], policies=PENDING_ABORT))
    cluster.set_pg_phase(name)
    cluster.run(10_000)
    cluster.set_pod(f"{name}-task-0", "Pending")
    cluster.set_pod(f"{name}-task-0", "Running")
    cluster.run(120_000)
    assert cluster.phase(name) == "Running"


def test_a_job_level_action_cancels_pending_job_level_ones(cluster: Cluster) -> None:
    """A failed pod schedules AbortJob in 1 m; a RestartJob command at 20 s runs at once and cancels it
    (Volcano's cleanupDelayActions): the recreated pods stay pending (nothing would cancel the abort
    on their behalf), yet the job is not aborted when the minute is up."""
    name = "siblings"
    cluster.submit(job(name, [task("task", 1)], policies=[{"event": "PodFailed", "action": "AbortJob",
                                                          "timeout": "1m"}]))
    cluster.set_pg_phase(name)
    cluster.set_pod(f"{name}-task-0", "Failed", exit_code=1)
    cluster.run(20_000)
    cluster.command(name, "RestartJob")
    cluster.run(1_000)
    cluster.set_pg_phase(name)
    cluster.run(120_000)
    assert "Aborting" not in cluster.phases(name)
    assert cluster.status(name).get("retryCount") == 1


def test_a_pod_level_action_leaves_job_level_ones_pending(cluster: Cluster) -> None:
    """The sibling with RestartPod (not job-level, so no cancellation of the abort): the abort runs."""
    name = "no-siblings"
    cluster.submit(job(name, [task("task", 2)], policies=[{"event": "PodFailed", "action": "AbortJob",
                                                          "timeout": "1m"},
                                                         {"event": "PodEvicted", "action": "RestartPod"}]))
    cluster.set_pg_phase(name)
    cluster.set_pod(f"{name}-task-0", "Failed", exit_code=1)
    cluster.run(20_000)
    cluster.delete_pod(f"{name}-task-1")
    cluster.run(60_000)
    assert "Aborting" in cluster.phases(name)


def _runs(cluster: Cluster, name: str) -> list[tuple[int, str]]:
    """When the controller executed a non-sync action on the job, and which (from its trace)."""
    return [(r.time_ms, r.detail.split(" ")[0]) for r in cluster.trace.records(
        component="job-controller", event="ExecuteAction", obj=f"default/{name}")]


def _started(cluster: Cluster) -> list[str]:
    return [e["message"] for e in cluster.events("ExecuteAction") if e["message"].startswith("Start to execute")]


def test_two_pods_delayed_actions_falling_due_together_run_by_scope(cluster: Cluster) -> None:
    """Two pending pods, each with a PodPending delayed action due at the same instant: a job-level
    RestartJob runs once and cancels the other pod's; RestartPod runs for each pod (the other pod's
    is out of its scope); RestartTask runs once (same task). None of the runs records a "Start to
    execute action" Event: Volcano's delayed-action goroutine records none, only the scheduling
    ("Execute action <A> after 20s") is announced."""
    for action, job_level, runs in (("RestartJob", True, 1), ("RestartPod", False, 2), ("RestartTask", False, 1)):
        name = f"due-{action.lower()}"
        policy = [{"event": "PodPending", "action": action, "timeout": "20s"}]
        spec = task("task", 2)
        if not job_level:
            spec["policies"] = policy
        cluster.submit(job(name, [spec], policies=policy if job_level else None))
        t0 = cluster.clock.now_ms
        cluster.set_pg_phase(name)
        cluster.run(25_000)
        fired = [(t, a) for t, a in _runs(cluster, name) if t <= t0 + 25_000]
        assert [a for _, a in fired] == [action] * runs, fired
        assert len({t for t, _ in fired}) == 1, fired  # all at the instant the two timers fall due
    assert _started(cluster) == []
    announced = {e["message"] for e in cluster.events("ExecuteAction")}
    assert announced >= {f"Execute action {a} after 20s" for a in ("RestartJob", "RestartPod", "RestartTask")}


def test_an_action_run_at_once_is_announced(cluster: Cluster) -> None:
    """The same policy without a timeout runs the action when the request is processed, with the
    ``ExecuteAction`` Event "Start to execute action <A> " (the delayed path's silence is its own)."""
    name = "at-once"
    cluster.submit(job(name, [task("task", 1)], policies=[{"event": "PodFailed", "action": "AbortJob"}]))
    cluster.set_pg_phase(name)
    cluster.set_pod(f"{name}-task-0", "Failed", exit_code=1)
    cluster.run(1_000)
    assert _started(cluster) == ["Start to execute action AbortJob "]
