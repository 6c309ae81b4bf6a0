"""Fault injection between components and the in-memory API server, from seeded streams.

``FaultPlan`` holds the knobs; ``FaultyClient`` wraps an ``ApiServer`` (any
``Client``) and is what the components are given, so faults hit the traffic a
real network and a real API server would disturb, while a test's own setup
writes stay reliable:

``write_failure_rate``
    That fraction of writes (create, update, update_status, patch, delete,
    bind, evict) fails with one of ``write_failure_codes``: 409 Conflict (only
    updates, which carry a resourceVersion), 429
    TooManyRequests, 500 InternalError before anything is stored, or 504
    Timeout *after* the write was stored (the client cannot tell whether it
    took effect, as with a real request timeout).
``watch_drop_every_ms``
    Every so often every watch opened through the client is dropped: the
    watcher receives an ``ERROR`` event and must relist, as client-go's
    reflector does after a failed watch.
``compact_every_ms``
    Every so often the server's watch history is compacted to the newest
    event: a watcher still behind receives 410 Gone and must relist.

``fail_next(verb, kind, name, namespace, times=, code=)``
    A targeted fault, beside the plan: the next ``times`` writes of that verb
    on that object fail with ``code`` (any of ``FAULT_CODES``, 409 by
    default), whatever the rate. The verb is the client's (``create``,
    ``update``, ``patch``, ``delete``, ``bind``, ``evict``), or ``status``
    for a status write (``update_status``, or a patch of the ``status``
    subresource). It draws nothing from the stream, so a case can make one
    bind fail, one pod delete be refused or one status write fail.

Node failure and recovery, and pod failures with chosen exit codes, are
scheduled on the cluster's kubelet by ``volcano.testbed`` (``FakeCluster``'s
``fail_node``/``recover_node``/``fail_pod``).

Every decision draws from the ``faults`` stream of the cluster's
``RandomStreams`` (or the stream named by ``stream``), so a seed replays the
same faults. ``stats`` counts what was injected.

Over HTTP (``volcano serve --fault-*``) a second ``FaultyClient`` stands
between the REST handlers and the server, drawing from its own stream: a
client sees a failed write as the Status body of its code (``Conflict``,
``TooManyRequests`` with ``retryAfterSeconds``, ``InternalError``,
``Timeout``), and a dropped watch as an ``ERROR`` event (500
``InternalError``) after which the server ends the response, as
kube-apiserver ends a watch whose storage watch failed; the client must
watch again from its last resourceVersion, or relist after 410 Gone.

``inject_stored_object`` puts an object into storage as it is, skipping
validation: an object written before validation existed, the poison pill
every component must survive.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from volcano.api.kinds import UnknownKindError, kind_for_object, resolve_kind
from volcano.apiserver.client import Obj, WatchEvent, WatchHandle
from volcano.apiserver.deletion import tracks_generation
from volcano.apiserver.errors import ApiError
from volcano.sim.clock import Clock, Priority
from volcano.sim.rand import RandomStreams

__all__ = ["FAULT_CODES", "FaultPlan", "FaultStats", "FaultyClient", "inject_stored_object", "injected_error"]

FAULT_CODES = (409, 429, 500, 504)
"""Codes a failed write may get: Conflict, TooManyRequests, InternalError, Timeout (after storing)."""

_WRITES = ("create", "update", "update_status", "patch", "delete", "bind", "evict")


@dataclass(frozen=True, slots=True)
class FaultPlan:
    """The fault knobs (see the module docstring); all off by default."""

    write_failure_rate: float = 0.0
    write_failure_codes: tuple[int, ...] = FAULT_CODES
    watch_drop_every_ms: int | None = None
    compact_every_ms: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.write_failure_rate, int | float) or not 0.0 <= self.write_failure_rate <= 1.0:
            raise ValueError(f"write_failure_rate must be within [0, 1], got {self.write_failure_rate!r}")
        unknown = sorted(set(self.write_failure_codes) - set(FAULT_CODES))
        if unknown or not self.write_failure_codes:
            raise ValueError(f"write_failure_codes must be among {FAULT_CODES}, got {self.write_failure_codes!r}")
        for name in ("watch_drop_every_ms", "compact_every_ms"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value <= 0):
                raise ValueError(f"{name} must be a positive integer (ms) or None, got {value!r}")


@dataclass(slots=True)
class FaultStats:
    """What was injected: failed writes by code, watches dropped, compactions."""

    writes: int = 0
    failed_writes: dict[int, int] = field(default_factory=dict)
    watches_dropped: int = 0
    compactions: int = 0

    @property
    def injected(self) -> int:
        """Every fault injected so far."""
        return sum(self.failed_writes.values()) + self.watches_dropped + self.compactions


def injected_error(code: int, verb: str, what: str) -> ApiError:
    """The error a client sees for an injected failure with ``code``; ``what`` names the object as
    ``pods "p"`` (a Conflict's details then name it as kube-apiserver's do)."""
    if code == 409:
        resource, _, quoted = what.partition(" ")
        return ApiError(409, "Conflict", f"Operation cannot be fulfilled on {what}: the object has been modified; "
                                         "please apply your changes to the latest version and try again",
                        {"name": quoted.strip('"'), "kind": resource})
    if code == 429:
        return ApiError(429, "TooManyRequests", "the server has received too many requests and has asked us to "
                                                "try again later", {"retryAfterSeconds": 1})
    if code == 500:
        cause = f"{verb} {what}: injected fault"
        return ApiError(500, "InternalError", f"Internal error occurred: {cause}", {"causes": [{"message": cause}]})
    return ApiError(504, "Timeout", "the server was unable to return a response in the time allotted, but may "
                                    "still be processing the request")


class _DroppableWatch:
    """A watch opened through the faulty client; ``drop`` ends it with an ERROR event."""

    __slots__ = ("handle", "handler", "stopped")

    def __init__(self, handler: Callable[[WatchEvent], None]) -> None:
        self.handler = handler
        self.handle: WatchHandle | None = None
        self.stopped = False

    def stop(self) -> None:
        self.stopped = True
        if self.handle is not None:
            self.handle.stop()

    def drop(self) -> None:
        if self.stopped:
            return
        self.stop()
        status = ApiError(500, "InternalError", "watch connection dropped (injected fault)").status()
        self.handler(WatchEvent("ERROR", status))


class FaultyClient:
    """A ``Client`` that forwards to ``server`` and injects the faults of ``plan`` (see module docstring)."""

    def __init__(self, server: Any, plan: FaultPlan, clock: Clock, streams: RandomStreams, *,
                 stream: str = "faults") -> None:
        self._server = server
        self.plan = plan
        self._clock = clock
        self._rng = streams.stream(stream)
        self.stats = FaultStats()
        self._watches: list[_DroppableWatch] = []
        self.enabled = True
        self._targets: dict[tuple[str, str, str, str], list[int]] = {}
        if plan.watch_drop_every_ms is not None:
            clock.call_every(plan.watch_drop_every_ms, self.drop_watches, priority=Priority.DEFAULT)
        if plan.compact_every_ms is not None:
            clock.call_every(plan.compact_every_ms, self.compact, priority=Priority.DEFAULT)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._server, name)

    # -- targeted faults ---------------------------------------------------------------------------
    def fail_next(self, verb: str, kind: str, name: str, namespace: str = "", *, times: int = 1,
                  code: int = 409) -> None:
        """The next ``times`` ``verb`` writes of object ``kind``/``namespace``/``name`` fail with ``code``
        (see the module docstring; ``namespace`` "" for a cluster-scoped object)."""
        if code not in FAULT_CODES:
            raise ValueError(f"code must be among {FAULT_CODES}, got {code!r}")
        self._targets.setdefault((verb, resolve_kind(kind).kind, namespace, name), []).extend([code] * times)

    def _due(self, verb: str, kind: Any, name: Any, namespace: Any) -> int | None:
        """The code of a targeted fault due on this write (taken), or None."""
        if not self._targets:
            return None
        try:
            kind = resolve_kind(str(kind)).kind
        except UnknownKindError:
            return None
        codes = self._targets.get((verb, kind, namespace or "", name))
        return codes.pop(0) if codes else None

    def _due_obj(self, verb: str, obj: Any, namespace: str | None = None) -> int | None:
        """``_due`` for a write that carries the object."""
        meta = (obj.get("metadata") if isinstance(obj, dict) else None) or {}
        return self._due(verb, obj.get("kind") if isinstance(obj, dict) else None, meta.get("name"),
                         namespace or meta.get("namespace"))

    # -- writes ------------------------------------------------------------------------------------
    def _write(self, verb: str, what: str, call: Callable[[], Any], code: int | None = None) -> Any:
        self.stats.writes += 1
        if code is None:
            if not self.enabled or self.plan.write_failure_rate <= 0 \
                    or self._rng.random() >= self.plan.write_failure_rate:
                return call()
            codes = self.plan.write_failure_codes
            if verb not in ("update", "update_status") and len(codes) > 1:
                # only a write carrying a resourceVersion conflicts
                codes = tuple(c for c in codes if c != 409) or codes
            code = self._rng.choice(codes)
        self.stats.failed_writes[code] = self.stats.failed_writes.get(code, 0) + 1
        if code == 504:
            call()  # stored; the answer is lost
        raise injected_error(code, verb, what)

    def create(self, obj: Obj, *, namespace: str | None = None) -> Obj:
        """``Client.create``, possibly failing."""
        return self._write("create", _what(obj), lambda: self._server.create(obj, namespace=namespace),
                           self._due_obj("create", obj, namespace))

    def update(self, obj: Obj) -> Obj:
        """``Client.update``, possibly failing."""
        return self._write("update", _what(obj), lambda: self._server.update(obj), self._due_obj("update", obj))

    def update_status(self, obj: Obj) -> Obj:
        """``Client.update_status``, possibly failing."""
        return self._write("update_status", _what(obj), lambda: self._server.update_status(obj),
                           self._due_obj("status", obj))

    def patch(self, kind: str, name: str, patch: Any, namespace: str | None = None, *,
              subresource: str | None = None, patch_type: str | None = None, field_manager: str | None = None,
              force: bool | None = None) -> Obj:
        """``Client.patch``, possibly failing."""
        return self._write("patch", _named(kind, name), lambda: self._server.patch(
            kind, name, patch, namespace, subresource=subresource, patch_type=patch_type,
            field_manager=field_manager, force=force),
            self._due("status" if subresource == "status" else "patch", kind, name, namespace))

    def delete(self, kind: str, name: str, namespace: str | None = None, **options: Any) -> Obj | None:
        """``Client.delete``, possibly failing."""
        return self._write("delete", _named(kind, name), lambda: self._server.delete(kind, name, namespace, **options),
                           self._due("delete", kind, name, namespace))

    def bind(self, name: str, namespace: str, node_name: str) -> None:
        """``pods/binding``, possibly failing."""
        self._write("bind", _named("Pod", name), lambda: self._server.bind(name, namespace, node_name),
                    self._due("bind", "Pod", name, namespace))

    def evict(self, name: str, namespace: str, **options: Any) -> None:
        """``pods/eviction``, possibly failing."""
        self._write("evict", _named("Pod", name), lambda: self._server.evict(name, namespace, **options),
                    self._due("evict", "Pod", name, namespace))

    # -- watches -----------------------------------------------------------------------------------
    def watch(self, kind: str, handler: Callable[[WatchEvent], None], namespace: str | None = None,
              **options: Any) -> WatchHandle:
        """``Client.watch``; the watch may be dropped later (an ERROR event, then the reader relists)."""
        watch = _DroppableWatch(handler)

        def deliver(event: WatchEvent) -> None:
            if not watch.stopped:
                handler(event)
        watch.handle = self._server.watch(kind, deliver, namespace, **options)
        self._watches = [w for w in self._watches if not w.stopped]
        self._watches.append(watch)
        return watch

    def drop_watches(self) -> None:
        """Drop every open watch now."""
        if not self.enabled:
            return
        live = [w for w in self._watches if not w.stopped]
        self._watches = []
        for watch in live:
            self.stats.watches_dropped += 1
            watch.drop()

    def compact(self) -> None:
        """Compact the server's watch history to its newest event (lagging watchers get 410 Gone)."""
        if not self.enabled:
            return
        compact = getattr(self._server, "compact_watch_history", None)
        if compact is not None:
            compact()
            self.stats.compactions += 1


def _named(kind: str, name: Any) -> str:
    """``pods "p"``: the object as Kubernetes names it in messages (the kind as given when unknown)."""
    try:
        resource = resolve_kind(kind).resource
    except UnknownKindError:
        resource = kind
    return f'{resource} "{name}"'


def _what(obj: Any) -> str:
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    name = meta.get("name") if isinstance(meta, dict) else None
    try:
        resource = kind_for_object(obj).resource
    except (UnknownKindError, TypeError, AttributeError, KeyError):
        resource = str(obj.get("kind") if isinstance(obj, dict) else type(obj).__name__)
    return f'{resource} "{name}"'


def inject_stored_object(server: Any, obj: Obj) -> Obj:
    """Store ``obj`` as it is, skipping decoding, defaulting, validation and admission: an object written
    before validation existed, or straight into storage. Server fields (uid, resourceVersion, creation
    time, default namespace, and ``generation`` 1 for kinds that keep one, none for the others) are set
    as a create sets them; returns the stored object."""
    info = kind_for_object(obj)
    new = dict(obj)
    meta = new["metadata"] = dict(obj["metadata"])
    if info.namespaced:
        meta["namespace"] = meta.get("namespace") or "default"
    else:
        meta.pop("namespace", None)
    meta["uid"] = server.streams.uid()
    meta["creationTimestamp"] = server.timestamp()
    if tracks_generation(info):
        meta["generation"] = 1
    else:
        meta.pop("generation", None)
    stored: Obj = server.store.insert(info, new)
    return stored
