"""client-go's event pipeline for a component over the wire: a spam filter, then sending off the owner thread.

A component records events synchronously in memory (``volcano.apiserver.EventRecorder``
writes through the ``Client`` at once). Over the wire every event is an HTTP
request; made on the owner thread they would hold up the component (a
scheduling cycle that explains 1,000 pending pods would wait for 1,000 writes).
``AsyncEventRecorder`` does what client-go's recorder does instead:

* **Spam filter** (on the owner thread, before anything is queued): each
  involved object has a token bucket of 25 events refilled at one per 5
  minutes (client-go's ``EventSourceObjectSpamFilter`` defaults, on the
  component's clock); an event beyond it is dropped and counted.
* **Sending** (on a thread of its own): a bounded queue of 1,000 events, as the
  broadcaster's channel; when it is full the event is dropped and counted, as
  client-go drops events rather than block. The sender keeps
  ``EventRecorder``'s aggregation (a repeat patches ``count`` and
  ``lastTimestamp``), and stamps each event with the clock time it was
  recorded at, not the time it was sent.
* ``close()`` sends what is queued (bounded by a timeout) and stops the thread.
"""

from __future__ import annotations

import logging
import queue
import threading
from typing import Any

from volcano.apiserver.client import Client, Obj
from volcano.apiserver.events import EventRecorder
from volcano.sim.clock import Clock

__all__ = ["AsyncEventRecorder"]

log = logging.getLogger("volcano.kube.events")

_STOP = object()


class _Stamp:
    """The clock as an event saw it: ``timestamp``/``unix_ns`` of the instant it was recorded."""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self.ms = 0

    @property
    def now_ms(self) -> int:
        return self.ms

    def timestamp(self, ms: int | None = None) -> str:
        return self._clock.timestamp(self.ms if ms is None else ms)

    def micro_timestamp(self, ms: int | None = None) -> str:
        return self._clock.micro_timestamp(self.ms if ms is None else ms)

    def unix_ns(self, ms: int | None = None) -> int:
        return self._clock.unix_ns(self.ms if ms is None else ms)


class AsyncEventRecorder:
    """Records events for one component off the owner thread (see the module docstring)."""

    def __init__(self, client: Client, clock: Clock, component: str, *, queue_size: int = 1000,
                 burst: int = 25, refill_ms: int = 300_000) -> None:
        self.component = component
        self._clock = clock
        self._stamp = _Stamp(clock)
        self._inner = EventRecorder(client, self._stamp, component)  # type: ignore[arg-type]
        self._queue: queue.Queue[Any] = queue.Queue(maxsize=queue_size)
        self._burst, self._refill_ms = burst, refill_ms
        self._buckets: dict[tuple[str, ...], tuple[float, int]] = {}  # object -> (tokens, at ms)
        self.sent = 0
        self.filtered = 0
        """Events the spam filter dropped."""
        self.dropped = 0
        """Events dropped because the queue was full."""
        self._thread = threading.Thread(target=self._send_loop, name=f"events-{component}", daemon=True)
        self._thread.start()

    def _allow(self, obj: Obj) -> bool:
        meta = obj.get("metadata") or {}
        key = (str(obj.get("kind", "")), str(meta.get("namespace", "")), str(meta.get("name", "")),
               str(meta.get("uid", "")))
        now = self._clock.now_ms
        tokens, at = self._buckets.get(key, (float(self._burst), now))
        tokens = min(float(self._burst), tokens + (now - at) / self._refill_ms)
        if tokens < 1.0:
            self._buckets[key] = (tokens, now)
            return False
        self._buckets[key] = (tokens - 1.0, now)
        if len(self._buckets) > 4096:  # bounded, as client-go's LRU cache of buckets
            del self._buckets[next(iter(self._buckets))]
        return True

    def event(self, obj: Obj, type: str, reason: str, message: str) -> None:
        """Queue an event of ``type`` on ``obj`` (dropped by the spam filter or a full queue)."""
        if not self._allow(obj):
            self.filtered += 1
            return
        try:
            self._queue.put_nowait((obj, type, reason, message, self._clock.now_ms))
        except queue.Full:
            self.dropped += 1

    def _send_loop(self) -> None:
        while True:
            item = self._queue.get()
            if item is _STOP:
                return
            if isinstance(item, _Marker):
                item.done.set()
                continue
            obj, etype, reason, message, ms = item
            self._stamp.ms = ms
            try:
                self._inner.event(obj, etype, reason, message)
                self.sent += 1
            except Exception as err:  # an event that cannot be written is lost, as with client-go
                log.warning("%s: event %s on %s/%s not recorded: %s", self.component, reason,
                            (obj.get("metadata") or {}).get("namespace", ""),
                            (obj.get("metadata") or {}).get("name", ""), err)

    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until every queued event was sent (True) or ``timeout`` passed (False); for tests."""
        done = threading.Event()
        self._queue.put(_Marker(done))
        return done.wait(timeout)

    def close(self, timeout: float = 5.0) -> None:
        """Send what is queued (at most ``timeout`` seconds), then stop the sending thread."""
        try:
            self._queue.put(_STOP, timeout=timeout)
        except queue.Full:
            return
        self._thread.join(timeout)


class _Marker:
    """A queue item that only signals that everything before it was handled."""

    def __init__(self, done: threading.Event) -> None:
        self.done = done
