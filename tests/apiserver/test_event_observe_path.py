"""``EventRecorder.event`` computes the correlator's spam key itself and builds the involved
object only for an event the spam filter lets through (``EventCorrelator.observe``); this test
compares it with the reference path (build the involved ObjectReference first, then
``EventCorrelator.correlate`` on it) over random sequences of events on random objects (namespaced
and cluster-scoped, with and without uid), messages that aggregate, repeats that count and bursts
the spam filter drops: the same Events stored, the same watch history, the same filtered count
and the same correlator caches, entry by entry in LRU order."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from volcano.apiserver import ApiServer, EventRecorder
from volcano.apiserver.client import Obj
from volcano.sim import SimClock
from volcano.sim.rand import RandomStreams


class _Reference(EventRecorder):
    """The recorder's ``event`` as it was before the spam key was computed without the involved object."""

    def event(self, obj: Obj, type: str, reason: str, message: str) -> None:
        meta = obj.get("metadata") or {}
        name = meta.get("name")
        involved: dict[str, Any] = {"kind": obj.get("kind", ""), "name": name}
        if meta.get("namespace"):
            involved["namespace"] = meta["namespace"]
        involved["uid"] = meta.get("uid", "")
        involved["apiVersion"] = obj.get("apiVersion", "")
        involved["resourceVersion"] = meta.get("resourceVersion", "")
        namespace = meta.get("namespace") or "default"
        now, now_ns = self._clock.timestamp(), self._clock.unix_ns()
        seen = self.correlator.correlate(self.component, involved, type, reason, message, self.component, now_ns, now)
        if seen is None:
            self.filtered += 1
            return
        stored = self._write(seen, involved, namespace, type, reason, now, now_ns)
        if stored is not None:
            self.correlator.update_state(seen, stored)


_OBJECTS = [
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p1", "namespace": "default", "uid": "u1",
                                                      "resourceVersion": "5"}},
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p2", "namespace": "default", "uid": "u2"}},
    {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "uid": "u3", "resourceVersion": "7"}},
    {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup", "metadata": {"name": "pg", "namespace": ""}},
    {"kind": "Queue", "metadata": {"name": "q"}},
]
_STEP = st.tuples(st.integers(0, len(_OBJECTS) - 1), st.sampled_from(["Normal", "Warning"]),
                  st.sampled_from(["FailedScheduling", "Unschedulable"]),
                  st.sampled_from([f"0/{i} nodes" for i in range(12)]), st.sampled_from([0, 0, 1, 1000, 400_000]))


def _state(server: ApiServer, rec: EventRecorder) -> Any:
    corr = rec.correlator
    caches = [list(c._entries.items()) for c in (corr._aggregates, corr._logs)]
    spam = [(k, b.tokens, b.last_ns) for k, b in corr._spam._entries.items()]
    history = [(t, json.dumps(o)) for t, o, *_ in server._hub.log("Event").events]
    return rec.filtered, json.dumps(caches, default=str), spam, history


@settings(max_examples=60, deadline=None)
@given(st.lists(_STEP, max_size=80))
def test_the_recorder_records_what_the_reference_path_records(steps: list[tuple[int, str, str, str, int]]) -> None:
    states = []
    for cls in (EventRecorder, _Reference):
        clock = SimClock()
        server = ApiServer(clock, RandomStreams(1))
        rec = cls(server, clock, "volcano")
        for which, etype, reason, message, advance in steps:
            clock.run(until_ms=clock.now_ms + advance)
            rec.event(_OBJECTS[which], etype, reason, message)
        states.append(_state(server, rec))
    assert states[0] == states[1]
