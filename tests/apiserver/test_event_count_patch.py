"""``ApiServer.patch_event_count`` (the recorder's repeat of an Event) is ``patch`` without the no-op
steps: on random stored Events and random patches, of the recorder's shape or not, both paths store
the same objects (same resourceVersions, same key order) or raise the same error; and the recorder
uses the fast path only when its client is the server itself."""

from __future__ import annotations

import contextlib
import copy
import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from volcano.apiserver import ApiServer, EventRecorder
from volcano.apiserver.errors import ApiError
from volcano.informers.retry import RetryingClient
from volcano.sim import SimClock
from volcano.sim.rand import RandomStreams

_NOW = "2024-01-01T00:00:00Z"
_texts = st.one_of(st.text(max_size=20), st.sampled_from(["assigned", "<b>&x", "\u2028", "x" * 3000]))
_odd = st.one_of(st.integers(-2, 2**32), st.none(), st.booleans(), st.floats(allow_nan=False),
                 st.just({}), st.just([1]), st.text(max_size=5))


@st.composite
def stored_events(draw: st.DrawFn, index: int) -> tuple[dict[str, Any], str | None]:
    """An Event to create first (as the recorder builds it, or with extra fields, another count,
    eventTime, labels), and the field manager it is created with (then it has managedFields)."""
    event: dict[str, Any] = {
        "apiVersion": "v1", "kind": "Event",
        "metadata": {"namespace": "default", "name": f"p.{index:x}"},
        "involvedObject": {"kind": "Pod", "name": "p", "namespace": "default", "uid": "u", "apiVersion": "v1"},
        "reason": draw(_texts), "message": draw(_texts), "source": {"component": "volcano"},
        "firstTimestamp": _NOW, "lastTimestamp": _NOW, "count": draw(st.sampled_from([1, 1, 5, 2**31 - 1])),
        "type": draw(st.sampled_from(["Normal", "Warning"])), "eventTime": None,
        "reportingComponent": draw(st.sampled_from(["volcano", ""])), "reportingInstance": "",
    }
    extra = draw(st.sampled_from(["none", "none", "labels", "series", "drop-message", "drop-count", "finalizer"]))
    if extra == "labels":
        event["metadata"]["labels"] = {"a": "b"}
    elif extra == "series":
        event["series"] = {"count": 2, "lastObservedTime": "2024-01-01T00:00:00.000000Z"}
    elif extra == "drop-message":
        event.pop("message")
    elif extra == "drop-count":
        event.pop("count")
    elif extra == "finalizer":
        event["metadata"]["finalizers"] = ["example.com/keep"]
    return event, draw(st.sampled_from([None, None, None, "kubectl"]))


@st.composite
def patches(draw: st.DrawFn) -> Any:
    """A count patch as the recorder sends it, perturbed now and then."""
    patch: dict[str, Any] = {"count": draw(st.sampled_from([2, 3, 2**31 - 1])), "lastTimestamp": _NOW,
                             "message": draw(_texts)}
    perturb = draw(st.sampled_from(["none"] * 6 + ["value", "drop", "extra", "time", "not-a-dict"]))
    if perturb == "value":
        patch[draw(st.sampled_from(sorted(patch)))] = draw(_odd)
    elif perturb == "drop":
        patch.pop(draw(st.sampled_from(sorted(patch))))
    elif perturb == "extra":
        patch[draw(st.sampled_from(["reason", "metadata", "type", "source"]))] = draw(
            st.one_of(_odd, st.just({"name": "other"}), st.just({"component": "x"})))
    elif perturb == "time":
        patch["lastTimestamp"] = draw(st.sampled_from(["2024-01-01T00:00:01Z", "yesterday", None]))
    elif perturb == "not-a-dict":
        return draw(st.sampled_from([None, [], "x"]))
    return patch


def _outcome(fn: Any, *args: Any) -> Any:
    try:
        out = fn(*args)
        return ("ok", json.dumps(out, sort_keys=False, default=str))
    except ApiError as exc:
        return ("error", exc.code, exc.reason, exc.message, exc.details)


def _server() -> ApiServer:
    return ApiServer(SimClock(), RandomStreams(5))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_patch_event_count_is_patch(data: st.DataObject) -> None:
    fast, full = _server(), _server()
    n = data.draw(st.integers(1, 3))
    for i in range(n):
        event, manager = data.draw(stored_events(i))
        for server in (fast, full):
            with contextlib.suppress(ApiError):
                server.create(copy.deepcopy(event), field_manager=manager)
    for _ in range(data.draw(st.integers(1, 4))):
        name = data.draw(st.sampled_from([f"p.{i:x}" for i in range(n)] + ["missing"]))
        namespace = data.draw(st.sampled_from(["default", "default", "kube-system", "nope"]))
        patch = data.draw(patches())
        assert _outcome(fast.patch_event_count, namespace, name, copy.deepcopy(patch)) == \
            _outcome(full.patch, "Event", name, copy.deepcopy(patch), namespace)
    assert fast.snapshot() == full.snapshot()
    assert json.dumps(fast.snapshot(), default=str) == json.dumps(full.snapshot(), default=str)
    assert fast.resource_version == full.resource_version


def test_recorder_repeat_takes_the_fast_path() -> None:
    clock = SimClock()
    server = ApiServer(clock, RandomStreams(0))
    pod = server.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                         "spec": {"containers": [{"name": "c", "image": "i"}]}})
    recorder = EventRecorder(server, clock, "volcano")
    recorder.event(pod, "Normal", "Scheduled", "assigned")

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"the full patch path ran for {args!r}")

    server.patch = refuse  # type: ignore[method-assign]
    clock.run(until_ms=3_000)
    recorder.event(pod, "Normal", "Scheduled", "assigned")
    [stored] = server.list("Event")["items"]
    assert (stored["count"], stored["lastTimestamp"]) == (2, "2024-01-01T00:00:03Z")


def test_wrapped_client_keeps_its_own_patch() -> None:
    clock = SimClock()
    server = ApiServer(clock, RandomStreams(0))
    calls: list[str] = []

    class Counting(RetryingClient):
        def patch(self, kind: str, name: str, patch: Any, namespace: str | None = None, **kw: Any) -> Any:
            calls.append(kind)
            return super().patch(kind, name, patch, namespace, **kw)

    pod = server.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                         "spec": {"containers": [{"name": "c", "image": "i"}]}})
    recorder = EventRecorder(Counting(server), clock, "volcano")
    recorder.event(pod, "Normal", "Scheduled", "assigned")
    recorder.event(pod, "Normal", "Scheduled", "assigned")
    assert calls == ["Event"]
    [stored] = server.list("Event")["items"]
    assert stored["count"] == 2
