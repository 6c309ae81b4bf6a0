"""A pod delete the API server refuses while a Job command kills the Job (controllers reference: killJob,
processNextReq): the kill goes on with the other pods, records one Warning ``FailedDelete`` ("Error
deleting pods: [...]") on the Job and fails without writing the Job's status, so the request is retried
(rate-limited), runs the action again (a second ``ExecuteAction`` "Start to execute action <A> " event,
aggregated to count 2), and the retry deletes the pod and finishes the action.

* AbortJob and TerminateJob end with every pod gone and the Job Aborted or Terminated;
* RestartJob ends with both pods replaced (new uids) and the Job Running again after one retry
  (``retryCount`` 1, ``version`` 1).

Shape: one worker; a Job of two pods that run until deleted, requesting nothing.
"""

from __future__ import annotations

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import Task, job, job_command
from volcano.conformance.lib.waits import job_phase

pytestmark = [pytest.mark.job_lifecycle, pytest.mark.faults, pytest.mark.cluster(workers=1)]

FINAL = {"AbortJob": "Aborted", "TerminateJob": "Terminated", "RestartJob": "Running"}


def _events(cluster: Cluster, reason: str) -> list[tuple[str, str, int]]:
    return [(e.get("type", ""), e.get("message", ""), int(e.get("count") or 1))
            for e in cluster.events("Job", "kd") if e.get("reason") == reason]


@pytest.mark.parametrize("action", sorted(FINAL))
def test_a_refused_pod_delete_fails_the_kill_and_the_retry_finishes_it(cluster: Cluster, action: str) -> None:
    """The first delete of kd-t-0 is refused during ``action``: one FailedDelete naming it, the action
    executed twice, and the Job ends as the action ends it."""
    cluster.apply(job("kd", [Task(name="t", rep=2, req={}, grace_seconds=0)]))
    cluster.wait_until(lambda: job_phase(cluster, "kd") == "Running"
                       and (cluster.get("Job", "kd").get("status") or {}).get("running") == 2, 60, "kd Running")
    uids = {p["metadata"]["name"]: p["metadata"]["uid"] for p in cluster.job_pods("kd")}
    cluster.refuse_deletes("Pod", "kd-t-0")
    cluster.apply(job_command(cluster.get("Job", "kd"), action))

    def done() -> bool:
        status = cluster.get("Job", "kd").get("status") or {}
        if action != "RestartJob":
            return job_phase(cluster, "kd") == FINAL[action] and not cluster.job_pods("kd")
        pods = {p["metadata"]["name"]: p["metadata"]["uid"] for p in cluster.job_pods("kd")}
        return job_phase(cluster, "kd") == "Running" and status.get("running") == 2 \
            and set(pods) == set(uids) and not set(pods.values()) & set(uids.values())

    cluster.wait_until(done, 120, f"kd finished {action}")
    failed = _events(cluster, "FailedDelete")
    assert [(t, n) for t, _, n in failed] == [("Warning", 1)], failed
    assert failed[0][1].startswith("Error deleting pods: ") and "failed to delete pod kd-t-0" in failed[0][1], failed
    assert "kd-t-1" not in failed[0][1], failed
    executed = [n for _, msg, n in _events(cluster, "ExecuteAction") if msg == f"Start to execute action {action} "]
    assert executed == [2], _events(cluster, "ExecuteAction")
    status = cluster.get("Job", "kd").get("status") or {}
    if action == "RestartJob":
        assert (status.get("retryCount"), status.get("version")) == (1, 1), status
