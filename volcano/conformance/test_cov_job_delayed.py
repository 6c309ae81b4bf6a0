"""Delayed actions (a policy ``timeout``, controllers reference §2.4): the Job is told "Execute action
<action> after <timeout>" with the timeout in Go's ``time.Duration`` form (``1m30s``, ``1h0m0s``,
``750ms``); when the action falls due it runs with no "Start to execute action" Event (Volcano's
delayed-action goroutine records none); once an action runs it cancels the pending delayed actions
of its own scope only: a job-level action (RestartJob) those of every pod, RestartPod those of the
same pod (how many times each ran is checked in the controller's unit tests, from its trace).
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import Task, job

pytestmark = [pytest.mark.job_lifecycle, pytest.mark.cluster(workers=1, control_plane=False)]
Obj = dict[str, Any]
NOWHERE = {"kubernetes.io/hostname": "no-such-node"}


def _pending_job(name: str, rep: int, action: str, timeout: str, *, job_level: bool = False) -> Obj:
    policy = [{"event": "PodPending", "action": action, "timeout": timeout}]
    task = Task(name="a", rep=rep, req={}, node_selector=NOWHERE, policies=None if job_level else policy)
    return job(name, [task], min=1, max_retry=10, policies=policy if job_level else None)


def _job_events(cluster: Cluster, name: str, prefix: str) -> list[Obj]:
    return [e for e in cluster.events(kind="Job", name=name)
            if e.get("reason") == "ExecuteAction" and str(e.get("message", "")).startswith(prefix)]


@pytest.mark.parametrize(("timeout", "shown"), [("90s", "1m30s"), ("1h", "1h0m0s"), ("1.25m", "1m15s"),
                                                ("2h3m4.5s", "2h3m4.5s"), ("750ms", "750ms")])
def test_the_delay_is_announced_as_a_go_duration(cluster: Cluster, timeout: str, shown: str) -> None:
    """Policy PodPending -> RestartTask after ``timeout`` on a pod no node takes: the Job's Normal
    ExecuteAction event reads "Execute action RestartTask after ``shown``"."""
    name = "announce"
    cluster.apply(_pending_job(name, 1, "RestartTask", timeout))
    cluster.wait_until(lambda: bool(_job_events(cluster, name, "Execute action")), 30, "the announcement")
    assert {(e.get("type"), e.get("message")) for e in _job_events(cluster, name, "Execute action")} == \
        {("Normal", f"Execute action RestartTask after {shown}")}


def _rounds(cluster: Cluster, name: str, pod: str) -> int:
    """How many times ``pod`` was replaced (from the watch history)."""
    added = [at for at, kind, event, obj in cluster.recorded_history()
             if kind == "Pod" and event == "ADDED" and obj["metadata"]["name"] == pod]
    return len(added) - 1


@pytest.mark.parametrize(("action", "job_level"), [("RestartJob", True), ("RestartPod", False)])
def test_an_action_cancels_only_the_delayed_actions_of_its_scope(cluster: Cluster, action: str,
                                                                 job_level: bool) -> None:
    """Two pods no node takes, policy PodPending -> ``action`` after 20 s: both delayed actions fall
    due together. RestartJob (job level) replaces both pods; RestartPod runs for each pod (another
    pod's is out of its scope), so both are replaced too. A round adds one retry: the first run moves
    the job to Restarting, where a restart adds none (§3.2). The delayed runs are announced only by
    "Execute action ... after 20s", never by "Start to execute action"."""
    name = f"scope-{action.lower()}"
    cluster.apply(_pending_job(name, 2, action, "20s", job_level=job_level))
    cluster.wait_until(lambda: min(_rounds(cluster, name, f"{name}-a-{i}") for i in range(2)) >= 1, 60,
                       "both pods replaced")
    cluster.sleep(5)
    # (over HTTP a wait may run long: every count is checked against the replacements seen)
    rounds = [_rounds(cluster, name, f"{name}-a-{i}") for i in range(2)]
    assert rounds[0] == rounds[1] >= 1, f"replacements per pod: {rounds}"
    assert _job_events(cluster, name, "Start to execute action") == []
    assert _job_events(cluster, name, f"Execute action {action} after 20s")
    # one retry per round: the first action moves the job to Restarting, where a second adds none
    assert int(cluster.get("Job", name)["status"].get("retryCount") or 0) == rounds[0]
