"""PersistentVolumeClaim defaulting and validation as kube-apiserver does it (``validation.pvc``):
access modes, the storage request, volume modes, data sources, and what an update may change."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from volcano.apiserver import ApiError, ApiServer
from volcano.apiserver.validation.pvc import pvc_errors, pvc_update_errors
from volcano.sim import RandomStreams, SimClock

GOOD: dict[str, Any] = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}


def _pvc(name: str = "claim", spec: dict[str, Any] | None = None, **meta: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name, **meta},
            "spec": copy.deepcopy(GOOD if spec is None else spec)}


def _texts(spec: dict[str, Any]) -> list[str]:
    return [str(e) for e in pvc_errors({"spec": spec})]


@pytest.mark.parametrize(("spec", "expected"), [
    (GOOD, []),
    ({}, ["spec.accessModes: Required value: at least 1 access mode is required",
          "spec.resources[storage]: Required value"]),
    ({**GOOD, "accessModes": []}, ["spec.accessModes: Required value: at least 1 access mode is required"]),
    ({**GOOD, "accessModes": ["ReadWriteOnce", "Sometimes"]},
     ['spec.accessModes: Unsupported value: "Sometimes": supported values: "ReadOnlyMany", "ReadWriteMany", '
      '"ReadWriteOnce", "ReadWriteOncePod"']),
    ({**GOOD, "accessModes": ["ReadWriteOncePod", "ReadOnlyMany"]},
     ["spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes"]),
    ({**GOOD, "accessModes": ["ReadWriteOncePod", "Sometimes"]},
     ['spec.accessModes: Unsupported value: "Sometimes": supported values: "ReadOnlyMany", "ReadWriteMany", '
      '"ReadWriteOnce", "ReadWriteOncePod"']),
    ({**GOOD, "accessModes": ["ReadWriteOncePod"]}, []),
    ({**GOOD, "resources": {"requests": {"storage": "0"}}},
     ['spec.resources[storage]: Invalid value: "0": must be greater than zero']),
    ({**GOOD, "resources": {"requests": {"storage": "-1Gi"}}},
     ['spec.resources[storage]: Invalid value: "-1Gi": must be greater than zero']),
    ({**GOOD, "resources": {"requests": {"storage": "1m"}}}, []),
    ({**GOOD, "resources": {"limits": {"storage": "1Gi"}}}, ["spec.resources[storage]: Required value"]),
    ({**GOOD, "volumeMode": "Raw"},
     ['spec.volumeMode: Unsupported value: "Raw": supported values: "Block", "Filesystem"']),
    ({**GOOD, "volumeMode": "Block"}, []),
    ({**GOOD, "storageClassName": "Fast_SSD"}, ["spec.storageClassName: Invalid value: \"Fast_SSD\""]),
    ({**GOOD, "storageClassName": ""}, []),
    ({**GOOD, "selector": {"matchExpressions": [{"key": "a", "operator": "Near"}]}},
     ["spec.selector.matchExpressions[0].operator"]),
])
def test_spec_errors(spec: dict[str, Any], expected: list[str]) -> None:
    got = _texts(spec)
    assert len(got) == len(expected), got
    for text, want in zip(got, expected, strict=True):
        assert text.startswith(want), (text, want)


@pytest.mark.parametrize(("spec", "fields"), [
    ({"dataSource": {"kind": "PersistentVolumeClaim", "name": "src"}}, []),
    ({"dataSource": {"kind": "Thing", "name": "src"}}, ["spec.dataSource"]),
    ({"dataSource": {"kind": "Thing", "apiGroup": "Bad_Group", "name": "x"}}, ["spec.dataSource.apiGroup"]),
    ({"dataSource": {}}, ["spec.dataSource.name", "spec.dataSource.kind", "spec.dataSource"]),
    ({"dataSourceRef": {"kind": "PersistentVolumeClaim", "name": "src", "namespace": "Bad_NS"}},
     ["spec.dataSourceRef.namespace"]),
    ({"dataSource": {"kind": "PersistentVolumeClaim", "name": "a"},
      "dataSourceRef": {"kind": "PersistentVolumeClaim", "name": "b"}}, ["spec"]),
    ({"dataSource": {"kind": "PersistentVolumeClaim", "name": "a"},
      "dataSourceRef": {"kind": "PersistentVolumeClaim", "name": "a"}}, []),
    ({"dataSource": {"kind": "PersistentVolumeClaim", "name": "a"},
      "dataSourceRef": {"kind": "PersistentVolumeClaim", "name": "a", "namespace": "other"}}, ["spec"]),
    ({"volumeAttributesClassName": "Gold!"}, ["spec.volumeAttributesClassName"]),
])
def test_data_source_and_class_errors(spec: dict[str, Any], fields: list[str]) -> None:
    assert [e.field for e in pvc_errors({"spec": {**GOOD, **spec}})] == fields


def test_messages_of_the_data_source_cross_checks() -> None:
    texts = _texts({**GOOD, "dataSource": {"kind": "PersistentVolumeClaim", "name": "a"},
                    "dataSourceRef": {"kind": "PersistentVolumeClaim", "name": "b"}})
    assert texts[0].endswith("must match dataSourceRef"), texts
    texts = _texts({**GOOD, "dataSource": {"kind": "Thing", "name": "a"}})
    assert texts == ['spec.dataSource: Invalid value: "Thing": must be \'PersistentVolumeClaim\' when referencing '
                     'the default apiGroup'], texts


@pytest.fixture
def server() -> ApiServer:
    return ApiServer(SimClock(), RandomStreams(0))


def test_create_defaults_and_status(server: ApiServer) -> None:
    created = server.create(_pvc() | {"status": {"phase": "Bound"}})
    assert created["spec"]["volumeMode"] == "Filesystem"
    assert created["status"] == {"phase": "Pending"}


def test_create_is_refused_with_every_field_named(server: ApiServer) -> None:
    with pytest.raises(ApiError) as err:
        server.create(_pvc(spec={"resources": {"requests": {"storage": "0"}}, "volumeMode": "Raw"}))
    exc = err.value
    assert (exc.code, exc.reason) == (422, "Invalid")
    assert exc.message.startswith('PersistentVolumeClaim "claim" is invalid: [spec.accessModes: Required value')
    assert [c["field"] for c in exc.details["causes"]] == ["spec.accessModes", "spec.resources[storage]",
                                                          "spec.volumeMode"]
    with pytest.raises(ApiError):
        server.get("PersistentVolumeClaim", "claim", "default")


@pytest.mark.parametrize(("source", "ref", "want_source", "want_ref"), [
    ({"kind": "PersistentVolumeClaim", "name": "a"}, None,
     {"kind": "PersistentVolumeClaim", "name": "a"}, {"kind": "PersistentVolumeClaim", "name": "a"}),
    ({"kind": "VolumeSnapshot", "apiGroup": "snapshot.storage.k8s.io", "name": "s"}, None,
     {"kind": "VolumeSnapshot", "apiGroup": "snapshot.storage.k8s.io", "name": "s"},
     {"kind": "VolumeSnapshot", "apiGroup": "snapshot.storage.k8s.io", "name": "s"}),
    ({"kind": "Thing", "apiGroup": "example.com", "name": "t"}, None, None, None),
    (None, {"kind": "Thing", "apiGroup": "example.com", "name": "t"},
     {"kind": "Thing", "apiGroup": "example.com", "name": "t"}, {"kind": "Thing", "apiGroup": "example.com",
                                                                 "name": "t"}),
    (None, {"kind": "PersistentVolumeClaim", "name": "a", "namespace": "other"},
     None, {"kind": "PersistentVolumeClaim", "name": "a", "namespace": "other"}),
])
def test_create_normalises_data_sources(server: ApiServer, source: Any, ref: Any, want_source: Any,
                                        want_ref: Any) -> None:
    spec = dict(GOOD)
    if source is not None:
        spec["dataSource"] = source
    if ref is not None:
        spec["dataSourceRef"] = ref
    created = server.create(_pvc(spec=spec))
    assert created["spec"].get("dataSource") == want_source
    assert created["spec"].get("dataSourceRef") == want_ref


def _update_error(server: ApiServer, change: Any, status: dict[str, Any] | None = None,
                  spec: dict[str, Any] | None = None, **meta: Any) -> list[str]:
    server.create(_pvc(spec=spec, **meta))
    if status is not None:
        stored = copy.deepcopy(dict(server.get("PersistentVolumeClaim", "claim", "default")))
        server.update_status({**stored, "status": status})
    obj = copy.deepcopy(dict(server.get("PersistentVolumeClaim", "claim", "default")))
    change(obj)
    try:
        server.update(obj)
    except ApiError as exc:
        assert (exc.code, exc.reason) == (422, "Invalid")
        return [c["field"] for c in exc.details["causes"]]
    return []


def _storage(size: str) -> Any:
    return lambda o: o["spec"]["resources"]["requests"].update(storage=size)


@pytest.mark.parametrize(("change", "status", "fields"), [
    (lambda o: o["metadata"].update(labels={"a": "b"}), None, []),
    (lambda o: o["spec"].update(volumeName="pv-1"), None, []),
    (lambda o: o["spec"].update(storageClassName="fast"), None, []),
    (lambda o: o["spec"].update(accessModes=["ReadOnlyMany"]), None, ["spec"]),
    (_storage("2Gi"), None, ["spec"]),
    (_storage("2Gi"), {"phase": "Bound", "capacity": {"storage": "1Gi"}}, []),
    (_storage("1024Mi"), None, []),
    (_storage("512Mi"), {"phase": "Bound", "capacity": {"storage": "1Gi"}}, ["spec.resources.requests.storage"]),
    (_storage("512Mi"), {"phase": "Bound", "capacity": {"storage": "256Mi"}}, []),
    (lambda o: o["spec"].update(volumeMode="Block"), None, ["spec", "volumeMode"]),
    (lambda o: o["spec"].update(volumeAttributesClassName="gold"), {"phase": "Bound"}, []),
    (lambda o: o["spec"].update(volumeAttributesClassName="gold"), None, ["spec"]),
])
def test_update_rules(server: ApiServer, change: Any, status: dict[str, Any] | None, fields: list[str]) -> None:
    assert _update_error(server, change, status) == fields


def test_volume_name_is_set_once(server: ApiServer) -> None:
    spec = {**GOOD, "volumeName": "pv-1"}
    assert _update_error(server, lambda o: o["spec"].update(volumeName="pv-2"), spec=spec) == ["spec"]


def test_storage_class_is_set_once(server: ApiServer) -> None:
    spec = {**GOOD, "storageClassName": "fast"}
    assert _update_error(server, lambda o: o["spec"].update(storageClassName="slow"), spec=spec) == ["spec"]


_BETA = "volume.beta.kubernetes.io/storage-class"


@pytest.mark.parametrize(("change", "fields"), [
    (lambda o: o["spec"].update(storageClassName="fast"), []),
    (lambda o: (o["spec"].update(storageClassName="fast"), o["metadata"]["annotations"].pop(_BETA)), []),
    (lambda o: o["spec"].update(storageClassName="slow"), ["spec"]),
    (lambda o: o["metadata"]["annotations"].update({_BETA: "slow"}), [f"metadata.annotations.{_BETA}"]),
])
def test_storage_class_from_the_beta_annotation(server: ApiServer, change: Any, fields: list[str]) -> None:
    assert _update_error(server, change, annotations={_BETA: "fast"}) == fields


def test_update_message_names_the_rule(server: ApiServer) -> None:
    server.create(_pvc())
    obj = copy.deepcopy(dict(server.get("PersistentVolumeClaim", "claim", "default")))
    obj["spec"]["accessModes"] = ["ReadOnlyMany"]
    with pytest.raises(ApiError) as err:
        server.update(obj)
    message = err.value.details["causes"][0]["message"]
    assert message.startswith("Forbidden: spec is immutable after creation except resources.requests and "
                              "volumeAttributesClassName for bound claims\n"), message
    assert "accessModes" in message


def test_shrinking_a_bound_claim_is_checked_against_its_capacity() -> None:
    """RecoverVolumeExpansionFailure: below the old request is allowed down to status.capacity (exclusive);
    with no capacity recorded any positive request is."""
    old = {"spec": {**GOOD, "volumeMode": "Filesystem"}, "status": {"phase": "Bound"}}
    new = {"spec": {**GOOD, "volumeMode": "Filesystem", "resources": {"requests": {"storage": "512Mi"}}}}
    assert pvc_update_errors(new, old) == []
    old["status"]["capacity"] = {"storage": "512Mi"}
    assert [str(e) for e in pvc_update_errors(new, old)] == [
        "spec.resources.requests.storage: Forbidden: field can not be less than status.capacity"]


def test_update_diff_shows_the_changed_paths() -> None:
    old = {"spec": {**GOOD, "volumeMode": "Filesystem"}}
    new = {"spec": {**GOOD, "volumeMode": "Filesystem", "resources": {"requests": {"storage": "2Gi"}}}}
    (err,) = pvc_update_errors(new, old)
    assert err.body().split("\n")[1:] == ["  core.PersistentVolumeClaimSpec{",
                                          "- \tresources.requests.storage: 1073741824000m",
                                          "+ \tresources.requests.storage: 2147483648000m", "  }", ""]
