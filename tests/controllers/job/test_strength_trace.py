"""The Job controller's decision-trace records (what ``volcano trace`` shows): each phase the
controller writes is a ``JobPhase`` record of component ``job-controller`` on ``<namespace>/<job>``,
and a consumed Command is a ``Command`` record on the job it targets, its action as the detail."""

from __future__ import annotations

from tests.controllers.job.conftest import Cluster, job, task


def test_phases_and_commands_are_recorded_on_the_job() -> None:
    c = Cluster()
    name = c.start(job("traced", [task("worker", 1)]))
    phases = c.trace.records(component="job-controller", event="JobPhase", obj=f"default/{name}")
    assert any("Running" in r.detail for r in phases), [r.detail for r in phases]
    c.command(name, "AbortJob")
    [command] = c.trace.records(component="job-controller", event="Command", obj=f"default/{name}")
    assert command.detail == "AbortJob"
