"""CRD structural-schema defaults and checks (Volcano's CRDs), and Kubernetes name validation messages."""

from __future__ import annotations

from typing import Any

from volcano.apiserver.validation.crd import apply_defaults as apply_crd_defaults
from volcano.apiserver.validation.crd import schema_errors as validate_crd_schema
from volcano.apiserver.validation.names import dns1123_label_errors, qualified_name_errors

JOB = "Job.batch.volcano.sh"
QUEUE = "Queue.scheduling.volcano.sh"
PG = "PodGroup.scheduling.volcano.sh"


def test_job_defaults_treat_go_zero_values_as_absent() -> None:
    job: dict[str, Any] = {"spec": {"maxRetry": 0, "queue": "", "networkTopology": {"highestTierAllowed": 1}}}
    apply_crd_defaults(JOB, job)
    assert job["spec"] == {"maxRetry": 3, "queue": "default",
                           "networkTopology": {"highestTierAllowed": 1, "mode": "hard"}}


def test_queue_and_podgroup_defaults() -> None:
    queue: dict[str, Any] = {"spec": {}}
    apply_crd_defaults(QUEUE, queue)
    assert queue["spec"] == {"weight": 1, "dequeueStrategy": "traverse"}
    pg: dict[str, Any] = {"spec": {"subGroupPolicy": [{"name": "a"}]}}
    apply_crd_defaults(PG, pg)
    assert pg["spec"]["queue"] == "default"
    assert pg["spec"]["subGroupPolicy"][0]["subGroupSize"] == 1


def test_type_errors_name_the_field() -> None:
    errs = validate_crd_schema(JOB, {"spec": {"minAvailable": "two", "tasks": "none"}})
    assert errs == [
        'spec.minAvailable: Invalid value: "two": spec.minAvailable in body must be of type integer: "string"',
        'spec.tasks: Invalid value: "string": spec.tasks in body must be of type array: "string"',
    ]


def test_enum_length_and_maximum() -> None:
    errs = validate_crd_schema(JOB, {"spec": {"tasks": [{"name": "t", "topologyPolicy": "fastest"}],
                                              "schedulerName": "s" * 64}})
    assert errs[0] == "spec.schedulerName: Too long: may not be more than 63 bytes"
    assert errs[1].startswith('spec.tasks[0].topologyPolicy: Unsupported value: "fastest": supported values: "none"')
    assert validate_crd_schema(QUEUE, {"spec": {"weight": 70000}}) == [
        "spec.weight: Invalid value: 70000: spec.weight in body should be less than or equal to 65535"]
    assert validate_crd_schema(QUEUE, {"spec": {"weight": 3}, "status": {"state": "Sleepy"}})[0].startswith(
        'status.state: Unsupported value: "Sleepy"')


def test_valid_objects_and_unknown_kinds_pass() -> None:
    assert validate_crd_schema(JOB, {"spec": {"minAvailable": 1, "queue": "a.b", "tasks": [
        {"name": "worker", "replicas": 2, "template": {}, "policies": [{"event": "PodFailed", "action": "X"}]}]}}) == []
    assert validate_crd_schema("Pod", {"spec": {"anything": -1}}) == []


def test_name_messages() -> None:
    assert dns1123_label_errors("ok-name") == []
    assert dns1123_label_errors("Bad")[0].startswith("a lowercase RFC 1123 label must consist of")
    assert qualified_name_errors("My.Name_1") == []
    assert qualified_name_errors("x" * 64) == ["name part must be no more than 63 characters"]
    assert qualified_name_errors("a/b/c")[0].startswith("a qualified name must consist of")
