"""AdmissionReview answers: the same decisions and messages as the in-process admission chain."""

from __future__ import annotations

import base64
import copy
import json
from typing import Any

import jsonpatch
import pytest

from volcano.admission import install_admission
from volcano.admission.lookup import StaticView
from volcano.apiserver import ApiError, ApiServer
from volcano.sim import RandomStreams, SimClock
from volcano.webhooks.review import Reviewer, ReviewError
from volcano.webhooks.services import SERVICES, client_config, config_name, parse_enabled, webhook_configurations

OPEN_DEFAULT = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": "default"},
                "spec": {"weight": 1}, "status": {"state": "Open"}}


def job(min_available: int = 1, replicas: int = 1, name: str = "j") -> dict[str, Any]:
    return {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"minAvailable": min_available, "schedulerName": "volcano", "queue": "default",
                     "tasks": [{"name": "t", "replicas": replicas,
                                "template": {"spec": {"containers": [{"name": "c", "image": "busybox"}]}}}]}}


def review(obj: dict[str, Any] | None, op: str = "CREATE", old: dict[str, Any] | None = None,
           name: str = "") -> dict[str, Any]:
    return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
            "request": {"uid": "u-1", "operation": op, "object": obj, "oldObject": old, "name": name}}


def reviewer() -> Reviewer:
    return Reviewer(StaticView(queues=[OPEN_DEFAULT]))


def in_process_denial(obj: dict[str, Any]) -> str:
    """The message the in-process chain gives for creating ``obj`` (after the default queue exists)."""
    server = ApiServer(SimClock(), RandomStreams(0))
    install_admission(server)
    queue = server.get("Queue", "default") if _exists(server) else server.create(copy.deepcopy(OPEN_DEFAULT))
    server.update_status({**queue, "status": {"state": "Open"}})
    with pytest.raises(ApiError) as err:
        server.create(copy.deepcopy(obj))
    return err.value.message


def _exists(server: ApiServer) -> bool:
    try:
        server.get("Queue", "default")
    except ApiError:
        return False
    return True


def test_validate_denies_with_the_in_process_message() -> None:
    bad = job(min_available=3, replicas=1)
    out = reviewer().review("/jobs/validate", review(bad))
    resp = out["response"]
    assert out["apiVersion"] == "admission.k8s.io/v1" and out["kind"] == "AdmissionReview"
    assert resp["uid"] == "u-1" and resp["allowed"] is False and resp["status"]["code"] == 403
    expected = in_process_denial(bad)
    assert expected.endswith(resp["status"]["message"]), (expected, resp["status"]["message"])
    assert "job 'minAvailable' should not be greater than total replicas in tasks" in resp["status"]["message"]


def test_validate_admits_a_valid_job_without_a_patch() -> None:
    resp = reviewer().review("/jobs/validate", review(job()))["response"]
    assert resp == {"uid": "u-1", "allowed": True}


def test_mutate_answers_a_json_patch_that_yields_the_in_process_defaults() -> None:
    obj = job()
    del obj["spec"]["queue"]
    resp = reviewer().review("/jobs/mutate", review(copy.deepcopy(obj)))["response"]
    assert resp["allowed"] is True and resp["patchType"] == "JSONPatch"
    patched = jsonpatch.apply_patch(obj, json.loads(base64.b64decode(resp["patch"])))
    assert patched["spec"]["queue"] == "default" and patched["spec"]["maxRetry"] == 3
    assert patched["spec"]["tasks"][0]["minAvailable"] == 1


def test_mutate_changes_nothing_on_update_and_for_pods() -> None:
    assert "patch" not in reviewer().review("/jobs/mutate", review(job(), op="UPDATE", old=job()))["response"]
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": []}}
    assert reviewer().review("/pods/mutate", review(pod))["response"] == {"uid": "u-1", "allowed": True}


def test_queue_delete_uses_the_old_object_and_the_name() -> None:
    resp = reviewer().review("/queues/validate", review(None, op="DELETE", old=OPEN_DEFAULT, name="default"))
    assert resp["response"]["status"]["message"] == "`default` queue can not be deleted"


def test_an_object_the_rule_cannot_read_is_denied_as_in_process() -> None:
    bad = job()
    bad["spec"]["tasks"] = "not-a-list"
    resp = reviewer().review("/jobs/validate", review(bad))["response"]
    assert resp["allowed"] is False


@pytest.mark.parametrize("body, word", [
    ([], "JSON object"),
    ({"apiVersion": "admission.k8s.io/v1beta1", "kind": "AdmissionReview", "request": {"uid": "x"}}, "v1"),
    ({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {"uid": ""}}, "request.uid"),
    ({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
      "request": {"uid": "x", "operation": "CREATE", "object": 3}}, "request.object"),
])
def test_malformed_reviews_are_refused_naming_the_field(body: Any, word: str) -> None:
    with pytest.raises(ReviewError, match=word):
        reviewer().review("/jobs/validate", body)


def test_unknown_path_is_a_key_error() -> None:
    with pytest.raises(KeyError):
        Reviewer(StaticView(), services=parse_enabled("/jobs/mutate")).review("/jobs/validate", review(job()))


def test_enabled_admission_parsing() -> None:
    assert [s.path for s in parse_enabled("/queues/validate, /jobs/mutate")] == ["/jobs/mutate", "/queues/validate"]
    with pytest.raises(ValueError, match="/nope"):
        parse_enabled("/jobs/mutate,/nope")


def test_configurations_name_rules_and_client_config() -> None:
    assert config_name("volcano-admission-service", "/jobs/mutate") == "volcano-admission-service-jobs-mutate"
    assert config_name("", "/queues/validate") == "webhook-queues-validate"
    clients = {s.path: client_config(s.path, b"CA", url="https://127.0.0.1:9443/") for s in SERVICES}
    configs = webhook_configurations(SERVICES, clients, service_name="vc", excluded_namespaces=["kube-system"])
    by_name = {c["metadata"]["name"]: c for c in configs}
    mutate = by_name["vc-jobs-mutate"]
    assert mutate["kind"] == "MutatingWebhookConfiguration"
    hook = mutate["webhooks"][0]
    assert hook["name"] == "mutatejob.volcano.sh" and hook["clientConfig"]["url"] == "https://127.0.0.1:9443/jobs/mutate"
    assert base64.b64decode(hook["clientConfig"]["caBundle"]) == b"CA"
    assert hook["rules"] == [{"operations": ["CREATE"], "apiGroups": ["batch.volcano.sh"],
                              "apiVersions": ["v1alpha1"], "resources": ["jobs"]}]
    assert by_name["vc-queues-validate"]["webhooks"][0]["rules"][0]["operations"] == ["CREATE", "UPDATE", "DELETE"]
    assert by_name["vc-queues-validate"]["kind"] == "ValidatingWebhookConfiguration"
    svc = client_config("/jobs/validate", b"CA", service_name="s", service_namespace="ns")
    assert svc["service"] == {"name": "s", "namespace": "ns", "path": "/jobs/validate"}
    with pytest.raises(ValueError, match="--webhook-url"):
        client_config("/jobs/validate", b"CA")
