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
