"""Admission conformance: Volcano Job validation (upstream "Job Validating E2E Test").

Each case builds upstream's base job (``createBaseJob``), changes what upstream changes, and
checks the client-visible outcome: the exact message where Volcano's text is deterministic,
substrings where it embeds Go map order (the lists of valid policy events and actions), and,
for every denial, that nothing was stored (or the stored job is unchanged).

Since Volcano v1.14 the basic range checks live in the CRD schema, so those denials are
422 Invalid with kube-openapi's wording; the rest are denials by ``validatejob.volcano.sh``.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.test_admission import (
    JOB_WEBHOOK,
    base_job,
    denial,
    plain,
    pod_template,
    schema_causes,
    update,
    webhook_message,
)

__all__: list[str] = []

Obj = dict[str, Any]
JOB_KIND = "Job.batch.volcano.sh"
SUITE = "admission"


def _job_denied_by_webhook(cluster: Cluster, job: Obj) -> str:
    """Create ``job``; it must be denied by the job webhook and not stored. Returns the message."""
    name = job["metadata"]["name"]
    d = denial(lambda: cluster.apply(job))
    assert cluster.try_get("Job", name) is None, f"denied job {name} was stored"
    return webhook_message(d, JOB_WEBHOOK)


def _job_denied_by_schema(cluster: Cluster, job: Obj) -> str:
    """Create ``job``; the CRD schema must reject it and nothing is stored. Returns the causes."""
    name = job["metadata"]["name"]
    d = denial(lambda: cluster.apply(job))
    assert cluster.try_get("Job", name) is None, f"invalid job {name} was stored"
    return schema_causes(d, JOB_KIND, name)


def _assert_base_defaults(job: Obj) -> None:
    """What the mutating webhook sets on upstream's base job."""
    spec = job["spec"]
    assert spec["queue"] == "default"
    assert spec["schedulerName"] == "volcano"
    assert spec["maxRetry"] == 3
    assert spec["minAvailable"] == 1
    task = spec["tasks"][0]
    assert (task["name"], task["replicas"], task["minAvailable"], task["maxRetry"]) == ("task-1", 1, 1, 3)


# ------------------------------------------------------------------------------------------ create


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should allow job creation with valid configuration")
def test_allow_valid_job(cluster: Cluster) -> None:
    created = cluster.apply(base_job("valid-job"))[0]
    _assert_base_defaults(plain(created))
    stored = plain(cluster.get("Job", "valid-job"))
    _assert_base_defaults(stored)
    assert stored["spec"]["policies"] == [{"event": "PodEvicted", "action": "RestartTask"}]


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should reject job creation with duplicate task names")
def test_reject_duplicate_task_names(cluster: Cluster) -> None:
    job: Obj = {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
                "metadata": {"name": "duplicate-task-job"},
                "spec": {"minAvailable": 1, "queue": "default",
                         "tasks": [{"name": "duplicated-task", "replicas": 1, "template": pod_template()},
                                   {"name": "duplicated-task", "replicas": 1, "template": pod_template()}]}}
    assert _job_denied_by_webhook(cluster, job) == "duplicated task name duplicated-task;"


@dataclass(frozen=True)
class Refusal:
    """A base job (``base_job(name)``) changed by ``spec`` and ``task`` (merged into its spec and its
    first task), refused by the CRD schema (``schema``) or else the job webhook, with a message that
    equals ``equals``, starts with ``starts`` and contains each of ``contains`` (those given)."""

    name: str
    spec: Obj = field(default_factory=dict)
    task: Obj = field(default_factory=dict)
    schema: bool = False
    equals: str | None = None
    starts: str | None = None
    contains: tuple[str, ...] = ()


def _refusal(upstream: str, refusal: Refusal) -> Any:
    return pytest.param(refusal, marks=pytest.mark.upstream(SUITE, upstream), id=refusal.name)


_AT_LEAST_0 = "in body should be greater than or equal to 0"
_ONE_ERROR = "1 error occurred:\n\t* "
REFUSALS = [
    _refusal("Should reject job creation with invalid minAvailable less than zero", Refusal(
        "invalid-min-available-job", spec={"minAvailable": -1}, schema=True,
        equals=f"spec.minAvailable: Invalid value: -1: spec.minAvailable {_AT_LEAST_0}")),
    _refusal("Should reject job creation with invalid maxRetry less than zero", Refusal(
        "invalid-max-retry-job", spec={"maxRetry": -1}, schema=True,
        equals=f"spec.maxRetry: Invalid value: -1: spec.maxRetry {_AT_LEAST_0}")),
    _refusal("Should reject job creation with invalid TTLSecondsAfterFinished less than zero", Refusal(
        "invalid-ttl-job", spec={"ttlSecondsAfterFinished": -1}, schema=True,
        equals=f"spec.ttlSecondsAfterFinished: Invalid value: -1: spec.ttlSecondsAfterFinished {_AT_LEAST_0}")),
    # The mutating webhook first defaults the task's minAvailable to its replicas (-1), so the schema
    # reports both fields; their order is the validator's, so check the replicas cause alone.
    _refusal("Should reject job creation with task replicas less than zero", Refusal(
        "invalid-replica-job", task={"replicas": -1}, schema=True,
        contains=(f"spec.tasks[0].replicas: Invalid value: -1: spec.tasks[0].replicas {_AT_LEAST_0}",))),
    _refusal("Should reject job creation with task minAvailable less than zero", Refusal(
        "invalid-task-min-available-job", task={"minAvailable": -1}, schema=True,
        equals=f"spec.tasks[0].minAvailable: Invalid value: -1: spec.tasks[0].minAvailable {_AT_LEAST_0}")),
    _refusal("Should reject job creation with task minAvailable greater than replicas", Refusal(
        "invalid-task-min-available-gt-replicas-job", task={"replicas": 3, "minAvailable": 5},
        equals="'minAvailable' is greater than 'replicas' in task: task-1, "
               "job: invalid-task-min-available-gt-replicas-job;")),
    _refusal("Should reject job creation with job minAvailable greater than total replicas", Refusal(
        "invalid-job-min-available-job", spec={"minAvailable": 5}, task={"replicas": 1},
        equals="job 'minAvailable' should not be greater than total replicas in tasks;")),
    _refusal("Should reject job creation with invalid task name (non-DNS1123)", Refusal(
        "invalid-task-name-job", task={"name": "Task-1"}, schema=True,
        equals="spec.tasks[0].name: Invalid value: \"Task-1\": "
               "spec.tasks[0].name in body should match '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'")),
    _refusal("Should reject job creation with duplicate policy events", Refusal(
        "duplicate-policy-job", spec={"policies": [{"event": "PodFailed", "action": "AbortJob"},
                                                   {"event": "PodFailed", "action": "RestartJob"}]},
        contains=("duplicate event PodFailed  across different policy", "valid events are [",
                  "valid actions are ["))),
    _refusal("Should reject job creation with policy event and exit code specified simultaneously", Refusal(
        "invalid-policy-event-exitcode-job", spec={"policies": [{"event": "PodFailed", "action": "AbortJob",
                                                                 "exitCode": 1}]},
        starts=_ONE_ERROR + "must not specify event and exitCode simultaneously")),
    _refusal("Should reject job creation with policy having neither event nor exit code", Refusal(
        "invalid-policy-no-event-no-exitcode-job", spec={"policies": [{"action": "AbortJob"}]},
        starts=_ONE_ERROR + "either event and exitCode should be specified")),
    _refusal("Should reject job creation with invalid policy action", Refusal(
        "invalid-policy-action-job", spec={"policies": [{"event": "PodEvicted", "action": "InvalidAction"}]},
        contains=('spec.policies: Invalid value: "InvalidAction": invalid policy action',))),
    _refusal("Should reject job creation with policy exit code zero", Refusal(
        "invalid-policy-exitcode-zero-job", spec={"policies": [{"action": "AbortJob", "exitCode": 0}]},
        starts=_ONE_ERROR + "0 is not a valid error code")),
    _refusal("Should reject job creation with duplicate policy exit codes", Refusal(
        "duplicate-policy-exitcode-job", spec={"policies": [{"action": "AbortJob", "exitCode": 1},
                                                            {"action": "RestartJob", "exitCode": 1}]},
        starts=_ONE_ERROR + "duplicate exitCode 1")),
    _refusal("Should reject job creation with AnyEvent policy and other event policies", Refusal(
        "invalid-any-event-policy-job", spec={"policies": [{"event": "*", "action": "AbortJob"},
                                                           {"event": "PodFailed", "action": "RestartJob"}]},
        starts=_ONE_ERROR + "if there's * here, no other policy should be here")),
    # minLength and the ``^[^:]+$`` pattern both fail on ""; check the length cause upstream names.
    _refusal("Should reject job creation with invalid volume mount path", Refusal(
        "invalid-volume-mount-job", spec={"volumes": [{"mountPath": ""}]}, schema=True,
        contains=('spec.volumes[0].mountPath: Invalid value: "": '
                  "spec.volumes[0].mountPath in body should be at least 1 chars long",))),
    _refusal("Should reject job creation with duplicate volume mount paths", Refusal(
        "duplicate-volume-mount-job", spec={"volumes": [{"mountPath": "/var", "volumeClaimName": "pvc1"},
                                                        {"mountPath": "/var", "volumeClaimName": "pvc2"}]},
        equals="duplicated mountPath: /var;")),
    _refusal("Should reject job creation with volume without claim name or claim spec", Refusal(
        "invalid-volume-no-claim-job", spec={"volumes": [{"mountPath": "/var"}]},
        equals="either VolumeClaim or VolumeClaimName must be specified;")),
]


@pytest.mark.admission
@pytest.mark.parametrize("case", REFUSALS)
def test_reject_job_creation(cluster: Cluster, case: Refusal) -> None:
    job = base_job(case.name)
    job["spec"].update(copy.deepcopy(case.spec))
    job["spec"]["tasks"][0].update(case.task)
    message = (_job_denied_by_schema if case.schema else _job_denied_by_webhook)(cluster, job)
    assert case.equals is not None or case.starts is not None or case.contains, "a case must check its message"
    if case.equals is not None:
        assert message == case.equals
    if case.starts is not None:
        assert message.startswith(case.starts), message
    for fragment in case.contains:
        assert fragment in message, message


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should reject job creation with no tasks specified")
def test_reject_no_tasks(cluster: Cluster) -> None:
    # Upstream sends ``Tasks: []``; the Go client omits an empty ``omitempty`` list, so the
    # request carries no ``tasks`` at all and the webhook (not the schema's minItems) answers.
    job: Obj = {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": "no-task-job"},
                "spec": {"minAvailable": 1, "queue": "default"}}
    assert _job_denied_by_webhook(cluster, job) == "No task specified in job spec"


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should allow job creation with valid task dependencies (DAG)")
def test_allow_task_dependencies_dag(cluster: Cluster) -> None:
    job: Obj = {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": "valid-dag-job"},
                "spec": {"minAvailable": 1, "queue": "default",
                         "tasks": [{"name": "t1", "replicas": 1, "dependsOn": {"name": ["t2"]},
                                    "template": pod_template()},
                                   {"name": "t2", "replicas": 1, "template": pod_template()}]}}
    cluster.apply(job)
    stored = plain(cluster.get("Job", "valid-dag-job"))
    assert [t["name"] for t in stored["spec"]["tasks"]] == ["t1", "t2"]
    assert stored["spec"]["tasks"][0]["dependsOn"]["name"] == ["t2"]
    assert stored["spec"]["minAvailable"] == 1


# ------------------------------------------------------------------------------------------ update


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should allow job update with valid changes to minAvailable and replicas")
def test_allow_update_min_available_and_replicas(cluster: Cluster) -> None:
    cluster.apply(base_job("update-job"))

    def change(job: Obj) -> None:
        job["spec"]["minAvailable"] = 3
        job["spec"]["tasks"][0]["replicas"] = 5

    update(cluster, "Job", "update-job", change)
    stored = plain(cluster.get("Job", "update-job"))
    assert stored["spec"]["minAvailable"] == 3
    assert stored["spec"]["tasks"][0]["replicas"] == 5


def _denied_update(cluster: Cluster, name: str, change: Any) -> str:
    """Create the base job ``name``, attempt ``change`` as an update; it must be denied by the job
    webhook and leave the stored spec unchanged. Returns the webhook's message."""
    cluster.apply(base_job(name))
    before = plain(cluster.get("Job", name))["spec"]
    d = denial(lambda: update(cluster, "Job", name, change))
    assert plain(cluster.get("Job", name))["spec"] == before, "a denied update changed the stored job"
    return webhook_message(d, JOB_WEBHOOK)


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should reject job update with invalid minAvailable greater than total replicas")
def test_reject_update_min_available_above_total_replicas(cluster: Cluster) -> None:
    def change(job: Obj) -> None:
        job["spec"]["minAvailable"] = 10
        job["spec"]["tasks"][0]["replicas"] = 5

    assert _denied_update(cluster, "invalid-update-job", change) == (
        "job 'minAvailable' must not be greater than total replicas")


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should reject job update attempting to add new tasks")
def test_reject_update_adding_task(cluster: Cluster) -> None:
    def change(job: Obj) -> None:
        job["spec"]["tasks"].append({"name": "new-task", "replicas": 2, "template": pod_template()})

    assert _denied_update(cluster, "add-task-update-job", change) == "job updates may not add or remove tasks"


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should reject job update attempting to change queue name")
def test_reject_update_changing_queue(cluster: Cluster) -> None:
    def change(job: Obj) -> None:
        job["spec"]["queue"] = "another-queue"

    assert _denied_update(cluster, "change-queue-update-job", change) == (
        "job updates may not change fields other than `minAvailable`, `tasks[*].replicas under spec` "
        "and `PriorityClassName`")
