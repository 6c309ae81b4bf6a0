"""The real-time driver: a ``SimClock`` paced against the wall clock on one asyncio event loop.

This module is the one place wall time enters the project. Components keep
seeing a ``Clock`` and never know whether it is driven by a simulation
(``FakeCluster.run``) or by this driver.

``RealtimeDriver`` advances the clock so that ``speed`` simulated seconds
pass per wall second (``speed=0`` pauses it: time then moves only when
``advance`` or ``run_until`` is called, which makes tests through a server
deterministic). It runs on exactly one event loop, the loop that also serves
requests, so the store and the clock have one owner and need no lock:

* ``catch_up()`` runs every callback due up to the wall-derived target time
  and moves the clock there. The owner calls it before it handles a request,
  so the request sees the current simulated time.
* ``settle()`` runs the callbacks due *now* (watch deliveries, the reactions
  of components to a write at the same millisecond) and re-arms the wake-up
  timer. The owner calls it after each request, so watch events leave as
  soon as a write commits, without waiting for the clock to advance.
* Between requests a loop timer wakes the driver when the next callback is
  due. A catch-up runs at most ``budget_s`` of wall time before yielding to
  the loop (requests are served in between); when the simulation cannot keep
  up, simulated time lags the wall and ``lag_ms`` says by how much.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TypeVar

from volcano.sim.clock import SimClock

__all__ = ["RealtimeDriver", "call_on_loop", "wall_epoch"]

T = TypeVar("T")


class RealtimeDriver:
    """Paces ``clock`` at ``speed`` simulated seconds per wall second (see the module docstring).

    ``wall`` is the monotonic wall clock in seconds (``time.monotonic`` unless a test injects
    one). Every method must be called on the loop's thread once ``attach`` has been called.
    """

    def __init__(self, clock: SimClock, speed: float = 1.0, *, budget_s: float = 0.05,
                 wall: Callable[[], float] = time.monotonic) -> None:
        if not speed >= 0:
            raise ValueError(f"speed must be a number of simulated seconds per wall second >= 0, got {speed!r}")
        self.clock = clock
        self._wall = wall
        self._speed = float(speed)
        self.budget_s = budget_s
        self._wall_base = wall()
        self._sim_base = clock.now_ms
        self._loop: asyncio.AbstractEventLoop | None = None
        self._timer: asyncio.Handle | None = None
        self._timer_at: int | None = None  # simulated ms the armed timer is for
        self._closed = False

    # -- pacing --------------------------------------------------------------------------------
    @property
    def speed(self) -> float:
        """Simulated seconds per wall second (0: paused)."""
        return self._speed

    def set_speed(self, speed: float) -> None:
        """Change the pace from now on (0 pauses); simulated time already reached is kept."""
        if not speed >= 0:
            raise ValueError(f"speed must be >= 0, got {speed!r}")
        self.catch_up()
        self._rebase()
        self._speed = float(speed)
        self._rearm(force=True)

    def target_ms(self) -> int:
        """The simulated time the wall clock says it is (the clock's own time when paused)."""
        if self._speed == 0:
            return self.clock.now_ms
        target = self._sim_base + int((self._wall() - self._wall_base) * self._speed * 1000)
        return max(target, self.clock.now_ms)

    @property
    def lag_ms(self) -> int:
        """How far simulated time is behind where the wall clock says it should be."""
        return self.target_ms() - self.clock.now_ms

    def _rebase(self) -> None:
        self._wall_base = self._wall()
        self._sim_base = self.clock.now_ms

    # -- running callbacks ------------------------------------------------------------------------
    def catch_up(self) -> bool:
        """Run callbacks due up to the target time, at most ``budget_s`` of wall time; return True
        when the clock reached the target (False: it lags, call again)."""
        clock = self.clock
        target = self.target_ms()
        started = self._wall()
        while True:
            nxt = clock.next_time()
            if nxt is None or nxt > target:
                clock.run(target)
                return True
            clock.run(nxt)
            if self._wall() - started > self.budget_s:
                return clock.now_ms >= target

    def settle(self) -> None:
        """Run the callbacks due now (watch deliveries and same-instant reactions), then re-arm the
        wake-up timer for the next one."""
        clock = self.clock
        nxt = clock.next_time()
        if nxt is not None and nxt <= clock.now_ms:
            clock.run(clock.now_ms)
        self._rearm()

    def advance(self, seconds: float) -> None:
        """Run ``seconds`` of simulated time at once (any speed; the pace continues from there)."""
        self.catch_up()
        self.clock.run(self.clock.now_ms + round(seconds * 1000))
        self._rebase()
        self._rearm(force=True)

    def run_until(self, predicate: Callable[[], bool], timeout_s: float) -> float:
        """Run simulated time until ``predicate()`` holds (checked after each whole instant);
        return the simulated seconds it took. ``TimeoutError`` after ``timeout_s`` simulated s."""
        self.catch_up()
        start = self.clock.now_ms
        try:
            self.clock.run_until(predicate, round(timeout_s * 1000))
        finally:
            self._rebase()
            self._rearm(force=True)
        return (self.clock.now_ms - start) / 1000

    # -- the loop ------------------------------------------------------------------------------------
    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        """Start pacing on ``loop`` (the loop that owns the store and the clock)."""
        self._loop = loop
        self._rebase()
        self._rearm(force=True)

    def close(self) -> None:
        """Stop pacing: no timer fires afterwards."""
        self._closed = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _on_timer(self) -> None:
        self._timer = None
        self._timer_at = None
        if self._closed:
            return
        reached = self.catch_up()
        self._rearm(force=True, lagging=not reached)

    def _rearm(self, *, force: bool = False, lagging: bool = False) -> None:
        """Arm the loop timer for the next due callback (at once when the simulation lags)."""
        loop = self._loop
        if loop is None or self._closed:
            return
        if lagging:
            nxt: int | None = self.clock.now_ms
        else:
            nxt = self.clock.next_time()
            if self._speed == 0 and nxt is not None and nxt > self.clock.now_ms:
                nxt = None  # paused: only work due now runs by itself
        if not force and nxt == self._timer_at and self._timer is not None:
            return
        if self._timer is not None:
            if not force and nxt is not None and self._timer_at is not None and self._timer_at <= nxt:
                return  # the armed timer fires earlier; it re-arms then
            self._timer.cancel()
            self._timer = None
            self._timer_at = None
        if nxt is None:
            return
        if lagging or nxt <= self.clock.now_ms or self._speed == 0:
            self._timer = loop.call_soon(self._on_timer)
        else:
            wall_at = self._wall_base + (nxt - self._sim_base) / (self._speed * 1000)
            delay = max(0.0, wall_at - self._wall())
            self._timer = loop.call_later(delay, self._on_timer)
        self._timer_at = nxt


def wall_epoch() -> datetime:
    """The current wall-clock instant, whole seconds, UTC: the epoch of a clock paced in real time
    (so object timestamps are real times and kubectl's ages agree with the server's)."""
    return datetime.now(UTC).replace(microsecond=0)


def call_on_loop(loop: asyncio.AbstractEventLoop, fn: Callable[[], T], *, before: Callable[[], object],
                 after: Callable[[], object], timeout: float) -> T:
    """Run ``before()``, ``fn()`` and, whatever happens, ``after()`` on ``loop`` (the thread that owns
    the store and the clock), from another thread; return ``fn``'s result or raise its exception.
    ``before`` is where the owner catches the clock up to the wall clock, ``after`` where it runs the
    callbacks the call made due. ``TimeoutError`` when the loop does not answer within ``timeout``."""
    future: concurrent.futures.Future[T] = concurrent.futures.Future()

    def run() -> None:
        try:
            before()
            future.set_result(fn())
        except BaseException as exc:
            future.set_exception(exc)
        finally:
            after()

    loop.call_soon_threadsafe(run)
    return future.result(timeout)
