"""``EventRecorder.events`` (a batch recorded at one instant, with the correlator's keys looked up
once per identity, type and reason) records what ``event`` called on each item in turn records:
over random batches of events on random objects (namespaced and cluster-scoped, with and without
uid, new versions of one object), messages that aggregate, repeats that count and bursts the spam
filter drops, with the clock moved between batches, the same Events are stored, the same watch
history is sent, the same events are filtered and the correlator's caches hold the same entries in
the same LRU order. A batch with an item ``event`` rejects raises the same error after recording
the same items before it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from volcano.apiserver import ApiServer, EventRecorder
from volcano.apiserver.client import Obj
from volcano.sim import SimClock
from volcano.sim.rand import RandomStreams

_OBJECTS: list[Obj] = [
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p1", "namespace": "default", "uid": "u1",
                                                      "resourceVersion": "5"}},
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p1", "namespace": "default", "uid": "u1",
                                                      "resourceVersion": "9"}},
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p2", "namespace": "default", "uid": "u2"}},
    {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "uid": "u3", "resourceVersion": "7"}},
    {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup", "metadata": {"name": "pg", "namespace": ""}},
    {"kind": "Queue", "metadata": {"name": "q"}},
]
_ITEM = st.tuples(st.integers(0, len(_OBJECTS) - 1), st.sampled_from(["Normal", "Warning"]),
                  st.sampled_from(["FailedScheduling", "Unschedulable"]),
                  st.sampled_from([f"0/{i} nodes" for i in range(12)]))
_BATCH = st.tuples(st.sampled_from([0, 0, 1, 1000, 400_000]), st.lists(_ITEM, max_size=30))


def _state(server: ApiServer, rec: EventRecorder) -> Any:
    corr = rec.correlator
    caches = [list(c._entries.items()) for c in (corr._aggregates, corr._logs)]
    spam = [(k, b.tokens, b.last_ns, b.shut_until) for k, b in corr._spam._entries.items()]
    history = [(t, json.dumps(o)) for t, o, *_ in server._hub.log("Event").events]
    return rec.filtered, json.dumps(caches, default=str), spam, history


def _run(batches: list[tuple[int, list[tuple[int, str, str, str]]]], batched: bool, lru: int) -> Any:
    clock = SimClock()
    server = ApiServer(clock, RandomStreams(1))
    rec = EventRecorder(server, clock, "volcano")
    if lru:
        for cache in (rec.correlator._aggregates, rec.correlator._logs, rec.correlator._spam):
            cache.size = lru
    for advance, items in batches:
        clock.run(until_ms=clock.now_ms + advance)
        objs = [(_OBJECTS[which], etype, reason, message) for which, etype, reason, message in items]
        if batched:
            rec.events(iter(objs))
        else:
            for obj, etype, reason, message in objs:
                rec.event(obj, etype, reason, message)
    return _state(server, rec)


@settings(max_examples=80, deadline=None)
@given(st.lists(_BATCH, max_size=12), st.sampled_from([0, 2, 3]))
def test_a_batch_records_what_the_events_one_by_one_record(
        batches: list[tuple[int, list[tuple[int, str, str, str]]]], lru: int) -> None:
    assert _run(batches, True, lru) == _run(batches, False, lru)


def test_a_rejected_item_raises_after_the_items_before_it() -> None:
    states = []
    for batched in (True, False):
        clock = SimClock()
        server = ApiServer(clock, RandomStreams(1))
        rec = EventRecorder(server, clock, "volcano")
        items = [(_OBJECTS[0], "Warning", "FailedScheduling", "a"), (_OBJECTS[2], "Normal", "Scheduled", "b"),
                 (_OBJECTS[3], "Bogus", "X", "c"), (_OBJECTS[4], "Normal", "Scheduled", "d")]
        with pytest.raises(ValueError, match="event type must be one of"):
            if batched:
                rec.events(items)
            else:
                for item in items:
                    rec.event(*item)
        states.append(_state(server, rec))
    assert states[0] == states[1]
    assert len(states[0][3]) == 2  # the two Events before the rejected item, and not the one after it
