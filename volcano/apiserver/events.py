"""Kubernetes Events (core/v1) recorded by components, with client-go's aggregation.

``EventRecorder.event(obj, type, reason, message)`` writes an ``Event`` in the
involved object's namespace (``default`` for cluster-scoped objects). A repeat
with the same source, involved object, type, reason and message is not a new
object: as client-go's event correlator does, the recorder patches the
existing Event's ``count`` (+1) and ``lastTimestamp``. Writes go through the
``Client``, synchronously; the recorder never reads the wall clock.

When the client is the in-process ``ApiServer`` itself (not a wrapper), a new
Event is written with ``ApiServer.create_event``: the same stored object and the
same errors as ``create``, without the steps that cannot change or reject an
Event of exactly the shape the recorder builds (``is_recorded_event``).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from volcano.api.frozen import FrozenDict
from volcano.apiserver.client import Client, Obj
from volcano.apiserver.errors import ApiError
from volcano.sim.clock import Clock

__all__ = ["EVENT_KEYS", "EVENT_TYPES", "EventRecorder", "is_recorded_event"]

EVENT_TYPES = ("Normal", "Warning")
"""The event types Kubernetes accepts."""

EVENT_KEYS = frozenset({"apiVersion", "kind", "metadata", "involvedObject", "reason", "message", "source",
                        "firstTimestamp", "lastTimestamp", "count", "type", "eventTime", "reportingComponent",
                        "reportingInstance"})
"""The top-level fields of an Event the recorder creates."""

_MAPS = (dict, FrozenDict)
"""The ``source`` types of a recorded Event: the recorder shares one frozen ``source`` among its Events."""
_INVOLVED_KEYS = frozenset({"kind", "name", "namespace", "uid", "apiVersion", "resourceVersion"})
_STRINGS = ("reason", "message", "type", "reportingComponent", "reportingInstance")


def is_recorded_event(event: Any, now: str) -> bool:
    """Whether ``event`` has exactly the shape ``EventRecorder`` creates, at clock time ``now``
    (the clock's RFC 3339 timestamp): ``v1`` ``Event``, metadata of only a string name and
    namespace, an involvedObject of string fields, string reason/message/type/reporting fields,
    a source (a dict, or the recorder's shared frozen one) of one string component, both
    timestamps ``now``, ``count`` 1 and no ``eventTime``.

    Such an object decodes as a ``v1.Event`` whatever the strings hold (the Event schema checks
    only JSON types, integer ranges and the time formats), gets no defaults and no status reset:
    that is what lets ``ApiServer.create_event`` skip those steps."""
    if type(event) is not dict or event.keys() != EVENT_KEYS:
        return False
    if event["apiVersion"] != "v1" or event["kind"] != "Event" or event["eventTime"] is not None:
        return False
    meta, involved, source = event["metadata"], event["involvedObject"], event["source"]
    if type(meta) is not dict or meta.keys() != {"namespace", "name"} \
            or type(meta["namespace"]) is not str or type(meta["name"]) is not str:
        return False
    if type(involved) is not dict or not involved.keys() <= _INVOLVED_KEYS \
            or any(type(v) is not str for v in involved.values()):
        return False
    if type(source) not in _MAPS or source.keys() != {"component"} or type(source["component"]) is not str:
        return False
    if any(type(event[k]) is not str for k in _STRINGS):
        return False
    count = event["count"]
    return type(count) is int and count == 1 and event["firstTimestamp"] == now and event["lastTimestamp"] == now



class EventRecorder:
    """Records Events for one component (``source.component`` and ``reportingComponent``)."""

    def __init__(self, client: Client, clock: Clock, component: str) -> None:
        if not isinstance(component, str) or not component:
            raise ValueError(f"EventRecorder: component must be a non-empty string, got {component!r}")
        self._client = client
        self._clock = clock
        self.component = component
        self._source = FrozenDict({"component": component})
        """Every Event's ``source``, one read-only object shared by all of them (the store keeps
        frozen parts as they are: one dict for all the component's Events instead of one each)."""
        self._seen: dict[tuple[str, ...], tuple[str, str, int]] = {}  # key -> (namespace, name, count)
        # The server's Event fast path, only when the client is the server itself: a wrapper (retries,
        # injected faults, HTTP) keeps its own create, whatever attributes it forwards.
        fast = type(client).__dict__.get("create_event")
        self._create: Callable[[dict[str, Any]], Any] = partial(fast, client) if fast is not None else client.create

    def event(self, obj: Obj, type: str, reason: str, message: str) -> None:
        """Record that ``reason``/``message`` happened to ``obj`` (``type`` Normal or Warning)."""
        if type not in EVENT_TYPES:
            raise ValueError(f"event type must be one of {EVENT_TYPES}, got {type!r}")
        meta = obj.get("metadata") or {}
        name = meta.get("name")
        if not name:
            raise ValueError(f"event {reason!r}: the involved object has no metadata.name: {obj!r}")
        involved: dict[str, Any] = {"kind": obj.get("kind", ""), "name": name}
        if meta.get("namespace"):
            involved["namespace"] = meta["namespace"]
        involved["uid"] = meta.get("uid", "")
        involved["apiVersion"] = obj.get("apiVersion", "")
        involved["resourceVersion"] = meta.get("resourceVersion", "")
        namespace = meta.get("namespace") or "default"
        key = (self.component, involved["kind"], involved["apiVersion"], namespace, name, involved["uid"],
               type, reason, message)
        now = self._clock.timestamp()
        seen = self._seen.get(key)
        if seen is not None:
            ev_ns, ev_name, count = seen
            try:
                self._client.patch("Event", ev_name, {"count": count + 1, "lastTimestamp": now}, ev_ns)
                self._seen[key] = (ev_ns, ev_name, count + 1)
                return
            except ApiError as exc:
                if exc.code != 404:
                    raise
        ev_meta: dict[str, Any] = {"namespace": namespace}
        event: dict[str, Any] = {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": ev_meta,
            "involvedObject": involved,
            "reason": reason,
            "message": message,
            "source": self._source,
            "firstTimestamp": now,
            "lastTimestamp": now,
            "count": 1,
            "type": type,
            "eventTime": None,
            "reportingComponent": self.component,
            "reportingInstance": "",
        }
        stamp = self._clock.unix_ns()
        while True:
            ev_meta["name"] = f"{name}.{stamp:x}"
            try:
                self._create(dict(event, metadata=dict(ev_meta)))
                break
            except ApiError as exc:
                if exc.reason == "Forbidden":
                    return  # e.g. a terminating namespace; client-go drops a rejected event (no retry)
                if exc.reason != "AlreadyExists":
                    raise
                stamp += 1
        if len(self._seen) >= 4096:  # a bounded cache, as client-go's LRU
            del self._seen[next(iter(self._seen))]
        self._seen[key] = (namespace, ev_meta["name"], 1)
