"""The ``scale`` subresource of workloads (``autoscaling/v1 Scale``), as ``kubectl scale`` uses it.

``get_scale`` presents a Deployment, ReplicaSet, StatefulSet or
ReplicationController as a ``Scale``: ``spec.replicas`` the desired count,
``status.replicas`` the observed one, ``status.selector`` the pod selector as
a string. ``update_scale`` (PUT) and ``patch_scale`` (merge patch) change only
the workload's ``spec.replicas``, through ``ApiServer.update`` (admission and
optimistic concurrency apply: a ``metadata.resourceVersion`` in the Scale is a
precondition).
"""

from __future__ import annotations

from typing import Any

from volcano.api.frozen import thaw
from volcano.api.kinds import resolve_kind
from volcano.api.selectors import label_selector_from_dict
from volcano.apiserver.errors import ApiError, invalid
from volcano.apiserver.patch import merge_patch

__all__ = ["get_scale", "patch_scale", "update_scale"]


def _selector(info_key: str, spec: Any) -> str:
    selector = spec.get("selector")
    if not selector:
        return ""
    if info_key == "ReplicationController":
        return ",".join(f"{k}={v}" for k, v in sorted(selector.items()))
    return str(label_selector_from_dict(selector))


def _scale(info_key: str, obj: Any) -> dict[str, Any]:
    meta = obj["metadata"]
    spec = obj.get("spec") or {}
    status = obj.get("status") or {}
    out_meta = {k: meta[k] for k in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp")
                if k in meta}
    return {"kind": "Scale", "apiVersion": "autoscaling/v1", "metadata": out_meta,
            "spec": {"replicas": int(spec.get("replicas", 1))},
            "status": {"replicas": int(status.get("replicas") or 0), "selector": _selector(info_key, spec)}}


def _scalable(server: Any, kind: str) -> str:
    info = resolve_kind(kind)
    if not any(name == "scale" for name, _k, _v in info.subresources):
        raise ApiError(404, "NotFound", "the server could not find the requested resource")
    return info.key


def get_scale(server: Any, kind: str, name: str, namespace: str | None) -> dict[str, Any]:
    """The ``Scale`` of a workload (404 when absent or when the kind has no scale subresource)."""
    key = _scalable(server, kind)
    return _scale(key, server.get(key, name, namespace))


def update_scale(server: Any, kind: str, name: str, namespace: str | None, scale: Any) -> dict[str, Any]:
    """Set the workload's ``spec.replicas`` from ``scale`` (422 when not an integer >= 0)."""
    key = _scalable(server, kind)
    spec = scale.get("spec") if isinstance(scale.get("spec"), dict) else {}
    replicas = spec.get("replicas")
    if isinstance(replicas, bool) or not isinstance(replicas, int) or replicas < 0:
        raise invalid("Scale.autoscaling", name,
                      [f"spec.replicas: Invalid value: {replicas!r}: must be greater than or equal to 0"])
    current = thaw(server.get(key, name, namespace))
    want_rv = (scale.get("metadata") or {}).get("resourceVersion") if isinstance(scale.get("metadata"), dict) \
        else None
    if want_rv:
        current["metadata"]["resourceVersion"] = want_rv
    current.setdefault("spec", {})["replicas"] = replicas
    return _scale(key, server.update(current))


def patch_scale(server: Any, kind: str, name: str, namespace: str | None, patch: Any) -> dict[str, Any]:
    """Merge ``patch`` into the workload's ``Scale`` and store it (``kubectl scale``)."""
    current = get_scale(server, kind, name, namespace)
    merged = merge_patch(current, patch)
    if not isinstance(merged, dict):
        raise invalid("Scale.autoscaling", name, ["spec: Invalid value: the patched Scale is not an object"])
    return update_scale(server, kind, name, namespace, merged)
