"""What an update may change in an existing Pod, as kube-apiserver's ValidatePodUpdate rules it, and the
uid rules every kind follows on update; the components' own writes (binding, status) still go through."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from volcano.api.frozen import thaw
from volcano.apiserver import ApiError, ApiServer
from volcano.apiserver.faults import inject_stored_object
from volcano.apiserver.validation.pod_update import UPDATABLE_POD_SPEC_FIELDS, semantic

FORBIDDEN_PREFIX = ('Pod "p" is invalid: spec: Forbidden: pod updates may not change fields other than '
                    "`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,"
                    "`spec.tolerations` (only additions to existing tolerations),"
                    "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n")


def _pod(**spec: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "containers": [{"name": "c", "image": "busybox:1", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}],
        "initContainers": [{"name": "init", "image": "busybox:1"}],
        "tolerations": [{"key": "k", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60}],
    }
    base.update(spec)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"}, "spec": base}


@pytest.fixture
def stored(server: ApiServer) -> dict[str, Any]:
    return thaw(server.create(_pod()))


def _refused(server: ApiServer, edit: Callable[[dict[str, Any]], None]) -> ApiError:
    """Update the stored pod with ``edit``; the server must refuse it with 422 and store nothing."""
    before = server.get("Pod", "p", "default")
    obj = thaw(before)
    edit(obj)
    with pytest.raises(ApiError) as err:
        server.update(obj)
    assert (err.value.code, err.value.reason) == (422, "Invalid")
    assert server.get("Pod", "p", "default") is before
    return err.value


def _accepted(server: ApiServer, edit: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    obj = thaw(server.get("Pod", "p", "default"))
    edit(obj)
    return thaw(server.update(obj))


# -- what may change ------------------------------------------------------------------------------------
def test_images_of_containers_and_init_containers_may_change(server: ApiServer, stored: dict[str, Any]) -> None:
    def edit(obj: dict[str, Any]) -> None:
        obj["spec"]["containers"][0]["image"] = "busybox:2"
        obj["spec"]["initContainers"][0]["image"] = "busybox:3"
    out = _accepted(server, edit)
    assert (out["spec"]["containers"][0]["image"], out["spec"]["initContainers"][0]["image"]) == \
        ("busybox:2", "busybox:3")
    assert int(out["metadata"]["resourceVersion"]) > int(stored["metadata"]["resourceVersion"])


def test_equal_values_written_differently_are_no_change(server: ApiServer, stored: dict[str, Any]) -> None:
    def edit(obj: dict[str, Any]) -> None:
        obj["spec"]["containers"][0]["resources"]["requests"] = {"cpu": "1000m", "memory": "1024Mi"}
        obj["spec"]["hostNetwork"] = False  # a zero value equals an absent field
        obj["spec"]["nodeSelector"] = {}
    out = _accepted(server, edit)
    assert out["spec"]["containers"][0]["resources"]["requests"] == {"cpu": "1000m", "memory": "1024Mi"}


def test_metadata_may_change(server: ApiServer, stored: dict[str, Any]) -> None:
    out = server.patch("Pod", "p", {"metadata": {"labels": {"a": "b"}, "annotations": {"x": "y"}}}, "default")
    assert out["metadata"]["labels"] == {"a": "b"}


def test_active_deadline_may_be_set_then_lowered_never_raised_nor_removed(server: ApiServer,
                                                                         stored: dict[str, Any]) -> None:
    assert _accepted(server, lambda o: o["spec"].__setitem__("activeDeadlineSeconds", 100))["spec"][
        "activeDeadlineSeconds"] == 100
    assert _accepted(server, lambda o: o["spec"].__setitem__("activeDeadlineSeconds", 50))["spec"][
        "activeDeadlineSeconds"] == 50
    err = _refused(server, lambda o: o["spec"].__setitem__("activeDeadlineSeconds", 51))
    assert err.message == ('Pod "p" is invalid: spec.activeDeadlineSeconds: Invalid value: 51: must be less than '
                           "or equal to previous value")
    err = _refused(server, lambda o: o["spec"].pop("activeDeadlineSeconds"))
    assert err.message == ('Pod "p" is invalid: spec.activeDeadlineSeconds: Invalid value: "null": must not '
                           "update from a positive integer to nil value")


def test_tolerations_take_additions_and_new_toleration_seconds(server: ApiServer, stored: dict[str, Any]) -> None:
    def add(obj: dict[str, Any]) -> None:
        obj["spec"]["tolerations"][0]["tolerationSeconds"] = 5
        obj["spec"]["tolerations"].append({"key": "other", "operator": "Equal", "value": "v"})
    out = _accepted(server, add)
    assert [(t["key"], t.get("tolerationSeconds")) for t in out["spec"]["tolerations"]] == [("k", 5), ("other", None)]
    err = _refused(server, lambda o: o["spec"]["tolerations"].pop(0))
    assert err.message == ('Pod "p" is invalid: spec.tolerations: Forbidden: existing toleration can not be '
                           "modified except its tolerationSeconds")
    err = _refused(server, lambda o: o["spec"]["tolerations"][0].__setitem__("key", "k2"))
    assert err.details["causes"] == [{"reason": "FieldValueForbidden", "field": "spec.tolerations",
                                      "message": "Forbidden: existing toleration can not be modified except its "
                                                 "tolerationSeconds"}]


def test_scheduling_gates_may_only_be_removed(server: ApiServer) -> None:
    server.create(_pod(schedulingGates=[{"name": "example.com/a"}, {"name": "example.com/b"}],
                       nodeSelector={"zone": "a"}))
    err = _refused(server, lambda o: o["spec"]["schedulingGates"].append({"name": "example.com/c"}))
    assert err.message == ('Pod "p" is invalid: spec.schedulingGates[2].name: Forbidden: only deletion is allowed, '
                           "but found new scheduling gate 'example.com/c'")
    # while gated, the node selector takes additions (no mutations or deletions)
    out = _accepted(server, lambda o: o["spec"]["nodeSelector"].__setitem__("disk", "ssd"))
    assert out["spec"]["nodeSelector"] == {"zone": "a", "disk": "ssd"}
    err = _refused(server, lambda o: o["spec"]["nodeSelector"].__setitem__("zone", "b"))
    assert 'spec.nodeSelector: Invalid value: map[string]string{"disk":"ssd", "zone":"b"}: ' in err.message
    assert err.message.endswith("only additions to spec.nodeSelector are allowed (no mutations or deletions)")
    out = thaw(server.patch("Pod", "p", {"spec": {"schedulingGates": None}}, "default"))
    assert "schedulingGates" not in out["spec"]
    # ungated: the node selector is as immutable as the rest of the spec
    err = _refused(server, lambda o: o["spec"]["nodeSelector"].__setitem__("rack", "r1"))
    assert err.message.startswith(FORBIDDEN_PREFIX)


def test_grace_period_may_go_from_negative_to_one_only(server: ApiServer) -> None:
    inject_stored_object(server, {**_pod(terminationGracePeriodSeconds=-5)})
    out = _accepted(server, lambda o: o["spec"].__setitem__("terminationGracePeriodSeconds", 1))
    assert out["spec"]["terminationGracePeriodSeconds"] == 1
    err = _refused(server, lambda o: o["spec"].__setitem__("terminationGracePeriodSeconds", 2))
    assert err.message.startswith(FORBIDDEN_PREFIX)


# -- what may not ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(("edit", "diff"), [
    (lambda o: o["spec"].__setitem__("nodeName", "n1"), ['+ \tnodeName: "n1"']),
    (lambda o: o["spec"]["containers"][0]["resources"]["requests"].__setitem__("cpu", "2"),
     ["- \tcontainers[0].resources.requests.cpu: 1000m", "+ \tcontainers[0].resources.requests.cpu: 2000m"]),
    (lambda o: o["spec"].__setitem__("restartPolicy", "Never"),
     ['- \trestartPolicy: "Always"', '+ \trestartPolicy: "Never"']),
    (lambda o: o["spec"]["containers"][0].__setitem__("env", [{"name": "A", "value": "1"}]),
     ['+ \tcontainers[0].env: []interface {}{map[string]interface {}{"name":"A", "value":"1"}}']),
    (lambda o: o["spec"].__setitem__("schedulerName", "volcano"),
     ['- \tschedulerName: "default-scheduler"', '+ \tschedulerName: "volcano"']),
])
def test_any_other_spec_change_is_forbidden_with_a_diff(server: ApiServer, stored: dict[str, Any],
                                                        edit: Callable[[dict[str, Any]], None],
                                                        diff: list[str]) -> None:
    err = _refused(server, edit)
    assert err.message.startswith(FORBIDDEN_PREFIX)
    body = err.message[len(FORBIDDEN_PREFIX):].splitlines()
    assert body == ["  core.PodSpec{", *diff, "  }"]
    [cause] = err.details["causes"]
    assert (cause["reason"], cause["field"]) == ("FieldValueForbidden", "spec")
    assert cause["message"].startswith("Forbidden: pod updates may not change fields other than "
                                       + ",".join(UPDATABLE_POD_SPEC_FIELDS))


@pytest.mark.parametrize("group", ["containers", "initContainers"])
def test_containers_may_not_be_added_or_removed(server: ApiServer, stored: dict[str, Any], group: str) -> None:
    err = _refused(server, lambda o: o["spec"][group].append({"name": "more", "image": "x"}))
    assert err.message == f'Pod "p" is invalid: spec.{group}: Forbidden: pod updates may not add or remove containers'


def test_an_image_may_not_be_emptied_or_padded(server: ApiServer, stored: dict[str, Any]) -> None:
    err = _refused(server, lambda o: o["spec"]["containers"][0].__setitem__("image", " busybox:2"))
    assert err.message == ('Pod "p" is invalid: spec.containers[0].image: Invalid value: " busybox:2": must not '
                           "have leading or trailing whitespace")
    err = _refused(server, lambda o: o["spec"]["containers"][0].__setitem__("image", ""))
    assert err.message == 'Pod "p" is invalid: spec.containers[0].image: Required value'


def test_the_mirror_pod_annotation_is_fixed(server: ApiServer, stored: dict[str, Any]) -> None:
    err = _refused(server, lambda o: o["metadata"].__setitem__("annotations", {"kubernetes.io/config.mirror": "x"}))
    # ValidatePodSpecificAnnotations (a mirror pod names its node) comes first, then the update rule.
    assert err.message == ('Pod "p" is invalid: [metadata.annotations[kubernetes.io/config.mirror]: Invalid value: '
                           '"x": must set spec.nodeName if mirror pod annotation is set, '
                           "metadata.annotations[kubernetes.io/config.mirror]: Forbidden: may not add mirror pod "
                           "annotation]")


@pytest.mark.parametrize(("patch", "patch_type"), [
    ({"spec": {"nodeName": "n1"}}, "merge"),
    ({"spec": {"containers": [{"name": "c", "ports": [{"containerPort": 80}]}]}}, "strategic"),
    ([{"op": "replace", "path": "/spec/restartPolicy", "value": "Never"}], "json"),
])
def test_patches_follow_the_same_rules(server: ApiServer, stored: dict[str, Any], patch: Any,
                                       patch_type: str) -> None:
    before = server.get("Pod", "p", "default")
    with pytest.raises(ApiError) as err:
        server.patch("Pod", "p", patch, "default", patch_type=patch_type)
    assert err.value.code == 422 and err.value.message.startswith(FORBIDDEN_PREFIX)
    assert server.get("Pod", "p", "default") is before


# -- the components' own writes ----------------------------------------------------------------------
def test_binding_and_status_writes_are_not_pod_updates(server: ApiServer, stored: dict[str, Any]) -> None:
    server.bind("p", "default", "n1")
    assert server.get("Pod", "p", "default")["spec"]["nodeName"] == "n1"
    out = server.patch("Pod", "p", {"status": {"phase": "Running"}}, "default", subresource="status")
    assert out["status"]["phase"] == "Running"
    whole = thaw(out)
    whole["status"]["phase"] = "Succeeded"
    whole["spec"]["nodeName"] = "elsewhere"  # a status write ignores the spec it carries
    out = server.update_status(whole)
    assert (out["status"]["phase"], out["spec"]["nodeName"]) == ("Succeeded", "n1")
    # a client re-sending the bound pod unchanged is no change, and no error
    assert server.update(thaw(out)) is server.get("Pod", "p", "default")


# -- metadata.uid -----------------------------------------------------------------------------------------
def test_an_update_carrying_another_uid_is_a_conflict(server: ApiServer, stored: dict[str, Any]) -> None:
    for write in (server.update, server.update_status):
        obj = thaw(stored)
        obj["metadata"]["uid"] = "other"
        with pytest.raises(ApiError) as err:
            write(obj)
        assert (err.value.code, err.value.reason) == (409, "Conflict")
        assert err.value.message == (
            'Operation cannot be fulfilled on pods "p": StorageError: invalid object, Code: 4, Key: '
            "/registry/pods/default/p, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in "
            f"precondition: other, UID in object meta: {stored['metadata']['uid']}")
    assert server.get("Pod", "p", "default")["metadata"]["resourceVersion"] == stored["metadata"]["resourceVersion"]
    # the uid precondition is checked before the resourceVersion, as the storage layer does
    stale = thaw(stored)
    server.patch("Pod", "p", {"metadata": {"labels": {"x": "1"}}}, "default")
    stale["metadata"]["uid"] = "other"
    with pytest.raises(ApiError) as err:
        server.update(stale)
    assert "Precondition failed: UID in precondition: other" in err.value.message


def test_a_patch_changing_the_uid_is_invalid(server: ApiServer, stored: dict[str, Any]) -> None:
    for sub in (None, "status"):
        with pytest.raises(ApiError) as err:
            server.patch("Pod", "p", {"metadata": {"uid": "other"}}, "default", subresource=sub)
        assert err.value.code == 422
        assert err.value.message == 'Pod "p" is invalid: metadata.uid: Invalid value: "other": field is immutable'


def test_a_custom_resource_status_patch_drops_the_uid(server: ApiServer) -> None:
    queue = server.create({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": "q"},
                           "spec": {"weight": 1}})
    out = server.patch("Queue", "q", {"metadata": {"uid": "other"}, "status": {"state": "Open"}},
                       subresource="status")
    assert (out["metadata"]["uid"], out["status"]["state"]) == (queue["metadata"]["uid"], "Open")
    with pytest.raises(ApiError) as err:
        server.patch("Queue", "q", {"metadata": {"uid": "other"}})
    assert err.value.message == ('Queue.scheduling.volcano.sh "q" is invalid: metadata.uid: Invalid value: "other": '
                                 "field is immutable")
    obj = thaw(out)
    obj["metadata"]["uid"] = "other"
    with pytest.raises(ApiError) as err:
        server.update(obj)
    assert "Key: /registry/scheduling.volcano.sh/queues/q," in err.value.message
    assert err.value.message.startswith('Operation cannot be fulfilled on queues.scheduling.volcano.sh "q": ')


def test_semantic_equality() -> None:
    assert semantic({"a": {"cpu": "1"}, "b": [], "c": None, "d": 0, "e": False, "f": ""}) == {"a": {"cpu": "1"}}
    assert semantic({"cpu": "1", "memory": 0}, "limits") == {"cpu": ("quantity", 1000), "memory": ("quantity", 0)}
    assert semantic({"limits": {"cpu": "1"}}) == semantic({"limits": {"cpu": "1000m"}})
    assert semantic({"limits": {"cpu": "1"}}) != semantic({"limits": {"cpu": "2"}})
    assert semantic({"x": [{"y": ""}]}) == {"x": [{}]}


def _required(*terms: list[dict[str, Any]]) -> dict[str, Any]:
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": list(t)} for t in terms]}}}


ZONE_A = {"key": "zone", "operator": "In", "values": ["a"]}
SSD = {"key": "disk", "operator": "In", "values": ["ssd"]}


def test_a_gated_pods_required_node_affinity_may_only_narrow(server: ApiServer) -> None:
    server.create(_pod(schedulingGates=[{"name": "example.com/a"}], affinity=_required([ZONE_A])))
    terms = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"

    def narrow(obj: dict[str, Any]) -> None:
        obj["spec"]["affinity"] = _required([ZONE_A, SSD])
        obj["spec"]["affinity"]["nodeAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"] = [
            {"weight": 1, "preference": {"matchExpressions": [SSD]}}]  # preferred terms are free
    out = _accepted(server, narrow)
    assert out["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
        "nodeSelectorTerms"] == [{"matchExpressions": [ZONE_A, SSD]}]
    err = _refused(server, lambda o: o["spec"].__setitem__("affinity", _required([SSD, ZONE_A])))
    assert err.message.startswith(f'Pod "p" is invalid: {terms}[0]: Invalid value: ')
    assert err.message.endswith("only additions are allowed (no mutations or deletions)")
    err = _refused(server, lambda o: o["spec"].__setitem__("affinity", _required([ZONE_A, SSD], [SSD])))
    assert err.message.startswith(f'Pod "p" is invalid: {terms}: Invalid value: ')
    assert err.message.endswith("no additions/deletions to non-empty NodeSelectorTerms list are allowed")
    err = _refused(server, lambda o: o["spec"].pop("affinity"))
    assert "no additions/deletions to non-empty NodeSelectorTerms list are allowed" in err.message
    # once ungated, node affinity is as immutable as the rest of the spec
    server.patch("Pod", "p", {"spec": {"schedulingGates": None}}, "default")
    err = _refused(server, lambda o: o["spec"].__setitem__("affinity", _required([ZONE_A, SSD, SSD])))
    assert err.message.startswith(FORBIDDEN_PREFIX)


def test_a_gated_pod_without_required_affinity_may_get_one(server: ApiServer) -> None:
    server.create(_pod(schedulingGates=[{"name": "example.com/a"}]))
    out = _accepted(server, lambda o: o["spec"].__setitem__("affinity", _required([ZONE_A])))
    assert out["spec"]["affinity"] == _required([ZONE_A])
    err = _refused(server, lambda o: o["spec"]["affinity"].__setitem__("podAntiAffinity", {
        "requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": "zone", "labelSelector": {}}]}))
    assert err.message.startswith(FORBIDDEN_PREFIX)  # pod (anti-)affinity stays immutable
