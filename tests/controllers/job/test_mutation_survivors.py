"""Tests written for mutants that survived a mutation run (``make mutation``, ``docs/testing.md``):
each pins a behaviour nothing asserted before."""

from __future__ import annotations

from tests.controllers.job.conftest import Cluster, job, task


def test_running_duration_is_from_creation_to_the_last_transition(cluster: Cluster) -> None:
    """``status.runningDuration`` on a finished job: the time from the Job's creation to its last
    phase transition (a Go duration), here 2 s of simulated time, the Job created 5 s in."""
    name = "timed"
    cluster.run(5_000)
    cluster.start(job(name, [task("work", 1)]))
    cluster.run(1_950)
    cluster.set_pod(f"{name}-work-0", "Succeeded")
    status = cluster.status(name)
    assert status["state"]["phase"] == "Completed"
    created = cluster.clock.parse_timestamp(cluster.job(name)["metadata"]["creationTimestamp"])
    finished = cluster.clock.parse_timestamp(status["state"]["lastTransitionTime"])
    assert finished - created >= 2_000
    seconds = (finished - created) / 1000
    assert status["runningDuration"] == f"{seconds:g}s", (status["runningDuration"], seconds)
