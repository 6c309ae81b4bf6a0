"""Job controller status writes, kinds a client reads back (controllers reference §1.3 status fields):

* the status is written as Go's ``omitempty`` serialises it, and a pod-level sync does not carry
  ``runningDuration`` over (only the kill operations write it): a ``runningDuration`` another client
  stored, empty or set, stays while only the status changes (no sync starts) and is gone after the
  controller's next status write that is not a kill;
* a pod finishing while its Job keeps running moves it from ``running`` to ``succeeded`` in the counters
  and in ``taskStatusCount`` (each task's phases with at least one pod), and the Job stays ``Running``.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import Task, job
from volcano.conformance.lib.waits import job_phase

pytestmark = pytest.mark.job_lifecycle
Obj = dict[str, Any]
NO_REQUESTS: dict[str, str] = {}


def _status(cluster: Cluster, name: str) -> Obj:
    return dict(cluster.get("Job", name).get("status") or {})


@pytest.mark.cluster(workers=1)
@pytest.mark.parametrize("stored", ["", "7s"])
def test_a_stored_running_duration_stays_until_the_next_status_write(cluster: Cluster, stored: str) -> None:
    """A running Job of a long task ``long`` and a two-minute task ``short``: a client stores
    ``runningDuration: stored`` in its status. When ``short``'s pod succeeds the controller writes the
    counters (running 1, succeeded 1; taskStatusCount long Running 1, short Succeeded 1) and the Job
    stays Running. The status update itself starts no sync, so the stored value stays until then; that
    write drops it, empty (``omitempty``) or set (a pod-level sync does not carry it over, Volcano's
    quirk)."""
    name = "kj-empty"
    cluster.apply(job(name, [Task(name="long", rep=1, req=NO_REQUESTS, duration="3600s"),
                             Task(name="short", rep=1, req=NO_REQUESTS, duration="120s")]))
    # (``short`` runs two simulated minutes: over HTTP the status is seen, and the hold below starts,
    # a few wall seconds late on a loaded machine, which a paced clock turns into tens of seconds)
    cluster.wait_until(lambda: _status(cluster, name).get("running") == 2, 120, f"{name}: status.running 2")
    assert "runningDuration" not in _status(cluster, name)
    cluster.patch("Job", name, {"status": {"runningDuration": stored}}, subresource="status")
    assert _status(cluster, name).get("runningDuration") == stored
    # A status update alone starts no sync (the controller reconciles on spec and phase changes).
    cluster.hold(lambda: _status(cluster, name).get("runningDuration") == stored, 10, "the stored value stays")
    assert _status(cluster, name).get("succeeded") is None
    cluster.wait_until(lambda: _status(cluster, name).get("succeeded") == 1, 240, f"{name}: status.succeeded 1")
    status = _status(cluster, name)
    assert job_phase(cluster, name) == "Running"
    assert (status.get("running"), status.get("succeeded")) == (1, 1), status
    assert status.get("taskStatusCount") == {"long": {"phase": {"Running": 1}},
                                             "short": {"phase": {"Succeeded": 1}}}, status
    assert "runningDuration" not in status, status
