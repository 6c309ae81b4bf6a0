"""Unit checks of API server behaviour the conformance ``Cluster`` interface does not reach, written
against the survivors of the seed-3 mutation sample (``docs/testing.md``): Status details of a
Forbidden, the manager an update without ``fieldManager`` is recorded under, CreateOptions
validation, Node status validation, the message for a kind the server does not serve, and the
field named by ``problem``."""

from __future__ import annotations

from typing import Any

import pytest

from volcano.apiserver.errors import ApiError
from volcano.apiserver.server import ApiServer
from volcano.apiserver.validation import problem

Obj = dict[str, Any]


def _cm(name: str, namespace: str = "default") -> Obj:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": namespace},
            "data": {"k": "v"}}


def test_forbidden_in_terminating_namespace_names_the_resource(server: ApiServer) -> None:
    server.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ending", "finalizers": ["x/y"]}})
    server.delete("Namespace", "ending")
    with pytest.raises(ApiError) as err:
        server.create(_cm("late", "ending"))
    assert (err.value.code, err.value.reason) == (403, "Forbidden")
    assert err.value.message == ('configmaps "late" is forbidden: unable to create new content in namespace ending '
                                 "because it is being terminated")
    assert err.value.details == {"name": "late", "kind": "configmaps"}


def test_update_without_field_manager_is_recorded_as_unknown(server: ApiServer) -> None:
    server.patch("ConfigMap", "c", _cm("c"), "default", patch_type="apply", field_manager="mgr")
    patched = server.patch("ConfigMap", "c", {"data": {"x": "y"}}, "default")
    entries = [(e["manager"], e["operation"]) for e in patched["metadata"]["managedFields"]]
    assert entries == [("mgr", "Apply"), ("unknown", "Update")]
    created = server.create(_cm("empty-manager"), field_manager="")
    assert [(e["manager"], e["operation"]) for e in created["metadata"]["managedFields"]] == [("unknown", "Update")]


def test_create_with_too_long_field_manager(server: ApiServer) -> None:
    with pytest.raises(ApiError) as err:
        server.create(_cm("long-manager"), field_manager="m" * 129)
    assert (err.value.code, err.value.message) == (
        422, 'CreateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes')
    assert [o["metadata"]["name"] for o in server.list("ConfigMap", "default")["items"]] == []
    server.create(_cm("ok-manager"), field_manager="m" * 128)


@pytest.mark.parametrize("part", ["capacity", "allocatable"])
def test_node_status_quantities_must_not_be_negative(server: ApiServer, part: str) -> None:
    server.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}})
    with pytest.raises(ApiError) as err:
        server.patch("Node", "n1", {"status": {part: {"cpu": "-1"}}}, subresource="status")
    assert (err.value.code, err.value.message) == (
        422, f'Node "n1" is invalid: status.{part}.cpu: Invalid value: "-1": must be greater than or equal to 0')
    server.patch("Node", "n1", {"status": {part: {"cpu": "0"}}}, subresource="status")


def test_unserved_kind_is_bad_request_naming_it(server: ApiServer) -> None:
    with pytest.raises(ApiError) as err:
        server.create({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}})
    assert (err.value.code, err.value.message) == (400, "no matches for kind 'Widget' in version 'example.com/v1'")


def test_problem_names_the_first_invalid_field() -> None:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
           "spec": {"containers": [{"name": "C_", "image": "busybox"}]}}
    found = problem(pod)
    assert found is not None and found.startswith('field spec.containers[0].name: Invalid value: "C_": '), found
