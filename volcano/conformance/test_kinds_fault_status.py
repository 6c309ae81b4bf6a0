"""Status writes the API server refuses (controllers reference: processNextReq; scheduler reference
§7.5, ``taskUnschedulable``).

* The Job controller's first write of a new Job's status fails: the sync fails before anything else is
  made, and the request is retried with client-go's per-item exponential back-off (5 ms doubling), at
  most 15 times (``maxRequeueNum``): a Job whose first 15 status writes fail gets its first status
  (Pending) at 5 ms x (2^15 - 1) = 163.835 s and then runs; one more failure and the retries run out:
  Normal ``ExecuteAction`` "Job failed on action SyncJob for retry limit reached", and the Job is
  terminated (Terminated, no pod ever made).
* The scheduler's write of a waiting pod's ``PodScheduled=False/Unschedulable`` condition fails: the
  ``FailedScheduling`` event recorded with it stands, and the next cycle, finding the condition still
  absent, records the event again (count 2) and writes the condition.

Shape: one worker of 2 CPUs, no control plane.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import Task, job, pod, pod_group
from volcano.conformance.lib.waits import bound, job_phase

Obj = dict[str, Any]

pytestmark = [pytest.mark.faults, pytest.mark.cluster(workers=1, cpu="2", control_plane=False)]

BACKOFF_15 = 0.005 * (2 ** 15 - 1)
"""Seconds of back-off before the 16th attempt of a request: 5 ms, doubling, 15 times."""


def _seconds(cluster: Cluster, stamp: str) -> float:
    """Seconds from kj's creation to an RFC 3339 time (whole seconds, as the API serves them)."""
    from datetime import datetime

    created = datetime.fromisoformat(cluster.get("Job", "kj")["metadata"]["creationTimestamp"].replace("Z", "+00:00"))
    return (datetime.fromisoformat(stamp.replace("Z", "+00:00")) - created).total_seconds()


def _job_events(cluster: Cluster, reason: str) -> list[tuple[str, str, int]]:
    return [(e.get("type", ""), e.get("message", ""), int(e.get("count") or 1))
            for e in cluster.events("Job", "kj") if e.get("reason") == reason]


@pytest.mark.job_lifecycle
@pytest.mark.parametrize("failures", [15, 16])
def test_a_job_whose_status_writes_fail_is_retried_until_the_limit(cluster: Cluster, failures: int) -> None:
    """The first ``failures`` status writes of Job kj fail: no status and no pod until the back-off
    has run 163.835 s; then with 15 failures the Job is Pending and runs, with 16 it is Terminated after
    the retry-limit event."""
    cluster.fail_status_writes("Job", "kj", times=failures)
    cluster.apply(job("kj", [Task(name="t", rep=1, req={"cpu": "1"}, grace_seconds=0)]))
    cluster.hold(lambda: not cluster.get("Job", "kj").get("status") and not cluster.job_pods("kj"),
                 BACKOFF_15 - 10, "kj has no status and no pod while its sync is retried")
    final = "Running" if failures == 15 else "Terminated"
    cluster.wait_until(lambda: job_phase(cluster, "kj") == final, 30, f"kj {final}")
    # the first status (Pending, or Terminating) is written by the 16th attempt, after the whole back-off
    first = cluster.get("Job", "kj")["status"]["conditions"][0]
    assert _seconds(cluster, first["lastTransitionTime"]) >= BACKOFF_15 - 1, first
    limit = [(t, m, n) for t, m, n in _job_events(cluster, "ExecuteAction") if "retry limit" in m]
    if failures == 15:
        assert limit == [], limit
        assert len(cluster.job_pods("kj")) == 1
        return
    assert limit == [("Normal", "Job failed on action SyncJob for retry limit reached", 1)], limit
    assert cluster.job_pods("kj") == []
    assert cluster.list("PodGroup") == []


@pytest.mark.podgroup_status
def test_a_refused_pod_condition_write_is_told_and_written_again_next_cycle(cluster: Cluster) -> None:
    """A 3-CPU pod cannot fit; the scheduler's first write of its Unschedulable condition is refused: the
    next cycle records FailedScheduling again (count 2) and writes the condition, and no more after."""
    cluster.fail_status_writes("Pod", "ku-0")
    cluster.apply(pod_group("ku", min_member=1))
    cluster.apply(pod("ku-0", group="ku", req={"cpu": "3"}, grace_seconds=0))

    def told() -> list[tuple[str, int]]:
        return [(e.get("type", ""), int(e.get("count") or 1)) for e in cluster.events("Pod", "ku-0")
                if e.get("reason") == "FailedScheduling"]

    def condition() -> tuple[str, str] | None:
        for c in (cluster.get("Pod", "ku-0").get("status") or {}).get("conditions") or []:
            if c.get("type") == "PodScheduled":
                return c.get("status", ""), c.get("reason", "")
        return None

    cluster.wait_until(lambda: condition() is not None, 60, "ku-0's condition written")
    assert condition() == ("False", "Unschedulable")
    cluster.sleep(10)
    assert told() == [("Warning", 2)], told()
    assert not bound(cluster.get("Pod", "ku-0"))
