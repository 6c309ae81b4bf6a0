"""The owner-thread ``Runtime``: hand-off order, the wall-paced clock, errors that do not stop it, stop."""

from __future__ import annotations

import threading
from datetime import UTC, datetime

from tests.wire.conftest import wait_for
from volcano.kube.runtime import GuardedClock, Runtime
from volcano.sim.clock import Priority


def test_dispatched_calls_run_in_order_on_the_owner_thread_as_clock_callbacks() -> None:
    runtime = Runtime().start_background(lambda: None)
    try:
        seen: list[tuple[int, str]] = []

        def note(i: int) -> None:
            seen.append((i, threading.current_thread().name))

        senders = []
        for t in range(3):  # three watch threads, each handing over its events in order
            def send(t: int = t) -> None:
                for i in range(50):
                    runtime.dispatch(note, t * 1000 + i)
            senders.append(threading.Thread(target=send))
        for s in senders:
            s.start()
        for s in senders:
            s.join()
        wait_for(lambda: len(seen) == 150, what="150 dispatched calls")
        assert {name for _, name in seen} == {"volcano-runtime"}
        for t in range(3):
            mine = [i for i, _ in seen if i // 1000 == t]
            assert mine == [t * 1000 + i for i in range(50)]  # each sender's order is kept
        assert runtime.dispatched == 150
    finally:
        runtime.close()


def test_the_clock_tells_wall_time_and_timers_fire() -> None:
    runtime = Runtime().start_background(lambda: None)
    try:
        fired = threading.Event()
        clock = runtime.clock
        now_wall = datetime.now(UTC)
        assert abs((clock.epoch.timestamp() + clock.now_ms / 1000) - now_wall.timestamp()) < 2.0
        runtime.call(lambda: clock.call_later(50, fired.set, priority=Priority.DEFAULT))
        assert fired.wait(5)
    finally:
        runtime.close()


def test_a_failing_callback_is_logged_and_the_periodic_ones_go_on() -> None:
    clock = GuardedClock(0, epoch=datetime(2024, 1, 1, tzinfo=UTC))
    ticks: list[int] = []

    def boom() -> None:
        raise RuntimeError("component bug")

    clock.call_every(100, lambda: ticks.append(clock.now_ms))
    clock.call_later(150, boom)
    clock.run(500)
    assert ticks == [100, 200, 300, 400, 500] and clock.errors == 1


def test_stop_runs_clean_ups_in_reverse_and_returns_the_exit_code() -> None:
    runtime = Runtime()
    order: list[str] = []

    def setup() -> None:
        runtime.on_stop(lambda: order.append("first registered"))
        runtime.on_stop(lambda: order.append("last registered"))
        runtime.clock.call_later(10, runtime.stop, 3)

    assert runtime.run(setup, handle_signals=False) == 3
    assert order == ["last registered", "first registered"]
    runtime.dispatch(order.append, "after")  # a closed runtime drops late hand-overs
    assert order == ["last registered", "first registered"]


def test_a_failing_start_up_stops_with_exit_code_1() -> None:
    def setup() -> None:
        raise RuntimeError("cannot list pods")

    assert Runtime().run(setup, handle_signals=False) == 1
