"""The event path's caches (the recorder's spam key strings per involved identity, the
correlator's key strings per event identity) change nothing but speed:
over random sequences of events on frozen objects (several versions of one object, as writes make
them) and plain ones, with repeats that count, messages that aggregate and bursts the spam filter
drops, a recorder with the caches (and with caches small enough to be emptied on the way) stores
the same Events, the same watch history, the same filtered count and the same correlator caches as
one whose caches are emptied before every event."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.apiserver.test_event_observe_path import _state
from volcano.api.frozen import freeze
from volcano.apiserver import ApiServer, EventRecorder, events
from volcano.apiserver.client import Obj
from volcano.sim import SimClock
from volcano.sim.rand import RandomStreams


class _Uncached(EventRecorder):
    """The recorder with both caches emptied before every event (every key worked out anew)."""

    def event(self, obj: Obj, type: str, reason: str, message: str) -> None:
        self._spam_keys.clear()
        self.correlator._keys.clear()
        super().event(obj, type, reason, message)


def _pod(name: str, uid: str, rv: str) -> Obj:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default", "uid": uid,
                                                            "resourceVersion": rv}}


_OBJECTS: list[Any] = [
    freeze(_pod("p1", "u1", "5")),
    freeze(_pod("p1", "u1", "6")),  # a later version of the same pod
    freeze(_pod("p1", "u9", "8")),  # a new pod of the same name
    freeze(_pod("p2", "u2", "3")),
    _pod("p2", "u2", "4"),  # a plain (not frozen) object
    freeze({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "uid": "u3", "resourceVersion": "7"}}),
    freeze({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
            "metadata": {"name": "pg", "namespace": "default", "uid": "u4", "resourceVersion": "2"}}),
]
_STEP = st.tuples(st.integers(0, len(_OBJECTS) - 1), st.sampled_from(["Normal", "Warning"]),
                  st.sampled_from(["FailedScheduling", "Unschedulable"]),
                  st.sampled_from([f"0/{i} nodes" for i in range(12)]), st.sampled_from([0, 0, 1, 1000, 400_000]))


def _record(cls: type[EventRecorder], steps: list[tuple[int, str, str, str, int]]) -> tuple[Any, EventRecorder]:
    clock = SimClock()
    server = ApiServer(clock, RandomStreams(1))
    rec = cls(server, clock, "volcano")
    for which, etype, reason, message, advance in steps:
        clock.run(until_ms=clock.now_ms + advance)
        rec.event(_OBJECTS[which], etype, reason, message)
    return _state(server, rec), rec


@settings(max_examples=80, deadline=None)
@given(st.lists(_STEP, max_size=80), st.sampled_from([3, 4096]))
def test_the_cached_recorder_records_what_the_uncached_one_records(
        steps: list[tuple[int, str, str, str, int]], size: int) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(events, "_KEY_CACHE", size)
        cached, rec = _record(EventRecorder, steps)
        assert len(rec.correlator._keys) <= size and len(rec._spam_keys) <= size
    assert cached == _record(_Uncached, steps)[0]


def test_the_caches_are_used() -> None:
    """Not vacuous: repeated events find their keys cached, one per involved identity."""
    steps = [(i % len(_OBJECTS), "Warning", "FailedScheduling", "0/3 nodes", 0) for i in range(3 * len(_OBJECTS))]
    _, rec = _record(EventRecorder, steps)
    assert len(rec.correlator._keys) == len({obj["metadata"]["uid"] for obj in _OBJECTS})  # one key per object identity
    assert len(rec._spam_keys) == len({obj["metadata"]["uid"] for obj in _OBJECTS[:4]} | {"u3", "u4"})
