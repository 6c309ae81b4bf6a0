"""A Job leaves Aborting, Terminating and Completing only once drained (controllers reference §2.4):
Volcano's state machine moves it to Aborted, Terminated or Completed when no pod of it is pending,
running *or terminating*, so a pod still inside its termination grace period holds the job in the
transient phase.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import Task, job, job_command
from volcano.conformance.lib.waits import count_phase, wait_job_phase

pytestmark = pytest.mark.job_lifecycle
Obj = dict[str, Any]
NO_REQUESTS: dict[str, str] = {}


def _phase(obj: Obj) -> str:
    return str(((obj.get("status") or {}).get("state") or {}).get("phase") or "")


@pytest.mark.cluster(workers=2)
@pytest.mark.parametrize(("action", "transient", "final"), [("AbortJob", "Aborting", "Aborted"),
                                                             ("TerminateJob", "Terminating", "Terminated"),
                                                             ("CompleteJob", "Completing", "Completed")])
def test_a_killed_job_reaches_its_final_phase_only_after_its_pods_are_gone(cluster: Cluster, action: str,
                                                                          transient: str, final: str) -> None:
    """Two running pods with a 20 s grace period; the command deletes them. The job is in ``transient``
    while they terminate (20 s), and its first ``final`` version counts no pod pending, running or
    terminating."""
    name = f"drain-{action.lower()}"
    cluster.apply(job(name, [Task(name="run", rep=2, req=NO_REQUESTS, grace_seconds=20)]))
    cluster.wait_until(lambda: count_phase(cluster.job_pods(name), ("Running",)) == 2, 120, f"{name} running")
    cluster.apply(job_command(cluster.get("Job", name), action))
    wait_job_phase(cluster, name, final, 300)
    transient_at: float | None = None
    final_at: float | None = None
    for at, kind, _, obj in cluster.recorded_history():
        if kind != "Job" or (obj.get("metadata") or {}).get("name") != name:
            continue
        if _phase(obj) == transient and transient_at is None:
            transient_at = at
        if _phase(obj) == final and final_at is None:
            final_at = at
            counts = {k: int((obj.get("status") or {}).get(k) or 0) for k in ("pending", "running", "terminating")}
            assert counts == {"pending": 0, "running": 0, "terminating": 0}, f"{name} {final} with pods left: {counts}"
    assert transient_at is not None and final_at is not None, f"{name} never written {transient}"
    # The pods' 20 s grace period passes between the two phases (the history's times are when each
    # change was seen, within a second of when it was made).
    assert final_at - transient_at >= 18, f"{name}: {transient} at {transient_at} s, {final} at {final_at} s"
