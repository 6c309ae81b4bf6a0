"""Boundary values of the Job controller's limits: each limit itself and one on each side.

* task ``maxRetry``: the ``TaskFailed`` event fires when the container restarts of the task's
  live pods reach it (``>=``), not before; ``0`` means 3 (the CRD's minimum is 0, so no negative
  value is ever stored);
* job ``maxRetry``: a restart request with ``retryCount >= maxRetry`` fails the job;
* job ``minSuccess``: the job completes once that many pods succeeded, not one pod earlier;
* task ``minAvailable`` under ``replicas``: the job is Running at ``minAvailable`` running pods;
* a policy ``timeout``: the action runs when the event has lasted that long, not a millisecond before.

Reference: the controllers reference §2.2 (TaskFailed), §3.4 (Restarting -> Failed) and §3.3
(the Running/Completed counts).
"""

from __future__ import annotations

import pytest

from tests.controllers.job.conftest import Cluster, fail_until_retry_limit, job, task

TERMINATE_ON_TASK_FAILED = [{"event": "TaskFailed", "action": "TerminateJob"}]


@pytest.mark.parametrize(("max_retry", "restarts", "fires"), [
    (3, 2, False), (3, 3, True), (3, 4, True),
    (1, 0, False), (1, 1, True), (1, 2, True),
])
def test_task_failed_fires_at_max_retry_restarts(cluster: Cluster, max_retry: int, restarts: int,
                                                   fires: bool) -> None:
    name = "task-retry"
    cluster.start(job(name, [task("ok", 1), task("flaky", 2, max_retry=max_retry)],
                      policies=TERMINATE_ON_TASK_FAILED))
    cluster.set_pod(f"{name}-flaky-0", "Running", restarts=restarts)
    if fires:
        assert cluster.phases(name)[-2:] == ["Terminating", "Terminated"], cluster.phases(name)
    else:
        assert cluster.phase(name) == "Running"
        assert "Terminating" not in cluster.phases(name)


@pytest.mark.parametrize(("restarts", "fires"), [(2, False), (3, True)])
def test_task_max_retry_zero_means_three(cluster: Cluster, restarts: int, fires: bool) -> None:
    """A task that reaches the controller with ``maxRetry: 0`` (no webhook) gets the default 3."""
    name = "task-retry-zero"
    spec = job(name, [task("ok", 1), task("flaky", 1)], policies=TERMINATE_ON_TASK_FAILED)
    spec["spec"]["tasks"][1]["maxRetry"] = 0
    cluster.start(spec)
    cluster.set_pod(f"{name}-flaky-0", "Running", restarts=restarts)
    assert (cluster.phase(name) == "Terminated") is fires


def test_task_failed_sums_restarts_over_the_tasks_live_pods(cluster: Cluster) -> None:
    """Two pods with restarts 1 and 2 reach maxRetry 3 together; a third pod of another task does not count."""
    name = "task-retry-sum"
    cluster.start(job(name, [task("other", 1), task("flaky", 2, max_retry=3)], policies=TERMINATE_ON_TASK_FAILED))
    cluster.set_pod(f"{name}-other-0", "Running", restarts=2)
    cluster.set_pod(f"{name}-flaky-0", "Running", restarts=1)
    assert cluster.phase(name) == "Running"
    cluster.set_pod(f"{name}-flaky-1", "Running", restarts=2)
    assert cluster.phase(name) == "Terminated"


@pytest.mark.parametrize("max_retry", [1, 2, 3])
def test_job_fails_on_the_restart_request_at_max_retry(cluster: Cluster, max_retry: int) -> None:
    """The job restarts ``maxRetry - 1`` times and fails on the next restart request; never earlier."""
    name = f"job-retry-{max_retry}"
    cluster.start(job(name, [task("task", 1)], policies=[{"event": "PodFailed", "action": "RestartJob"}],
                      max_retry=max_retry))
    fail_until_retry_limit(cluster, name, max_retry=max_retry)


@pytest.mark.parametrize(("succeeded", "completed"), [(1, False), (2, True)])
def test_min_success_completes_at_the_limit(cluster: Cluster, succeeded: int, completed: bool) -> None:
    """minSuccess 2 of 4 pods: one Succeeded pod is not enough, the second completes the job."""
    name = f"min-success-{succeeded}"
    cluster.start(job(name, [task("work", 4)], minSuccess=2))
    for i in range(succeeded):
        cluster.set_pod(f"{name}-work-{i}", "Succeeded")
    assert (cluster.phase(name) == "Completed") is completed, cluster.phases(name)


@pytest.mark.parametrize(("running", "phase"), [(1, "Pending"), (2, "Running"), (3, "Running")])
def test_running_at_min_available_below_replicas(cluster: Cluster, running: int, phase: str) -> None:
    """minAvailable 2 of 3 replicas: Running from the second running pod, not the first."""
    name = f"min-available-{running}"
    cluster.submit(job(name, [task("work", 3, min_available=2)]))
    cluster.set_pg_phase(name)
    for i in range(running):
        cluster.set_pod(f"{name}-work-{i}", "Running")
    assert cluster.phase(name) == phase


@pytest.mark.parametrize(("waited_ms", "aborted"), [(59_999, False), (60_000, True), (60_001, True)])
def test_pod_pending_timeout_fires_at_the_timeout(cluster: Cluster, waited_ms: int, aborted: bool) -> None:
    """``PodPending`` with ``timeout: 1m``: the action runs one minute after the pods went Pending."""
    name = f"pending-{waited_ms}"
    cluster.submit(job(name, [task("task", 1)],
                       policies=[{"event": "PodPending", "action": "AbortJob", "timeout": "1m"}]), ms=0)
    cluster.set_pg_phase(name, ms=0)
    cluster.run(waited_ms)
    assert (cluster.phase(name) == "Aborted") is aborted, cluster.phases(name)
