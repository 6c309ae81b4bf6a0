"""The recorder's Events share one frozen ``source``: the server stores the same Events (names,
uids, resourceVersions, errors) whether ``source`` is that frozen object or a plain dict, by the
fast path or the full create, and keeps the frozen one itself rather than a copy per Event."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from volcano.api.frozen import FrozenDict
from volcano.apiserver import ApiServer, EventRecorder
from volcano.apiserver.errors import ApiError
from volcano.sim import SimClock
from volcano.sim.rand import RandomStreams

_NOW = "2024-01-01T00:00:00Z"


def _event(name: str, reason: str, message: str, namespace: str, source: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Event", "metadata": {"namespace": namespace, "name": f"{name}.1"},
            "involvedObject": {"kind": "Pod", "name": name, "namespace": "default", "uid": "u", "apiVersion": "v1",
                               "resourceVersion": "7"},
            "reason": reason, "message": message, "source": source, "firstTimestamp": _NOW, "lastTimestamp": _NOW,
            "count": 1, "type": "Normal", "eventTime": None, "reportingComponent": "volcano",
            "reportingInstance": ""}


def _outcome(fn: Any, event: dict[str, Any]) -> Any:
    try:
        return ("ok", fn(event))
    except ApiError as exc:
        return ("error", exc.code, exc.reason, exc.message, exc.details)


_names = st.one_of(st.sampled_from(["p", "a.b", "x" * 252, "Bad_Name", "-p"]),
                   st.from_regex(r"[a-z0-9][a-z0-9.-]{0,12}[a-z0-9]", fullmatch=True))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(_names, st.text(max_size=12), st.text(max_size=12),
                          st.sampled_from(["default", "default", "missing"]), st.booleans()), min_size=1, max_size=5))
def test_frozen_source_stores_what_a_plain_one_does(batch: list[tuple[str, str, str, str, bool]]) -> None:
    shared = FrozenDict({"component": "volcano"})
    fast, full, plain = (ApiServer(SimClock(), RandomStreams(3)) for _ in range(3))
    for name, reason, message, namespace, by_fast_path in batch:
        create = fast.create_event if by_fast_path else fast.create
        got = _outcome(create, _event(name, reason, message, namespace, shared))
        assert got == _outcome(full.create, _event(name, reason, message, namespace, shared))
        assert got == _outcome(plain.create_event, _event(name, reason, message, namespace, {"component": "volcano"}))
        if got[0] == "ok":
            assert got[1]["source"] is shared
    assert fast.snapshot() == full.snapshot() == plain.snapshot()
    assert fast.resource_version == full.resource_version == plain.resource_version


def test_a_recorders_events_share_its_source() -> None:
    clock = SimClock()
    server = ApiServer(clock, RandomStreams(0))
    pods = [server.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i}"},
                           "spec": {"containers": [{"name": "c", "image": "i"}]}}) for i in range(3)]
    recorder = EventRecorder(server, clock, "volcano")
    for pod in pods:
        recorder.event(pod, "Normal", "Scheduled", f"assigned {pod['metadata']['name']}")
    stored = server.list("Event")["items"]
    assert len(stored) == 3
    assert all(e["source"] == {"component": "volcano"} and e["source"] is stored[0]["source"] for e in stored)
