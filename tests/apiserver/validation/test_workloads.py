"""Kubernetes' API validation of workloads: batch/v1 Jobs (restartPolicy, non-negative counts, pod template)."""

from __future__ import annotations

from typing import Any

import pytest

from volcano.api.frozen import thaw
from volcano.apiserver.errors import ApiError
from volcano.apiserver.server import ApiServer
from volcano.apiserver.validation.workloads import batch_job_errors


def validate_batch_job(job: dict[str, Any]) -> list[str]:
    return [str(e) for e in batch_job_errors(job)]


REQUIRED = 'spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"'


def batch_job(name: str = "job1", restart: str | None = None, **spec: Any) -> dict[str, Any]:
    pod: dict[str, Any] = {"schedulerName": "volcano", "containers": [{"name": "c", "image": "nginx"}]}
    if restart is not None:
        pod["restartPolicy"] = restart
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name, "namespace": "default"},
            "spec": {"parallelism": 2, "template": {"spec": pod}, **spec}}


@pytest.mark.parametrize(("restart", "causes"), [
    (None, [REQUIRED]),
    ("", [REQUIRED]),
    ("Always", [REQUIRED]),
    ("Never", []),
    ("OnFailure", []),
    ("Sometimes", ['spec.template.spec.restartPolicy: Unsupported value: "Sometimes": supported values: '
                   '"Always", "OnFailure", "Never"',
                   'spec.template.spec.restartPolicy: Unsupported value: "Sometimes": supported values: '
                   '"OnFailure", "Never"']),
], ids=["unset", "empty", "always", "never", "onfailure", "unknown"])
def test_restart_policy(restart: str | None, causes: list[str]) -> None:
    assert validate_batch_job(batch_job(restart=restart)) == causes


def test_pod_failure_policy_needs_never() -> None:
    rules = {"rules": [{"action": "FailJob", "onExitCodes": {"operator": "In", "values": [3]}}]}
    assert validate_batch_job(batch_job(restart="OnFailure", podFailurePolicy=rules)) == [
        'spec.template.spec.restartPolicy: Invalid value: "OnFailure": only "Never" is supported when '
        "podFailurePolicy is specified"]
    assert validate_batch_job(batch_job(restart="Never", podFailurePolicy=rules)) == []


def test_negative_counts_and_template_errors() -> None:
    job = batch_job(restart="Never", parallelism=-1, backoffLimit=-2, completions=1)
    job["spec"]["template"]["spec"]["containers"] = []
    assert validate_batch_job(job) == [
        "spec.parallelism: Invalid value: -1: must be greater than or equal to 0",
        "spec.backoffLimit: Invalid value: -2: must be greater than or equal to 0",
        "spec.template.spec.containers: Required value",
    ]


def test_server_rejects_the_default_restart_policy_with_422_and_stores_nothing(server: ApiServer) -> None:
    before = server.resource_version
    with pytest.raises(ApiError) as info:
        server.create(batch_job())
    err = info.value
    assert (err.code, err.reason) == (422, "Invalid")
    assert err.message == f'Job.batch "job1" is invalid: {REQUIRED}'
    assert server.list("Job.batch", "default")["items"] == []
    assert server.resource_version == before


def test_server_accepts_never_and_validates_updates_but_not_status(server: ApiServer) -> None:
    created = server.create(batch_job(restart="Never"))
    assert created["spec"]["template"]["spec"]["restartPolicy"] == "Never"
    changed = thaw(created)
    changed["spec"]["template"]["spec"]["restartPolicy"] = "Always"
    with pytest.raises(ApiError) as info:
        server.update(changed)
    assert info.value.code == 422 and REQUIRED in info.value.message
    status = thaw(server.get("Job.batch", "job1", "default"))
    status["status"] = {"active": 2}
    assert server.update_status(status)["status"]["active"] == 2
