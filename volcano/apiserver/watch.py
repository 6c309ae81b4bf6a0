"""The watch event log and its watchers.

Every committed write appends one event ``(resourceVersion, type, object,
previous object, status change)`` to the log of its kind (the status change:
``volcano.apiserver.changes``, None for most writes). Watchers keep a cursor into that
log; deliveries run as clock callbacks at ``Priority.WATCH`` (never on the
writer's stack), one callback per kind batching every pending event, in log
order. Objects are shared, never copied: they are frozen.

Each kind's log keeps at least ``history`` events. A watch asking for an older
resourceVersion fails with 410 Gone; a watcher that falls behind the retained
history receives one ``ERROR`` event carrying a Gone ``Status`` and stops, as
a real watch does.

A watcher receives ``WatchEvent(type, object)``; one started with ``changes``
(unfiltered, in-process only: ``ApiServer.watch_changes``) is called instead
as ``handler(type, object, previous object, status change)``, the previous
object None for ADDED and ERROR, the status change None but for a status-only
write.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from typing import Any

from volcano.api.frozen import FrozenDict
from volcano.api.selectors import FieldSelector, LabelSelector
from volcano.apiserver.client import WatchEvent
from volcano.apiserver.errors import gone
from volcano.sim.clock import Clock, Priority

__all__ = ["KindLog", "WatchHub", "Watcher"]

_Entry = tuple[str, Any, Any, Any]  # (type, object, previous object or None, status change or None)
_event: Any = tuple.__new__
"""``WatchEvent(type, object)`` without the named tuple's Python-level ``__new__`` (which is this
very call): one frame less per event and watcher."""


class Watcher:
    """One running watch (the ``WatchHandle`` the server returns)."""

    __slots__ = ("_initial", "changes", "cursor", "field", "handler", "label", "log", "namespace", "stopped")

    def __init__(self, log: KindLog, handler: Callable[..., None], namespace: str | None,
                 label: LabelSelector | None, field: FieldSelector | None, cursor: int,
                 initial: list[Any], changes: bool = False) -> None:
        self.log = log
        self.handler = handler
        self.changes = changes
        """Whether ``handler`` takes ``(type, object, previous, status change)`` (unfiltered only)."""
        self.namespace = namespace
        self.label = label
        self.field = field
        self.cursor = cursor
        self._initial = initial
        self.stopped = False

    def stop(self) -> None:
        """End the watch; no event is delivered afterwards."""
        if not self.stopped:
            self.stopped = True
            self.log.watchers.remove(self)

    def _selects(self, obj: Any) -> bool:
        if self.label is not None and not self.label.matches(obj["metadata"].get("labels")):
            return False
        return self.field is None or self.field.matches(obj)

    def _convert(self, entry: _Entry) -> WatchEvent | None:
        """The event this watcher sees for ``entry`` (None = filtered out), with Kubernetes' rule
        that an object entering a selection is ADDED and one leaving it is DELETED; as the watch
        cache sends it, the DELETED carries the object as it was while selected (the previous
        object) with the resourceVersion of the write that moved it out."""
        etype, obj, old, _ = entry
        if self.namespace is not None and obj["metadata"].get("namespace", "") != self.namespace:
            return None
        if self.label is None and self.field is None:
            return WatchEvent(etype, obj)  # type: ignore[arg-type]
        now = self._selects(obj)
        if etype == "MODIFIED" and old is not None:
            before = self._selects(old)
            if now and not before:
                return WatchEvent("ADDED", obj)
            if before and not now:
                meta = FrozenDict(old["metadata"], resourceVersion=obj["metadata"]["resourceVersion"])
                return WatchEvent("DELETED", FrozenDict(old, metadata=meta))
        return WatchEvent(etype, obj) if now else None  # type: ignore[arg-type]

    def _deliver(self, end: int) -> None:
        log = self.log
        if self._initial:
            initial, self._initial = self._initial, []
            for obj in initial:
                if self.stopped:
                    return
                if self.changes:
                    self.handler("ADDED", obj, None, None)
                    continue
                ev = self._convert(("ADDED", obj, None, None))
                if ev is not None:
                    self.handler(ev)
        changes = self.changes
        unfiltered = self.namespace is None and self.label is None and self.field is None
        while self.cursor < end and not self.stopped:
            if self.cursor < log.base:
                self.stop()
                status = gone(f"too old resource version: {log.compacted_rv} ({log.oldest_rv()})").status()
                if changes:
                    self.handler("ERROR", status, None, None)
                else:
                    self.handler(WatchEvent("ERROR", status))
                return
            entry = log.events[self.cursor - log.base]
            self.cursor += 1
            if changes:  # unfiltered, the entry itself
                self.handler(*entry)
                continue
            if unfiltered:  # ``_convert`` without a filter: the entry as it is
                self.handler(_event(WatchEvent, (entry[0], entry[1])))
                continue
            ev = self._convert(entry)
            if ev is not None:
                self.handler(ev)


class KindLog:
    """The retained events of one kind, and the watchers reading them."""

    __slots__ = ("base", "compacted_rv", "events", "pending", "rvs", "watchers")

    def __init__(self) -> None:
        self.events: list[_Entry] = []
        self.rvs: list[int] = []
        self.base = 0  # absolute index of events[0]
        self.compacted_rv = 0  # resourceVersion of the newest dropped event
        self.watchers: list[Watcher] = []
        self.pending = False

    @property
    def end(self) -> int:
        """Absolute index one past the newest event."""
        return self.base + len(self.events)

    def oldest_rv(self) -> int:
        """resourceVersion of the oldest retained event (0 when none)."""
        return self.rvs[0] if self.rvs else 0

    def compact(self, keep: int) -> None:
        """Drop all but the newest ``keep`` events."""
        drop = len(self.events) - keep
        if drop <= 0:
            return
        self.compacted_rv = self.rvs[drop - 1]
        del self.events[:drop]
        del self.rvs[:drop]
        self.base += drop


class WatchHub:
    """All kinds' logs; schedules deliveries on the clock."""

    def __init__(self, clock: Clock, history: int) -> None:
        if history < 1:
            raise ValueError(f"watch_history must be at least 1, got {history}")
        self._clock = clock
        self.history = history
        self._slack = max(1, history // 2)
        self._logs: dict[str, KindLog] = {}

    def log(self, kind_key: str) -> KindLog:
        """The log of ``kind_key`` (created empty on first use)."""
        log = self._logs.get(kind_key)
        if log is None:
            log = self._logs[kind_key] = KindLog()
        return log

    def append(self, kind_key: str, rv: int, etype: str, obj: Any, old: Any, change: Any = None) -> None:
        """Record one committed write (``change``: its status change, if any) and schedule
        delivery to the kind's watchers."""
        log = self._logs.get(kind_key)
        if log is None:
            log = self.log(kind_key)
        log.events.append((etype, obj, old, change))
        log.rvs.append(rv)
        if len(log.events) > self.history + self._slack:
            log.compact(self.history)
        if log.watchers and not log.pending:
            self._schedule(kind_key, log)

    def compact_all(self, keep: int = 1) -> None:
        """Drop all but the newest ``keep`` events of every kind (etcd compaction): a watcher still
        behind the retained history receives 410 Gone at its next delivery."""
        for kind_key in sorted(self._logs):
            log = self._logs[kind_key]
            log.compact(keep)
            if log.watchers and not log.pending and any(w.cursor < log.base for w in log.watchers):
                self._schedule(kind_key, log)

    def _schedule(self, kind_key: str, log: KindLog) -> None:
        log.pending = True
        self._clock.call_later(0, self._dispatch, kind_key, priority=Priority.WATCH)

    def _dispatch(self, kind_key: str) -> None:
        log = self._logs[kind_key]
        log.pending = False
        end = log.end
        for watcher in list(log.watchers):
            if not watcher.stopped:
                watcher._deliver(end)

    def start(self, kind_key: str, handler: Callable[..., None], namespace: str | None,
              label: LabelSelector | None, field: FieldSelector | None, after_rv: int | None,
              initial: list[Any], *, changes: bool = False) -> Watcher:
        """A watcher of ``kind_key`` receiving ``initial`` objects as ADDED, then every event with a
        resourceVersion above ``after_rv`` (None = from now). Gone when ``after_rv`` was compacted.
        With ``changes`` (no namespace or selector), ``handler`` takes the entries themselves (see
        the module docstring)."""
        if changes and (namespace is not None or label is not None or field is not None):
            raise ValueError("a watch with status changes is unfiltered")
        log = self.log(kind_key)
        if after_rv is None:
            cursor = log.end
        else:
            if after_rv < log.compacted_rv:
                raise gone(f"too old resource version: {after_rv} ({log.oldest_rv()})")
            cursor = log.base + bisect_right(log.rvs, after_rv)
        watcher = Watcher(log, handler, namespace, label, field, cursor, initial, changes)
        log.watchers.append(watcher)
        if (initial or cursor < log.end) and not log.pending:
            self._schedule(kind_key, log)
        return watcher
