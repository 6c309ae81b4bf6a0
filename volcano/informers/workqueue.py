"""A work queue on the simulated clock, with client-go's semantics.

Keys wait in FIFO order and are deduplicated while waiting. ``add`` schedules
a drain at the current time (a clock callback at the queue's priority); a
drain processes the keys waiting when it starts and schedules another drain
if more arrived. A key re-added while it is being processed is processed
again afterwards. When ``process`` raises ``ApiError`` the key is re-added
rate-limited; any other exception propagates.

``add_rate_limited`` is client-go's ``DefaultControllerRateLimiter``: the
longer of a per-key exponential backoff (5 ms doubling up to 1000 s;
``forget`` resets a key's) and the wait for a token of a bucket shared by
every key of the queue (10 per second, a burst of 100, golang.org/x/time's
``Limiter.Reserve``: every re-add takes a token, a re-add that finds none
waits for the one it reserved, so a queue re-adds at most 10 keys a second
once its burst is spent, however many keys fail). A queue built with ``shards``
and ``shard_of`` stands for that many client-go queues drained in one FIFO
(Volcano's Job controller hashes each job to one of its worker queues): each
shard has a bucket of its own, and a key takes its tokens from its shard's::

    >>> from volcano.sim import SimClock
    >>> clock = SimClock()
    >>> q = WorkQueue(clock, lambda key: None, name="doc")
    >>> [q.rate_limit_delay_ms(f"k{i}") for i in range(102)][-4:]  # 102 keys failing at once
    [5, 5, 100, 200]
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from volcano.apiserver.errors import ApiError
from volcano.sim.clock import Clock, Priority, TimerHandle

__all__ = ["BASE_DELAY_MS", "BUCKET_BURST", "BUCKET_QPS", "MAX_DELAY_MS", "TokenReserver", "WorkQueue"]

K = TypeVar("K", bound=Hashable)

BASE_DELAY_MS = 5
"""First retry delay of a failing key."""
MAX_DELAY_MS = 1_000_000
"""Longest retry delay (1000 s)."""
BUCKET_QPS = 10
"""Tokens a second of the queue's shared retry bucket."""
BUCKET_BURST = 100
"""Size of the queue's shared retry bucket (it starts full)."""


class TokenReserver:
    """golang.org/x/time/rate's ``Limiter`` as ``Reserve().Delay()`` uses it, on integer milliseconds.

    The bucket holds ``burst`` tokens and gains ``qps`` a second; a reservation takes one token
    now, even when none is left (the count goes negative), and its delay is the time the bucket
    needs to pay the debt back. Tokens are kept in thousandths (``qps`` per millisecond)."""

    def __init__(self, qps: int, burst: int) -> None:
        if qps <= 0 or burst <= 0:
            raise ValueError(f"qps and burst must be positive, got {qps} and {burst}")
        self.qps, self.burst = int(qps), int(burst)
        self._milli = self.burst * 1000
        self._last_ms: int | None = None

    def reserve(self, now_ms: int) -> int:
        """Take a token at ``now_ms``; the milliseconds until it is paid for (0 when one was there)."""
        if self._last_ms is not None and now_ms > self._last_ms:
            self._milli = min(self.burst * 1000, self._milli + (now_ms - self._last_ms) * self.qps)
        if self._last_ms is None or now_ms > self._last_ms:
            self._last_ms = now_ms
        self._milli -= 1000
        return 0 if self._milli >= 0 else -(self._milli // self.qps)


class WorkQueue(Generic[K]):
    """A deduplicating FIFO of keys processed by ``process`` as clock callbacks."""

    def __init__(self, clock: Clock, process: Callable[[K], None], *, name: str,
                 priority: int = Priority.CONTROLLER, shards: int = 1,
                 shard_of: Callable[[K], int] | None = None) -> None:
        if shards < 1 or (shards > 1 and shard_of is None):
            raise ValueError(f"{name}: shards must be >= 1 (and > 1 only with shard_of), got {shards}")
        self._buckets = [TokenReserver(BUCKET_QPS, BUCKET_BURST) for _ in range(shards)]
        self._shard_of = shard_of if shards > 1 else None
        self._clock = clock
        self._process = process
        self.name = name
        self.priority = int(priority)
        self._queue: deque[K] = deque()
        self._waiting: set[K] = set()
        self._processing: set[K] = set()
        self._dirty: set[K] = set()
        self._failures: dict[K, int] = {}
        self._delayed: dict[K, TimerHandle] = {}
        self._drain_scheduled = False
        self._shut_down = False
        self.processed = 0

    def __len__(self) -> int:
        return len(self._queue)

    def add(self, key: K) -> None:
        """Queue ``key`` (no-op while it waits; re-run after it if it is being processed)."""
        if self._shut_down:
            return
        if key in self._processing:
            self._dirty.add(key)
            return
        if key in self._waiting:
            return
        self._waiting.add(key)
        self._queue.append(key)
        if not self._drain_scheduled:
            self._drain_scheduled = True
            self._clock.call_later(0, self._drain, priority=self.priority)

    def add_after(self, key: K, delay_ms: int) -> None:
        """Queue ``key`` after ``delay_ms`` (an earlier pending request for the same key wins)."""
        if self._shut_down:
            return
        delay = int(delay_ms)
        if delay <= 0:
            self.add(key)
            return
        when = self._clock.now_ms + delay
        pending = self._delayed.get(key)
        if pending is not None and not pending.cancelled:
            if pending.when <= when:
                return
            pending.cancel()
        self._delayed[key] = self._clock.call_at(when, self._fire, key, priority=self.priority)

    def _fire(self, key: K) -> None:
        self._delayed.pop(key, None)
        self.add(key)

    def add_rate_limited(self, key: K) -> None:
        """Queue ``key`` after ``rate_limit_delay_ms(key)``."""
        self.add_after(key, self.rate_limit_delay_ms(key))

    def rate_limit_delay_ms(self, key: K) -> int:
        """client-go's ``DefaultControllerRateLimiter.When``: count a re-add of ``key`` and take a token
        of the bucket shared by the keys of its shard; the longer of its backoff (5 ms, 10 ms, 20 ms,
        ... up to 1000 s) and the bucket's wait."""
        failures = self._failures.get(key, 0)
        self._failures[key] = failures + 1
        shard_of = self._shard_of
        bucket = self._buckets[shard_of(key) % len(self._buckets)] if shard_of is not None else self._buckets[0]
        return max(self.backoff_ms(failures), bucket.reserve(self._clock.now_ms))

    @staticmethod
    def backoff_ms(failures: int) -> int:
        """The delay before retry number ``failures + 1``."""
        if failures >= 40:
            return MAX_DELAY_MS
        return min(MAX_DELAY_MS, BASE_DELAY_MS * (1 << failures))

    def num_requeues(self, key: K) -> int:
        """How many rate-limited re-adds ``key`` had since it was last forgotten."""
        return self._failures.get(key, 0)

    def forget(self, key: K) -> None:
        """Reset the backoff of ``key``."""
        self._failures.pop(key, None)

    def shut_down(self) -> None:
        """Stop: pending keys and timers are dropped; later adds are ignored."""
        self._shut_down = True
        self._queue.clear()
        self._waiting.clear()
        for key in list(self._delayed):
            self._delayed.pop(key).cancel()

    def _drain(self) -> None:
        self._drain_scheduled = False
        for _ in range(len(self._queue)):
            if self._shut_down or not self._queue:
                return
            key = self._queue.popleft()
            self._waiting.discard(key)
            self._processing.add(key)
            failed = False
            try:
                self._process(key)
            except ApiError:
                failed = True
            finally:
                self._processing.discard(key)
                self.processed += 1
            if key in self._dirty:
                self._dirty.discard(key)
                self.add(key)
            if failed:
                self.add_rate_limited(key)
        if self._queue and not self._drain_scheduled:
            self._drain_scheduled = True
            self._clock.call_later(0, self._drain, priority=self.priority)
