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
