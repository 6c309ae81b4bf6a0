"""Tests for volcano.sim.trace: recording, filtering and formatting decisions."""

from __future__ import annotations

from volcano.sim.trace import Trace, TraceRecord


def test_record_and_iterate() -> None:
    trace = Trace()
    trace.record(12345, "scheduler", "Bind", "default/pod-1", "node-3")
    trace.record(20000, "kubelet", "Started", "default/pod-1")
    assert len(trace) == 2
    assert next(iter(trace)) == TraceRecord(12345, "scheduler", "Bind", "default/pod-1", "node-3")
    assert trace.lines() == ["12.345s scheduler Bind default/pod-1 node-3", "20.000s kubelet Started default/pod-1"]


def test_disabled_trace_records_nothing() -> None:
    trace = Trace(enabled=False)
    trace.record(1, "x", "y")
    assert len(trace) == 0 and trace.lines() == []


def test_filters() -> None:
    trace = Trace()
    trace.record(1, "scheduler", "Bind", "ns/a", "n1")
    trace.record(2, "scheduler", "Evict", "ns/b")
    trace.record(3, "controller", "Bind", "ns/a")
    assert [r.time_ms for r in trace.records(component="scheduler")] == [1, 2]
    assert [r.time_ms for r in trace.records(event="Bind")] == [1, 3]
    assert [r.time_ms for r in trace.records(component="scheduler", obj="ns/a")] == [1]
    assert trace.records(event="Missing") == []
    assert len(trace.records()) == 3


def test_equal_runs_give_equal_lines() -> None:
    def run() -> list[str]:
        t = Trace()
        for i in range(5):
            t.record(i * 10, "c", "e", f"o{i}", "d")
        return t.lines()

    assert run() == run()
    assert TraceRecord(0, "c", "e", "", "").format() == "0.000s c e"
