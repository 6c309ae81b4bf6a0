"""``ApiServer.create_event`` (the recorder's Event write) is ``create`` without the no-op steps:
on random Events, of the recorder's shape or not, both paths store the same objects (same names,
uids, resourceVersions) or raise the same error, and the recorder uses the fast path only when its
client is the server itself."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from volcano.apiserver import ApiServer, EventRecorder
from volcano.apiserver.errors import ApiError
from volcano.informers.retry import RetryingClient
from volcano.sim import SimClock
from volcano.sim.rand import RandomStreams

_NOW = "2024-01-01T00:00:00Z"

_names = st.one_of(
    st.sampled_from(["p", "pod-1", "a.b", "x" * 250, "Bad_Name", "", "-p", "p."]),
    st.from_regex(r"[a-z0-9][a-z0-9.-]{0,20}[a-z0-9]", fullmatch=True),
)
_texts = st.one_of(st.text(max_size=30), st.sampled_from(["Scheduled", "<b>&x", "\u2028", "x" * 5000]))
_odd = st.one_of(st.integers(), st.none(), st.booleans(), st.lists(st.integers(), max_size=2),
                 st.floats(allow_nan=False))


@st.composite
def events(draw: st.DrawFn) -> dict[str, Any]:
    """An Event as the recorder builds it, perturbed now and then (a field of another type, a
    missing or extra key, another namespace or time), so that both paths' refusals are compared."""
    name = draw(_names)
    involved: dict[str, Any] = {"kind": "Pod", "name": name, "namespace": "default", "uid": draw(_texts),
                                "apiVersion": "v1", "resourceVersion": "7"}
    event: dict[str, Any] = {
        "apiVersion": "v1", "kind": "Event",
        "metadata": {"namespace": draw(st.sampled_from(["default", "default", "missing", "kube-system"])),
                     "name": f"{name}.{draw(st.integers(0, 3)):x}"},
        "involvedObject": involved, "reason": draw(_texts), "message": draw(_texts),
        "source": {"component": draw(st.sampled_from(["volcano", "kubelet"]))},
        "firstTimestamp": _NOW, "lastTimestamp": _NOW, "count": 1, "type": draw(st.sampled_from(["Normal", "x"])),
        "eventTime": None, "reportingComponent": "volcano", "reportingInstance": "",
    }
    perturb = draw(st.sampled_from(["none"] * 6 + ["value", "drop", "extra", "time", "count", "meta"]))
    if perturb == "value":
        path = draw(st.sampled_from([("reason",), ("message",), ("involvedObject", "uid"), ("source", "component"),
                                     ("eventTime",), ("metadata", "name"), ("type",)]))
        target = event
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = draw(_odd)
    elif perturb == "drop":
        event.pop(draw(st.sampled_from(sorted(event))))
    elif perturb == "extra":
        event[draw(st.sampled_from(["series", "action", "related"]))] = draw(st.one_of(_odd, st.just({})))
    elif perturb == "time":
        event[draw(st.sampled_from(["firstTimestamp", "lastTimestamp"]))] = draw(
            st.sampled_from(["2024-01-01T00:00:01Z", "yesterday", "2024-01-01T00:00:00+00:00"]))
    elif perturb == "count":
        event["count"] = draw(st.sampled_from([0, 2, 2**31, -1, 1.0, True]))
    elif perturb == "meta":
        event["metadata"][draw(st.sampled_from(["labels", "uid", "generateName"]))] = draw(
            st.one_of(_odd, st.just({"a": "b"})))
    return event


def _outcome(fn: Any, event: dict[str, Any]) -> Any:
    try:
        return ("ok", fn(event))
    except ApiError as exc:
        return ("error", exc.code, exc.reason, exc.message, exc.details)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(events(), min_size=1, max_size=6))
def test_create_event_is_create(batch: list[dict[str, Any]]) -> None:
    fast, full = ApiServer(SimClock(), RandomStreams(3)), ApiServer(SimClock(), RandomStreams(3))
    for event in batch:
        assert _outcome(fast.create_event, copy.deepcopy(event)) == _outcome(full.create, copy.deepcopy(event))
    assert fast.snapshot() == full.snapshot()
    assert fast.resource_version == full.resource_version


def test_recorder_shape_takes_the_fast_path() -> None:
    clock = SimClock()
    server = ApiServer(clock, RandomStreams(0))
    pod = server.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                         "spec": {"containers": [{"name": "c", "image": "i"}]}})

    def refuse(obj: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"the full create path ran for {obj!r}")

    server.create = refuse  # type: ignore[method-assign]
    EventRecorder(server, clock, "volcano").event(pod, "Normal", "Scheduled", "assigned")
    [stored] = server.list("Event")["items"]
    assert (stored["reason"], stored["involvedObject"]["name"], stored["metadata"]["uid"] != "") == (
        "Scheduled", "p", True)


def test_wrapped_client_keeps_its_own_create() -> None:
    clock = SimClock()
    server = ApiServer(clock, RandomStreams(0))
    calls: list[str] = []

    class Counting(RetryingClient):
        def create(self, obj: Any, *, namespace: str | None = None) -> Any:
            calls.append(obj["kind"])
            return super().create(obj, namespace=namespace)

    pod = server.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                         "spec": {"containers": [{"name": "c", "image": "i"}]}})
    EventRecorder(Counting(server), clock, "volcano").event(pod, "Normal", "Scheduled", "assigned")
    assert calls == ["Event"]
    assert len(server.list("Event")["items"]) == 1
