"""Lifecycle policies at their edges, and the Job commands (controllers reference §2.4, §3.2, §3.3).

* an ``exitCode`` policy matches its code only, not the codes beside it, and is reached after a
  policy earlier in the list whose event does not match;
* ``PodPending`` matches only a policy with a ``timeout``, and the action then runs once the pod has
  been pending for the whole timeout; a pod that starts running in time cancels it;
* the ``AbortJob`` and ``ResumeJob`` commands: an aborted job keeps its finished pods and runs
  nothing; resumed, it counts one retry and runs again.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import Task, job, job_command
from volcano.conformance.lib.waits import (
    bound,
    count_phase,
    job_conditions,
    job_phase,
    wait_job_phase,
    wait_job_phases,
)

pytestmark = pytest.mark.job_lifecycle
Obj = dict[str, Any]
NO_REQUESTS: dict[str, str] = {}


@pytest.mark.cluster(workers=2)
@pytest.mark.parametrize(("exit_code", "terminated"), [(2, False), (3, True), (4, False)])
def test_an_exit_code_policy_matches_its_code_only(cluster: Cluster, exit_code: int, terminated: bool) -> None:
    """Policies [PodEvicted -> RestartJob, exitCode 3 -> TerminateJob]; one pod fails after 5 s with
    ``exit_code``: the first policy's event does not match, so the scan goes on to the exit code,
    which terminates the job for 3 and, for 2 or 4, leaves it running with one failed pod."""
    name = f"exit-{exit_code}"
    cluster.apply(job(name, [Task(name="run", rep=1, req=NO_REQUESTS),
                             Task(name="fails", rep=1, req=NO_REQUESTS, duration="5s", exit_code=exit_code,
                                  restart_policy="Never")],
                      policies=[{"event": "PodEvicted", "action": "RestartJob"},
                                {"exitCode": 3, "action": "TerminateJob"}]))
    if terminated:
        wait_job_phases(cluster, name, ["Running", "Terminating", "Terminated"], 300)
        assert int(cluster.get("Job", name)["status"].get("retryCount") or 0) == 0
        return
    cluster.wait_until(lambda: int((cluster.get("Job", name).get("status") or {}).get("failed") or 0) == 1, 120,
                       f"{name} counts its failed pod")
    cluster.hold(lambda: job_phase(cluster, name) == "Running"
                 and count_phase(cluster.job_pods(name), ("Running",)) == 1, 30, f"{name} keeps running")


def _seconds(stamp: str) -> float:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


@pytest.mark.cluster(workers=2)
@pytest.mark.parametrize(("schedulable", "timeout", "terminated"), [
    (False, "30s", True), (True, "30s", False), (False, None, False),
], ids=["pending-past-timeout", "running-in-time", "no-timeout"])
def test_a_pod_pending_policy_needs_a_timeout_and_waits_it_out(cluster: Cluster, schedulable: bool,
                                                                timeout: str | None, terminated: bool) -> None:
    """Policy PodPending -> TerminateJob: with a 30 s timeout a pod that can never be placed (its node
    selector matches no node) terminates the job 30 s after the pod was created, not sooner; a pod
    that gets a node and runs cancels the delayed action; without a timeout the policy never matches
    PodPending and the job waits on, pending."""
    name = "pending-policy"
    policy: Obj = {"event": "PodPending", "action": "TerminateJob"}
    if timeout:
        policy["timeout"] = timeout
    selector = None if schedulable else {"kubernetes.io/hostname": "no-such-node"}
    cluster.apply(job(name, [Task(name="t", rep=1, req=NO_REQUESTS, node_selector=selector)], policies=[policy]))
    pod_name = f"{name}-t-0"
    cluster.wait_until(lambda: cluster.try_get("Pod", pod_name) is not None, 60, f"pod {pod_name} created")
    created = _seconds(cluster.get("Pod", pod_name)["metadata"]["creationTimestamp"])
    if terminated:
        wait_job_phase(cluster, name, "Terminated", 300)
        stamps = {c["status"]: c.get("lastTransitionTime") for c in cluster.get("Job", name)["status"]["conditions"]}
        # Timestamps have whole seconds: the action ran no earlier than 29 s after the pod's creation.
        assert _seconds(stamps["Terminating"]) - created >= 29, (stamps, created)
        return
    if schedulable:
        cluster.wait_until(lambda: job_phase(cluster, name) == "Running", 120, f"{name} running")
    cluster.hold(lambda: job_phase(cluster, name) == ("Running" if schedulable else "Pending")
                 and len(cluster.job_pods(name)) == 1 and bound(cluster.get("Pod", pod_name)) == schedulable, 60,
                 f"{name} stays {'Running' if schedulable else 'Pending'}")


def _uid(cluster: Cluster, pod_name: str) -> str | None:
    p = cluster.try_get("Pod", pod_name)
    return None if p is None or p["metadata"].get("deletionTimestamp") else str(p["metadata"]["uid"])


@pytest.mark.cluster(workers=2)
def test_an_aborted_job_keeps_its_finished_pods_and_resumes(cluster: Cluster) -> None:
    """A job of a pod that succeeds after 5 s and one that runs on: AbortJob (a Command, consumed
    once) takes it through Aborting to Aborted, deleting the running pod and keeping the succeeded
    one; an aborted job starts nothing. ResumeJob takes it through Restarting back to Running with
    retryCount 1: a new running pod, the succeeded one still the same pod."""
    name = "suspend"
    cluster.apply(job(name, [Task(name="ok", rep=1, req=NO_REQUESTS, duration="5s", restart_policy="Never"),
                             Task(name="run", rep=1, req=NO_REQUESTS)]))
    ok, run = f"{name}-ok-0", f"{name}-run-0"
    cluster.wait_until(lambda: count_phase(cluster.job_pods(name), ("Succeeded",)) == 1
                       and count_phase(cluster.job_pods(name), ("Running",)) == 1, 120,
                       f"{name}: one pod done, one running")
    ok_uid, run_uid = _uid(cluster, ok), _uid(cluster, run)
    before = job_conditions(cluster, name)
    cluster.apply(job_command(cluster.get("Job", name), "AbortJob"))
    wait_job_phases(cluster, name, ["Aborting", "Aborted"], since=before)
    cluster.wait_until(lambda: cluster.try_get("Pod", run) is None, 60, f"{run} deleted")
    cluster.hold(lambda: job_phase(cluster, name) == "Aborted" and _uid(cluster, ok) == ok_uid
                 and cluster.try_get("Pod", run) is None, 30, f"{name} stays aborted, {ok} kept")
    assert not cluster.list("Command"), "a Command is consumed"
    assert any(e.get("reason") == "CommandIssued" for e in cluster.events(kind="Job", name=name))
    before = job_conditions(cluster, name)
    cluster.apply(job_command(cluster.get("Job", name), "ResumeJob"))
    wait_job_phases(cluster, name, ["Restarting", "Running"], since=before)
    cluster.wait_until(lambda: _uid(cluster, run) not in (None, run_uid)
                       and count_phase([cluster.get("Pod", run)], ("Running",)) == 1, 120, f"a new {run} running")
    assert _uid(cluster, ok) == ok_uid
    assert int(cluster.get("Job", name)["status"].get("retryCount") or 0) == 1

