"""The simulated clock: the only source of time in a fake cluster.

Time is an integer number of milliseconds since the cluster started. Work is
scheduled as callbacks on one heap ordered by ``(time, priority, sequence)``:
callbacks due at the same millisecond run by ascending priority, and among
equal priorities in the order they were scheduled. Nothing here reads the wall
clock, so the same inputs always give the same order of everything.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

__all__ = ["Priority", "SimClock", "TimerHandle"]


class Priority(IntEnum):
    """Order of callbacks due at the same millisecond (lower runs first).

    Watch deliveries run before the components that react to them, so that a
    component always sees every write made before its own turn.
    """

    WATCH = 0
    KUBELET = 10
    CONTROLLER = 20
    SCHEDULER = 30
    DEFAULT = 50
    USER = 90


@dataclass(order=True, slots=True)
class TimerHandle:
    """A scheduled callback. ``cancel()`` stops it (and, for a repeating
    callback, every later repetition)."""

    when: int
    priority: int
    seq: int
    fn: Callable[..., Any] = field(compare=False)
    args: tuple[Any, ...] = field(compare=False, default=())
    period: int = field(compare=False, default=0)
    cancelled: bool = field(compare=False, default=False)

    def cancel(self) -> None:
        """Prevent this callback (and its repetitions) from running."""
        self.cancelled = True


class SimClock:
    """A discrete-event clock over integer milliseconds.

    ``call_at``/``call_later``/``call_every`` schedule callbacks; ``run``
    executes them in ``(time, priority, sequence)`` order. A callback may
    schedule more callbacks, including at the current time.
    """

    def __init__(self, start_ms: int = 0) -> None:
        self._now = start_ms
        self._heap: list[TimerHandle] = []
        self._seq = 0

    @property
    def now_ms(self) -> int:
        """Current simulated time in milliseconds."""
        return self._now

    @property
    def now(self) -> float:
        """Current simulated time in seconds."""
        return self._now / 1000.0

    def call_at(self, when_ms: int, fn: Callable[..., Any], *args: Any,
                priority: int = Priority.DEFAULT) -> TimerHandle:
        """Run ``fn(*args)`` at absolute time ``when_ms`` (clamped to now)."""
        when = max(int(when_ms), self._now)
        self._seq += 1
        handle = TimerHandle(when, int(priority), self._seq, fn, args)
        heapq.heappush(self._heap, handle)
        return handle

    def call_later(self, delay_ms: int, fn: Callable[..., Any], *args: Any,
                   priority: int = Priority.DEFAULT) -> TimerHandle:
        """Run ``fn(*args)`` after ``delay_ms`` milliseconds (0 = later this millisecond)."""
        return self.call_at(self._now + max(0, int(delay_ms)), fn, *args, priority=priority)

    def call_every(self, period_ms: int, fn: Callable[..., Any], *args: Any,
                   priority: int = Priority.DEFAULT, first_ms: int | None = None) -> TimerHandle:
        """Run ``fn(*args)`` every ``period_ms``, first at ``first_ms`` (default now + period).

        The returned handle cancels all future repetitions.
        """
        if period_ms <= 0:
            raise ValueError(f"period_ms must be positive, got {period_ms}")
        handle = self.call_at(self._now + period_ms if first_ms is None else first_ms, fn, *args,
                              priority=priority)
        handle.period = int(period_ms)
        return handle

    def next_time(self) -> int | None:
        """Time of the next pending callback, or None when nothing is scheduled."""
        while self._heap and self._heap[0].cancelled:
            heapq.heappop(self._heap)
        return self._heap[0].when if self._heap else None

    def step(self) -> bool:
        """Run the next due callback; return False when nothing is scheduled."""
        heap = self._heap
        while heap:
            handle = heapq.heappop(heap)
            if handle.cancelled:
                continue
            self._now = handle.when
            if handle.period:
                # Re-arm before running so the callback may cancel itself.
                self._seq += 1
                handle.when += handle.period
                handle.seq = self._seq
                heapq.heappush(heap, handle)
            handle.fn(*handle.args)
            return True
        return False

    def run(self, until_ms: int | None = None) -> int:
        """Run callbacks due at or before ``until_ms`` and leave the clock there.

        With ``until_ms=None`` run until nothing is scheduled (beware of
        repeating callbacks). Returns the simulated time reached.
        """
        heap = self._heap
        while heap:
            head = heap[0]
            if head.cancelled:
                heapq.heappop(heap)
                continue
            if until_ms is not None and head.when > until_ms:
                break
            self.step()
        if until_ms is not None and until_ms > self._now:
            self._now = until_ms
        return self._now

    def run_until(self, predicate: Callable[[], bool], timeout_ms: int) -> int:
        """Run until ``predicate()`` is true; return the time (ms) at which it first held.

        The predicate is checked now and after all work due at each millisecond, so it
        never sees an instant half-processed. Raises ``TimeoutError`` when it is still
        false at ``now + timeout_ms`` (the clock is then left at that deadline).
        """
        deadline = self._now + timeout_ms
        if predicate():
            return self._now
        while True:
            nxt = self.next_time()
            if nxt is None or nxt > deadline:
                self.run(deadline)
                if predicate():
                    return self._now
                raise TimeoutError(f"condition not met within {timeout_ms} ms")
            self.run(nxt)
            if predicate():
                return self._now

    def pending(self) -> int:
        """Number of scheduled (not cancelled) callbacks."""
        return sum(1 for h in self._heap if not h.cancelled)
