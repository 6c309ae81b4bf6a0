"""Watch over HTTP: a chunked stream of newline-terminated ``{"type", "object"}`` lines.

``WatchStream`` registers an ``ApiServer`` watch whose handler (a clock
callback on the owner loop) puts each event on an asyncio queue; the stream
coroutine takes them off, encodes every batch as JSON lines (one ``Table`` row
per event when the client asked for Tables) and writes it. So an event leaves
as soon as the write that caused it commits and the owner settles the clock.

Semantics as on kube-apiserver:

* ``resourceVersion`` unset or ``"0"``: synthetic ADDED events for the current objects first;
  ``N``: every change after N; a compacted N: 200 and one ERROR event (410 ``Expired``), then
  the stream ends.
* ``labelSelector``/``fieldSelector`` filter events (an object leaving the selection is DELETED).
* ``timeoutSeconds``: the stream ends cleanly after that many wall seconds; without it the
  stream stays open (kubectl ``get -w`` exits when the server closes it).
* ``allowWatchBookmarks=true``: a BOOKMARK with the newest resourceVersion every
  ``bookmark_interval`` wall seconds; ``sendInitialEvents=true`` ends the initial events with a
  BOOKMARK annotated ``k8s.io/initial-events-end``.
* A client that disconnects (or a reader too slow to keep ``max_queue`` events buffered) ends
  the watch quietly; server shutdown ends every stream.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

from volcano.api.kinds import KindInfo
from volcano.apiserver import ApiError, ApiServer, WatchEvent
from volcano.httpapi.tables import to_table
from volcano.httpapi.wire import dumps

__all__ = ["EventLines", "WatchOptions", "WatchStream"]

Send = Callable[[dict[str, Any]], Awaitable[None]]
Receive = Callable[[], Awaitable[dict[str, Any]]]

_INITIAL_END = {"k8s.io/initial-events-end": "true"}


class EventLines:
    """Encoded watch lines shared by every watcher: one event object, encoded once.

    Stored objects are frozen and shared, so the same event reaches all watchers of a kind as the
    same object; the cache keeps the object itself beside its line, so a reused ``id`` never
    matches a different object."""

    def __init__(self, size: int = 4096) -> None:
        self._size = size
        self._lines: dict[tuple[int, str], tuple[Any, bytes]] = {}

    def line(self, event: WatchEvent) -> bytes:
        """``{"type": ..., "object": ...}\n`` for ``event``."""
        key = (id(event.object), event.type)
        hit = self._lines.get(key)
        if hit is not None and hit[0] is event.object:
            return hit[1]
        line = dumps({"type": event.type, "object": event.object}) + b"\n"
        if len(self._lines) >= self._size:
            self._lines.clear()
        self._lines[key] = (event.object, line)
        return line


class WatchOptions:
    """The watch parameters of one request."""

    __slots__ = ("bookmarks", "field_selector", "include_object", "initial_events", "label_selector",
                 "resource_version", "table", "timeout_s")

    def __init__(self, *, resource_version: str | None, label_selector: str | None, field_selector: str | None,
                 timeout_s: float | None, bookmarks: bool, initial_events: bool, table: bool,
                 include_object: str = "Metadata") -> None:
        self.resource_version = resource_version
        self.label_selector = label_selector
        self.field_selector = field_selector
        self.timeout_s = timeout_s
        self.bookmarks = bookmarks
        self.initial_events = initial_events
        self.table = table
        self.include_object = include_object


class WatchStream:
    """One HTTP watch (see the module docstring). ``settle`` runs the owner's due callbacks."""

    def __init__(self, server: ApiServer, info: KindInfo, namespace: str | None, opts: WatchOptions, *,
                 settle: Callable[[], None], stopping: asyncio.Event, bookmark_interval: float = 30.0,
                 max_queue: int = 50_000, lines: EventLines | None = None) -> None:
        self.server = server
        self.info = info
        self.namespace = namespace
        self.opts = opts
        self._settle = settle
        self._stopping = stopping
        self._bookmark_interval = bookmark_interval
        self._max_queue = max_queue
        self._queue: asyncio.Queue[WatchEvent | None] = asyncio.Queue()
        self._overflow = False
        self._lines = lines or EventLines(64)

    def _on_event(self, event: WatchEvent) -> None:
        if self._queue.qsize() >= self._max_queue:
            self._overflow = True
            self._queue.put_nowait(None)
            return
        self._queue.put_nowait(event)

    def start(self) -> Any:
        """Register the watch (raises ``ApiError`` for bad selectors; an expired resourceVersion is
        reported in the stream instead). Returns the handle, or None when expired."""
        rv = self.opts.resource_version
        start_rv = "0" if rv in (None, "", "0") else rv
        try:
            return self.server.watch(self.info.key, self._on_event, self.namespace, resource_version=start_rv,
                                     label_selector=self.opts.label_selector,
                                     field_selector=self.opts.field_selector)
        except ApiError as err:
            if err.code != 410:
                raise
            self._queue.put_nowait(WatchEvent("ERROR", err.status()))
            self._queue.put_nowait(None)
            return None

    def _line(self, event: WatchEvent) -> bytes:
        if self.opts.table and event.type not in ("ERROR", "BOOKMARK"):
            table = to_table(self.info, [event.object], self.server.clock, include_object=self.opts.include_object)
            return dumps({"type": event.type, "object": table}) + b"\n"
        if event.type in ("ADDED", "MODIFIED", "DELETED"):
            return self._lines.line(event)
        return dumps({"type": event.type, "object": event.object}) + b"\n"

    def _bookmark(self, initial_end: bool = False) -> WatchEvent:
        meta: dict[str, Any] = {"resourceVersion": self.server.resource_version}
        if initial_end:
            meta["annotations"] = dict(_INITIAL_END)
        return WatchEvent("BOOKMARK", {"kind": self.info.kind, "apiVersion": self.info.api_version,  # type: ignore[arg-type]
                                       "metadata": meta})

    async def run(self, send: Send, receive: Receive, headers: list[tuple[bytes, bytes]]) -> None:
        """Stream events until timeout, disconnect, overflow, an ERROR event, or shutdown."""
        handle = self.start()
        if self.opts.initial_events and handle is not None:
            self._settle()  # deliver the synthetic ADDED events now, then mark their end
            self._queue.put_nowait(self._bookmark(initial_end=True))
        else:
            self._settle()
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        disconnected = asyncio.ensure_future(self._wait_disconnect(receive))
        stopping = asyncio.ensure_future(self._stopping.wait())
        loop = asyncio.get_running_loop()
        deadline = None if self.opts.timeout_s is None else loop.time() + self.opts.timeout_s
        next_bookmark = loop.time() + self._bookmark_interval
        try:
            while True:
                now = loop.time()
                wait = next_bookmark - now if self.opts.bookmarks else None
                if deadline is not None:
                    wait = deadline - now if wait is None else min(wait, deadline - now)
                getter = asyncio.ensure_future(self._queue.get())
                done, _ = await asyncio.wait({getter, disconnected, stopping}, timeout=wait,
                                             return_when=asyncio.FIRST_COMPLETED)
                if getter not in done:
                    getter.cancel()
                    if disconnected in done or stopping in done:
                        return
                    if deadline is not None and loop.time() >= deadline:
                        return
                    await send({"type": "http.response.body", "body": self._line(self._bookmark()),
                                "more_body": True})
                    next_bookmark = loop.time() + self._bookmark_interval
                    continue
                batch = [getter.result()]
                while not self._queue.empty():
                    batch.append(self._queue.get_nowait())
                chunk = b"".join(self._line(ev) for ev in batch if ev is not None)
                if chunk:
                    await send({"type": "http.response.body", "body": chunk, "more_body": True})
                if None in batch or any(ev is not None and ev.type == "ERROR" for ev in batch):
                    return
        finally:
            if handle is not None:
                handle.stop()
            for task in (disconnected, stopping):
                task.cancel()
            with contextlib.suppress(Exception):
                await send({"type": "http.response.body", "body": b"", "more_body": False})

    @staticmethod
    async def _wait_disconnect(receive: Receive) -> None:
        while True:
            message = await receive()
            if message.get("type") == "http.disconnect":
                return
