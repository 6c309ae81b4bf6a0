"""Job controller conformance: status fields a client reads back (controllers reference §1.3, §2.7).

* The pod counters of ``status`` are written only when not zero (int32 with ``omitempty``).
* ``status.runningDuration`` is written by the kill operations: ``state.lastTransitionTime`` less the
  Job's ``creationTimestamp``, in Go's duration form (``1m2.5s``); an aborted job carries it.
* ``status.conditions`` holds at most one entry per phase, the most recent last: a phase set again
  moves its entry to the end with the new time, so after a restart the list reads Restarting, Pending,
  Running, with times that never go back.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import Task, job, job_command
from volcano.conformance.lib.waits import job_conditions, job_phase, wait_job_phases

pytestmark = pytest.mark.job_lifecycle
Obj = dict[str, Any]
NO_REQUESTS: dict[str, str] = {}
_GO_DURATION = re.compile(r"^(?:(\d+)h)?(?:(\d+)m(?!s))?(?:(\d+(?:\.\d+)?)s)?$|^(\d+(?:\.\d+)?)(ms|us|µs|ns)$")


def _seconds(stamp: str) -> float:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def _go_duration(text: str) -> float:
    """Seconds in a Go ``time.Duration`` string (``0s``, ``1.5s``, ``2m3s``, ``1h0m0s``, ``250ms``)."""
    m = _GO_DURATION.match(text)
    assert m is not None and text, f"not a Go duration: {text!r}"
    if m.group(4) is not None:
        return float(m.group(4)) * {"ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}[m.group(5)]
    hours, minutes, seconds = m.group(1), m.group(2), m.group(3)
    return int(hours or 0) * 3600 + int(minutes or 0) * 60 + float(seconds or 0)


@pytest.mark.cluster(workers=1)
def test_an_aborted_job_reports_how_long_it_ran(cluster: Cluster) -> None:
    """After AbortJob the job is Aborted and its status says how long it ran: the kill operation's
    ``runningDuration`` is the state's ``lastTransitionTime`` less the Job's ``creationTimestamp``."""
    name = "m11-ran"
    cluster.apply(job(name, [Task(name="run", rep=1, req=NO_REQUESTS)]))
    cluster.wait_until(lambda: job_phase(cluster, name) == "Running", 300, f"{name} running")
    cluster.wait_until(lambda: (cluster.get("Job", name).get("status") or {}).get("running") == 1, 300,
                       f"{name}: status.running 1")
    counters = cluster.get("Job", name)["status"]
    # The pod counters are int32 with omitempty: a count of zero is not written at all.
    assert {key: counters[key] for key in ("failed", "terminating", "unknown") if key in counters} == {}
    before = job_conditions(cluster, name)
    cluster.apply(job_command(cluster.get("Job", name), "AbortJob"))
    wait_job_phases(cluster, name, ["Aborting", "Aborted"], since=before)

    def consistent() -> bool:
        obj = cluster.get("Job", name)
        status = obj.get("status") or {}
        text = status.get("runningDuration")
        if not isinstance(text, str) or (status.get("state") or {}).get("phase") != "Aborted":
            return False
        ran = _seconds(status["state"]["lastTransitionTime"]) - _seconds(obj["metadata"]["creationTimestamp"])
        return abs(_go_duration(text) - ran) < 1.0

    cluster.wait_until(consistent, 300, f"{name} reports its running duration")


@pytest.mark.cluster(workers=1)
def test_a_restart_moves_each_phase_to_the_end_of_the_conditions(cluster: Cluster) -> None:
    """RestartJob on a running job: Restarting, then Pending and Running again. Each phase keeps one
    condition, moved to the end when set again, so the list ends Restarting, Pending, Running with
    non-decreasing times."""
    name = "m11-conds"
    cluster.apply(job(name, [Task(name="run", rep=1, req=NO_REQUESTS)]))
    cluster.wait_until(lambda: job_phase(cluster, name) == "Running", 300, f"{name} running")
    assert job_conditions(cluster, name) == ["Pending", "Running"]
    before = job_conditions(cluster, name)
    cluster.apply(job_command(cluster.get("Job", name), "RestartJob"))
    wait_job_phases(cluster, name, ["Restarting", "Running"], since=before)
    cluster.wait_until(lambda: job_conditions(cluster, name) == ["Restarting", "Pending", "Running"], 300,
                       f"{name}'s conditions after the restart")
    conditions = cluster.get("Job", name)["status"]["conditions"]
    times = [_seconds(c["lastTransitionTime"]) for c in conditions]
    assert times == sorted(times), conditions
    status = cluster.get("Job", name)["status"]
    assert int(status.get("retryCount") or 0) == 1, status


@pytest.mark.cluster(workers=1)
def test_a_missing_claim_is_reported_as_a_warning_naming_it(cluster: Cluster) -> None:
    """A volume naming a claim that does not exist: a Warning ``PVCError`` on the Job quoting the error, the
    Job Pending, no PodGroup and no pod (the claims are checked before the PodGroup is made)."""
    name = "m11-noclaim"
    spec = job(name, [Task(name="run", rep=1, req=NO_REQUESTS)])
    spec["spec"]["volumes"] = [{"mountPath": "/d", "volumeClaimName": "m11-absent"}]
    cluster.apply(spec)
    wanted = ("Warning", "Failed to create PVC, err: pvc m11-absent is not found, the job will be in the Pending "
              "state until the PVC is created")

    def said() -> set[tuple[str, str]]:
        return {(str(e.get("type")), str(e.get("message"))) for e in cluster.events(kind="Job", name=name)
                if e.get("reason") == "PVCError"}

    cluster.wait_until(lambda: wanted in said(), 300, f"a PVCError event on {name}")
    assert said() == {wanted}
    assert job_phase(cluster, name) == "Pending"
    assert not cluster.job_pods(name)
    assert not [pg for pg in cluster.list("PodGroup") if pg["metadata"]["name"].startswith(f"{name}-")]


@pytest.mark.cluster(workers=1)
def test_a_job_scheduled_at_once_reports_no_pending_podgroup(cluster: Cluster) -> None:
    """A one-pod job on a roomy cluster: its PodGroup's only True condition is ``Scheduled``, so the
    controller's syncs record no ``PodGroupPending`` Warning on the Job (that event is for a PodGroup whose
    latest True condition is another)."""
    name = "m11-at-once"
    cluster.apply(job(name, [Task(name="run", rep=1, req=NO_REQUESTS)]))
    cluster.wait_until(lambda: job_phase(cluster, name) == "Running", 300, f"{name} running")

    def scheduled() -> bool:
        pgs = [pg for pg in cluster.list("PodGroup") if pg["metadata"]["name"].startswith(f"{name}-")]
        conds = [c for pg in pgs for c in (pg.get("status") or {}).get("conditions") or []
                 if c.get("status") == "True"]
        return bool(conds) and conds[-1].get("type") == "Scheduled"

    cluster.wait_until(scheduled, 300, f"{name}'s PodGroup Scheduled")
    cluster.hold(lambda: not [e for e in cluster.events(kind="Job", name=name) if e.get("reason") == "PodGroupPending"],
                 15, f"no PodGroupPending on {name}")
