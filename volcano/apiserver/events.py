"""Kubernetes Events (core/v1) recorded by components, with client-go's aggregation.

``EventRecorder.event(obj, type, reason, message)`` writes an ``Event`` in the
involved object's namespace (``default`` for cluster-scoped objects). A repeat
with the same source, involved object, type, reason and message is not a new
object: as client-go's event correlator does, the recorder patches the
existing Event's ``count`` (+1) and ``lastTimestamp``. Writes go through the
``Client``, synchronously; the recorder never reads the wall clock.
"""

from __future__ import annotations

from typing import Any

from volcano.apiserver.client import Client, Obj
from volcano.apiserver.errors import ApiError
from volcano.sim.clock import Clock

__all__ = ["EVENT_TYPES", "EventRecorder"]

EVENT_TYPES = ("Normal", "Warning")
"""The event types Kubernetes accepts."""



class EventRecorder:
    """Records Events for one component (``source.component`` and ``reportingComponent``)."""

    def __init__(self, client: Client, clock: Clock, component: str) -> None:
        if not isinstance(component, str) or not component:
            raise ValueError(f"EventRecorder: component must be a non-empty string, got {component!r}")
        self._client = client
        self._clock = clock
        self.component = component
        self._seen: dict[tuple[str, ...], tuple[str, str, int]] = {}  # key -> (namespace, name, count)

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
            "source": {"component": self.component},
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
                self._client.create(event)
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
