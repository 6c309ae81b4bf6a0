"""How a Job whose pods have all ended is judged (controllers reference §3.5, the running rule,
steps 3a and 3b): when ``spec.minAvailable`` is at least the sum of the tasks' minAvailable
(replicas where unset), every task that sets its own minAvailable must have that many Succeeded pods,
else the job is Failed even though the job-wide successes reach ``spec.minAvailable``; when it is
below that sum the per-task check is skipped. With ``minSuccess`` set, fewer successes than it mean
Failed although ``spec.minAvailable`` is met.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import Task, job
from volcano.conformance.lib.waits import wait_job_phase

pytestmark = pytest.mark.job_lifecycle
NO_REQUESTS: dict[str, str] = {}


def _judged(cluster: Cluster, name: str, phase: str) -> dict[str, Any]:
    """The status the job was first written with in ``phase`` (the kill that follows replaces the
    counters with those of the pods it saw terminating: retained pods are not counted, §2.7)."""
    wait_job_phase(cluster, name, phase, 300)
    for _, kind, _, obj in cluster.recorded_history():
        status = obj.get("status") or {}
        if kind == "Job" and obj["metadata"]["name"] == name and (status.get("state") or {}).get("phase") == phase:
            return dict(status)
    raise AssertionError(f"no status of {name} in phase {phase} recorded")


def _tasks(ok: int, bad: int, ok_min: int | None, bad_min: int | None) -> list[Task]:
    return [Task(name="ok", rep=ok, min=0, req=NO_REQUESTS, duration="5s", restart_policy="Never",
                 min_available=ok_min),
            Task(name="bad", rep=bad, min=0, req=NO_REQUESTS, duration="5s", exit_code=1, restart_policy="Never",
                 min_available=bad_min)]


@pytest.mark.parametrize(("job_min", "phase"), [(2, "Failed"), (1, "Completed")])
def test_a_task_short_of_its_own_min_available_fails_the_job(cluster: Cluster, job_min: int, phase: str) -> None:
    """Task ``ok`` (2 pods succeed, minAvailable 1) and task ``bad`` (2 pods fail, minAvailable 1):
    with ``spec.minAvailable`` 2 (= 1 + 1) bad's 0 successes fail the job although 2 pods succeeded;
    with ``spec.minAvailable`` 1 (below the sum) only the job-wide count is read: Completed."""
    name = f"taskmin-{job_min}"
    spec = job(name, _tasks(2, 2, 1, 1), min=job_min)
    cluster.apply(spec)
    status = _judged(cluster, name, phase)
    assert (status.get("succeeded"), status.get("failed")) == (2, 2), status


@pytest.mark.parametrize(("min_success", "phase"), [(3, "Failed"), (2, "Completed")])
def test_min_success_above_the_successes_fails_a_finished_job(cluster: Cluster, min_success: int,
                                                              phase: str) -> None:
    """Two pods succeed and one fails (job minAvailable 1): with ``minSuccess`` 3 the finished job is
    Failed although its successes pass minAvailable; with ``minSuccess`` 2 it is Completed."""
    name = f"minsuccess-{min_success}"
    cluster.apply(job(name, _tasks(2, 1, None, None), min=1, min_success=min_success))
    status = _judged(cluster, name, phase)
    assert status.get("succeeded") == 2, status
    if phase == "Failed":  # judged only once every pod had ended (minSuccess 2 completes at the 2nd success)
        assert status.get("failed") == 1, status
