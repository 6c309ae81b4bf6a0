"""The Job controller's own writes laid over a watch-fed informer until the informer sees them.

A controller that processes several requests back to back must not act on an
informer that has not yet delivered the controller's own last writes: after a
kill, the next request would otherwise still see the killed pods alive and the
deleted PodGroup present, and recompute counters (or reopen the pod-creation
gate) from that stale picture. ``WriteOverlay`` remembers, per object, what the
controller wrote:

* an object returned by create / update / patch / a graceful delete (it carries
  its new ``resourceVersion``): it replaces the informer's copy until the
  informer's ``resource_version`` reaches that value;
* an object the store removed at once (delete returned nothing): it is hidden
  until the informer has caught up with the last version the controller knew
  of it and no longer holds an object of that name with that uid.

Entries are grouped under a caller-chosen key (the Job's ``<ns>/<name>`` for
pods) so that a group can be listed and forgotten in one step. Resource
versions are integers from one global counter, as the API server issues them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from volcano.apiserver.client import Obj

__all__ = ["VersionedInformer", "WriteOverlay"]


class VersionedInformer(Protocol):
    """The part of an informer the overlay reads."""

    resource_version: str

    def get(self, name: str, namespace: str | None = None) -> Obj | None:
        """Cached object or None."""
        ...


@dataclass(frozen=True, slots=True)
class _Entry:
    uid: str
    rv: int
    obj: Obj | None  # None: removed from the store


def _rv(obj: Mapping[str, Any]) -> int:
    try:
        return int((obj.get("metadata") or {}).get("resourceVersion") or -1)
    except (TypeError, ValueError):
        return -1


def _uid(obj: Mapping[str, Any] | None) -> str:
    return str(((obj or {}).get("metadata") or {}).get("uid") or "")


class WriteOverlay:
    """See the module docstring."""

    def __init__(self, informer: VersionedInformer) -> None:
        self._informer = informer
        self._entries: dict[tuple[str, str], _Entry] = {}
        self._groups: dict[str, dict[tuple[str, str], None]] = {}
        self._group_of: dict[tuple[str, str], str] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def _informer_rv(self) -> int:
        try:
            return int(self._informer.resource_version)
        except (TypeError, ValueError):
            return -1

    def _put(self, namespace: str, name: str, entry: _Entry, group: str) -> None:
        key = (namespace, name)
        previous = self._group_of.get(key)
        if previous is not None and previous != group:
            self._drop(key)
        self._entries[key] = entry
        self._group_of[key] = group
        self._groups.setdefault(group, {})[key] = None

    def _drop(self, key: tuple[str, str]) -> None:
        self._entries.pop(key, None)
        group = self._group_of.pop(key, None)
        if group is not None:
            keys = self._groups.get(group)
            if keys is not None:
                keys.pop(key, None)
                if not keys:
                    del self._groups[group]

    def wrote(self, obj: Obj, group: str = "") -> None:
        """Remember an object as the store returned it after one of our writes."""
        meta = obj["metadata"]
        self._put(str(meta.get("namespace") or ""), str(meta["name"]), _Entry(_uid(obj), _rv(obj), obj), group)

    def removed(self, obj: Mapping[str, Any], group: str = "") -> None:
        """Remember that the store no longer holds ``obj`` (same namespace, name and uid)."""
        meta = obj["metadata"]
        self._put(str(meta.get("namespace") or ""), str(meta["name"]), _Entry(_uid(obj), _rv(obj), None), group)

    def forget_group(self, group: str) -> None:
        """Drop every entry of ``group``."""
        for key in list(self._groups.get(group, {})):
            self._drop(key)

    def resolve(self, namespace: str, name: str, cached: Obj | None) -> Obj | None:
        """The controller's view of one object, given the informer's copy ``cached``."""
        key = (namespace, name)
        entry = self._entries.get(key)
        if entry is None:
            return cached
        caught_up = self._informer_rv() >= entry.rv
        if entry.obj is None:
            if not caught_up or (cached is not None and _uid(cached) == entry.uid):
                return None
            self._drop(key)
            return cached
        if caught_up:
            self._drop(key)
            return cached
        return entry.obj

    def get(self, name: str, namespace: str = "") -> Obj | None:
        """The controller's view of one object (informer copy with our writes laid over it)."""
        return self.resolve(namespace, name, self._informer.get(name, namespace or None))

    def group_names(self, group: str) -> list[str]:
        """Names with an entry in ``group`` (sorted)."""
        return sorted(name for _, name in self._groups.get(group, {}))
