"""PATCH through ApiServer: the four patch types, their options and their errors."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.apiserver.conftest import pod
from volcano.apiserver import ApiError, ApiServer


def _job() -> dict[str, Any]:
    return {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": "j"},
            "spec": {"minAvailable": 1, "tasks": [{"name": "t", "replicas": 1, "template": {"spec": {
                "containers": [{"name": "c", "image": "busybox"}]}}}]}}


@pytest.fixture
def live(server: ApiServer) -> dict[str, Any]:
    return server.create({
        **pod("p"), "metadata": {"name": "p", "labels": {"app": "web"}},
        "spec": {"containers": [{"name": "a", "image": "x", "env": [{"name": "A", "value": "1"}]},
                                {"name": "b", "image": "y"}],
                 "tolerations": [{"key": "k", "operator": "Exists"}]}})


@pytest.mark.parametrize("patch_type", ["merge", "application/merge-patch+json",
                                        "application/merge-patch+json; charset=utf-8", None])
def test_merge_patch_names(server: ApiServer, live: dict[str, Any], patch_type: str | None) -> None:
    out = server.patch("Pod", "p", {"metadata": {"labels": {"tier": "1"}}}, "default", patch_type=patch_type)
    assert out["metadata"]["labels"] == {"app": "web", "tier": "1"}


def test_merge_patch_replaces_lists_and_strategic_merges_them(server: ApiServer, live: dict[str, Any]) -> None:
    body = {"spec": {"containers": [{"name": "b", "image": "z"}]}}
    merged = server.patch("Pod", "p", body, "default", patch_type="strategic")
    assert [(c["name"], c["image"]) for c in merged["spec"]["containers"]] == [("a", "x"), ("b", "z")]
    # a merge patch replaces the whole list: one container where the pod has two, which a Pod update
    # may not do (kube-apiserver's ValidatePodUpdate)
    with pytest.raises(ApiError) as err:
        server.patch("Pod", "p", body, "default", patch_type="merge")
    assert err.value.code == 422
    assert err.value.message == 'Pod "p" is invalid: spec.containers: Forbidden: pod updates may not add or ' \
                                'remove containers'
    assert server.get("Pod", "p", "default") is merged


def test_strategic_patch_as_kubectl_apply_sends_it(server: ApiServer, live: dict[str, Any]) -> None:
    body = {"metadata": {"labels": {"app": "web2"}},
            "spec": {"$setElementOrder/containers": [{"name": "a"}, {"name": "b"}],
                     "containers": [{"image": "busybox:2", "name": "a"}]}}
    out = server.patch("Pod", "p", json.dumps(body).encode(), "default",
                       patch_type="application/strategic-merge-patch+json")
    assert [(c["name"], c["image"]) for c in out["spec"]["containers"]] == [("a", "busybox:2"), ("b", "y")]
    assert out["spec"]["containers"][0]["env"] == [{"name": "A", "value": "1"}]
    assert out["metadata"]["labels"] == {"app": "web2"}
    assert int(out["metadata"]["resourceVersion"]) > int(live["metadata"]["resourceVersion"])


def test_json_patch_operations(server: ApiServer, live: dict[str, Any]) -> None:
    ops = [{"op": "add", "path": "/metadata/labels/tier", "value": "1"},
           {"op": "replace", "path": "/spec/containers/1/image", "value": "q"},
           {"op": "test", "path": "/metadata/name", "value": "p"},
           {"op": "remove", "path": "/metadata/labels/app"},
           {"op": "add", "path": "/spec/tolerations/-", "value": {"key": "k2", "operator": "Exists"}}]
    out = server.patch("Pod", "p", ops, "default", patch_type="application/json-patch+json")
    assert out["metadata"]["labels"] == {"tier": "1"}
    assert out["spec"]["containers"][1]["image"] == "q"
    assert [t["key"] for t in out["spec"]["tolerations"]] == ["k", "k2"]


@pytest.mark.parametrize("ops", [
    [{"op": "test", "path": "/metadata/name", "value": "other"}],
    [{"op": "remove", "path": "/spec/nodeName"}],
    [{"op": "replace", "path": "/spec/missing/deeper", "value": 1}],
    [{"op": "frobnicate", "path": "/spec"}],
    [{"op": "add", "value": 1}],
])
def test_failing_json_patch_is_422_and_stores_nothing(server: ApiServer, live: dict[str, Any],
                                                      ops: list[dict[str, Any]]) -> None:
    with pytest.raises(ApiError) as err:
        server.patch("Pod", "p", ops, "default", patch_type="json")
    assert (err.value.code, err.value.reason) == (422, "Invalid")
    assert err.value.message == "the server rejected our request due to an error in our request"
    assert server.get("Pod", "p", "default") is live


@pytest.mark.parametrize(("body", "message"), [
    ({"op": "add"}, "json: cannot unmarshal object into Go value of type jsonpatch.Patch"),
    (["add"], "json: cannot unmarshal string into Go value of type jsonpatch.Operation"),
    (b"[{not json", "error decoding patch"),
])
def test_malformed_json_patch_is_400(server: ApiServer, live: dict[str, Any], body: Any, message: str) -> None:
    with pytest.raises(ApiError) as err:
        server.patch("Pod", "p", body, "default", patch_type="json")
    assert err.value.code == 400 and message in err.value.message


def test_too_many_json_patch_operations_is_413(server: ApiServer, live: dict[str, Any]) -> None:
    ops = [{"op": "test", "path": "/metadata/name", "value": "p"}] * 10001
    with pytest.raises(ApiError) as err:
        server.patch("Pod", "p", ops, "default", patch_type="json")
    assert (err.value.code, err.value.reason) == (413, "RequestEntityTooLarge")
    assert "got 10001" in err.value.message


def test_strategic_patch_on_a_custom_resource_is_415(server: ApiServer) -> None:
    server.create(_job())
    with pytest.raises(ApiError) as err:
        server.patch("Job", "j", {"spec": {"minAvailable": 2}}, "default", patch_type="strategic")
    assert (err.value.code, err.value.reason) == (415, "UnsupportedMediaType")
    assert err.value.message == ("the body of the request was in an unknown format - accepted media types include: "
                                 "application/json-patch+json, application/merge-patch+json, "
                                 "application/apply-patch+yaml")
    with pytest.raises(ApiError) as err:
        server.patch("Pod", "x", {}, "default", patch_type="text/plain")
    assert err.value.code == 415 and "application/strategic-merge-patch+json" in err.value.message


def test_json_patch_on_a_custom_resource(server: ApiServer) -> None:
    server.create(_job())
    out = server.patch("Job", "j", [{"op": "replace", "path": "/spec/minAvailable", "value": 3}], "default",
                       patch_type="json")
    assert out["spec"]["minAvailable"] == 3
    assert out["metadata"]["generation"] == 2


def test_force_outside_apply_and_apply_without_manager_are_422(server: ApiServer, live: dict[str, Any]) -> None:
    with pytest.raises(ApiError) as err:
        server.patch("Pod", "p", {}, "default", force=True)
    assert err.value.code == 422
    assert err.value.message == ('PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified '
                                 'for non-apply patch')
    with pytest.raises(ApiError) as err:
        server.patch("Pod", "p", pod("p"), "default", patch_type="apply")
    assert err.value.message == ('PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is '
                                 'required for apply patch')
    with pytest.raises(ApiError) as err:
        server.patch("Pod", "p", {}, "default", field_manager="m" * 129)
    assert err.value.code == 422 and "may not be more than 128 bytes" in err.value.message


@pytest.mark.parametrize("patch_type", ["merge", "strategic"])
def test_resource_version_in_a_patch_is_a_precondition(server: ApiServer, live: dict[str, Any],
                                                       patch_type: str) -> None:
    stale = {"metadata": {"resourceVersion": "1", "labels": {"x": "1"}}}
    with pytest.raises(ApiError) as err:
        server.patch("Pod", "p", stale, "default", patch_type=patch_type)
    assert (err.value.code, err.value.reason) == (409, "Conflict")
    fresh = {"metadata": {"resourceVersion": live["metadata"]["resourceVersion"], "labels": {"x": "1"}}}
    assert server.patch("Pod", "p", fresh, "default", patch_type=patch_type)["metadata"]["labels"]["x"] == "1"


def test_json_patch_renaming_the_object_is_400(server: ApiServer, live: dict[str, Any]) -> None:
    with pytest.raises(ApiError) as err:
        server.patch("Pod", "p", [{"op": "replace", "path": "/metadata/name", "value": "q"}], "default",
                     patch_type="json")
    assert err.value.message == "the name of the object (q) does not match the name on the URL (p)"


def test_merge_patch_errors(server: ApiServer, live: dict[str, Any]) -> None:
    with pytest.raises(ApiError) as err:
        server.patch("Pod", "p", None, "default")
    assert (err.value.code, err.value.message) == (400, "Invalid JSON Patch")
    with pytest.raises(ApiError) as err:
        server.patch("Pod", "p", [1], "default")
    assert err.value.code == 422 and "cannot unmarshal array" in err.value.message


def test_strategic_errors_map_to_api_codes(server: ApiServer, live: dict[str, Any]) -> None:
    with pytest.raises(ApiError) as err:
        server.patch("Pod", "p", {"spec": {"containers": [{"image": "z"}]}}, "default", patch_type="strategic")
    assert err.value.code == 500 and "does not contain declared merge key: name" in err.value.message
    with pytest.raises(ApiError) as err:
        server.patch("Pod", "p", {"spec": {"$retainKeys": 1}}, "default", patch_type="strategic")
    assert (err.value.code, err.value.message) == (400, "invalid patch format of retainKeys")
    with pytest.raises(ApiError) as err:
        server.patch("Pod", "p", [], "default", patch_type="strategic")
    assert err.value.code == 400


def test_status_patch_of_each_type_touches_only_status(server: ApiServer, live: dict[str, Any]) -> None:
    out = server.patch("Pod", "p", {"status": {"phase": "Running"}, "spec": {"nodeName": "n"}}, "default",
                       subresource="status", patch_type="strategic")
    assert out["status"]["phase"] == "Running" and "nodeName" not in out["spec"]
    out = server.patch("Pod", "p", [{"op": "add", "path": "/status/conditions", "value": [{"type": "Ready"}]}],
                       "default", subresource="status", patch_type="json")
    assert out["status"]["conditions"] == [{"type": "Ready"}]
    out = server.patch("Pod", "p", {"status": {"conditions": [{"type": "PodScheduled", "status": "True"}]}},
                       "default", subresource="status", patch_type="strategic")
    assert [c["type"] for c in out["status"]["conditions"]] == ["PodScheduled", "Ready"]


def test_patches_pass_admission(server: ApiServer, live: dict[str, Any]) -> None:
    seen: list[tuple[str, str | None]] = []

    def hook(request: Any) -> None:
        seen.append((request.operation, request.obj["metadata"]["labels"].get("tier")))
        request.obj["metadata"]["labels"]["mutated"] = "yes"

    server.admission.register_mutating("Pod", ("UPDATE",), hook, "test-hook")
    out = server.patch("Pod", "p", [{"op": "add", "path": "/metadata/labels/tier", "value": "2"}], "default",
                       patch_type="json")
    assert seen == [("UPDATE", "2")]
    assert out["metadata"]["labels"]["mutated"] == "yes"
