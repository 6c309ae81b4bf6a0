"""``ApiServer.update``/``update_status`` with the stored object's own frozen metadata skip the
shape, uid and resourceVersion checks that metadata passes: on random pods, writes and requests
(the stored metadata, a stale one, another object's, a thawed copy), sending the frozen metadata and
sending a plain copy of it store the same objects or raise the same errors."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import volcano.apiserver.server as server_module
from volcano.api.frozen import thaw
from volcano.apiserver import ApiServer
from volcano.apiserver.errors import ApiError
from volcano.sim import SimClock
from volcano.sim.rand import RandomStreams

_conditions = st.lists(st.fixed_dictionaries({
    "type": st.sampled_from(["PodScheduled", "Ready"]), "status": st.sampled_from(["True", "False", 1]),
    "reason": st.text(max_size=8), "message": st.text(max_size=12),
    "lastTransitionTime": st.sampled_from(["2024-01-01T00:00:00Z", "soon"])}), max_size=2)
_statuses = st.one_of(st.none(), st.just({}), st.fixed_dictionaries(
    {"phase": st.sampled_from(["Pending", "Running", 7]), "conditions": _conditions}), st.just([1]))


def _server() -> ApiServer:
    server = ApiServer(SimClock(), RandomStreams(2))
    for name in ("a", "b"):
        server.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": {"x": "y"}},
                       "spec": {"containers": [{"name": "c", "image": "i"}]}})
    return server


def _outcome(fn: Any, obj: Any) -> Any:
    try:
        return ("ok", json.dumps(fn(obj), default=str))
    except ApiError as exc:
        return ("error", exc.code, exc.reason, exc.message, exc.details)


@st.composite
def requests(draw: st.DrawFn) -> tuple[str, str, str, Any, str]:
    """(verb, pod whose metadata is sent, whose version: now or stale, status, kind sent)."""
    return (draw(st.sampled_from(["update_status", "update_status", "update"])), draw(st.sampled_from(["a", "b"])),
            draw(st.sampled_from(["now", "now", "stale"])), draw(_statuses),
            draw(st.sampled_from(["Pod", "Pod", "Pod", "Node"])))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(requests(), min_size=1, max_size=5))
def test_frozen_metadata_is_a_plain_copy(batch: list[tuple[str, str, str, Any, str]]) -> None:
    fast, full = _server(), _server()
    stale = {name: (fast.get("Pod", name)["metadata"], full.get("Pod", name)["metadata"]) for name in ("a", "b")}
    for verb, name, version, status, kind in batch:
        sent = []
        for i, server in enumerate((fast, full)):
            stored = server.get("Pod", name)
            meta = stored["metadata"] if version == "now" else stale[name][i]
            obj = {"apiVersion": "v1", "kind": kind, "metadata": meta if server is fast else thaw(meta),
                   "spec": thaw(stored["spec"]), "status": status}
            sent.append(_outcome(getattr(server, verb), obj))
        assert sent[0] == sent[1]
    assert fast.snapshot() == full.snapshot() and fast.resource_version == full.resource_version


def test_a_scheduler_shaped_status_write_skips_the_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    server = _server()
    stored = server.get("Pod", "a")

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("check_object_shape ran")

    monkeypatch.setattr(server_module, "check_object_shape", refuse)
    out = server.update_status({"apiVersion": "v1", "kind": "Pod", "metadata": stored["metadata"],
                                "status": {"phase": "Pending", "conditions": [
                                    {"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}]}})
    assert out["status"]["conditions"][0]["reason"] == "Unschedulable"
    assert int(out["metadata"]["resourceVersion"]) > int(stored["metadata"]["resourceVersion"])
