"""kubectl's client-side apply patch (``volcano.apiserver.threeway``), end to end against ApiServer."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from volcano.apiserver import ApiError, ApiServer
from volcano.apiserver.threeway import (
    LAST_APPLIED,
    ApplyPatchError,
    create_merge_patch,
    create_three_way_json_merge_patch,
    kubectl_apply_patch,
    last_applied_configuration,
    with_last_applied,
)


def pod_manifest(image: str = "busybox", labels: dict[str, str] | None = None) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "p1", "namespace": "default", "labels": labels or {"app": "web"}},
            "spec": {"containers": [{"name": "c", "image": image}]}}


def job_manifest(replicas: int = 1, name: str = "test-job") -> dict[str, Any]:
    return {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"minAvailable": 1, "schedulerName": "volcano",
                     "tasks": [{"name": "t", "replicas": replicas, "template": {"spec": {
                         "containers": [{"name": "c", "image": "busybox"}]}}}]}}


def kubectl_apply(server: ApiServer, manifest: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """What ``kubectl apply`` does: create with the annotation, or send the three-way patch."""
    kind, name = manifest["kind"], manifest["metadata"]["name"]
    kind = "Job" if manifest["apiVersion"].startswith("batch.volcano.sh") else kind
    try:
        live = server.get(kind, name, "default")
    except Exception:
        return "created", server.create(with_last_applied(manifest), field_manager="kubectl-client-side-apply")
    patch = kubectl_apply_patch(live, manifest)
    if not patch.changed:
        return "unchanged", live
    return "configured", server.patch(kind, name, patch.patch, "default", patch_type=patch.patch_type,
                                      field_manager="kubectl-client-side-apply")


def test_annotation_text_is_what_kubectl_writes() -> None:
    manifest = pod_manifest(labels={"app": "a<b&c"})
    assert last_applied_configuration(manifest) == (
        '{"apiVersion":"v1","kind":"Pod","metadata":{"annotations":{},"labels":{"app":"a\\u003cb\\u0026c"},'
        '"name":"p1","namespace":"default"},"spec":{"containers":[{"image":"busybox","name":"c"}]}}\n')
    annotated = with_last_applied(manifest)
    assert annotated["metadata"]["annotations"] == {LAST_APPLIED: last_applied_configuration(manifest)}
    assert last_applied_configuration(annotated) == last_applied_configuration(manifest)


def test_reapplying_an_unchanged_manifest_changes_nothing(server: ApiServer) -> None:
    assert kubectl_apply(server, pod_manifest())[0] == "created"
    status, obj = kubectl_apply(server, pod_manifest())
    assert status == "unchanged"
    assert obj["metadata"]["resourceVersion"] == server.get("Pod", "p1", "default")["metadata"]["resourceVersion"]


def test_changed_pod_sends_the_strategic_patch_kubectl_sends(server: ApiServer) -> None:
    kubectl_apply(server, pod_manifest())
    live = server.get("Pod", "p1", "default")
    patch = kubectl_apply_patch(live, pod_manifest("busybox:2", {"app": "web2"}))
    assert patch.patch_type == "strategic"
    assert patch.patch == {
        "metadata": {"annotations": {LAST_APPLIED: last_applied_configuration(pod_manifest("busybox:2",
                                                                                           {"app": "web2"}))},
                     "labels": {"app": "web2"}},
        "spec": {"$setElementOrder/containers": [{"name": "c"}], "containers": [{"image": "busybox:2", "name": "c"}]}}
    status, obj = kubectl_apply(server, pod_manifest("busybox:2", {"app": "web2"}))
    assert status == "configured"
    assert [(c["name"], c["image"]) for c in obj["spec"]["containers"]] == [("c", "busybox:2")]
    assert kubectl_apply(server, pod_manifest("busybox:2", {"app": "web2"}))[0] == "unchanged"


def test_fields_set_by_the_server_or_a_webhook_are_not_sent_back(server: ApiServer) -> None:
    def default_scheduler(request: Any) -> None:
        request.obj["spec"]["schedulerName"] = "volcano"
        request.obj["spec"]["containers"][0].setdefault("terminationMessagePath", "/dev/termination-log")

    server.admission.register_mutating("Pod", ("CREATE",), default_scheduler, "defaults")
    kubectl_apply(server, pod_manifest())
    live = server.get("Pod", "p1", "default")
    assert live["spec"]["schedulerName"] == "volcano"
    assert not kubectl_apply_patch(live, pod_manifest()).changed
    status, obj = kubectl_apply(server, pod_manifest("busybox:3"))
    assert status == "configured"
    assert obj["spec"]["schedulerName"] == "volcano"
    assert obj["spec"]["containers"][0]["terminationMessagePath"] == "/dev/termination-log"


def test_a_field_dropped_from_the_manifest_is_deleted_but_others_writes_stay(server: ApiServer) -> None:
    kubectl_apply(server, pod_manifest(labels={"app": "web", "tier": "1"}))
    server.patch("Pod", "p1", {"metadata": {"labels": {"added-by-someone": "x"}}}, "default")
    live = server.get("Pod", "p1", "default")
    patch = kubectl_apply_patch(live, pod_manifest(labels={"app": "web"}))
    assert patch.patch["metadata"]["labels"] == {"tier": None}
    _, obj = kubectl_apply(server, pod_manifest(labels={"app": "web"}))
    assert obj["metadata"]["labels"] == {"app": "web", "added-by-someone": "x"}


def test_a_removed_container_is_deleted_with_a_directive(server: ApiServer) -> None:
    two = pod_manifest()
    two["spec"]["containers"].append({"name": "side", "image": "s"})
    kubectl_apply(server, two)
    patch = kubectl_apply_patch(server.get("Pod", "p1", "default"), pod_manifest())
    assert patch.patch["spec"] == {"$setElementOrder/containers": [{"name": "c"}],
                                   "containers": [{"$patch": "delete", "name": "side"}]}
    # kube-apiserver refuses the result for a Pod: its containers may not be added or removed
    with pytest.raises(ApiError) as err:
        kubectl_apply(server, pod_manifest())
    assert err.value.code == 422 and "pod updates may not add or remove containers" in err.value.message
    assert [c["name"] for c in server.get("Pod", "p1", "default")["spec"]["containers"]] == ["c", "side"]


def test_custom_resource_gets_a_merge_patch_with_the_whole_list(server: ApiServer) -> None:
    assert kubectl_apply(server, job_manifest())[0] == "created"
    assert kubectl_apply(server, job_manifest())[0] == "unchanged"
    live = server.get("Job", "test-job", "default")
    patch = kubectl_apply_patch(live, job_manifest(replicas=2))
    assert patch.patch_type == "merge"
    assert set(patch.patch) == {"metadata", "spec"}
    assert patch.patch["spec"] == {"tasks": job_manifest(replicas=2)["spec"]["tasks"]}
    status, obj = kubectl_apply(server, job_manifest(replicas=2))
    assert status == "configured" and obj["spec"]["tasks"][0]["replicas"] == 2


def test_custom_resource_changed_name_is_refused() -> None:
    live = with_last_applied(job_manifest())
    with pytest.raises(ApplyPatchError, match="At least one of apiVersion, kind and name was changed"):
        create_three_way_json_merge_patch(job_manifest(), with_last_applied(job_manifest(name="other")), live)


def test_kubectl_apply_patch_without_annotation_adds_and_changes_but_deletes_nothing() -> None:
    live = {**pod_manifest(labels={"app": "web", "extra": "1"}), "status": {"phase": "Running"}}
    patch = kubectl_apply_patch(live, pod_manifest(labels={"app": "web"})).patch
    assert "labels" not in patch["metadata"]
    assert patch["metadata"]["annotations"][LAST_APPLIED]


def test_create_merge_patch() -> None:
    assert create_merge_patch({"a": 1, "b": {"c": 2, "d": 3}, "e": [1]}, {"a": 1, "b": {"c": 4}, "e": [2]}) == {
        "b": {"c": 4, "d": None}, "e": [2]}
    assert create_merge_patch({"a": 1}, {"a": 1.0}) == {}


def test_inputs_are_left_alone() -> None:
    live = with_last_applied(pod_manifest())
    manifest = pod_manifest("busybox:2")
    before = json.dumps([live, manifest])
    kubectl_apply_patch(copy.deepcopy(live), manifest)
    kubectl_apply_patch(live, manifest)
    assert json.dumps([live, manifest]) == before
