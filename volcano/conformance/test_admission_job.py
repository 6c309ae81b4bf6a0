"""Admission conformance: Volcano Job validation (upstream "Job Validating E2E Test").

Each case builds upstream's base job (``createBaseJob``), changes what upstream changes, and
checks the client-visible outcome: the exact message where Volcano's text is deterministic,
substrings where it embeds Go map order (the lists of valid policy events and actions), and,
for every denial, that nothing was stored (or the stored job is unchanged).

Since Volcano v1.14 the basic range checks live in the CRD schema, so those denials are
422 Invalid with kube-openapi's wording; the rest are denials by ``validatejob.volcano.sh``.
"""

from __future__ import annotations

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


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should reject job creation with invalid minAvailable less than zero")
def test_reject_negative_min_available(cluster: Cluster) -> None:
    job = base_job("invalid-min-available-job")
    job["spec"]["minAvailable"] = -1
    assert _job_denied_by_schema(cluster, job) == (
        "spec.minAvailable: Invalid value: -1: spec.minAvailable in body should be greater than or equal to 0")


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should reject job creation with invalid maxRetry less than zero")
def test_reject_negative_max_retry(cluster: Cluster) -> None:
    job = base_job("invalid-max-retry-job")
    job["spec"]["maxRetry"] = -1
    assert _job_denied_by_schema(cluster, job) == (
        "spec.maxRetry: Invalid value: -1: spec.maxRetry in body should be greater than or equal to 0")


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should reject job creation with invalid TTLSecondsAfterFinished less than zero")
def test_reject_negative_ttl(cluster: Cluster) -> None:
    job = base_job("invalid-ttl-job")
    job["spec"]["ttlSecondsAfterFinished"] = -1
    assert _job_denied_by_schema(cluster, job) == (
        "spec.ttlSecondsAfterFinished: Invalid value: -1: "
        "spec.ttlSecondsAfterFinished in body should be greater than or equal to 0")


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should reject job creation with no tasks specified")
def test_reject_no_tasks(cluster: Cluster) -> None:
    # Upstream sends ``Tasks: []``; the Go client omits an empty ``omitempty`` list, so the
    # request carries no ``tasks`` at all and the webhook (not the schema's minItems) answers.
    job: Obj = {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": "no-task-job"},
                "spec": {"minAvailable": 1, "queue": "default"}}
    assert _job_denied_by_webhook(cluster, job) == "No task specified in job spec"


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should reject job creation with task replicas less than zero")
def test_reject_negative_task_replicas(cluster: Cluster) -> None:
    job = base_job("invalid-replica-job")
    job["spec"]["tasks"][0]["replicas"] = -1
    causes = _job_denied_by_schema(cluster, job)
    # The mutating webhook first defaults the task's minAvailable to its replicas (-1), so the
    # schema reports both fields; their order is the validator's, so check each cause.
    assert ("spec.tasks[0].replicas: Invalid value: -1: "
            "spec.tasks[0].replicas in body should be greater than or equal to 0") in causes


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should reject job creation with task minAvailable less than zero")
def test_reject_negative_task_min_available(cluster: Cluster) -> None:
    job = base_job("invalid-task-min-available-job")
    job["spec"]["tasks"][0]["minAvailable"] = -1
    assert _job_denied_by_schema(cluster, job) == (
        "spec.tasks[0].minAvailable: Invalid value: -1: "
        "spec.tasks[0].minAvailable in body should be greater than or equal to 0")


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should reject job creation with task minAvailable greater than replicas")
def test_reject_task_min_available_above_replicas(cluster: Cluster) -> None:
    job = base_job("invalid-task-min-available-gt-replicas-job")
    job["spec"]["tasks"][0].update(replicas=3, minAvailable=5)
    assert _job_denied_by_webhook(cluster, job) == (
        "'minAvailable' is greater than 'replicas' in task: task-1, job: invalid-task-min-available-gt-replicas-job;")


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should reject job creation with job minAvailable greater than total replicas")
def test_reject_job_min_available_above_total_replicas(cluster: Cluster) -> None:
    job = base_job("invalid-job-min-available-job")
    job["spec"]["minAvailable"] = 5
    job["spec"]["tasks"][0]["replicas"] = 1
    assert _job_denied_by_webhook(cluster, job) == (
        "job 'minAvailable' should not be greater than total replicas in tasks;")


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should reject job creation with invalid task name (non-DNS1123)")
def test_reject_non_dns1123_task_name(cluster: Cluster) -> None:
    job = base_job("invalid-task-name-job")
    job["spec"]["tasks"][0]["name"] = "Task-1"
    assert _job_denied_by_schema(cluster, job) == (
        "spec.tasks[0].name: Invalid value: \"Task-1\": "
        "spec.tasks[0].name in body should match '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'")


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should reject job creation with duplicate policy events")
def test_reject_duplicate_policy_events(cluster: Cluster) -> None:
    job = base_job("duplicate-policy-job")
    job["spec"]["policies"] = [{"event": "PodFailed", "action": "AbortJob"},
                               {"event": "PodFailed", "action": "RestartJob"}]
    message = _job_denied_by_webhook(cluster, job)
    assert "duplicate event PodFailed  across different policy" in message
    assert "valid events are [" in message and "valid actions are [" in message


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should reject job creation with policy event and exit code specified simultaneously")
def test_reject_policy_event_and_exit_code(cluster: Cluster) -> None:
    job = base_job("invalid-policy-event-exitcode-job")
    job["spec"]["policies"] = [{"event": "PodFailed", "action": "AbortJob", "exitCode": 1}]
    message = _job_denied_by_webhook(cluster, job)
    assert message.startswith("1 error occurred:\n\t* must not specify event and exitCode simultaneously")


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should reject job creation with policy having neither event nor exit code")
def test_reject_policy_without_event_or_exit_code(cluster: Cluster) -> None:
    job = base_job("invalid-policy-no-event-no-exitcode-job")
    job["spec"]["policies"] = [{"action": "AbortJob"}]
    message = _job_denied_by_webhook(cluster, job)
    assert message.startswith("1 error occurred:\n\t* either event and exitCode should be specified")


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should reject job creation with invalid policy action")
def test_reject_invalid_policy_action(cluster: Cluster) -> None:
    job = base_job("invalid-policy-action-job")
    job["spec"]["policies"] = [{"event": "PodEvicted", "action": "InvalidAction"}]
    message = _job_denied_by_webhook(cluster, job)
    assert 'spec.policies: Invalid value: "InvalidAction": invalid policy action' in message


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should reject job creation with policy exit code zero")
def test_reject_policy_exit_code_zero(cluster: Cluster) -> None:
    job = base_job("invalid-policy-exitcode-zero-job")
    job["spec"]["policies"] = [{"action": "AbortJob", "exitCode": 0}]
    message = _job_denied_by_webhook(cluster, job)
    assert message.startswith("1 error occurred:\n\t* 0 is not a valid error code")


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should reject job creation with duplicate policy exit codes")
def test_reject_duplicate_policy_exit_codes(cluster: Cluster) -> None:
    job = base_job("duplicate-policy-exitcode-job")
    job["spec"]["policies"] = [{"action": "AbortJob", "exitCode": 1}, {"action": "RestartJob", "exitCode": 1}]
    message = _job_denied_by_webhook(cluster, job)
    assert message.startswith("1 error occurred:\n\t* duplicate exitCode 1")


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should reject job creation with AnyEvent policy and other event policies")
def test_reject_any_event_with_other_events(cluster: Cluster) -> None:
    job = base_job("invalid-any-event-policy-job")
    job["spec"]["policies"] = [{"event": "*", "action": "AbortJob"}, {"event": "PodFailed", "action": "RestartJob"}]
    message = _job_denied_by_webhook(cluster, job)
    assert message.startswith("1 error occurred:\n\t* if there's * here, no other policy should be here")


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should reject job creation with invalid volume mount path")
def test_reject_empty_volume_mount_path(cluster: Cluster) -> None:
    job = base_job("invalid-volume-mount-job")
    job["spec"]["volumes"] = [{"mountPath": ""}]
    causes = _job_denied_by_schema(cluster, job)
    # minLength and the ``^[^:]+$`` pattern both fail on ""; check the length cause upstream names.
    assert ('spec.volumes[0].mountPath: Invalid value: "": '
            "spec.volumes[0].mountPath in body should be at least 1 chars long") in causes


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should reject job creation with duplicate volume mount paths")
def test_reject_duplicate_volume_mount_paths(cluster: Cluster) -> None:
    job = base_job("duplicate-volume-mount-job")
    job["spec"]["volumes"] = [{"mountPath": "/var", "volumeClaimName": "pvc1"},
                              {"mountPath": "/var", "volumeClaimName": "pvc2"}]
    assert _job_denied_by_webhook(cluster, job) == "duplicated mountPath: /var;"


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should reject job creation with volume without claim name or claim spec")
def test_reject_volume_without_claim(cluster: Cluster) -> None:
    job = base_job("invalid-volume-no-claim-job")
    job["spec"]["volumes"] = [{"mountPath": "/var"}]
    assert _job_denied_by_webhook(cluster, job) == "either VolumeClaim or VolumeClaimName must be specified;"


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
