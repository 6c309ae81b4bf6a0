"""A Job the controller cannot sync (controllers reference §2.1, §4.8): the request is re-queued
with back-off up to ``--max-requeue-num`` (15) times; then the controller records a Normal
``ExecuteAction`` event "Job failed on action <A> for retry limit reached" and terminates the job.
The ray plugin without its head task is such a job: every pod creation fails with "job <job>
doesn't have head task <head>", so no pod is ever made.
"""

from __future__ import annotations

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import Task, job
from volcano.conformance.lib.waits import wait_job_phase

pytestmark = pytest.mark.job_plugins


@pytest.mark.parametrize(("args", "tasks", "terminated"), [
    ([], ["worker"], True),  # the default head task "head" is missing
    (["--head=boss"], ["head", "worker"], True),
    (["--head=boss"], ["boss", "worker"], False),
])
def test_a_ray_job_without_its_head_task_is_terminated_after_the_retry_limit(
        cluster: Cluster, args: list[str], tasks: list[str], terminated: bool) -> None:
    """Tasks ``tasks`` with the ray plugin ``args``: without the head task no pod is created and,
    after the retries, the job is Terminated with the retry-limit event; with it the pods run."""
    name = "rayless"
    cluster.apply(job(name, [Task(name=t, rep=1, req={"cpu": "100m"}) for t in tasks], plugins={"ray": args}))
    if not terminated:
        cluster.wait_until(lambda: len(cluster.job_pods(name)) == len(tasks), 60, "the pods created")
        return
    wait_job_phase(cluster, name, "Terminated", 1200)
    assert cluster.job_pods(name) == []
    events = [e for e in cluster.events(kind="Job", name=name) if e.get("reason") == "ExecuteAction"
              and "for retry limit reached" in (e.get("message") or "")]
    assert events, "no retry-limit event"
    assert {e.get("type") for e in events} == {"Normal"}
    assert events[0]["message"].startswith("Job failed on action "), events[0]["message"]
