"""A repeat the recorder recreates (its Event was not found: the first occurrence was dropped by
the spam filter, or the Event is gone) has the recorder's shape with a ``count`` above 1 and an
earlier ``firstTimestamp``: ``ApiServer.create_event`` takes it without the general create's
decoding, and stores the same objects and raises the same errors as ``create``."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.apiserver.test_event_fast_path import _NOW, _outcome, events
from volcano.apiserver import ApiServer, EventRecorder
from volcano.apiserver.events import is_recorded_event
from volcano.sim import SimClock
from volcano.sim.rand import RandomStreams

_FIRST = st.sampled_from([_NOW, "2023-12-31T23:59:00Z", "2023-12-31T23:59:00+00:00", "2024-01-01T00:00:01Z",
                          "yesterday", "", 5, None])
_COUNT = st.sampled_from([1, 2, 7, 2**31 - 1, 2**31, 0, -3, 2.0, True])


@st.composite
def repeats(draw: st.DrawFn) -> dict[str, Any]:
    event = draw(events())
    event["count"], event["firstTimestamp"] = draw(_COUNT), draw(_FIRST)
    return event


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(repeats(), min_size=1, max_size=5))
def test_a_recreated_repeat_is_created_as_create_creates_it(batch: list[dict[str, Any]]) -> None:
    fast, full = ApiServer(SimClock(), RandomStreams(3)), ApiServer(SimClock(), RandomStreams(3))
    for event in batch:
        assert _outcome(fast.create_event, copy.deepcopy(event)) == _outcome(full.create, copy.deepcopy(event))
    assert fast.snapshot() == full.snapshot()
    assert fast.resource_version == full.resource_version


def test_the_recorder_shape_admits_a_repeat_but_not_a_bad_count_or_time() -> None:
    event = {"apiVersion": "v1", "kind": "Event", "metadata": {"namespace": "default", "name": "p.1"},
             "involvedObject": {"kind": "Pod", "name": "p"}, "reason": "r", "message": "m",
             "source": {"component": "volcano"}, "firstTimestamp": "2023-12-31T23:00:00Z", "lastTimestamp": _NOW,
             "count": 3, "type": "Normal", "eventTime": None, "reportingComponent": "volcano",
             "reportingInstance": ""}
    assert is_recorded_event(event, _NOW)
    assert not is_recorded_event({**event, "count": 2**31}, _NOW)
    assert not is_recorded_event({**event, "count": True}, _NOW)
    assert not is_recorded_event({**event, "firstTimestamp": "yesterday"}, _NOW)
    assert not is_recorded_event({**event, "lastTimestamp": "2023-12-31T23:00:00Z"}, _NOW)


def test_a_repeat_whose_first_occurrence_was_dropped_takes_the_fast_create() -> None:
    clock = SimClock()
    server = ApiServer(clock, RandomStreams(0))
    pod = server.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                         "spec": {"containers": [{"name": "c", "image": "i"}]}})
    recorder = EventRecorder(server, clock, "volcano")
    for i in range(30):  # the spam filter's burst is 25: the rest are dropped, but counted
        recorder.event(pod, "Normal", "Scheduled", f"m{i % 2}")
    assert recorder.filtered > 0
    server.delete("Event", server.list("Event")["items"][0]["metadata"]["name"], "default")

    def refuse(obj: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"the full create path ran for {obj!r}")

    server.create = refuse  # type: ignore[method-assign]
    clock.run(until_ms=clock.now_ms + 600_000)  # tokens come back
    recorder.event(pod, "Normal", "Scheduled", "m0")
    counts = sorted(e["count"] for e in server.list("Event")["items"])
    assert counts[-1] > 1
