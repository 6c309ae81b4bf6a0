"""The ``Client`` protocol: how every component talks to the API server.

Components (scheduler, controllers, kubelet) read through watch-fed caches and
write only through a ``Client``. The protocol is deliberately small and shaped
like the Kubernetes REST API, so that an implementation over a real cluster
(the official ``kubernetes`` client) can replace the in-memory server without
touching any component.

Kinds are named as kubectl names them (``"Pod"``, ``"PodGroup"``, ``"Job"``
for Volcano's Job, ``"Job.batch"`` for Kubernetes' batch/v1 Job); see
``volcano.api.kinds``. Objects are Kubernetes-shaped dicts. Objects returned
by a client are read-only (``volcano.api.frozen``); ``thaw`` one to edit it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, NamedTuple, Protocol

__all__ = ["Client", "EventType", "Obj", "WatchEvent", "WatchHandle"]

Obj = dict[str, Any]
"""A Kubernetes-shaped object (``apiVersion``, ``kind``, ``metadata``, ``spec``, ``status``)."""

EventType = Literal["ADDED", "MODIFIED", "DELETED", "ERROR"]


class WatchEvent(NamedTuple):
    """One watch notification: the event type and the object after the change
    (for DELETED, the last state of the object, with the deletion's resourceVersion).

    ``ERROR`` carries a ``metav1.Status`` (e.g. 410 Gone when the watcher fell
    behind the retained history); the watch has ended and the reader must relist."""

    type: EventType
    object: Obj


class WatchHandle(Protocol):
    """A running watch; ``stop()`` ends it (no event is delivered afterwards)."""

    def stop(self) -> None:
        """End the watch."""


class Client(Protocol):
    """Kubernetes-shaped read/write access to a cluster.

    Every method raises ``volcano.apiserver.ApiError`` with the code and reason
    a real API server would use (NotFound, AlreadyExists, Conflict, Invalid,
    Forbidden, Gone, BadRequest).
    """

    def create(self, obj: Obj, *, namespace: str | None = None) -> Obj:
        """Create ``obj`` (admission runs first); return the stored object."""
        ...

    def get(self, kind: str, name: str, namespace: str | None = None) -> Obj:
        """The stored object, or NotFound."""
        ...

    def list(self, kind: str, namespace: str | None = None, *, label_selector: str | None = None,
             field_selector: str | None = None) -> Obj:
        """A ``<Kind>List`` dict: ``items`` sorted by (namespace, name) and
        ``metadata.resourceVersion`` to start a watch from."""
        ...

    def update(self, obj: Obj) -> Obj:
        """Replace spec and metadata (status is ignored for kinds with a status
        subresource). A stale ``metadata.resourceVersion`` is a Conflict; an
        empty one means "unconditional"."""
        ...

    def update_status(self, obj: Obj) -> Obj:
        """Replace only ``status`` (the ``/status`` subresource); same concurrency rule."""
        ...

    def patch(self, kind: str, name: str, patch: Any, namespace: str | None = None, *,
              subresource: str | None = None, patch_type: str | None = None, field_manager: str | None = None,
              force: bool | None = None) -> Obj:
        """Patch the object or its ``status`` subresource. ``patch_type`` names the body's type, as a
        short name or the PATCH media type: ``merge`` (RFC 7386, the default), ``json`` (RFC 6902
        operations), ``strategic`` (strategic merge patch; built-in kinds only, else 415) or ``apply``
        (server-side apply: needs ``field_manager``; ``force`` takes over conflicting fields; creates
        the object when absent). A ``metadata.resourceVersion`` the patched object carries is a
        precondition (stale: Conflict)."""
        ...

    def delete(self, kind: str, name: str, namespace: str | None = None, *,
               grace_period_seconds: int | None = None,
               propagation_policy: str | None = None,
               preconditions: Obj | None = None) -> Obj | None:
        """Delete an object. Returns the object if it still exists afterwards
        (finalizers, graceful pod deletion, foreground propagation), else None.
        ``propagation_policy`` is ``Background`` (default), ``Foreground`` or ``Orphan``;
        ``preconditions`` may hold ``uid`` and ``resourceVersion``."""
        ...

    def watch(self, kind: str, handler: Callable[[WatchEvent], None], namespace: str | None = None, *,
              resource_version: str | None = None, label_selector: str | None = None,
              field_selector: str | None = None) -> WatchHandle:
        """Deliver changes after ``resource_version`` (None = from now) to ``handler``,
        in order, never on the writer's stack. A compacted resourceVersion is Gone (410)."""
        ...

    def bind(self, name: str, namespace: str, node_name: str) -> None:
        """``pods/binding``: set ``spec.nodeName`` of an unbound pod (bound already: Conflict)."""
        ...

    def evict(self, name: str, namespace: str, *, grace_period_seconds: int | None = None) -> None:
        """``pods/eviction``: delete the pod gracefully through the eviction subresource."""
        ...
