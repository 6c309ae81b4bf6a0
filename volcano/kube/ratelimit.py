"""client-go's client-side flow control: a token bucket for requests and exponential backoff.

``TokenBucket(qps, burst)`` is ``flowcontrol.NewTokenBucketRateLimiter``: it
starts full (``burst`` tokens), refills at ``qps`` tokens per second, and
``wait()`` blocks the caller until a token is available; ``qps <= 0`` turns
limiting off. Every request a ``KubeClient`` makes, watch connections
included, takes one token first, as client-go's ``rest.Request`` does.

``Backoff`` is the exponential backoff of client-go's reflector between
failed list/watch attempts (800 ms doubling to 30 s, reset after a clean
run), with a stop event so that a waiting thread ends at once on shutdown.

Both read time from injectable functions (``time.monotonic`` and
``time.sleep`` by default) so tests can drive them without sleeping.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

__all__ = ["Backoff", "TokenBucket"]


class TokenBucket:
    """A thread-safe token bucket (see the module docstring)."""

    def __init__(self, qps: float, burst: int, *, wall: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        if not qps == qps or (qps > 0 and burst < 1):  # NaN, or a limit with no bucket
            raise ValueError(f"--kube-api-qps {qps!r} / --kube-api-burst {burst!r}: burst must be >= 1 when "
                             "qps > 0")
        self.qps = float(qps)
        self.burst = int(burst)
        self._wall = wall
        self._sleep = sleep
        self._lock = threading.Lock()
        self._tokens = float(burst)
        self._last = wall()
        self.waited_s = 0.0
        """Total time callers spent waiting for tokens (a throttling measure)."""

    def _reserve(self) -> float:
        """Take one token (possibly going into debt); return how long the caller must wait."""
        with self._lock:
            now = self._wall()
            self._tokens = min(float(self.burst), self._tokens + (now - self._last) * self.qps)
            self._last = now
            self._tokens -= 1.0
            return 0.0 if self._tokens >= 0 else -self._tokens / self.qps

    def wait(self) -> float:
        """Block until the caller may send one request; return the seconds waited."""
        if self.qps <= 0:
            return 0.0
        delay = self._reserve()
        if delay > 0:
            self._sleep(delay)
            with self._lock:
                self.waited_s += delay
        return delay


class Backoff:
    """Exponential backoff with a stop event: ``wait()`` sleeps the next delay (or until ``stop``)."""

    def __init__(self, initial_s: float = 0.8, max_s: float = 30.0, factor: float = 2.0,
                 stop: threading.Event | None = None) -> None:
        self.initial_s, self.max_s, self.factor = initial_s, max_s, factor
        self.stop = stop if stop is not None else threading.Event()
        self._next = initial_s

    def next_delay(self) -> float:
        """The delay the next ``wait`` sleeps, and advance the sequence."""
        delay = self._next
        self._next = min(self.max_s, self._next * self.factor)
        return delay

    def reset(self) -> None:
        """Start again from ``initial_s`` (after a successful attempt)."""
        self._next = self.initial_s

    def wait(self) -> bool:
        """Sleep the next delay; return False when ``stop`` was set (the caller should end)."""
        return not self.stop.wait(self.next_delay())
