"""Admission conformance: a Job's task-level lifecycle policies, checked by ``validatejob.volcano.sh`` as the
Job-level ones are (``validatePolicies`` with the path ``spec.tasks.policies``).

Each task's policy errors are go-multierror's text followed by `` valid events are [...], valid actions are
[...];``, appended to the denial in task order, before the Job-level policies' (checked after the task
loop); the rules are the Job level's: an unknown action names the value at ``spec.tasks.policies``
(an unknown event never reaches the webhook: the CRD schema's enum refuses it first, 422 ``Unsupported
value`` listing the events in schema order), an exit code of 0 is refused, an event and an exit code
together are refused, and an event repeated across a task's policies is a duplicate (the same event in
two tasks is not). A Job whose task policies are all valid is admitted with them.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.test_admission import JOB_WEBHOOK, base_job, denial, outcome, pod_template, schema_causes

__all__: list[str] = []

Obj = dict[str, Any]
ONE = "1 error occurred:\n\t* "
LISTS = "\n\n valid events are ["


def _job(name: str, *task_policies: list[Obj], job_policies: list[Obj] | None = None) -> Obj:
    job = base_job(name)
    job["spec"]["tasks"] = [{"name": f"task-{i}", "replicas": 1, "template": pod_template(), "policies": p}
                            for i, p in enumerate(task_policies)]
    job["spec"]["minAvailable"] = len(task_policies)
    if job_policies is not None:
        job["spec"]["policies"] = job_policies
    return job


def _denied(cluster: Cluster, job: Obj) -> str:
    got = outcome(cluster, job, JOB_WEBHOOK)
    assert isinstance(got, str), got
    return got


def _one(text: str, error: str) -> None:
    assert text.startswith(ONE + error + LISTS), text
    assert text.endswith("];"), text
    assert text.count("valid events are [") == 1, text


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_task_policy_rules(cluster: Cluster) -> None:
    """Each rule at the task level, with its own message and the valid lists after it."""
    evicted = {"event": "PodEvicted", "action": "RestartTask"}
    d = denial(lambda: cluster.create(_job("kinds-tp-event", [{"event": "Nope", "action": "RestartTask"}])))
    assert schema_causes(d, "Job.batch.volcano.sh", "kinds-tp-event") == (
        'spec.tasks[0].policies[0].event: Unsupported value: "Nope": supported values: "*", "PodPending", '
        '"PodRunning", "PodFailed", "PodEvicted", "Unknown", "TaskCompleted", "OutOfSync", "CommandIssued", '
        '"JobUpdated", "TaskFailed"')
    assert cluster.try_get("Job", "kinds-tp-event") is None
    _one(_denied(cluster, _job("kinds-tp-action", [{"event": "PodFailed", "action": "Nope"}])),
         'spec.tasks.policies: Invalid value: "Nope": invalid policy action')
    _one(_denied(cluster, _job("kinds-tp-zero", [{"exitCode": 0, "action": "RestartTask"}])),
         "0 is not a valid error code")
    _one(_denied(cluster, _job("kinds-tp-both", [{"event": "PodFailed", "exitCode": 3, "action": "RestartTask"}])),
         "must not specify event and exitCode simultaneously")
    _one(_denied(cluster, _job("kinds-tp-dup", [evicted, {"event": "PodEvicted", "action": "AbortJob"}])),
         "duplicate event PodEvicted  across different policy")


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_task_policy_errors_follow_the_job_level_and_each_other(cluster: Cluster) -> None:
    """Each task's errors in task order, then the Job level's (``validateJobCreate`` checks ``spec.policies``
    after the task loop); one event in two tasks is no duplicate."""
    evicted = {"event": "PodEvicted", "action": "RestartTask"}
    text = _denied(cluster, _job("kinds-tp-order", [{"exitCode": 0, "action": "RestartTask"}],
                                 [evicted, {"event": "PodEvicted", "action": "AbortJob"}],
                                 job_policies=[{"action": "AbortJob"}]))
    parts = text.split("valid events are [")
    assert len(parts) == 4, text
    assert parts[0] == ONE + "0 is not a valid error code\n\n ", text
    assert parts[1].endswith(ONE + "duplicate event PodEvicted  across different policy\n\n "), text
    assert parts[2].endswith(ONE + "either event and exitCode should be specified\n\n "), text
    same = {"event": "PodEvicted", "action": "RestartTask"}
    admitted = outcome(cluster, _job("kinds-tp-ok", [same], [same, {"exitCode": 3, "action": "RestartTask"}]),
                       JOB_WEBHOOK)
    assert isinstance(admitted, dict), admitted
    assert [t["policies"] for t in admitted["spec"]["tasks"]] == [
        [same], [same, {"exitCode": 3, "action": "RestartTask"}]]
