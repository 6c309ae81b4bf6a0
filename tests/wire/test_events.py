"""``AsyncEventRecorder``: client-go's queue, correlator and sending thread, with the recording instant kept."""

from __future__ import annotations

import threading
from typing import Any

from volcano.apiserver.errors import already_exists
from volcano.kube.events import AsyncEventRecorder
from volcano.sim import SimClock

_POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default", "uid": "u1"}}


class FakeClient:
    """Stores created events (thread-safe; a taken name is AlreadyExists); the first create waits for ``gate``."""

    def __init__(self) -> None:
        self.created: list[dict[str, Any]] = []
        self.gate = threading.Event()
        self.patches = 0
        self._lock = threading.Lock()

    def create(self, obj: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        if not self.created:
            self.gate.wait(10)
        with self._lock:
            if any(e["metadata"]["name"] == obj["metadata"]["name"] for e in self.created):
                raise already_exists("events", obj["metadata"]["name"])
            self.created.append(obj)
        return obj

    def patch(self, kind: str, name: str, patch: dict[str, Any], namespace: str, **kwargs: Any) -> dict[str, Any]:
        with self._lock:
            self.patches += 1
            [event] = [e for e in self.created if e["metadata"]["name"] == name]
            event.update(patch)
        return event


def test_events_are_stamped_when_recorded_not_when_sent() -> None:
    clock = SimClock()
    client = FakeClient()
    recorder = AsyncEventRecorder(client, clock, "volcano")  # type: ignore[arg-type]
    clock.run(5_000)
    recorder.event(_POD, "Warning", "First", "held at the gate")  # the sender blocks on it
    clock.run(60_000)
    recorder.event(_POD, "Normal", "Second", "queued behind")
    clock.run(120_000)  # the clock moves on before the sender reaches the second event
    client.gate.set()
    assert recorder.flush()
    assert [(e["reason"], e["firstTimestamp"]) for e in client.created] == [
        ("First", clock.timestamp(5_000)), ("Second", clock.timestamp(60_000))]
    assert client.created[0]["source"]["component"] == "volcano"
    recorder.event(_POD, "Normal", "Second", "queued behind")  # a repeat patches the count
    assert recorder.flush() and client.patches == 1
    recorder.close()


def test_the_correlator_aggregates_then_keeps_25_per_object_then_one_per_five_minutes() -> None:
    """client-go's order on the sending thread: 9 distinct messages are Events of their own, the
    10th starts the aggregate Event, later ones patch it; the spam filter passes 25 events per
    object, then one per 5 minutes, and the filtered ones still count in the aggregate."""
    clock = SimClock()
    client = FakeClient()
    client.gate.set()
    recorder = AsyncEventRecorder(client, clock, "volcano")  # type: ignore[arg-type]
    for i in range(40):
        recorder.event(_POD, "Warning", "FailedScheduling", f"attempt {i}")
    other = {**_POD, "metadata": {**_POD["metadata"], "name": "q", "uid": "u2"}}
    recorder.event(other, "Normal", "Scheduled", "ok")  # another object has its own bucket
    clock.run(300_000)
    recorder.event(_POD, "Warning", "FailedScheduling", "after five minutes")
    assert recorder.flush()
    assert (recorder.sent, recorder.filtered) == (27, 15)
    assert [e["message"] for e in client.created[:9]] == [f"attempt {i}" for i in range(9)]
    aggregate = client.created[9]
    assert aggregate["message"] == "(combined from similar events): after five minutes"
    assert aggregate["count"] == 32 and aggregate["reportingComponent"] == ""  # 1 + 30 (15 filtered) + 1
    assert [e["message"] for e in client.created[10:]] == ["ok"] and client.patches == 16
    recorder.close()


def test_a_full_queue_drops_instead_of_blocking() -> None:
    clock = SimClock()
    recorder = AsyncEventRecorder(FakeClient(), clock, "volcano", queue_size=1)  # type: ignore[arg-type]
    recorder.close()  # no sender any more: the queue fills
    recorder.event(_POD, "Normal", "A", "1")
    recorder.event(_POD, "Normal", "B", "2")
    assert recorder.dropped == 1
