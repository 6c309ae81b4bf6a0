"""The scheduler's batched event emission and inlined gauge report do what the one-by-one
reference paths do.

* ``Scheduler._emit`` records, for random batches of events on PodGroups and pods (some no
  longer in the informers' caches), the same recorder calls in the same order as calling
  ``_event`` on each event's informer object; without a recorder it records nothing.
* A recorder that records a batch (``events``) is handed the same items, each object read from
  its informer when the recorder comes to it (the reads and records interleave as one by one).
* ``_WatchedMetrics.set_unschedulable_tasks`` forwards the same reports and sets the same flags
  and gauges as going through ``_gauge``, over random report sequences.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from volcano.scheduler.framework.status import Event
from volcano.scheduler.scheduler import Scheduler, _WatchedMetrics


class _Informer:
    def __init__(self, objects: dict[tuple[str, str], Any]) -> None:
        self.objects = objects

    def get(self, name: str, namespace: str | None = None) -> Any:
        return self.objects.get((namespace or "default", name))


class _Informers:
    def __init__(self, kinds: dict[str, _Informer]) -> None:
        self.kinds = kinds

    def informer(self, kind: str) -> _Informer:
        return self.kinds[kind]


class _Cache:
    def __init__(self, informers: _Informers) -> None:
        self.informers = informers


class _Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def event(self, obj: Any, etype: str, reason: str, message: str) -> None:
        self.calls.append((id(obj), etype, reason, message))


def _scheduler(recorder: _Recorder | None) -> Scheduler:
    objects = {kind: {(ns, name): {"kind": kind, "metadata": {"name": name, "namespace": ns}}
                      for ns in ("default", "b") for name in ("a", "c")} for kind in ("PodGroup", "Pod")}
    sched = Scheduler.__new__(Scheduler)
    sched.recorder = recorder
    sched.cache = _Cache(_Informers({kind: _Informer(objs) for kind, objs in objects.items()}))  # type: ignore[assignment]
    return sched


_EVENT = st.builds(Event, st.sampled_from(["PodGroup", "Pod"]), st.sampled_from(["default", "b", "gone"]),
                   st.sampled_from(["a", "c", "x"]), st.sampled_from(["Normal", "Warning"]),
                   st.sampled_from(["Unschedulable", "FailedScheduling"]), st.sampled_from(["m1", "m2"]))


@settings(max_examples=100, deadline=None)
@given(st.lists(_EVENT, max_size=30))
def test_emit_records_what_event_by_event_records(events: list[Event]) -> None:
    fast, slow = _Recorder(), _Recorder()
    sched = _scheduler(fast)
    sched._emit(events)
    reference = _scheduler(slow)
    reference.cache = sched.cache  # the very same informer objects
    for ev in events:
        obj = reference.cache.informers.informer(ev.kind).get(ev.name, ev.namespace)
        reference._event(obj, ev.type, ev.reason, ev.message)
    assert fast.calls == slow.calls
    assert len(fast.calls) == sum(1 for ev in events if ev.namespace != "gone" and ev.name != "x")
    _scheduler(None)._emit(events)  # nothing to record to: nothing happens


class _Sink:
    def __init__(self) -> None:
        self.calls: list[tuple[str, int]] = []

    def set_unschedulable_tasks(self, job: str, n: int) -> None:
        self.calls.append((job, n))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["j1", "j2"]), st.integers(0, 2)), max_size=20),
       st.dictionaries(st.tuples(st.just("tasks"), st.sampled_from(["j1", "j2"])), st.integers(0, 2)))
def test_the_inlined_gauge_report_is_the_gauge_path(reports: list[tuple[str, int]],
                                                    start: dict[tuple[str, ...], int]) -> None:
    fast = _WatchedMetrics(_Sink(), dict(start))  # type: ignore[arg-type]
    slow = _WatchedMetrics(_Sink(), dict(start))  # type: ignore[arg-type]
    for job, n in reports:
        fast.set_unschedulable_tasks(job, n)
        if slow._gauge(("tasks", job), n):
            slow.sink.set_unschedulable_tasks(job, n)
    assert fast.sink.calls == slow.sink.calls  # type: ignore[attr-defined]
    assert (fast.gauges, fast.changed, fast.gauge_changed) == (slow.gauges, slow.changed, slow.gauge_changed)


class _BatchRecorder:
    """Records what it is handed, as a batch (``events``) and one by one (``event``)."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def event(self, obj: Any, etype: str, reason: str, message: str) -> None:
        self.calls.append((id(obj), etype, reason, message))

    def events(self, items: Any) -> None:
        for obj, etype, reason, message in items:
            self.event(obj, etype, reason, message)


@settings(max_examples=60, deadline=None)
@given(st.lists(_EVENT, max_size=30))
def test_emit_hands_a_batch_recorder_the_items_event_by_event_records(events: list[Event]) -> None:
    logs: list[list[tuple[Any, ...]]] = []
    cache = _scheduler(None).cache

    def logged(get: Any) -> Any:
        def read(name: str, namespace: str | None = None) -> Any:
            logs[-1].append(("get", name, namespace))
            return get(name, namespace)
        return read

    for informer in cache.informers.kinds.values():  # type: ignore[attr-defined]
        informer.get = logged(informer.get)
    for recorder in (_BatchRecorder(), _Recorder()):
        sched = _scheduler(recorder)  # type: ignore[arg-type]
        sched.cache = cache  # the very same informer objects
        logs.append(recorder.calls)
        sched._emit(events)
    assert logs[0] == logs[1]  # the same informer reads and records, interleaved alike
    assert sum(1 for call in logs[0] if call[0] != "get") == \
        sum(1 for ev in events if ev.namespace != "gone" and ev.name != "x")
