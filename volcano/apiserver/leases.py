"""Objects stored with a time to live: kube-apiserver's ``--event-ttl`` on the etcd lease model.

kube-apiserver stores every Event with a TTL (``--event-ttl``, one hour by default), reset by each
write of the Event (its registry's TTL function answers the same TTL on create and update). The
storage layer does not grant one etcd lease per write: its lease manager reuses the previous lease
while that lease expires no sooner than ``now + ttl`` and no later than ``now + ttl + reuse``, where
``reuse`` is the smaller of 60 seconds and 5% of the TTL, and while fewer than 1,000 objects were
attached to it; a new lease is granted for ``ttl + reuse``. When a lease expires, etcd deletes every
key still attached to it, with no admission and no finalizers, and watchers see each as DELETED.

``LeaseKeeper`` does the same on the cluster's clock: ``attach`` is called by the store after each
committed write of a kind with a TTL, and a timer at each lease's expiry removes the objects whose
latest write is still attached to that lease (in the order they were attached), through the store.

Deliberate differences (``docs/architecture.md``): the expiry runs at the lease's exact expiry
millisecond (etcd's lessor looks every 500 ms); each removal takes its own resourceVersion (etcd
deletes one lease's keys in one transaction, at one revision); and a write in the same millisecond
as the lease's grant reuses it (the manager's strict "later than" test sees nanoseconds pass between
two writes; a simulated millisecond does not pass).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from volcano.api.frozen import FrozenDict
from volcano.api.kinds import KindInfo
from volcano.sim.clock import Clock, Priority

__all__ = ["EVENT_TTL_S", "LeaseKeeper"]

EVENT_TTL_S = 3600
"""kube-apiserver's default ``--event-ttl`` (one hour), in seconds."""

_REUSE_S = 60
"""The lease manager's default reuse duration cap (``ReuseDurationSeconds``)."""
_REUSE_PERCENT = 0.05
"""The lease manager's reuse duration as a share of the TTL."""
_MAX_OBJECTS = 1000
"""The lease manager's default limit of objects attached to one lease (``MaxObjectCount``)."""

_Key = tuple[str, str, str]  # kind key, namespace, name
_Remover = Callable[[KindInfo, str, str], None]


@dataclass(eq=False)
class _Lease:
    """One granted lease: when it expires, and the objects attached to it in order (an object
    attached again to a later lease stays listed here, and is skipped at expiry)."""

    number: int
    expires_ms: int
    keys: list[tuple[KindInfo, _Key]] = field(default_factory=list)


class LeaseKeeper:
    """The leases of the objects stored with a TTL of ``ttl_s`` seconds, on ``clock``.

    ``remove(info, namespace, name)`` is called for each object whose lease expired while its latest
    write was attached to it; it removes the stored object, if any (the store's own removal: a
    DELETED watch event, no admission, no finalizers)."""

    def __init__(self, clock: Clock, ttl_s: int, remove: _Remover) -> None:
        if ttl_s <= 0:
            raise ValueError(f"ttl_s: expected a positive number of seconds, got {ttl_s}")
        self._clock = clock
        self._ttl_ms = ttl_s * 1000
        self._reuse_ms = min(_REUSE_S, int(_REUSE_PERCENT * ttl_s)) * 1000
        self._remove = remove
        self._prev: _Lease | None = None
        self._attached = 0
        self._granted = 0
        self._lease_of: dict[_Key, _Lease] = {}

    @property
    def leases_granted(self) -> int:
        """Leases granted so far (for tests and reports)."""
        return self._granted

    def expires_ms(self, kind_key: str, namespace: str, name: str) -> int | None:
        """When the object's latest write's lease expires (None: no lease holds it)."""
        lease = self._lease_of.get((kind_key, namespace, name))
        return None if lease is None else lease.expires_ms

    def attach(self, info: KindInfo, obj: FrozenDict) -> None:
        """Attach the object ``obj`` just written to the lease the lease manager gives a write now."""
        meta = obj["metadata"]
        key = (info.key, meta.get("namespace", ""), meta["name"])
        lease = self._lease()
        lease.keys.append((info, key))
        self._lease_of[key] = lease

    def _lease(self) -> _Lease:
        """The lease manager's ``GetLease``: the previous lease if it is valid, sufficient and not
        full, else a new lease of ``ttl + reuse`` (with a timer at its expiry)."""
        now = self._clock.now_ms
        self._attached += 1  # counted whether or not the lease is reused, as the manager does
        prev = self._prev
        if prev is not None and now + self._ttl_ms < prev.expires_ms \
                and now + self._ttl_ms + self._reuse_ms >= prev.expires_ms and self._attached <= _MAX_OBJECTS:
            return prev
        self._granted += 1
        lease = _Lease(self._granted, now + self._ttl_ms + self._reuse_ms)
        self._prev, self._attached = lease, 1
        self._clock.call_at(lease.expires_ms, self._expire, lease, priority=Priority.WATCH)
        return lease

    def _expire(self, lease: _Lease) -> None:
        lease_of = self._lease_of
        for info, key in lease.keys:
            if lease_of.get(key) is lease:
                del lease_of[key]
                self._remove(info, key[1], key[2])
        lease.keys.clear()
        if self._prev is lease:
            self._prev = None
