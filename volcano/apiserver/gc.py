"""Garbage collection through ``ownerReferences``, as Kubernetes' GC controller does it.

The collector keeps an index owner uid -> dependent uids, updated on every
committed write, so finding an owner's dependents never scans the store. Work
runs asynchronously, as clock callbacks at ``Priority.CONTROLLER``:

* an owner is gone: each dependent none of whose owners still exists is
  deleted (Background); a dependent that still has a live owner loses the
  dangling reference;
* an owner carries the ``orphan`` finalizer: every dependent loses its
  reference to the owner, then the finalizer is removed;
* an owner carries the ``foregroundDeletion`` finalizer: every dependent is
  deleted (Foreground when it has dependents of its own), and the finalizer is
  removed once no dependent with ``blockOwnerDeletion: true`` remains;
* a dependent written with references none of which names a live object is
  deleted, as the real collector does after its lookup.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from volcano.api.frozen import thaw
from volcano.sim.clock import Clock, Priority

if TYPE_CHECKING:
    from volcano.apiserver.server import ApiServer

__all__ = ["FOREGROUND", "ORPHAN", "GarbageCollector"]

FOREGROUND = "foregroundDeletion"
"""Finalizer of an owner deleted with propagation Foreground."""
ORPHAN = "orphan"
"""Finalizer of an owner deleted with propagation Orphan."""


def _owner_uids(obj: Any) -> list[str]:
    refs = obj["metadata"].get("ownerReferences") or ()
    return [r["uid"] for r in refs]


class GarbageCollector:
    """Owner -> dependents index and the asynchronous collection work of one server."""

    def __init__(self, server: ApiServer, clock: Clock) -> None:
        self._server = server
        self._clock = clock
        self._deps: dict[str, dict[str, None]] = {}
        self._pending_owners: set[str] = set()
        self._pending_deps: set[str] = set()

    # -- index ------------------------------------------------------------------------------
    def track(self, old: Any, new: Any) -> None:
        """Update the index for a write from ``old`` to ``new`` (either may be None) and
        schedule the collection work the write makes necessary. A write that keeps the very
        ``ownerReferences`` object (a status write, an update whose references the store shared)
        of an object not being deleted needs nothing: its owners are the same and ``_after_write``
        acts only on a deletion."""
        if old is not None and new is not None:
            meta = new["metadata"]
            if meta.get("ownerReferences") is old["metadata"].get("ownerReferences") \
                    and not meta.get("deletionTimestamp"):
                return
        old_uids = _owner_uids(old) if old is not None else []
        new_uids = _owner_uids(new) if new is not None else []
        if old_uids == new_uids and old is not None and new is not None:
            self._after_write(old, new)
            return
        uid = (new if new is not None else old)["metadata"]["uid"]
        for owner in old_uids:
            if owner not in new_uids:
                deps = self._deps.get(owner)
                if deps is not None:
                    deps.pop(uid, None)
                    if not deps:
                        del self._deps[owner]
                self._owner_may_unblock(owner)
        for owner in new_uids:
            if owner not in old_uids:
                self._deps.setdefault(owner, {})[uid] = None
        if new is not None and new_uids and any(not self._server.uid_exists(o) for o in new_uids):
            self._schedule_dependent(uid)
        if new is not None:
            self._after_write(old, new)
        else:
            # The object is gone: its dependents may now be orphaned.
            if uid in self._deps:
                self._schedule_owner(uid)

    def _after_write(self, old: Any, new: Any) -> None:
        fins = new["metadata"].get("finalizers") or ()
        if new["metadata"].get("deletionTimestamp") and (FOREGROUND in fins or ORPHAN in fins):
            self._schedule_owner(new["metadata"]["uid"])

    def _owner_may_unblock(self, owner_uid: str) -> None:
        owner = self._server.get_by_uid(owner_uid)
        if owner is not None and FOREGROUND in (owner["metadata"].get("finalizers") or ()):
            self._schedule_owner(owner_uid)

    def dependents(self, owner_uid: str) -> list[Any]:
        """The live dependents of ``owner_uid``, sorted by (kind, namespace, name)."""
        deps = self._deps.get(owner_uid)
        if not deps:
            return []
        out = [o for o in (self._server.get_by_uid(u) for u in deps) if o is not None]
        out.sort(key=lambda o: (o["kind"], o["metadata"].get("namespace", ""), o["metadata"]["name"]))
        return out

    def has_dependents(self, owner_uid: str) -> bool:
        """Whether any object names ``owner_uid`` as an owner."""
        return bool(self._deps.get(owner_uid))

    # -- scheduling ---------------------------------------------------------------------------
    def _schedule_owner(self, uid: str) -> None:
        if uid not in self._pending_owners:
            self._pending_owners.add(uid)
            self._clock.call_later(0, self._process_owner, uid, priority=Priority.CONTROLLER)

    def _schedule_dependent(self, uid: str) -> None:
        if uid not in self._pending_deps:
            self._pending_deps.add(uid)
            self._clock.call_later(0, self._process_dependent, uid, priority=Priority.CONTROLLER)

    # -- work -------------------------------------------------------------------------------
    def _process_owner(self, uid: str) -> None:
        self._pending_owners.discard(uid)
        server = self._server
        owner = server.get_by_uid(uid)
        if owner is None:
            for dep in self.dependents(uid):
                self._collect_dependent(dep)
            return
        meta = owner["metadata"]
        fins = list(meta.get("finalizers") or ())
        if not meta.get("deletionTimestamp"):
            return
        if ORPHAN in fins:
            for dep in self.dependents(uid):
                self._drop_refs(dep, {uid})
            server.remove_finalizer(owner, ORPHAN)
        elif FOREGROUND in fins:
            blocking = False
            for dep in self.dependents(uid):
                if not dep["metadata"].get("deletionTimestamp"):
                    policy = "Foreground" if self.has_dependents(dep["metadata"]["uid"]) else "Background"
                    server.gc_delete(dep, policy)
                if server.get_by_uid(dep["metadata"]["uid"]) is not None and any(
                        r["uid"] == uid and r.get("blockOwnerDeletion")
                        for r in dep["metadata"].get("ownerReferences") or ()):
                    blocking = True
            if not blocking:
                server.remove_finalizer(owner, FOREGROUND)

    def _process_dependent(self, uid: str) -> None:
        self._pending_deps.discard(uid)
        dep = self._server.get_by_uid(uid)
        if dep is not None:
            self._collect_dependent(dep)

    def _collect_dependent(self, dep: Any) -> None:
        """Delete ``dep`` when none of its owners exists; else drop its dangling references."""
        server = self._server
        owners = _owner_uids(dep)
        dangling = {u for u in owners if not server.uid_exists(u)}
        if not dangling:
            return
        if len(dangling) == len(set(owners)):
            if not dep["metadata"].get("deletionTimestamp"):
                server.gc_delete(dep, "Background")
        else:
            self._drop_refs(dep, dangling)

    def _drop_refs(self, dep: Any, uids: set[str]) -> None:
        new = thaw(dep)
        refs = [r for r in new["metadata"].get("ownerReferences") or () if r["uid"] not in uids]
        if refs:
            new["metadata"]["ownerReferences"] = refs
        else:
            new["metadata"].pop("ownerReferences", None)
        self._server.gc_update(dep, new)
