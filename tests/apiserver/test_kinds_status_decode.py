"""Status writes that do not decode, whole: a typed kind's status (a Pod's) of the wrong JSON type at
every depth (the status itself, a scalar, a list, an item's field, a time, nesting past the decoder's
depth) is the decoder's 400 naming the Go struct field, with no details; a custom resource's status
(Queue, Job) of the wrong type is the structural schema's 422 with one cause per failed rule. The
update, the merge patch and the apply of the status subresource answer alike, and nothing is stored."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from volcano.api.frozen import thaw
from volcano.apiserver import ApiError, ApiServer
from volcano.sim import RandomStreams, SimClock


def _deep(levels: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    cur = out
    for _ in range(levels):
        cur["a"] = {}
        cur = cur["a"]
    return out


def _server() -> ApiServer:
    server = ApiServer(SimClock(), RandomStreams(0))
    server.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                   "spec": {"containers": [{"name": "c", "image": "b"}]}})
    server.create({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": "q"},
                   "spec": {"weight": 1}})
    server.create({"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": "j"},
                   "spec": {"minAvailable": 1, "tasks": [{"name": "t", "replicas": 1, "template": {
                       "spec": {"containers": [{"name": "c", "image": "b"}]}}}]}})
    return server


def _bad_request(message: str) -> dict[str, Any]:
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": 'Pod in version "v1" cannot be handled as a Pod: ' + message, "reason": "BadRequest",
            "code": 400}


@pytest.mark.parametrize(("status", "message"), [
    ({"phase": 1}, "json: cannot unmarshal number into Go struct field PodStatus.status.phase of type string"),
    ({"conditions": "x"},
     "json: cannot unmarshal string into Go struct field PodStatus.status.conditions of type []v1.PodCondition"),
    ({"conditions": [{"type": 1}]},
     "json: cannot unmarshal number into Go struct field PodCondition.status.conditions.type of type string"),
    ({"containerStatuses": [{"ready": "yes"}]},
     "json: cannot unmarshal string into Go struct field ContainerStatus.status.containerStatuses.ready of type bool"),
    ({"startTime": 5}, "json: cannot unmarshal number into Go struct field PodStatus.status.startTime of type v1.Time"),
    ("x", "json: cannot unmarshal string into Go struct field PodStatus.status of type v1.PodStatus"),
    (_deep(200), "json: exceeded max depth"),
])
@pytest.mark.parametrize("how", ["update", "patch"])
def test_pod_status_that_does_not_decode_is_400(status: Any, message: str, how: str) -> None:
    server = _server()
    before = server.snapshot()
    with pytest.raises(ApiError) as err:
        if how == "update":
            server.update_status({**thaw(server.get("Pod", "p")), "status": status})
        else:
            server.patch("Pod", "p", {"status": status}, subresource="status")
    assert err.value.status() == _bad_request(message)
    assert server.snapshot() == before


def _invalid(kind: str, group: str, name: str, causes: list[tuple[str, str, str]]) -> dict[str, Any]:
    shown = [f"{field}: {text}" for _, text, field in causes]
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": f'{kind}.{group} "{name}" is invalid: '
                       + (shown[0] if len(shown) == 1 else "[" + ", ".join(shown) + "]"),
            "reason": "Invalid",
            "details": {"name": name, "group": group, "kind": kind,
                        "causes": [{"reason": r, "message": m, "field": f} for r, m, f in causes]},
            "code": 422}


WriteFn = Callable[[ApiServer, str, str, Any], Any]
HOW: dict[str, WriteFn] = {
    "update": lambda s, kind, name, st: s.update_status({**thaw(s.get(kind, name)), "status": st}),
    "patch": lambda s, kind, name, st: s.patch(kind, name, {"status": st}, subresource="status"),
}


@pytest.mark.parametrize(("kind", "name", "status", "expected"), [
    ("Queue", "q", {"state": 1}, _invalid("Queue", "scheduling.volcano.sh", "q", [
        ("FieldValueInvalid", 'Invalid value: 1: status.state in body must be of type string: "integer"',
         "status.state"),
        ("FieldValueNotSupported", 'Unsupported value: 1: supported values: "Open", "Closed", "Closing", "Unknown"',
         "status.state")])),
    ("Queue", "q", {"allocated": {"cpu": []}}, _invalid("Queue", "scheduling.volcano.sh", "q", [
        ("FieldValueInvalid", 'Invalid value: "array": status.allocated.cpu in body must be of type integer,string: '
                              '"array"', "status.allocated.cpu")])),
    ("Queue", "q", {"running": "x"}, _invalid("Queue", "scheduling.volcano.sh", "q", [
        ("FieldValueInvalid", 'Invalid value: "x": status.running in body must be of type integer: "string"',
         "status.running")])),
    ("Job", "j", {"succeeded": "x"}, _invalid("Job", "batch.volcano.sh", "j", [
        ("FieldValueInvalid", 'Invalid value: "x": status.succeeded in body must be of type integer: "string"',
         "status.succeeded")])),
])
@pytest.mark.parametrize("how", list(HOW))
def test_custom_resource_status_of_the_wrong_type_is_422(kind: str, name: str, status: Any,
                                                         expected: dict[str, Any], how: str) -> None:
    server = _server()
    before = server.snapshot()
    with pytest.raises(ApiError) as err:
        HOW[how](server, kind, name, status)
    assert err.value.status() == expected
    assert server.snapshot() == before
