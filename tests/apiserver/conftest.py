"""Shared fixtures for the API server tests: a fresh clock, streams and server."""

from __future__ import annotations

from typing import Any


def pod(name: str, namespace: str | None = None, **extra: Any) -> dict[str, Any]:
    """A small pod manifest."""
    meta: dict[str, Any] = {"name": name}
    if namespace is not None:
        meta["namespace"] = namespace
    obj: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
                           "spec": {"containers": [{"name": "c", "image": "busybox"}]}}
    obj.update(extra)
    return obj


def typed_shape(value: Any) -> Any:
    """``value`` with every node's type spelled out (what ``==`` does not distinguish: ``1`` from
    ``1.0`` or ``True``, a dict from a FrozenDict)."""
    if isinstance(value, dict):
        return (type(value).__name__, [(k, typed_shape(v)) for k, v in value.items()])
    if isinstance(value, list | tuple):
        return (type(value).__name__, [typed_shape(v) for v in value])
    return (type(value).__name__, value)
