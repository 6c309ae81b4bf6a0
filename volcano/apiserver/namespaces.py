"""Namespace lifecycle as kube-apiserver's namespace registry and ``NamespaceLifecycle`` admission do it.

* Create: ``status.phase`` is ``Active`` and ``spec.finalizers`` holds ``kubernetes``.
* Delete: a namespace with finalizers (``spec`` or ``metadata``) is not removed; it gets a
  ``deletionTimestamp`` and phase ``Terminating`` (the namespace controller then deletes its
  contents and removes ``kubernetes`` from ``spec.finalizers``). Deleting it again is 409
  Conflict. It is removed once both finalizer lists are empty.
* No new object may be created in a terminating namespace: 403 Forbidden.
"""

from __future__ import annotations

from typing import Any

from volcano.api.kinds import KindInfo
from volcano.apiserver.errors import conflict, forbidden

__all__ = ["KUBERNETES_FINALIZER", "check_active", "is_finalized", "prepare_create", "terminating"]

KUBERNETES_FINALIZER = "kubernetes"


def prepare_create(new: dict[str, Any]) -> None:
    """Phase Active and the ``kubernetes`` finalizer on a namespace being created."""
    spec = new.get("spec")
    if not isinstance(spec, dict):
        spec = new["spec"] = {}
    finalizers = list(spec.get("finalizers") or ())
    if KUBERNETES_FINALIZER not in finalizers:
        finalizers.append(KUBERNETES_FINALIZER)
    spec["finalizers"] = finalizers
    new["status"] = {"phase": "Active"}


def check_active(namespace_obj: Any, info: KindInfo, name: str) -> None:
    """403 when ``namespace_obj`` is being terminated (no new content may be created in it)."""
    if namespace_obj["metadata"].get("deletionTimestamp"):
        ns = namespace_obj["metadata"]["name"]
        raise forbidden(info.resource, name,
                        f"unable to create new content in namespace {ns} because it is being terminated")


def is_finalized(obj: Any) -> bool:
    """Whether nothing holds a namespace any more (no ``spec`` and no ``metadata`` finalizers)."""
    return not (obj.get("spec") or {}).get("finalizers") and not obj["metadata"].get("finalizers")


def terminating(old: Any, deletion_timestamp: str) -> dict[str, Any] | None:
    """The namespace ``old`` marked for deletion (phase Terminating), or None when nothing holds it
    (remove it at once). A namespace already terminating is 409 Conflict, as on a real server."""
    meta = old["metadata"]
    if meta.get("deletionTimestamp"):
        raise conflict("namespaces", meta["name"], "The system is ensuring all content is removed from this "
                       "namespace.  Upon completion, this namespace will automatically be purged by the system.")
    if is_finalized(old):
        return None
    new: dict[str, Any] = dict(old)
    new["metadata"] = {**meta, "deletionTimestamp": deletion_timestamp, "deletionGracePeriodSeconds": 0}
    new["status"] = {**(old.get("status") or {}), "phase": "Terminating"}
    return new
