"""What a Job command does to a Running Job's finished and running pods (controllers reference §2.7,
§3.2): AbortJob, TerminateJob and CompleteJob kill the Job keeping its Succeeded and Failed pods
(``PodRetainPhaseSoft``); RestartJob kills every pod (``PodRetainPhaseNone``) and starts the Job again.
The kill runs in the same sync as the phase change: the first status of the transient phase is the
kill's (``version`` 1, the deleted pods counted terminating).

Shape: a Job of task ``done`` (one pod that succeeds after 5 s) and task ``run`` (one pod that runs
for an hour); the command is issued once ``done`` has succeeded and the Job is still Running.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import Task, job, job_command
from volcano.conformance.lib.waits import job_phase, wait_job_phase

pytestmark = [pytest.mark.job_lifecycle, pytest.mark.cluster(workers=1)]
Obj = dict[str, Any]
NO_REQUESTS: dict[str, str] = {}


def _uid(cluster: Cluster, name: str) -> str | None:
    pod = cluster.try_get("Pod", name)
    return None if pod is None or pod["metadata"].get("deletionTimestamp") else str(pod["metadata"]["uid"])


def _started(cluster: Cluster, name: str) -> tuple[str, str]:
    """Create the Job, wait until ``done`` succeeded while ``run`` runs; the two pods' uids."""
    cluster.apply(job(name, [Task(name="done", rep=1, req=NO_REQUESTS, duration="5s", grace_seconds=0),
                             Task(name="run", rep=1, req=NO_REQUESTS, duration="3600s", grace_seconds=0)], min=1))

    def settled() -> bool:
        status = cluster.get("Job", name).get("status") or {}
        return (status.get("succeeded"), status.get("running")) == (1, 1)

    cluster.wait_until(settled, 120, f"{name}: one pod succeeded, one running")
    assert job_phase(cluster, name) == "Running"
    done, run = _uid(cluster, f"{name}-done-0"), _uid(cluster, f"{name}-run-0")
    assert done is not None and run is not None
    return done, run


@pytest.mark.parametrize(("action", "final"), [("AbortJob", "Aborted"), ("TerminateJob", "Terminated"),
                                                ("CompleteJob", "Completed")])
def test_a_finishing_command_keeps_the_finished_pods(cluster: Cluster, action: str, final: str) -> None:
    """``action`` on the Running Job: the running pod is deleted, the Succeeded one kept (same uid, phase
    Succeeded); the Job reaches ``final`` with no pod pending, running or terminating and no retry."""
    name = f"kc-{action.lower()}"
    done, _ = _started(cluster, name)
    cluster.apply(job_command(cluster.get("Job", name), action))
    wait_job_phase(cluster, name, final, 120)
    cluster.wait_until(lambda: _uid(cluster, f"{name}-run-0") is None, 60, "the running pod gone")
    cluster.hold(lambda: _uid(cluster, f"{name}-done-0") == done, 10, "the succeeded pod kept")
    assert cluster.get("Pod", f"{name}-done-0")["status"]["phase"] == "Succeeded"
    status = cluster.get("Job", name)["status"]
    assert {k: status.get(k) for k in ("pending", "running", "terminating", "retryCount")} == dict.fromkeys(
        ("pending", "running", "terminating", "retryCount")), status
    assert job_phase(cluster, name) == final


def test_a_restart_kills_the_finished_pods_too(cluster: Cluster) -> None:
    """RestartJob on the Running Job: both pods are deleted, the Succeeded one too, and made again (new
    uids); the Job goes Restarting then Running with retryCount 1."""
    name = "kc-restartjob"
    done, run = _started(cluster, name)
    cluster.apply(job_command(cluster.get("Job", name), "RestartJob"))
    cluster.wait_until(lambda: int((cluster.get("Job", name).get("status") or {}).get("retryCount") or 0) == 1,
                       120, f"{name}: retryCount 1")

    def renewed() -> bool:
        new_done, new_run = _uid(cluster, f"{name}-done-0"), _uid(cluster, f"{name}-run-0")
        return new_done not in (None, done) and new_run not in (None, run)

    cluster.wait_until(renewed, 120, "both pods made again")
    wait_job_phase(cluster, name, "Running", 120)
    phases = [c.get("status") for c in cluster.get("Job", name)["status"].get("conditions") or []]
    assert "Restarting" in phases, phases


@pytest.mark.parametrize(("action", "transient"), [("AbortJob", "Aborting"), ("TerminateJob", "Terminating"),
                                                    ("CompleteJob", "Completing")])
def test_the_command_kills_every_pod_in_the_write_that_sets_its_phase(cluster: Cluster, action: str,
                                                                       transient: str) -> None:
    """Two running pods with a 30 s grace period: the status write that first sets ``transient`` is the
    kill's, version 1, counting both pods terminating and none running, and both pods are being deleted
    then."""
    name = f"kc-first-{action.lower()}"
    cluster.apply(job(name, [Task(name="run", rep=2, req=NO_REQUESTS, grace_seconds=30)]))
    cluster.wait_until(lambda: (cluster.get("Job", name).get("status") or {}).get("running") == 2, 120,
                       f"{name}: two running")
    cluster.apply(job_command(cluster.get("Job", name), action))
    cluster.wait_until(lambda: job_phase(cluster, name) == transient, 60, f"{name} {transient}")
    first = next(obj for _, kind, _, obj in cluster.recorded_history()
                 if kind == "Job" and obj["metadata"]["name"] == name
                 and ((obj.get("status") or {}).get("state") or {}).get("phase") == transient)
    status = first["status"]
    assert {k: status.get(k) for k in ("version", "terminating", "running", "pending")} == {
        "version": 1, "terminating": 2, "running": None, "pending": None}, status
    assert all(p["metadata"].get("deletionTimestamp") for p in cluster.job_pods(name))
