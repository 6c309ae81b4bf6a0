"""``ttlSecondsAfterFinished`` (controllers reference §7, the garbage collector): a finished Job
(Completed, Failed or Terminated) is deleted once that many seconds have passed since it finished,
0 meaning at once; a Job without it stays.
"""

from __future__ import annotations

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import Task, job
from volcano.conformance.lib.waits import wait_job_phase

pytestmark = pytest.mark.job_lifecycle


@pytest.mark.parametrize(("ttl", "exit_code", "phase"), [(None, 0, "Completed"), (0, 0, "Completed"),
                                                         (1, 0, "Completed"), (20, 0, "Completed"),
                                                         (20, 3, "Failed")])
def test_a_finished_job_is_deleted_ttl_seconds_after_it_finished(cluster: Cluster, ttl: int | None,
                                                                 exit_code: int, phase: str) -> None:
    """A one-pod job that ends after 5 s (exit code ``exit_code``, so ``phase``): with a ttl it is there
    until shortly before ttl seconds have passed and gone shortly after; without one it stays."""
    name = f"ttl-{'none' if ttl is None else ttl}-{exit_code}"
    start = cluster.now()
    cluster.apply(job(name, [Task(name="t", rep=1, duration="5s", exit_code=exit_code, restart_policy="Never")],
                      ttl=ttl))
    if ttl is not None and ttl <= 2:  # gone about when it finishes: the phase may never be seen
        cluster.wait_until(lambda: cluster.try_get("Job", name) is None, 120, f"{name} deleted")
        assert cluster.now() - start >= 5, "deleted before its pod's 5 s of work were done"
        return
    wait_job_phase(cluster, name, phase, 120)
    if ttl is None:
        cluster.hold(lambda: cluster.try_get("Job", name) is not None, 60, f"{name} stays")
        return
    cluster.wait_until(lambda: cluster.try_get("Job", name) is None, ttl + 30, f"{name} deleted")
    # Timed from the recorded changes, not from when a poll saw them (over HTTP on a busy machine a
    # poll can see the phase many simulated seconds late); the ttl counts whole seconds from the
    # phase's lastTransitionTime, so the deletion may come up to a second early.
    finished, deleted = _finished_and_deleted(cluster, name, phase)
    assert ttl - 1 <= deleted - finished <= ttl + 10, (finished, deleted)


def _finished_and_deleted(cluster: Cluster, name: str, phase: str) -> tuple[float, float]:
    """When Job ``name`` was first recorded in ``phase``, and when its deletion was recorded."""
    finished = deleted = None
    for at, kind, etype, obj in cluster.recorded_history():
        if kind != "Job" or obj["metadata"]["name"] != name:
            continue
        if finished is None and ((obj.get("status") or {}).get("state") or {}).get("phase") == phase:
            finished = at
        if etype == "DELETED":
            deleted = at
    assert finished is not None and deleted is not None, (finished, deleted)
    return finished, deleted
