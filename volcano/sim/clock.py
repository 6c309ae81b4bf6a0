"""Time for every component: the ``Clock`` protocol and the simulated clock.

Time is an integer number of milliseconds since the cluster started. Work is
scheduled as callbacks on one heap ordered by ``(time, priority, sequence)``:
callbacks due at the same millisecond run by ascending priority, and among
equal priorities in the order they were scheduled. Nothing here reads the wall
clock, so the same inputs always give the same order of everything.

Components (controllers, scheduler, kubelet, informers, the API server) are
typed against ``Clock``: they read ``now_ms``, schedule callbacks and format
timestamps through it, and never drive it. Whoever owns the clock drives it:
``FakeCluster.run`` in simulated time, or a real-time driver that paces the same
``SimClock`` against the wall clock (the only place wall time enters).

**Idle periodic work.** A repeating callback (``call_every``) may carry an
``IdlePeriodic`` on its handle (``handle.idle = owner``): ``owner.idle()``
says its next run is a proven no-op (nothing it reads has changed since a run
that had no effect), and ``owner.skip(runs)`` accounts for runs not made.
``SimClock.run`` (and ``step``) then skips such runs instead of making them,
up to the next other callback or the end of the run: time moves on as if they
had run, and the skipped runs keep their order relative to everything else.
``SimClock(fast_forward=False)`` makes every run, for comparison.

Each clock maps its milliseconds onto wall-clock instants through its
``epoch`` (the instant of ``now_ms == 0``): ``2024-01-01T00:00:00Z`` for a
simulation, the start time for a real-time run. Object timestamps are RFC 3339
strings from ``timestamp`` (second precision, as ``metav1.Time``) or
``micro_timestamp`` (``metav1.MicroTime``), and ``parse_timestamp`` reads
them back into clock milliseconds; no other module formats or parses time.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from enum import IntEnum
from typing import Any, Protocol

__all__ = ["SIM_EPOCH", "Clock", "IdlePeriodic", "Priority", "SimClock", "TimerHandle"]

SIM_EPOCH = datetime(2024, 1, 1, tzinfo=UTC)
"""The wall-clock instant of simulated time 0 (a simulation's default epoch)."""


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


class IdlePeriodic(Protocol):
    """The owner of a repeating callback that can prove its next runs are no-ops."""

    def idle(self) -> bool:
        """True when the next run would change nothing, and so would every later run until
        another callback runs (cheap, and no side effect)."""
        ...

    def skip(self, runs: int) -> None:
        """Account for ``runs`` runs that were skipped as no-ops (counters, metrics)."""
        ...


@dataclass(order=True, slots=True)
class TimerHandle:
    """A scheduled callback. ``cancel()`` stops it (and, for a repeating
    callback, every later repetition). ``idle``: see ``IdlePeriodic``."""

    when: int
    priority: int
    seq: int
    fn: Callable[..., Any] = field(compare=False)
    args: tuple[Any, ...] = field(compare=False, default=())
    period: int = field(compare=False, default=0)
    cancelled: bool = field(compare=False, default=False)
    idle: IdlePeriodic | None = field(compare=False, default=None)

    def cancel(self) -> None:
        """Prevent this callback (and its repetitions) from running."""
        self.cancelled = True


class Clock(Protocol):
    """What a component may do with time: read it, schedule callbacks, format timestamps.

    Callbacks never run on the caller's stack: ``call_at``/``call_later`` with a
    time at or before now run later in the current millisecond, after the
    current callback returns, ordered by ``(time, priority, sequence)``.
    """

    @property
    def now_ms(self) -> int:
        """Milliseconds since the clock's epoch."""
        ...

    @property
    def epoch(self) -> datetime:
        """The wall-clock instant of ``now_ms == 0`` (UTC)."""
        ...

    def call_at(self, when_ms: int, fn: Callable[..., Any], *args: Any,
                priority: int = ...) -> TimerHandle:
        """Run ``fn(*args)`` at ``when_ms`` (clamped to now)."""
        ...

    def call_later(self, delay_ms: int, fn: Callable[..., Any], *args: Any,
                   priority: int = ...) -> TimerHandle:
        """Run ``fn(*args)`` after ``delay_ms`` milliseconds (0: later in this millisecond)."""
        ...

    def call_every(self, period_ms: int, fn: Callable[..., Any], *args: Any,
                   priority: int = ..., first_ms: int | None = None) -> TimerHandle:
        """Run ``fn(*args)`` every ``period_ms``, first at ``first_ms`` (default now + period)."""
        ...

    def timestamp(self, ms: int | None = None) -> str:
        """RFC 3339 at second precision (``metav1.Time``) of ``ms`` (default: now)."""
        ...

    def micro_timestamp(self, ms: int | None = None) -> str:
        """RFC 3339 with microseconds (``metav1.MicroTime``) of ``ms`` (default: now)."""
        ...

    def parse_timestamp(self, text: object) -> int | None:
        """Clock milliseconds of an RFC 3339 timestamp; None when absent or malformed."""
        ...

    def unix_ns(self, ms: int | None = None) -> int:
        """Nanoseconds since the Unix epoch of ``ms`` (default: now)."""
        ...


class SimClock:
    """A discrete-event clock over integer milliseconds (implements ``Clock``).

    ``call_at``/``call_later``/``call_every`` schedule callbacks; ``run``
    executes them in ``(time, priority, sequence)`` order. A callback may
    schedule more callbacks, including at the current time. ``epoch`` is the
    wall-clock instant of time 0, used only to format and parse timestamps.
    ``fast_forward`` (default on) skips the runs of idle periodic callbacks
    (see the module docstring); ``skipped_runs`` counts them.
    """

    def __init__(self, start_ms: int = 0, *, epoch: datetime = SIM_EPOCH, fast_forward: bool = True) -> None:
        if epoch.tzinfo is None:
            raise ValueError(f"epoch must be timezone-aware, got {epoch!r}")
        self.fast_forward = fast_forward
        self.skipped_runs = 0
        self._now = start_ms
        self._heap: list[TimerHandle] = []
        self._seq = 0
        self._epoch = epoch.astimezone(UTC)
        self._epoch_unix_ms = (self._epoch - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(milliseconds=1)
        self._ts_cache: dict[int, str] = {}

    @property
    def now_ms(self) -> int:
        """Current simulated time in milliseconds."""
        return self._now

    @property
    def now(self) -> float:
        """Current simulated time in seconds."""
        return self._now / 1000.0

    @property
    def epoch(self) -> datetime:
        """The wall-clock instant of time 0 (UTC)."""
        return self._epoch

    # -- timestamps -------------------------------------------------------------------------------
    def timestamp(self, ms: int | None = None) -> str:
        """RFC 3339 at second precision (``2024-01-01T00:00:05Z``) of ``ms`` (default: now)."""
        sec = (self._now if ms is None else ms) // 1000
        out = self._ts_cache.get(sec)
        if out is None:
            out = (self._epoch + timedelta(seconds=sec)).strftime("%Y-%m-%dT%H:%M:%SZ")
            if len(self._ts_cache) > 4096:
                self._ts_cache.clear()
            self._ts_cache[sec] = out
        return out

    def micro_timestamp(self, ms: int | None = None) -> str:
        """RFC 3339 with microseconds (``2024-01-01T00:00:05.250000Z``) of ``ms`` (default: now)."""
        when = self._epoch + timedelta(milliseconds=self._now if ms is None else ms)
        return when.strftime("%Y-%m-%dT%H:%M:%S.%fZ")

    def parse_timestamp(self, text: object) -> int | None:
        """Clock milliseconds of an RFC 3339 timestamp (``Z`` or an offset; fractions kept to the
        millisecond, rounded down); None when ``text`` is absent, empty or not a timestamp."""
        if not isinstance(text, str) or not text:
            return None
        try:
            parsed = datetime.fromisoformat(text)
        except ValueError:
            return None
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=UTC)
        return (parsed - self._epoch) // timedelta(milliseconds=1)

    def unix_ns(self, ms: int | None = None) -> int:
        """Nanoseconds since the Unix epoch of ``ms`` (default: now)."""
        return (self._epoch_unix_ms + (self._now if ms is None else ms)) * 1_000_000

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
        # call_at(now + max(0, delay)) inlined: every watch delivery and work-queue add comes here.
        self._seq += 1
        handle = TimerHandle(self._now + max(0, int(delay_ms)), int(priority), self._seq, fn, args)
        heapq.heappush(self._heap, handle)
        return handle

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
        """Run the next due callback (an idle periodic one is skipped, counting as run);
        return False when nothing is scheduled."""
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
                if handle.idle is not None and self.fast_forward and handle.idle.idle():
                    self.skipped_runs += 1
                    handle.idle.skip(1)
                    return True
            handle.fn(*handle.args)
            return True
        return False

    def _skip_idle(self, until_ms: int | None) -> bool:
        """Skip the runs of the idle periodic callbacks at the head of the heap that fall before
        the next other callback (and at or before ``until_ms``); True when any was skipped.

        Each skipped callback is re-armed after its last skipped run with a fresh sequence
        number, in the order those last runs would have happened, which is where running
        them would have left it relative to every other callback."""
        heap = self._heap
        idle: list[TimerHandle] = []
        while heap:
            head = heap[0]
            if head.cancelled:
                heapq.heappop(heap)
            elif head.period and head.idle is not None and head.idle.idle():
                idle.append(heapq.heappop(heap))
            else:
                break
        limit = until_ms
        if heap:
            limit = heap[0].when - 1 if limit is None else min(limit, heap[0].when - 1)
        if limit is None or not idle:  # nothing else ever happens: leave run(None) as it was
            for handle in idle:
                heapq.heappush(heap, handle)
            return False
        if len({h.period for h in idle}) > 1:
            skipped = self._skip_mixed(idle, limit)
        else:
            skipped = self._skip_uniform(idle, limit)
        for handle in idle:
            heapq.heappush(heap, handle)
        return skipped

    def _skip_uniform(self, idle: list[TimerHandle], limit: int) -> bool:
        last: list[tuple[int, int, int, TimerHandle]] = []
        for h in idle:
            if h.when <= limit:
                runs = (limit - h.when) // h.period + 1
                last.append((h.when + (runs - 1) * h.period, h.priority, h.seq, h))
                h.when += runs * h.period
                self.skipped_runs += runs
                assert h.idle is not None
                h.idle.skip(runs)
        for *_, h in sorted(last, key=lambda item: item[:3]):
            self._seq += 1
            h.seq = self._seq
        return bool(last)

    def _skip_mixed(self, idle: list[TimerHandle], limit: int) -> bool:
        pending = list(idle)
        heapq.heapify(pending)
        skipped = False
        while pending and pending[0].when <= limit:
            h = heapq.heappop(pending)
            self._seq += 1
            h.when += h.period
            h.seq = self._seq
            self.skipped_runs += 1
            assert h.idle is not None
            h.idle.skip(1)
            heapq.heappush(pending, h)
            skipped = True
        return skipped

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
            if head.idle is not None and self.fast_forward and self._skip_idle(until_ms):
                continue
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
