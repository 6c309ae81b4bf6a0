"""client-go's event pipeline over the wire: a bounded queue, then correlating and sending off the owner thread.

A component records events synchronously in memory (``volcano.apiserver.EventRecorder``
writes through the ``Client`` at once). Over the wire every event is an HTTP
request; made on the owner thread they would hold up the component (a
scheduling cycle that explains 1,000 pending pods would wait for 1,000 writes).
``AsyncEventRecorder`` does what client-go's broadcaster does instead:

* **Queueing** (on the owner thread): a bounded queue of 1,000 events, as the
  broadcaster's channel; when it is full the event is dropped and counted
  (``dropped``), as client-go drops events rather than block.
* **Correlating and sending** (on a thread of its own): each event goes through
  ``EventRecorder`` and so through the one ``EventCorrelator``
  (``volcano.apiserver.events``: aggregation, counting, then the per-object
  spam filter of 25 events refilled at one per 5 minutes; ``filtered`` counts
  what it dropped), stamped with the clock time it was recorded at, not the
  time it was sent (the correlator's time is that instant too).
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

    def __init__(self, client: Client, clock: Clock, component: str, *, queue_size: int = 1000) -> None:
        self.component = component
        self._clock = clock
        self._stamp = _Stamp(clock)
        self._inner = EventRecorder(client, self._stamp, component)  # type: ignore[arg-type]
        self._queue: queue.Queue[Any] = queue.Queue(maxsize=queue_size)
        self.sent = 0
        self.dropped = 0
        """Events dropped because the queue was full."""
        self._thread = threading.Thread(target=self._send_loop, name=f"events-{component}", daemon=True)
        self._thread.start()

    @property
    def filtered(self) -> int:
        """Events the correlator's spam filter dropped (on the sending thread)."""
        return self._inner.filtered

    def event(self, obj: Obj, type: str, reason: str, message: str) -> None:
        """Queue an event of ``type`` on ``obj`` (dropped when the queue is full)."""
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
                before = self._inner.filtered
                self._inner.event(obj, etype, reason, message)
                if self._inner.filtered == before:
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
