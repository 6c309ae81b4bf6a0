"""One watch over HTTP, read on a thread of its own and handed to the owner thread in order.

``WatchStream`` is what ``KubeClient.watch`` returns. Its thread sends
``GET <collection>?watch=true&resourceVersion=<rv>&allowWatchBookmarks=true
&timeoutSeconds=<t>``, reads the newline-delimited JSON events of the chunked
response and hands each one to the owner thread through ``dispatch`` (the
owner runs the handler as a clock callback: never on a writer's stack, never
on this thread). It behaves as client-go's reflector does between relists:

* ``BOOKMARK`` events only move the resourceVersion it resumes from; they
  are not delivered (the ``Client`` protocol has no bookmark event).
* When the server ends the stream (``timeoutSeconds``) or the connection
  drops, it watches again from the last resourceVersion seen, after the
  reflector's backoff when the attempt failed.
* 410 Gone (an ``ERROR`` event, or the answer to the watch request) is
  delivered as an ``ERROR`` event and the stream ends: the informer relists
  and starts a new watch, as client-go does.
* ``stop()`` (any thread) ends it: nothing is delivered afterwards, and the
  blocking read is cut by shutting the connection down.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Sequence
from typing import Any

import orjson

from volcano.api.frozen import freeze
from volcano.api.kinds import KindInfo
from volcano.apiserver.client import WatchEvent
from volcano.apiserver.errors import ApiError
from volcano.kube.ratelimit import Backoff

__all__ = ["Dispatch", "WatchStream"]

Dispatch = Callable[..., None]
"""``dispatch(fn, *args)``: run ``fn(*args)`` on the owner thread, after everything dispatched before."""

_DELIVERED = frozenset({"ADDED", "MODIFIED", "DELETED"})


class WatchStream:
    """A running watch (see the module docstring); ``stop()`` ends it."""

    def __init__(self, client: Any, info: KindInfo, path: str, handler: Callable[[WatchEvent], None],
                 dispatch: Dispatch, *, resource_version: str, query: Sequence[tuple[str, str]] = (),
                 timeout_s: int = 290) -> None:
        self._client = client
        self.info = info
        self._path = path
        self._handler = handler
        self._dispatch = dispatch
        self.resource_version = resource_version
        self._query = list(query)
        self._timeout_s = timeout_s
        self._stopped = threading.Event()  # the owner stopped it
        self._done = threading.Event()  # the thread must end (stopped, or ended after an ERROR)
        self._response: Any = None
        self.connects = 0
        """Watch requests sent (1 + reconnections)."""
        self.bookmarks = 0
        self._thread = threading.Thread(target=self._run, name=f"watch-{info.plural}", daemon=True)
        self._thread.start()

    # -- the owner's side --------------------------------------------------------------------------
    def stop(self) -> None:
        """End the watch (any thread); no event is delivered afterwards."""
        self._stopped.set()
        self._done.set()
        response = self._response
        if response is not None:
            with contextlib.suppress(Exception):
                response.shutdown()

    @property
    def stopped(self) -> bool:
        """Whether the stream has ended (``stop`` was called, or an ERROR ended it)."""
        return self._done.is_set()

    def join(self, timeout: float | None = None) -> None:
        """Wait for the reading thread to end (after ``stop``)."""
        self._thread.join(timeout)

    def _deliver(self, event: WatchEvent) -> None:
        """Runs on the owner thread: call the handler unless the watch was stopped meanwhile."""
        if self._stopped.is_set():
            return
        self._handler(event)

    # -- the reading thread ------------------------------------------------------------------------
    def _run(self) -> None:
        backoff = Backoff(stop=self._done)
        while not self._done.is_set():
            try:
                ended_cleanly = self._watch_once()
            except ApiError as err:
                if err.code == 410:
                    self._end_with_error(err.status())
                    return
                ended_cleanly = False
            except Exception:  # a dropped connection, a malformed line: watch again
                ended_cleanly = False
            finally:
                self._response = None
            if ended_cleanly:
                backoff.reset()
            elif not backoff.wait():
                return

    def _watch_once(self) -> bool:
        """One watch request; True when the server ended it normally."""
        query = [*self._query, ("watch", "true"), ("resourceVersion", self.resource_version),
                 ("allowWatchBookmarks", "true"), ("timeoutSeconds", str(self._timeout_s))]
        self.connects += 1
        response = self._client.stream(self._path, query, read_timeout_s=self._timeout_s + 30)
        self._response = response
        if self._done.is_set():
            return True
        buffer = b""
        for chunk in response.stream(65536):
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                if line.strip() and not self._line(line):
                    return True
            if self._done.is_set():
                return True
        if buffer.strip():
            self._line(buffer)
        return True

    def _line(self, line: bytes) -> bool:
        """Handle one event line; False when the stream must end (an ERROR was delivered)."""
        event = orjson.loads(line)
        etype, obj = event.get("type"), event.get("object") or {}
        meta = obj.get("metadata") or {}
        if etype == "BOOKMARK":
            self.bookmarks += 1
            self.resource_version = meta.get("resourceVersion") or self.resource_version
            return True
        if etype == "ERROR":
            if obj.get("code") == 410:
                self._end_with_error(obj)
                return False
            raise ApiError(int(obj.get("code") or 500), str(obj.get("reason") or "InternalError"),
                           str(obj.get("message") or "watch error"))
        if etype not in _DELIVERED:
            return True
        obj.setdefault("apiVersion", self.info.api_version)
        obj.setdefault("kind", self.info.kind)
        self.resource_version = meta.get("resourceVersion") or self.resource_version
        self._dispatch(self._deliver, WatchEvent(etype, freeze(obj)))
        return True

    def _end_with_error(self, status: dict[str, Any]) -> None:
        if self._done.is_set():
            return
        self._done.set()
        self._dispatch(self._deliver, WatchEvent("ERROR", freeze(dict(status))))
