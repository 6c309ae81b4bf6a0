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
