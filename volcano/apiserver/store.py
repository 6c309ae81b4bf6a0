"""The object store under the API server: frozen objects, one resourceVersion counter, the watch log.

``ObjectStore`` keeps every stored object of every kind, indexed by kind,
namespace and name, and by uid. Its three writes (``insert``, ``replace``,
``remove``) are the only places a resourceVersion is taken: each freezes the
new object, bumps the single global counter, stores the object, appends one
event to the kind's watch log and tells the garbage collector's tracker what
changed; ``insert`` and ``replace`` of a kind stored with a time to live also
attach the object to its lease (``expiring``). (``replace_status`` serves kinds
with a status subresource, which no such kind has.) It runs no admission and checks nothing: the ``ApiServer`` verbs do
that before they call it. Reads return the stored frozen objects themselves.

Inside ``dry_run()`` the three writes compute and return the object they would
store (frozen; ``resourceVersion`` unchanged) and change nothing: no object,
counter, watch event or tracker call (``dryRun=All``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from volcano.api.frozen import FrozenDict, FrozenList, freeze
from volcano.api.kinds import KindInfo, resolve_kind
from volcano.apiserver.changes import StatusChange, status_change
from volcano.apiserver.errors import not_found
from volcano.apiserver.meta import resource_name
from volcano.apiserver.watch import WatchHub

__all__ = ["ObjectStore", "Tracker", "share_unchanged"]

Tracker = Callable[[Any, Any], None]
"""``fn(old, new)`` called after every committed write (``old`` None on insert, ``new`` None on remove)."""

_Bucket = dict[str, dict[str, FrozenDict]]  # namespace -> name -> object
_UNSTATED = object()
"""``replace_status``'s ``change`` when the caller states none."""


def share_unchanged(old: FrozenDict, new: dict[str, Any]) -> None:
    """Put ``old``'s frozen value in place of each top-level and ``metadata`` value of ``new``
    that is the same value (equal, and equal by ``repr``, so that ``1``, ``1.0`` and ``True`` or a
    tuple and a list still differ), so that freezing ``new`` copies only what changed and readers
    see unchanged parts as the very same objects: ``freeze`` would build an equal copy."""
    # Only a plain dict or list can be ``old``'s frozen part (``_same``), and ``old``'s parts are
    # frozen: the type test alone passes over every other value, first and cheaply.
    for part, value in list(new.items()):
        t = type(value)
        if (t is dict or t is list) and part != "metadata":
            before = old.get(part, _ABSENT)
            if _same(before, value):
                new[part] = before
    meta, old_meta = new.get("metadata"), old.get("metadata")
    if type(meta) is dict and type(old_meta) is FrozenDict:
        for field, value in list(meta.items()):
            t = type(value)
            if t is dict or t is list:
                before = old_meta.get(field, _ABSENT)
                if _same(before, value):
                    meta[field] = before


_ABSENT = object()


def _text_map(value: Any) -> bool:
    """Whether every key and value of the mapping ``value`` is exactly a ``str``."""
    return all(type(k) is str and type(v) is str for k, v in value.items())


def _same(frozen: Any, value: Any) -> bool:
    """Whether ``frozen`` (a stored value) is the frozen form of the plain container ``value``."""
    t = type(value)
    if not ((t is dict and type(frozen) is FrozenDict) or (t is list and type(frozen) is FrozenList)):
        return False
    if t is dict and type(frozen) is FrozenDict and _text_map(value) and _text_map(frozen):
        # Labels, annotations: for maps of exact strings, equal ``repr`` is equal items in order.
        return list(frozen.items()) == list(value.items())
    try:
        return bool(frozen == value) and repr(frozen) == repr(value)
    except RecursionError:
        return False


class ObjectStore:
    """Every stored object, the global resourceVersion and the watch log (see the module docstring)."""

    def __init__(self, hub: WatchHub) -> None:
        self.hub = hub
        self.tracker: Tracker | None = None
        self.expiring: dict[str, Callable[[KindInfo, FrozenDict], None]] = {}
        """By kind key, ``attach(info, obj)`` called after each insert or replace of a kind stored
        with a time to live (``volcano.apiserver.leases``)."""
        self._rv = 0
        self._objects: dict[str, _Bucket] = {}
        self._by_uid: dict[str, tuple[KindInfo, str, str]] = {}
        self._sorted: dict[str, list[tuple[str, str]] | None] = {}
        self._dry = 0

    @contextmanager
    def dry_run(self) -> Iterator[None]:
        """Within the block, writes return what they would store and store nothing."""
        self._dry += 1
        try:
            yield
        finally:
            self._dry -= 1

    @property
    def dry(self) -> bool:
        """Whether writes are dry runs now."""
        return self._dry > 0

    @property
    def resource_version(self) -> int:
        """The newest resourceVersion."""
        return self._rv

    # -- reads -------------------------------------------------------------------------------------
    def lookup(self, info: KindInfo, namespace: str, name: str) -> FrozenDict | None:
        """The stored object, or None."""
        bucket = self._objects.get(info.key)
        if bucket is None:
            return None
        ns = bucket.get(namespace)
        return ns.get(name) if ns is not None else None

    def require(self, info: KindInfo, namespace: str, name: str) -> FrozenDict:
        """The stored object, or NotFound (``pods "x" not found``)."""
        obj = self.lookup(info, namespace, name)
        if obj is None:
            raise not_found(resource_name(info), name)
        return obj

    def get_by_uid(self, uid: str) -> FrozenDict | None:
        """The live object with ``uid``, or None."""
        where = self._by_uid.get(uid)
        return self.lookup(*where) if where is not None else None

    def uid_exists(self, uid: str) -> bool:
        """Whether an object with ``uid`` is stored."""
        return uid in self._by_uid

    def iter(self, info: KindInfo, namespace: str | None) -> Iterator[FrozenDict]:
        """Objects of ``info`` (in ``namespace``, or all when None) sorted by (namespace, name)."""
        bucket = self._objects.get(info.key)
        if not bucket:
            return
        if namespace is not None and info.namespaced:
            names = bucket.get(namespace)
            if names:
                for name in sorted(names):
                    yield names[name]
            return
        keys = self._sorted.get(info.key)
        if keys is None:
            keys = sorted((ns, n) for ns, names in bucket.items() for n in names)
            self._sorted[info.key] = keys
        for ns, name in keys:
            yield bucket[ns][name]

    def kind_keys(self) -> list[str]:
        """Keys of the kinds that have ever held an object, sorted."""
        return sorted(self._objects)

    def snapshot(self) -> dict[str, list[Any]]:
        """Every stored object by kind key, each list sorted (for tests and debugging)."""
        return {key: list(self.iter(resolve_kind(key), None)) for key in self.kind_keys()}

    # -- writes ------------------------------------------------------------------------------------
    def _next_rv(self, new: dict[str, Any]) -> int:
        meta = new["metadata"]
        if type(meta) is FrozenDict:
            meta = new["metadata"] = dict(meta)
        self._rv += 1
        meta["resourceVersion"] = str(self._rv)
        return self._rv

    def insert(self, info: KindInfo, new: dict[str, Any]) -> FrozenDict:
        """Store a new object (its metadata complete but for resourceVersion); ADDED."""
        if self._dry:
            return freeze(new)
        rv = self._next_rv(new)
        meta = new["metadata"]
        obj: FrozenDict = freeze(new)
        ns, name = meta.get("namespace", ""), meta["name"]
        key = info.key
        bucket = self._objects.get(key)
        if bucket is None:
            bucket = self._objects[key] = {}
        names = bucket.get(ns)
        if names is None:
            names = bucket[ns] = {}
        names[name] = obj
        self._sorted[key] = None
        self._by_uid[meta["uid"]] = (info, ns, name)
        self.hub.append(key, rv, "ADDED", obj, None)
        if self.tracker is not None:
            self.tracker(None, obj)
        if key in self.expiring:
            self.expiring[key](info, obj)
        return obj

    def replace(self, info: KindInfo, old: FrozenDict, new: dict[str, Any]) -> FrozenDict:
        """Store ``new`` over the stored ``old``; MODIFIED. Parts of ``new`` equal to the same
        parts of ``old`` (top-level fields and metadata fields) are stored as ``old``'s frozen
        parts (``share_unchanged``)."""
        if self._dry:
            new["metadata"] = {**new["metadata"], "resourceVersion": old["metadata"]["resourceVersion"]}
            return freeze(new)
        rv = self._next_rv(new)
        meta = new["metadata"]
        share_unchanged(old, new)
        obj: FrozenDict = freeze(new)
        self._objects[info.key][meta.get("namespace", "")][meta["name"]] = obj
        self.hub.append(info.key, rv, "MODIFIED", obj, old)
        if self.tracker is not None:
            self.tracker(old, obj)
        if info.key in self.expiring:
            self.expiring[info.key](info, obj)
        return obj

    def replace_status(self, info: KindInfo, old: FrozenDict, status: FrozenDict,
                       change: StatusChange | object | None = _UNSTATED) -> FrozenDict:
        """``replace(info, old, new)`` for the ``new`` that is ``old`` with its status replaced by the
        frozen ``status`` and nothing else changed: the same stored object (``old``'s parts, its
        metadata with the new resourceVersion, ``status``), built at once without ``share_unchanged``
        and ``freeze`` walking parts that are frozen already. Its watch event carries the
        write's status change (``volcano.apiserver.changes``): ``change`` when the caller states it
        (what ``status_change(old, status)`` answers), else computed."""
        if self._dry:
            return self.replace(info, old, {**old, "metadata": dict(old["metadata"]), "status": status})
        self._rv += 1
        rv = self._rv
        meta = old["metadata"]
        # ``dict(mapping, **fields)``: a copy whose named keys are replaced in place (new ones last).
        obj = FrozenDict(old, metadata=FrozenDict(meta, resourceVersion=str(rv)), status=status)
        self._objects[info.key][meta.get("namespace", "")][meta["name"]] = obj
        self.hub.append(info.key, rv, "MODIFIED", obj, old,
                        status_change(old, status) if change is _UNSTATED else change)
        if self.tracker is not None:
            self.tracker(old, obj)
        return obj

    def remove(self, info: KindInfo, old: FrozenDict) -> FrozenDict:
        """Remove the stored ``old``; DELETED carries its last state with the deletion's resourceVersion."""
        if self._dry:
            return old
        meta = old["metadata"]
        ns, name = meta.get("namespace", ""), meta["name"]
        names = self._objects[info.key][ns]
        del names[name]
        if not names:
            del self._objects[info.key][ns]
        self._sorted[info.key] = None
        self._by_uid.pop(meta["uid"], None)
        self._rv += 1
        final = FrozenDict({**old, "metadata": FrozenDict({**meta, "resourceVersion": str(self._rv)})})
        self.hub.append(info.key, self._rv, "DELETED", final, old)
        if self.tracker is not None:
            self.tracker(old, None)
        return final
