"""The real-time driver: pacing against an injected wall clock, pausing, settling, and the loop timer."""

from __future__ import annotations

import asyncio

import pytest

from volcano.sim.clock import Priority, SimClock
from volcano.sim.realtime import RealtimeDriver


class FakeWall:
    """A wall clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_catch_up_runs_due_callbacks_and_moves_the_clock_to_wall_time() -> None:
    clock, wall = SimClock(), FakeWall()
    driver = RealtimeDriver(clock, speed=2.0, wall=wall)
    seen: list[int] = []
    clock.call_at(1500, lambda: seen.append(clock.now_ms))
    clock.call_at(4500, lambda: seen.append(clock.now_ms))
    wall.now += 1.0  # 2 simulated seconds
    assert driver.catch_up() is True
    assert seen == [1500] and clock.now_ms == 2000
    wall.now += 1.5
    driver.catch_up()
    assert seen == [1500, 4500] and clock.now_ms == 5000


def test_paused_driver_moves_only_when_told() -> None:
    clock, wall = SimClock(), FakeWall()
    driver = RealtimeDriver(clock, speed=0, wall=wall)
    fired: list[int] = []
    clock.call_at(1000, lambda: fired.append(clock.now_ms))
    wall.now += 3600
    driver.catch_up()
    assert clock.now_ms == 0 and fired == []
    driver.advance(1.0)
    assert clock.now_ms == 1000 and fired == [1000]
    clock.call_at(2500, lambda: fired.append(clock.now_ms))
    took = driver.run_until(lambda: len(fired) == 2, timeout_s=10)
    assert clock.now_ms == 2500 and took == 1.5


def test_run_until_times_out_at_the_deadline() -> None:
    clock = SimClock()
    driver = RealtimeDriver(clock, speed=0, wall=FakeWall())
    with pytest.raises(TimeoutError):
        driver.run_until(lambda: False, timeout_s=2)
    assert clock.now_ms == 2000


def test_settle_runs_only_what_is_due_now() -> None:
    clock = SimClock()
    driver = RealtimeDriver(clock, speed=0, wall=FakeWall())
    order: list[str] = []
    clock.call_later(0, order.append, "watch", priority=Priority.WATCH)
    clock.call_later(1, order.append, "later")
    driver.settle()
    assert order == ["watch"] and clock.now_ms == 0


def test_catch_up_yields_after_its_budget_and_reports_lag() -> None:
    clock, wall = SimClock(), FakeWall()
    driver = RealtimeDriver(clock, speed=1.0, budget_s=0.5, wall=wall)

    def slow() -> None:
        wall.now += 0.3  # each callback costs 0.3 wall seconds

    for t in range(100, 1100, 100):
        clock.call_at(t, slow)
    wall.now += 1.0
    assert driver.catch_up() is False  # two callbacks exceed the budget
    assert clock.now_ms == 200 and driver.lag_ms > 0


def test_speed_change_keeps_simulated_time() -> None:
    clock, wall = SimClock(), FakeWall()
    driver = RealtimeDriver(clock, speed=1.0, wall=wall)
    wall.now += 2
    driver.set_speed(10)
    assert clock.now_ms == 2000
    wall.now += 1
    driver.catch_up()
    assert clock.now_ms == 12000


def test_negative_speed_is_rejected() -> None:
    with pytest.raises(ValueError, match="speed"):
        RealtimeDriver(SimClock(), speed=-1)


def test_loop_timer_fires_callbacks_at_their_wall_time() -> None:
    """On a real loop at 100x, a callback due at simulated 500 ms runs after about 5 wall ms."""
    clock = SimClock()

    async def main() -> int:
        loop = asyncio.get_running_loop()
        driver = RealtimeDriver(clock, speed=100.0)
        done = loop.create_future()
        clock.call_at(500, lambda: done.set_result(clock.now_ms))
        driver.attach(loop)
        try:
            return await asyncio.wait_for(done, timeout=5)
        finally:
            driver.close()

    assert asyncio.run(main()) == 500


def test_settle_arms_the_timer_for_work_scheduled_by_a_request() -> None:
    """A callback scheduled between timer wake-ups (as a request does) still runs on time."""
    clock = SimClock()

    async def main() -> list[int]:
        loop = asyncio.get_running_loop()
        driver = RealtimeDriver(clock, speed=1000.0)
        driver.attach(loop)
        seen: list[int] = []
        await asyncio.sleep(0.01)
        driver.catch_up()
        when = clock.now_ms + 200
        clock.call_at(when, lambda: seen.append(clock.now_ms))
        driver.settle()
        for _ in range(200):
            if seen:
                break
            await asyncio.sleep(0.005)
        driver.close()
        assert seen and seen[0] == when
        return seen

    assert asyncio.run(main())
