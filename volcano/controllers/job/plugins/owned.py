"""Helpers for objects a job plugin owns: create-or-update and tolerant delete."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from volcano.api.frozen import thaw
from volcano.apiserver.client import Client
from volcano.apiserver.errors import ApiError
from volcano.controllers.job.podgroup import job_owner_reference

__all__ = ["create_if_absent", "create_or_update_data", "delete_if_present", "owned_meta"]


def owned_meta(job: Mapping[str, Any], name: str) -> dict[str, Any]:
    """Metadata for an object named ``name`` in the job's namespace, controlled by the job."""
    meta = job["metadata"]
    return {"name": name, "namespace": meta.get("namespace", "default"), "ownerReferences": [job_owner_reference(job)]}


def create_or_update_data(client: Client, kind: str, job: Mapping[str, Any], name: str,
                          data: Mapping[str, str], extra: Mapping[str, Any] | None = None,
                          compare_keys: tuple[str, ...] | None = None) -> None:
    """Create a ConfigMap/Secret with ``data``, or update its ``data`` when it differs
    (only the ``compare_keys`` entries are compared when given)."""
    ns = str(job["metadata"].get("namespace", "default"))
    try:
        current = client.get(kind, name, ns)
    except ApiError as exc:
        if exc.code != 404:
            raise
        obj = {"apiVersion": "v1", "kind": kind, "metadata": owned_meta(job, name), "data": dict(data)}
        obj.update(dict(extra or {}))
        try:
            client.create(obj)
        except ApiError as err:
            if err.code != 409:
                raise
        return
    old = dict(current.get("data") or {})
    if compare_keys is not None:
        differs = any(old.get(k) != data.get(k) for k in compare_keys)
    else:
        differs = old != dict(data)
    if differs:
        updated = thaw(current)
        updated["data"] = dict(data)
        client.update(updated)


def create_if_absent(client: Client, obj: dict[str, Any]) -> bool:
    """Create ``obj`` unless an object of that kind and name exists; True when created."""
    meta = obj["metadata"]
    try:
        client.get(obj["kind"], meta["name"], meta.get("namespace"))
        return False
    except ApiError as exc:
        if exc.code != 404:
            raise
    try:
        client.create(obj)
    except ApiError as exc:
        if exc.code != 409:
            raise
        return False
    return True


def delete_if_present(client: Client, kind: str, name: str, namespace: str) -> None:
    """Delete an object, ignoring NotFound."""
    try:
        client.delete(kind, name, namespace)
    except ApiError as exc:
        if exc.code != 404:
            raise
