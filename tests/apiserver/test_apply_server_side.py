"""Server-side apply and managedFields through ApiServer."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from volcano.apiserver import ApiError, ApiServer
from volcano.apiserver.threeway import LAST_APPLIED, last_applied_configuration
from volcano.sim import SimClock


def deployment(replicas: int | None = 2, image: str = "nginx", labels: dict[str, str] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"selector": {"matchLabels": {"app": "web"}},
                            "template": {"metadata": {"labels": {"app": "web"}},
                                         "spec": {"containers": [{"name": "web", "image": image}]}}}
    if replicas is not None:
        spec["replicas"] = replicas
    meta: dict[str, Any] = {"name": "d", "namespace": "default"}
    if labels is not None:
        meta["labels"] = labels
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta, "spec": spec}


def entries(obj: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {e["manager"]: e for e in obj["metadata"].get("managedFields") or ()}


def apply(server: ApiServer, body: Any, manager: str = "kubectl", **kw: Any) -> tuple[dict[str, Any], bool]:
    return server.server_side_apply("Deployment", "d", body, "default", field_manager=manager, **kw)


def test_apply_creates_then_updates_and_reports_which(server: ApiServer) -> None:
    created, was_created = apply(server, deployment())
    assert was_created and created["metadata"]["uid"] and created["metadata"]["generation"] == 1
    updated, was_created = apply(server, deployment(3))
    assert not was_created and updated["spec"]["replicas"] == 3 and updated["metadata"]["generation"] == 2


def test_managed_fields_entry_has_the_real_shape(server: ApiServer, clock: SimClock) -> None:
    clock.run(65_000)
    obj, _ = apply(server, deployment(labels={"tier": "1"}))
    assert obj["metadata"]["managedFields"] == [{
        "manager": "kubectl", "operation": "Apply", "apiVersion": "apps/v1", "time": "2024-01-01T00:01:05Z",
        "fieldsType": "FieldsV1",
        "fieldsV1": {"f:metadata": {"f:labels": {"f:tier": {}}},
                     "f:spec": {"f:replicas": {}, "f:selector": {},
                                "f:template": {"f:metadata": {"f:labels": {"f:app": {}}},
                                               "f:spec": {"f:containers": {'k:{"name":"web"}': {
                                                   ".": {}, "f:image": {}, "f:name": {}}}}}}}}]


def test_reapplying_the_same_configuration_changes_nothing(server: ApiServer) -> None:
    first, _ = apply(server, deployment())
    again, created = apply(server, json.dumps(deployment()))
    assert not created and again is first


def test_yaml_body_is_accepted(server: ApiServer) -> None:
    obj, created = apply(server, "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n"
                                 "  replicas: 4\n  selector: {matchLabels: {app: d}}\n"
                                 "  template:\n    metadata: {labels: {app: d}}\n"
                                 "    spec: {containers: [{name: c, image: busybox}]}\n")
    assert created and obj["spec"]["replicas"] == 4


def test_conflict_with_another_manager_is_409_then_force_takes_ownership(server: ApiServer) -> None:
    apply(server, deployment())
    server.patch("Deployment", "d", {"spec": {"replicas": 5}}, "default", field_manager="kubectl-edit")
    with pytest.raises(ApiError) as err:
        apply(server, deployment(3))
    assert (err.value.code, err.value.reason) == (409, "Conflict")
    assert err.value.message == ('Apply failed with 1 conflict: conflict with "kubectl-edit" using apps/v1: '
                                 '.spec.replicas')
    assert err.value.details["causes"] == [{"reason": "FieldManagerConflict", "field": ".spec.replicas",
                                            "message": 'conflict with "kubectl-edit" using apps/v1'}]
    assert server.get("Deployment", "d", "default")["spec"]["replicas"] == 5
    obj, _ = apply(server, deployment(3), force=True)
    assert obj["spec"]["replicas"] == 3
    assert set(entries(obj)) == {"kubectl"}  # kubectl-edit owned nothing else


def test_conflicts_with_several_fields_list_them_by_manager(server: ApiServer) -> None:
    apply(server, deployment(), manager="a")
    apply(server, deployment(image="other", replicas=None), manager="b", force=True)
    server.patch("Deployment", "d", {"spec": {"replicas": 9}}, "default", field_manager="c")
    with pytest.raises(ApiError) as err:
        apply(server, deployment(4, image="mine"), manager="z")
    assert err.value.message == ('Apply failed with 2 conflicts: conflicts with "b":\n'
                                 '- .spec.template.spec.containers[name="web"].image\n'
                                 'conflicts with "c" using apps/v1:\n- .spec.replicas')


def test_same_value_is_shared_ownership_not_a_conflict(server: ApiServer) -> None:
    apply(server, deployment(), manager="a")
    obj, _ = apply(server, deployment(), manager="b")
    both = entries(obj)
    assert set(both) == {"a", "b"}
    assert both["a"]["fieldsV1"] == both["b"]["fieldsV1"]
    # a stops sending replicas: b still owns it, so it stays
    obj, _ = apply(server, deployment(replicas=None), manager="a")
    assert obj["spec"]["replicas"] == 2
    obj, _ = apply(server, deployment(replicas=None), manager="b")
    assert "replicas" not in obj["spec"]


def test_fields_no_longer_applied_are_removed_when_only_the_applier_owned_them(server: ApiServer) -> None:
    apply(server, deployment(labels={"a": "1", "b": "2"}))
    server.patch("Deployment", "d", {"metadata": {"labels": {"c": "3"}}}, "default", field_manager="other")
    obj, _ = apply(server, deployment(labels={"a": "1"}))
    assert obj["metadata"]["labels"] == {"a": "1", "c": "3"}
    obj, _ = apply(server, deployment())
    assert obj["metadata"]["labels"] == {"c": "3"}


def test_list_items_merge_by_key_and_unsent_items_go(server: ApiServer) -> None:
    two = deployment()
    two["spec"]["template"]["spec"]["containers"].append({"name": "side", "image": "s"})
    apply(server, two)
    server.patch("Deployment", "d", {"spec": {"template": {"spec": {"containers": [
        {"name": "web", "imagePullPolicy": "Always"}]}}}}, "default", patch_type="strategic", field_manager="edit")
    obj, _ = apply(server, deployment(image="nginx:2"))
    containers = obj["spec"]["template"]["spec"]["containers"]
    assert containers == [{"name": "web", "image": "nginx:2", "imagePullPolicy": "Always",  # + server defaults
                           "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File"}]


def test_updates_with_a_field_manager_record_update_entries(server: ApiServer) -> None:
    created = server.create(deployment(), field_manager="kubectl-create")
    entry = entries(created)["kubectl-create"]
    assert entry["operation"] == "Update" and entry["apiVersion"] == "apps/v1"
    assert entry["fieldsV1"]["f:spec"]["f:replicas"] == {}
    assert "f:name" not in entry["fieldsV1"].get("f:metadata", {})
    changed = copy.deepcopy(dict(created))
    changed["spec"]["replicas"] = 7
    updated = server.update(changed, field_manager="kubectl-replace")
    managers = entries(updated)
    assert managers["kubectl-replace"]["fieldsV1"] == {"f:spec": {"f:replicas": {}}}
    assert "f:replicas" not in managers["kubectl-create"]["fieldsV1"]["f:spec"]


def test_create_records_new_maps_as_members_as_the_real_server_does(server: ApiServer) -> None:
    job = {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
           "metadata": {"name": "j", "labels": {"x": "1"}}, "spec": {"minAvailable": 1, "queue": "default"}}
    obj = server.create(job, field_manager="kubectl-create")
    assert entries(obj)["kubectl-create"]["fieldsV1"] == {
        "f:metadata": {"f:labels": {".": {}, "f:x": {}}},
        # maxRetry is the CRD's default: decoding defaults it before the field manager runs, as upstream
        "f:spec": {".": {}, "f:maxRetry": {}, "f:minAvailable": {}, "f:queue": {}}}


def test_untracked_objects_stay_untracked_until_applied(server: ApiServer) -> None:
    server.create(deployment())
    obj = server.patch("Deployment", "d", {"spec": {"replicas": 4}}, "default", field_manager="m")
    assert "managedFields" not in obj["metadata"]
    with pytest.raises(ApiError) as err:
        apply(server, deployment(3))
    assert err.value.message == ('Apply failed with 1 conflict: conflict with "before-first-apply" using apps/v1: '
                                 '.spec.replicas')
    obj, _ = apply(server, deployment(4))
    assert set(entries(obj)) == {"before-first-apply", "kubectl"}


def test_in_process_writes_to_a_tracked_object_are_recorded_as_unknown(server: ApiServer) -> None:
    obj, _ = apply(server, deployment())
    changed = copy.deepcopy(dict(obj))
    changed["spec"]["replicas"] = 8
    updated = server.update(changed)
    assert entries(updated)["unknown"]["fieldsV1"] == {"f:spec": {"f:replicas": {}}}


def test_status_is_not_owned_through_the_main_resource(server: ApiServer) -> None:
    body = deployment()
    body["status"] = {"replicas": 1}
    obj, _ = apply(server, body)
    assert "f:status" not in entries(obj)["kubectl"]["fieldsV1"]
    status = server.server_side_apply("Deployment", "d", {"apiVersion": "apps/v1", "kind": "Deployment",
                                                          "metadata": {"name": "d"}, "status": {"replicas": 2}},
                                      "default", field_manager="controller", subresource="status")[0]
    assert status["status"] == {"replicas": 2}
    entry = entries(status)["controller"]
    assert entry["subresource"] == "status" and entry["fieldsV1"] == {"f:status": {"f:replicas": {}}}


def test_custom_resource_lists_are_atomic(server: ApiServer) -> None:
    job = {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": "j"},
           "spec": {"minAvailable": 1, "tasks": [{"name": "t", "replicas": 1}]}}
    obj, created = server.server_side_apply("Job", "j", job, "default", field_manager="kubectl")
    assert created
    assert entries(obj)["kubectl"]["fieldsV1"] == {"f:spec": {"f:minAvailable": {}, "f:tasks": {}}}


def test_apply_body_errors(server: ApiServer) -> None:
    cases = [
        ({**deployment(), "kind": "ReplicaSet"}, 400, "invalid object type: apps/v1, Kind=ReplicaSet"),
        ({**deployment(), "metadata": {"name": "other"}}, 400,
         "the name of the object (other) does not match the name on the URL (d)"),
        ({**deployment(), "metadata": {"name": "d", "managedFields": []}}, 400, "metadata.managedFields must be nil"),
        ("- a list", 400, "error decoding YAML"),
        ({**deployment(), "metadata": {"name": "d", "namespace": "other"}}, 400,
         "the namespace of the provided object does not match the namespace sent on the request"),
    ]
    for body, code, message in cases:
        with pytest.raises(ApiError) as err:
            apply(server, body)
        assert err.value.code == code and message in err.value.message, body


def test_apply_with_a_missing_list_key_is_500(server: ApiServer) -> None:
    body = deployment()
    body["spec"]["template"]["spec"]["containers"] = [{"image": "x"}]
    with pytest.raises(ApiError) as err:
        apply(server, body)
    assert err.value.code == 500 and 'omits key field "name"' in err.value.message


def test_kubectl_applier_keeps_an_existing_last_applied_annotation_in_step(server: ApiServer) -> None:
    """An object made by client-side apply, then applied server-side by ``kubectl``: the annotation
    follows, so a later client-side apply diffs against what was really applied."""
    body = deployment()
    body["metadata"]["annotations"] = {LAST_APPLIED: last_applied_configuration(body)}
    server.create(body, field_manager="kubectl-client-side-apply")
    obj, _ = apply(server, deployment(5), force=True)
    assert json.loads(obj["metadata"]["annotations"][LAST_APPLIED])["spec"]["replicas"] == 5
    other, _ = apply(server, deployment(6), manager="someone-else", force=True)
    assert json.loads(other["metadata"]["annotations"][LAST_APPLIED])["spec"]["replicas"] == 5


def test_ten_update_managers_at_most(server: ApiServer, clock: SimClock) -> None:
    apply(server, deployment())
    for i in range(12):
        clock.run(clock.now_ms + 1000)
        server.patch("Deployment", "d", {"metadata": {"labels": {f"l{i}": "1"}}}, "default", field_manager=f"m{i:02}")
    obj = server.get("Deployment", "d", "default")
    updaters = [e["manager"] for e in obj["metadata"]["managedFields"] if e["operation"] == "Update"]
    assert len(updaters) == 10 and "ancient-changes" in updaters
    ancient = entries(obj)["ancient-changes"]["fieldsV1"]["f:metadata"]["f:labels"]
    assert set(ancient) == {".", "f:l0", "f:l1", "f:l2"}  # m00 created the labels map


def test_patch_type_apply_goes_through_server_side_apply(server: ApiServer) -> None:
    obj = server.patch("Deployment", "d", deployment(), "default", patch_type="application/apply-patch+yaml",
                       field_manager="kubectl", force=False)
    assert obj["spec"]["replicas"] == 2 and entries(obj)["kubectl"]["operation"] == "Apply"


def test_apply_passes_create_then_update_admission_and_hooks_may_mutate(server: ApiServer) -> None:
    seen: list[str] = []

    def hook(request: Any) -> None:
        seen.append(request.operation)
        request.obj["spec"]["template"]["metadata"]["labels"]["hooked"] = request.operation

    server.admission.register_mutating("Deployment.apps", ("CREATE", "UPDATE"), hook, "label-it")
    created, _ = apply(server, deployment())
    updated, _ = apply(server, deployment(3))
    assert seen == ["CREATE", "UPDATE"]
    assert created["spec"]["template"]["metadata"]["labels"]["hooked"] == "CREATE"
    assert updated["spec"]["template"]["metadata"]["labels"]["hooked"] == "UPDATE"
    assert "f:hooked" not in json.dumps(entries(updated)["kubectl"]["fieldsV1"])  # webhook changes are not owned


def test_apply_denied_by_admission_stores_nothing(server: ApiServer) -> None:
    def deny(request: Any) -> None:
        raise ApiError(403, "Forbidden", "no")

    apply(server, deployment())
    before = server.get("Deployment", "d", "default")
    server.admission.register_validating("Deployment.apps", ("UPDATE",), deny, "deny")
    with pytest.raises(ApiError):
        apply(server, deployment(9))
    assert server.get("Deployment", "d", "default") is before
