"""Read access the admission rules need to other objects (queues, namespaces, priority classes).

Rules take a ``ClusterView`` so they stay pure and testable with plain dicts
(``StaticView``); ``ClientView`` answers from the API server's client, as
Volcano's webhooks answer from their informers and clients.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol

from volcano.apiserver.client import Client
from volcano.apiserver.errors import ApiError

__all__ = ["ClientView", "ClusterView", "StaticView", "queue_parent"]

_QUEUE = "Queue.scheduling.volcano.sh"


def queue_parent(queue: Mapping[str, Any]) -> str:
    """The queue's effective parent: ``spec.parent``, ``root`` when empty (none for ``root`` itself)."""
    name = (queue.get("metadata") or {}).get("name")
    parent = (queue.get("spec") or {}).get("parent") or ""
    if name == "root":
        return ""
    return str(parent) or "root"


class ClusterView(Protocol):
    """What admission reads: queues, namespaces and priority classes."""

    def queue(self, name: str) -> Mapping[str, Any] | None:
        """The queue ``name``, or None."""
        ...

    def queues(self) -> list[Mapping[str, Any]]:
        """Every queue, sorted by name."""
        ...

    def namespace(self, name: str) -> Mapping[str, Any] | None:
        """The namespace ``name``, or None."""
        ...

    def priority_classes(self) -> list[Mapping[str, Any]]:
        """Every PriorityClass, sorted by name."""
        ...


def _name(obj: Mapping[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("name") or "")


class StaticView:
    """A ``ClusterView`` over fixed lists of objects (for tests and offline checks)."""

    def __init__(self, queues: Iterable[Mapping[str, Any]] = (), namespaces: Iterable[Mapping[str, Any]] = (),
                 priority_classes: Iterable[Mapping[str, Any]] = ()) -> None:
        self._queues = {_name(q): q for q in queues}
        self._namespaces = {_name(n): n for n in namespaces}
        self._classes = sorted(priority_classes, key=_name)

    def queue(self, name: str) -> Mapping[str, Any] | None:
        """The queue ``name``, or None."""
        return self._queues.get(name)

    def queues(self) -> list[Mapping[str, Any]]:
        """Every queue, sorted by name."""
        return [self._queues[k] for k in sorted(self._queues)]

    def namespace(self, name: str) -> Mapping[str, Any] | None:
        """The namespace ``name``, or None."""
        return self._namespaces.get(name)

    def priority_classes(self) -> list[Mapping[str, Any]]:
        """Every PriorityClass, sorted by name."""
        return list(self._classes)


_PRIORITY_CLASS = "PriorityClass.scheduling.k8s.io"


class ClientView:
    """A ``ClusterView`` that reads through a ``Client``.

    The list of PriorityClasses (read for every pod created) is kept between calls when the
    client tells when a kind changes (``kind_revision(kind_key)``, as ``ApiServer`` does): it is
    listed again only after a PriorityClass was written, so every answer equals a fresh list."""

    def __init__(self, client: Client) -> None:
        self._client = client
        self._revision: Callable[[str], int] | None = getattr(client, "kind_revision", None)
        self._classes: tuple[int, list[Mapping[str, Any]]] | None = None

    def _get(self, kind: str, name: str) -> Mapping[str, Any] | None:
        try:
            return self._client.get(kind, name)
        except ApiError as exc:
            if exc.code == 404:
                return None
            raise

    def queue(self, name: str) -> Mapping[str, Any] | None:
        """The queue ``name``, or None."""
        return self._get(_QUEUE, name) if name else None

    def queues(self) -> list[Mapping[str, Any]]:
        """Every queue, sorted by name."""
        return list(self._client.list(_QUEUE)["items"])

    def namespace(self, name: str) -> Mapping[str, Any] | None:
        """The namespace ``name``, or None."""
        return self._get("Namespace", name) if name else None

    def priority_classes(self) -> list[Mapping[str, Any]]:
        """Every PriorityClass, sorted by name."""
        if self._revision is None:
            return list(self._client.list(_PRIORITY_CLASS)["items"])
        revision = self._revision(_PRIORITY_CLASS)
        cached = self._classes
        if cached is None or cached[0] != revision:
            cached = self._classes = (revision, list(self._client.list(_PRIORITY_CLASS)["items"]))
        return list(cached[1])
