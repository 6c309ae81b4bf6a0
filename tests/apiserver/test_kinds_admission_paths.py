"""Which admission hooks every write path runs, whole: for create, update, each patch type, apply,
the status subresource (update, patch, apply), delete, eviction, and the recorder's Event create and
count patch, the complete sequence of hook calls (mutating or validating, operation, subresource,
name) with a mutating hook only, a validating hook only, and both; a mutating hook's edit is stored
and a validating hook's denial stores nothing. A status write runs the mutating hooks once and the
validating hooks once, in that order, as every other write does."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from volcano.api.frozen import thaw
from volcano.apiserver import ApiError, ApiServer
from volcano.apiserver.admission import AdmissionRequest
from volcano.sim import RandomStreams, SimClock

NOW = "2024-01-01T00:00:00Z"
POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
       "spec": {"containers": [{"name": "c", "image": "b"}]}}


def _event(name: str = "p.1") -> dict[str, Any]:
    """An Event exactly as the recorder builds it."""
    return {"apiVersion": "v1", "kind": "Event", "metadata": {"namespace": "default", "name": name},
            "involvedObject": {"kind": "Pod", "name": "p", "namespace": "default", "uid": "u", "apiVersion": "v1",
                               "resourceVersion": "7"},
            "reason": "Scheduled", "message": "m", "source": {"component": "volcano"},
            "firstTimestamp": NOW, "lastTimestamp": NOW, "count": 1, "type": "Normal", "eventTime": None,
            "reportingComponent": "volcano", "reportingInstance": ""}


Calls = list[tuple[str, str, str, str]]


def _install(server: ApiServer, kind: str, operations: tuple[str, ...], mutating: bool, validating: bool,
             deny: bool = False) -> Calls:
    calls: Calls = []

    def record(which: str) -> Callable[[AdmissionRequest], None]:
        def hook(request: AdmissionRequest) -> None:
            calls.append((which, request.operation, request.subresource or "", request.name))
            if which == "mutate" and request.operation != "DELETE":
                if request.subresource == "status":
                    request.obj.setdefault("status", {})["message"] = "mutated"
                else:
                    request.obj["metadata"].setdefault("labels", {})["mutated"] = "yes"
            if which == "validate" and deny:
                raise ApiError(403, "Forbidden", "denied")
        return hook
    if mutating:
        server.admission.register_mutating(kind, operations, record("mutate"), "m")
    if validating:
        server.admission.register_validating(kind, operations, record("validate"), "v")
    return calls


def _server() -> ApiServer:
    server = ApiServer(SimClock(), RandomStreams(0))
    server.create(POD)
    return server


def _pod(server: ApiServer) -> dict[str, Any]:
    return thaw(server.get("Pod", "p"))


WRITES: dict[str, tuple[Callable[[ApiServer], Any], str, str]] = {
    "create": (lambda s: s.create({**POD, "metadata": {"name": "q"}}), "CREATE", ""),
    "update": (lambda s: s.update({**_pod(s), "spec": {**_pod(s)["spec"], "activeDeadlineSeconds": 3}}),
               "UPDATE", ""),
    "merge patch": (lambda s: s.patch("Pod", "p", {"metadata": {"annotations": {"a": "1"}}}), "UPDATE", ""),
    "json patch": (lambda s: s.patch("Pod", "p", [{"op": "add", "path": "/metadata/annotations", "value": {"a": "1"}}],
                                     patch_type="json"), "UPDATE", ""),
    "strategic patch": (lambda s: s.patch("Pod", "p", {"metadata": {"annotations": {"a": "1"}}},
                                          patch_type="strategic"), "UPDATE", ""),
    "apply": (lambda s: s.server_side_apply("Pod", "p", {"apiVersion": "v1", "kind": "Pod", "metadata": {
        "name": "p", "annotations": {"a": "1"}}}, field_manager="f"), "UPDATE", ""),
    "status update": (lambda s: s.update_status({**_pod(s), "status": {"phase": "Running"}}), "UPDATE", "status"),
    "status patch": (lambda s: s.patch("Pod", "p", {"status": {"phase": "Running"}}, subresource="status"),
                     "UPDATE", "status"),
    "status apply": (lambda s: s.server_side_apply("Pod", "p", {"apiVersion": "v1", "kind": "Pod", "metadata": {
        "name": "p"}, "status": {"phase": "Running"}}, field_manager="f", subresource="status", force=True),
        "UPDATE", "status"),
    "status fields": (lambda s: s.update_status_fields("Pod", "p", "default", {"phase": "Running"}),
                      "UPDATE", "status"),
    "delete": (lambda s: s.delete("Pod", "p"), "DELETE", ""),
    "evict": (lambda s: s.evict("p", "default"), "DELETE", "eviction"),
}


@pytest.mark.parametrize("hooks", ["mutating", "validating", "both"])
@pytest.mark.parametrize("write", list(WRITES))
def test_hook_calls_of_every_write_path(write: str, hooks: str) -> None:
    server = _server()
    fn, operation, subresource = WRITES[write]
    calls = _install(server, "Pod", ("CREATE", "UPDATE", "DELETE"), hooks != "validating", hooks != "mutating")
    fn(server)
    name = "q" if write == "create" else "p"
    expected = [(which, operation, subresource, name) for which in ("mutate", "validate")
                if (which == "mutate" and hooks != "validating") or (which == "validate" and hooks != "mutating")]
    assert calls == expected
    if operation == "DELETE":
        return
    stored = thaw(server.get("Pod", name))
    if hooks == "validating":
        assert "labels" not in stored["metadata"] and (stored.get("status") or {}).get("message") is None
    elif subresource == "status":
        assert stored["status"]["message"] == "mutated" and "labels" not in stored["metadata"]
    else:
        assert stored["metadata"]["labels"] == {"mutated": "yes"}


@pytest.mark.parametrize("write", [w for w in WRITES if w != "create"])
def test_a_validating_denial_stores_nothing(write: str) -> None:
    server = _server()
    fn, operation, subresource = WRITES[write]
    calls = _install(server, "Pod", ("UPDATE", "DELETE"), False, True, deny=True)
    before = server.snapshot()
    with pytest.raises(ApiError) as err:
        fn(server)
    assert (err.value.code, err.value.message) == (403, "denied")
    assert calls == [("validate", operation, subresource, "p")]
    assert server.snapshot() == before


@pytest.mark.parametrize("hooks", ["none", "mutating", "validating", "both"])
def test_recorded_event_create_and_count_patch(hooks: str) -> None:
    server = ApiServer(SimClock(), RandomStreams(0))
    calls = _install(server, "Event", ("CREATE", "UPDATE"), hooks in ("mutating", "both"),
                     hooks in ("validating", "both"))
    server.create_event(_event())
    server.patch_event_count("default", "p.1", {"count": 2, "lastTimestamp": NOW, "message": "again"})
    stored = thaw(server.get("Event", "p.1", "default"))
    kinds = {"none": [], "mutating": ["mutate"], "validating": ["validate"], "both": ["mutate", "validate"]}[hooks]
    assert calls == [(k, "CREATE", "", "p.1") for k in kinds] + [(k, "UPDATE", "", "p.1") for k in kinds]
    assert (stored["count"], stored["message"]) == (2, "again")
    assert stored["metadata"].get("labels") == ({"mutated": "yes"} if "mutate" in kinds else None)


@pytest.mark.parametrize("operation", ["CREATE", "UPDATE"])
def test_a_validating_hook_on_events_refuses_the_recorder(operation: str) -> None:
    server = ApiServer(SimClock(), RandomStreams(0))
    if operation == "UPDATE":
        server.create_event(_event())
    _install(server, "Event", (operation,), False, True, deny=True)
    before = server.snapshot()
    with pytest.raises(ApiError):
        if operation == "CREATE":
            server.create_event(_event())
        else:
            server.patch_event_count("default", "p.1", {"count": 2, "lastTimestamp": NOW, "message": "again"})
    assert server.snapshot() == before
