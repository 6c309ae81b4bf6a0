"""Tests for volcano.sim.clock: ordering, repetition, cancellation and bounded runs."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from volcano.sim.clock import SIM_EPOCH, Priority, SimClock


def test_starts_at_given_time() -> None:
    assert SimClock().now_ms == 0
    clock = SimClock(start_ms=1500)
    assert clock.now_ms == 1500 and clock.now == 1.5


def test_order_is_time_then_priority_then_sequence() -> None:
    clock = SimClock()
    seen: list[str] = []
    clock.call_at(10, seen.append, "t10-default")
    clock.call_at(5, seen.append, "t5-scheduler", priority=Priority.SCHEDULER)
    clock.call_at(5, seen.append, "t5-watch", priority=Priority.WATCH)
    clock.call_at(5, seen.append, "t5-controller-a", priority=Priority.CONTROLLER)
    clock.call_at(5, seen.append, "t5-controller-b", priority=Priority.CONTROLLER)
    clock.call_at(1, seen.append, "t1-user", priority=Priority.USER)
    clock.run()
    assert seen == ["t1-user", "t5-watch", "t5-controller-a", "t5-controller-b", "t5-scheduler", "t10-default"]
    assert clock.now_ms == 10


def test_priority_order_constants() -> None:
    assert Priority.WATCH < Priority.KUBELET < Priority.CONTROLLER < Priority.SCHEDULER < Priority.DEFAULT \
        < Priority.USER


@given(st.lists(st.tuples(st.integers(0, 50), st.sampled_from(list(Priority))), max_size=40))
def test_execution_order_is_sorted_by_time_priority_sequence(items: list[tuple[int, Priority]]) -> None:
    clock = SimClock()
    seen: list[tuple[int, int, int]] = []
    for seq, (when, prio) in enumerate(items):
        clock.call_at(when, lambda w=when, p=prio, s=seq: seen.append((w, int(p), s)), priority=prio)
    clock.run()
    assert seen == sorted(seen)
    assert len(seen) == len(items)


def test_callback_scheduling_at_current_time_runs_same_millisecond() -> None:
    clock = SimClock()
    seen: list[tuple[str, int]] = []

    def first() -> None:
        seen.append(("first", clock.now_ms))
        clock.call_later(0, lambda: seen.append(("nested", clock.now_ms)))

    clock.call_at(7, first)
    clock.call_at(7, lambda: seen.append(("second", clock.now_ms)))
    clock.run()
    assert seen == [("first", 7), ("second", 7), ("nested", 7)]


def test_call_at_in_the_past_is_clamped_to_now() -> None:
    clock = SimClock()
    clock.run(until_ms=100)
    seen: list[int] = []
    clock.call_at(20, lambda: seen.append(clock.now_ms))
    clock.call_later(-5, lambda: seen.append(clock.now_ms))
    clock.run()
    assert seen == [100, 100]


def test_call_every_repeats_and_first_ms() -> None:
    clock = SimClock()
    ticks: list[int] = []
    clock.call_every(100, lambda: ticks.append(clock.now_ms))
    clock.run(until_ms=350)
    assert ticks == [100, 200, 300]
    other: list[int] = []
    clock.call_every(50, lambda: other.append(clock.now_ms), first_ms=350)
    clock.run(until_ms=460)
    assert other == [350, 400, 450]
    assert ticks == [100, 200, 300, 400]


@pytest.mark.parametrize("period", [0, -5])
def test_call_every_rejects_non_positive_period(period: int) -> None:
    with pytest.raises(ValueError, match=str(period)):
        SimClock().call_every(period, lambda: None)


def test_cancel_before_run_and_from_inside_repeating_callback() -> None:
    clock = SimClock()
    seen: list[str] = []
    handle = clock.call_later(10, seen.append, "cancelled")
    handle.cancel()
    count = []

    def tick() -> None:
        count.append(clock.now_ms)
        if len(count) == 3:
            rep.cancel()

    rep = clock.call_every(10, tick)
    clock.run(until_ms=1000)
    assert seen == []
    assert count == [10, 20, 30]
    assert clock.pending() == 0
    assert clock.next_time() is None


def test_run_until_leaves_clock_at_bound_and_keeps_later_work() -> None:
    clock = SimClock()
    seen: list[int] = []
    for t in (5, 10, 15):
        clock.call_at(t, seen.append, t)
    assert clock.run(until_ms=10) == 10
    assert seen == [5, 10]
    assert clock.next_time() == 15 and clock.pending() == 1
    assert clock.run(until_ms=12) == 12
    assert clock.run() == 15 and seen == [5, 10, 15]


def test_step_returns_false_when_idle() -> None:
    clock = SimClock()
    assert clock.step() is False
    clock.call_later(3, lambda: None)
    assert clock.step() is True and clock.now_ms == 3


def test_run_until_predicate_met() -> None:
    clock = SimClock()
    state = {"n": 0}
    clock.call_every(100, lambda: state.__setitem__("n", state["n"] + 1))
    assert clock.run_until(lambda: state["n"] >= 3, timeout_ms=10_000) == 300


def test_run_until_true_immediately() -> None:
    clock = SimClock(start_ms=42)
    assert clock.run_until(lambda: True, timeout_ms=10) == 42


def test_run_until_timeout_raises_and_stops_at_deadline() -> None:
    clock = SimClock()
    ran: list[int] = []
    clock.call_every(100, lambda: ran.append(clock.now_ms))
    with pytest.raises(TimeoutError, match="1000 ms"):
        clock.run_until(lambda: False, timeout_ms=1000)
    assert clock.now_ms == 1000
    assert ran[-1] == 1000 and len(ran) == 10


def test_run_until_idle_clock_jumps_to_deadline() -> None:
    clock = SimClock()
    with pytest.raises(TimeoutError):
        clock.run_until(lambda: False, timeout_ms=500)
    assert clock.now_ms == 500


def test_run_until_predicate_true_at_deadline_after_idle() -> None:
    clock = SimClock()
    assert clock.run_until(lambda: clock.now_ms >= 500, timeout_ms=500) == 500


def test_run_until_checks_only_after_a_whole_instant() -> None:
    """Two callbacks due at the same millisecond: the predicate never sees the first done
    without the second."""
    clock = SimClock()
    state = {"a": 0, "b": 0}
    seen: list[tuple[int, int]] = []
    clock.call_at(10, lambda: state.__setitem__("a", 1))
    clock.call_at(10, lambda: state.__setitem__("b", 1))

    def pred() -> bool:
        seen.append((state["a"], state["b"]))
        return state["a"] == 1

    assert clock.run_until(pred, timeout_ms=100) == 10
    assert seen == [(0, 0), (1, 1)]


def test_timestamps_format_and_parse_through_the_clock_epoch() -> None:
    clock = SimClock()
    assert clock.epoch == SIM_EPOCH
    assert clock.timestamp(0) == "2024-01-01T00:00:00Z"
    assert clock.timestamp(3_661_999) == "2024-01-01T01:01:01Z"
    assert clock.micro_timestamp(1_250) == "2024-01-01T00:00:01.250000Z"
    assert clock.parse_timestamp("2024-01-01T01:00:01Z") == 3_601_000
    assert clock.parse_timestamp("2024-01-01T00:00:01.250000Z") == 1_250
    assert clock.parse_timestamp("2024-01-01T02:00:00+01:00") == 3_600_000
    assert clock.parse_timestamp("2023-12-31T23:59:59Z") == -1_000
    for bad in ("", None, "yesterday", 5):
        assert clock.parse_timestamp(bad) is None
    clock.run(86_400_000)
    assert clock.timestamp() == "2024-01-02T00:00:00Z"
    assert clock.unix_ns(0) == int(SIM_EPOCH.timestamp()) * 1_000_000_000


def test_a_clock_with_another_epoch_formats_relative_to_it() -> None:
    epoch = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)
    clock = SimClock(epoch=epoch)
    assert clock.timestamp(61_000) == "2026-11-24T12:01:01Z"
    assert clock.parse_timestamp("2026-11-24T12:00:00Z") == 0
    with pytest.raises(ValueError, match="timezone-aware"):
        SimClock(epoch=datetime(2026, 1, 1))
