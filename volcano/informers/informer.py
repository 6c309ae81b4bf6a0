"""A shared informer: a list+watch cache of one kind, with handlers and indexes.

The informer lists the kind once (synchronously, so the cache is full as soon
as the informer exists), then watches from the list's resourceVersion. Watch
events arrive as clock callbacks at ``Priority.WATCH``; each updates the cache
and then calls every handler as ``fn(event_type, obj, old)``; a handler that
cannot read an invalid object skips it (``volcano.informers.poison``). When the watch
reports 410 Gone the informer relists, emits the difference (ADDED, MODIFIED,
DELETED) and watches again, as client-go's reflector does.

A handler added when the cache already holds objects first receives them as
ADDED (sorted by namespace/name) through a clock callback; events that arrive
before that replay are held back and delivered after it, so every handler sees
a consistent history.

Over the in-process server (``ApiServer.watch_changes``) the informer also
learns each event's status change (``volcano.apiserver.changes``): for a
status-only write, the status properties it replaced, every other part being
the cached version's own object. It trusts the statement only when the
server's previous version is the very object it caches (always, while it
watches without a gap), and while the handlers run it is ``Informer.change``.
A handler may declare the status properties it ignores (``add_handler(fn,
ignores=...)``): a MODIFIED event whose status change lies within them is not
delivered to it. The declaration is the handler's promise that such an event
would change nothing it keeps or does (it reads none of those properties nor
the resourceVersion, and needs no reference to the newest version). Indexes
whose ``GuardedIndex`` test holds for every status-only write
(``indexfn.STATUS_BLIND``) are not looked at for such an event. Over any other
client nothing is known and every handler receives every event.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import Any

from volcano.api.kinds import KindInfo, resolve_kind
from volcano.apiserver.changes import StatusChange
from volcano.apiserver.client import Client, Obj, WatchEvent, WatchHandle
from volcano.informers.indexfn import STATUS_BLIND, GuardedIndex, IndexGuard
from volcano.informers.poison import DATA_ERRORS, UnusableObjects, component_of
from volcano.sim.clock import Clock, Priority

__all__ = ["Handler", "Informer", "namespace_index"]

Handler = Callable[[str, Obj, Obj | None], None]
"""``fn(event_type, obj, old)``: event_type ADDED | MODIFIED | DELETED; for DELETED ``obj`` is the final state."""

_Key = tuple[str, str]


def _key(obj: Obj) -> _Key:
    meta = obj["metadata"]
    return meta.get("namespace", ""), meta["name"]


class _HandlerSlot:
    __slots__ = ("fn", "ignores", "pending")

    def __init__(self, fn: Handler, pending: list[tuple[str, Obj, Obj | None]] | None,
                 ignores: frozenset[str]) -> None:
        self.fn = fn
        self.pending = pending
        self.ignores = ignores


class Informer:
    """The watch-fed cache of one kind (create through ``InformerFactory.informer``)."""

    def __init__(self, client: Client, clock: Clock, kind: str, *, unusable: UnusableObjects | None = None) -> None:
        self.kind_info: KindInfo = resolve_kind(kind)
        self.kind = self.kind_info.key
        self._client = client
        self._clock = clock
        self._cache: dict[_Key, Obj] = {}
        self._sorted: list[_Key] | None = None
        self._ns_names: dict[str, dict[str, None]] = {}
        self._handlers: tuple[_HandlerSlot, ...] = ()
        """In the order added; replaced (never edited) on add, so a loop over it sees the handlers
        that existed when the loop began."""
        self._indexers: dict[str, Callable[[Obj], list[str]]] = {}
        self._guards: dict[str, IndexGuard | None] = {}
        """Each index's ``GuardedIndex.unchanged`` test (None: the function is called on every update)."""
        self._indexes: dict[str, dict[str, dict[_Key, None]]] = {}
        self._status_blind = True
        """Whether every index is a ``GuardedIndex`` whose test is in ``STATUS_BLIND``."""
        self._ignoring = False
        """Whether some handler declared status properties it ignores."""
        self.change: StatusChange | None = None
        """While the handlers of a watch event run: the event's status change, when the server
        stated one and it is relative to the version the handlers saw before (else None)."""
        self._watch: WatchHandle | None = None
        self.unusable = unusable if unusable is not None else UnusableObjects()
        self.resource_version = "0"
        self.relists = 0
        self._start(initial=True)

    # -- list + watch -------------------------------------------------------------------------------
    def _start(self, *, initial: bool) -> None:
        listing = self._client.list(self.kind)
        items = listing["items"]
        new = {_key(o): o for o in items}
        old = dict(self._cache)
        events: list[tuple[str, Obj, Obj | None]] = []
        if not initial:
            for key in sorted(old):
                if key not in new:
                    events.append(("DELETED", old[key], old[key]))
            for key in sorted(new):
                prev = old.get(key)
                if prev is None:
                    events.append(("ADDED", new[key], None))
                elif prev["metadata"].get("resourceVersion") != new[key]["metadata"].get("resourceVersion"):
                    events.append(("MODIFIED", new[key], prev))
        for etype, obj, prev in events:
            self._apply(etype, obj, prev)
        if initial:
            for obj in items:
                self._apply("ADDED", obj, None, notify=False)
        self.resource_version = listing["metadata"]["resourceVersion"]
        # The in-process server itself (not a wrapper, not over HTTP) states status changes.
        watch_changes: Any = type(self._client).__dict__.get("watch_changes")
        if watch_changes is not None:
            self._watch = watch_changes(self._client, self.kind, self._on_change,
                                        resource_version=self.resource_version)
        else:
            self._watch = self._client.watch(self.kind, self._on_event, resource_version=self.resource_version)

    def _on_event(self, event: WatchEvent) -> None:
        if event.type == "ERROR":
            self.relists += 1
            self._watch = None
            self._start(initial=False)
            return
        obj = event.object
        meta = obj["metadata"]
        self.resource_version = meta["resourceVersion"]
        key = meta.get("namespace", ""), meta["name"]
        self._apply(event.type, obj, self._cache.get(key), key=key)

    def _on_change(self, etype: str, obj: Obj, previous: Obj | None, change: StatusChange | None) -> None:
        """``_on_event`` for ``ApiServer.watch_changes``: ``change`` is kept when ``previous`` (the
        server's version before the event) is the cached one."""
        if etype == "ERROR":
            self.relists += 1
            self._watch = None
            self._start(initial=False)
            return
        meta = obj["metadata"]
        self.resource_version = meta["resourceVersion"]
        key = meta.get("namespace", ""), meta["name"]
        old = self._cache.get(key)
        self._apply(etype, obj, old, key=key, change=change if old is previous else None)

    def resync(self) -> None:
        """Deliver every cached object to the handlers again as ``MODIFIED`` with ``old`` the same
        object (client-go's periodic resync: level-triggered handlers reconcile everything again)."""
        for key in sorted(self._cache):
            obj = self._cache[key]
            for slot in self._handlers:
                if slot.pending is not None:
                    slot.pending.append(("MODIFIED", obj, obj))
                else:
                    self._call(slot.fn, "MODIFIED", obj, obj)

    def stop(self) -> None:
        """Stop watching (the cache stays as it is)."""
        if self._watch is not None:
            self._watch.stop()
            self._watch = None

    # -- cache ---------------------------------------------------------------------------------------
    def _apply(self, etype: str, obj: Obj, old: Obj | None, *, notify: bool = True,
               key: _Key | None = None, change: StatusChange | None = None) -> None:
        if key is None:
            key = _key(obj)
        if etype == "DELETED":
            if self._cache.pop(key, None) is not None:
                self._sorted = None
                names = self._ns_names[key[0]]
                del names[key[1]]
                if not names:
                    del self._ns_names[key[0]]
        else:
            if key not in self._cache:
                self._sorted = None
                self._ns_names.setdefault(key[0], {})[key[1]] = None
            self._cache[key] = obj
        if self._indexers and (change is None or not self._status_blind):
            self._reindex(key, old, None if etype == "DELETED" else obj)
        if notify:
            skip = change is not None and self._ignoring
            self.change = change
            try:
                for slot in self._handlers:
                    if slot.pending is not None:
                        slot.pending.append((etype, obj, old))
                        continue
                    if skip and change <= slot.ignores:  # type: ignore[operator]  # ``skip``: not None
                        continue
                    try:  # _call inlined: every watch event reaches every handler through here
                        slot.fn(etype, obj, old)
                    except DATA_ERRORS as exc:  # one unusable object must not stop the component
                        self.unusable.handle(component_of(slot.fn), obj, exc)
            finally:
                self.change = None

    def _reindex(self, key: _Key, old: Obj | None, new: Obj | None) -> None:
        """Move ``key`` from ``old``'s index values to ``new``'s (an update that keeps its values,
        as most do, leaves the index as it is: buckets are sets, read sorted). An update that a
        ``GuardedIndex``'s test shows cannot change its values does not call the function."""
        guards = self._guards
        for name, fn in self._indexers.items():
            if old is not None and new is not None:
                guard = guards[name]
                if guard is not None and guard(old, new):  # the same values, neither call raising
                    continue
            # ``_index_values`` inlined (every watch event of an indexed kind runs this): the same
            # calls and error handling, in the same order (``old``'s values, then ``new``'s).
            before: list[str] = []
            if old is not None:
                try:
                    before = fn(old)
                except DATA_ERRORS as exc:
                    self.unusable.handle(component_of(fn), old, exc)
            after: list[str] = []
            if new is not None:
                try:
                    after = fn(new)
                except DATA_ERRORS as exc:
                    self.unusable.handle(component_of(fn), new, exc)
            if before == after and old is not None and new is not None:
                continue
            index = self._indexes[name]
            if old is not None:
                for value in before:
                    bucket = index.get(value)
                    if bucket is not None:
                        bucket.pop(key, None)
                        if not bucket:
                            del index[value]
            if new is not None:
                for value in after:
                    index.setdefault(value, {})[key] = None

    def _ns(self, namespace: str | None) -> str:
        if not self.kind_info.namespaced:
            return ""
        return "default" if namespace is None else namespace

    def get(self, name: str, namespace: str | None = None) -> Obj | None:
        """The cached object (``namespace`` defaults to ``default`` for namespaced kinds), or None."""
        return self._cache.get((self._ns(namespace), name))

    def list(self, namespace: str | None = None) -> list[Obj]:
        """Cached objects (of ``namespace``, or all), sorted by namespace then name."""
        cache = self._cache
        if namespace is not None and self.kind_info.namespaced:
            names = self._ns_names.get(namespace)
            return [cache[(namespace, n)] for n in sorted(names)] if names else []
        if self._sorted is None:
            self._sorted = sorted(cache)
        return [cache[k] for k in self._sorted]

    def __len__(self) -> int:
        return len(self._cache)

    # -- handlers and indexes ------------------------------------------------------------------------
    def add_handler(self, fn: Handler, *, ignores: frozenset[str] = frozenset()) -> None:
        """Call ``fn(event_type, obj, old)`` for every change; replay existing objects as ADDED first.
        ``ignores``: status properties whose change alone ``fn`` need not see (see the module
        docstring for the promise this makes)."""
        if not callable(fn):
            raise ValueError(f"informer handler must be callable, got {fn!r}")
        ignores = frozenset(ignores)
        if ignores:
            self._ignoring = True
        existing = self.list()
        if not existing:
            self._handlers = (*self._handlers, _HandlerSlot(fn, None, ignores))
            return
        slot = _HandlerSlot(fn, [("ADDED", obj, None) for obj in existing], ignores)
        self._handlers = (*self._handlers, slot)
        self._clock.call_later(0, self._replay, slot, priority=Priority.WATCH)

    def _replay(self, slot: _HandlerSlot) -> None:
        pending = slot.pending or []
        i = 0
        while i < len(pending):
            etype, obj, old = pending[i]
            i += 1
            self._call(slot.fn, etype, obj, old)
        slot.pending = None

    def _call(self, fn: Handler, etype: str, obj: Obj, old: Obj | None) -> None:
        try:
            fn(etype, obj, old)
        except DATA_ERRORS as exc:  # one unusable object must not stop the component
            self.unusable.handle(component_of(fn), obj, exc)

    def add_index(self, name: str, fn: Callable[[Obj], builtins.list[str]]) -> None:
        """Maintain index ``name``: ``fn(obj)`` lists the values under which ``obj`` is found (a
        ``GuardedIndex`` is not called for an update its ``unchanged`` test passes)."""
        if name in self._indexers:
            raise ValueError(f"informer for {self.kind}: index {name!r} already exists")
        self._indexers[name] = fn
        self._guards[name] = guard = fn.unchanged if isinstance(fn, GuardedIndex) else None
        if guard not in STATUS_BLIND:
            self._status_blind = False
        index: dict[str, dict[_Key, None]] = {}
        self._indexes[name] = index
        for key in sorted(self._cache):
            for value in fn(self._cache[key]):
                index.setdefault(value, {})[key] = None

    def by_index(self, name: str, value: str) -> builtins.list[Obj]:
        """Cached objects indexed under ``value`` by index ``name``, sorted by namespace then name."""
        index = self._indexes.get(name)
        if index is None:
            raise KeyError(f"informer for {self.kind}: no index named {name!r}")
        keys = index.get(value)
        if not keys:
            return []
        return [self._cache[k] for k in sorted(keys)]

    def index_values(self, name: str) -> builtins.list[str]:
        """Every value of index ``name`` that has objects, sorted."""
        index = self._indexes.get(name)
        if index is None:
            raise KeyError(f"informer for {self.kind}: no index named {name!r}")
        return sorted(index)


def namespace_index(obj: Any) -> list[str]:
    """An index function: the object's namespace."""
    return [obj["metadata"].get("namespace", "")]

