"""Helpers shared by the built-in Kubernetes controllers (ReplicaSet, Deployment, batch/v1 Job).

* ownerReferences: ``controller_of`` (from ``volcano.api.accessors``), ``controller_ref_to``;
* pod predicates as the Kubernetes controllers use them: ``is_pod_active``,
  ``is_pod_ready``, and ``deletion_rank`` (which pods go first on scale-down);
* ``NameGenerator``: ``<prefix><5 chars>`` names from a seeded random stream,
  with Kubernetes' generateName alphabet;
* ``Expectations``: the pods a controller has created or deleted and its
  cache has not yet observed, so that a sync running before the watch
  catches up neither creates nor deletes twice;
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from volcano.api import accessors
from volcano.api.accessors import controller_of, meta
from volcano.api.frozen import thaw
from volcano.apiserver.client import Client
from volcano.apiserver.errors import ApiError
from volcano.controllers.base import Controller
from volcano.informers import GuardedIndex, same_owner_refs

__all__ = [
    "CONTROLLER_UID_INDEX",
    "Expectations",
    "NameGenerator",
    "PodControl",
    "controller_of",
    "controller_ref_to",
    "controller_uid_index",
    "deletion_rank",
    "desired_replicas",
    "int_field",
    "is_pod_active",
    "is_pod_ready",
    "meta",
    "pod_from_template",
    "sorted_by_name",
]

CONTROLLER_UID_INDEX = "builtin/controller-uid"
"""Informer index of objects by their controller's uid (``controller_uid_index``)."""

_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
_MAX_GENERATED_BASE = 58  # Kubernetes truncates a generateName base to 63 - 5 characters
_PHASE_RANK = {"Pending": 0, "Unknown": 1, "Running": 2}


def int_field(obj: Mapping[str, Any], path: str, default: int) -> int:
    """The non-negative integer at dotted ``path`` of ``obj`` (``default`` when absent).

    Raises ``ValueError`` naming the object, the field and the value otherwise.
    """
    value: Any = obj
    for part in path.split("."):
        value = value.get(part) if isinstance(value, Mapping) else None
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        m = meta(obj)
        raise ValueError(f"{obj.get('kind', 'object')} {m.get('namespace', '')}/{m.get('name', '')}: "
                         f"{path} must be a non-negative integer, got {value!r}")
    return value


def desired_replicas(controller: Controller[str], key: str, obj: Mapping[str, Any]) -> int | None:
    """``spec.replicas`` of ``obj`` (default 1), or None after tracing ``InvalidSpec``: a real
    controller logs a malformed value and moves on."""
    try:
        return int_field(obj, "spec.replicas", 1)
    except ValueError as err:
        controller.record("InvalidSpec", key, str(err))
        return None


def _controller_uid_index(obj: Mapping[str, Any]) -> list[str]:
    ref = controller_of(obj)
    return [str(ref.get("uid"))] if ref is not None and ref.get("uid") else []


controller_uid_index = GuardedIndex(_controller_uid_index, same_owner_refs)
"""Index function: the uid of ``obj``'s controller, as a one-element list (empty without one); not
called for an update that keeps the ``ownerReferences`` object (a status write)."""


def controller_ref_to(owner: Mapping[str, Any], api_version: str, kind: str) -> dict[str, Any]:
    """A controller ownerReference to ``owner`` (``blockOwnerDeletion: true``)."""
    m = meta(owner)
    return {"apiVersion": api_version, "kind": kind, "name": m.get("name", ""), "uid": m.get("uid", ""),
            "controller": True, "blockOwnerDeletion": True}


def is_pod_active(pod: Mapping[str, Any]) -> bool:
    """Not Succeeded/Failed and not being deleted (Kubernetes' ``FilterActivePods``)."""
    phase = accessors.phase(pod)
    return phase not in ("Succeeded", "Failed") and not meta(pod).get("deletionTimestamp")


def is_pod_ready(pod: Mapping[str, Any]) -> bool:
    """Running with condition Ready=True (a Running pod without conditions counts as ready)."""
    status = accessors.status(pod)
    if status.get("phase") != "Running":
        return False
    conditions = status.get("conditions")
    if not conditions:
        return True
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)


def deletion_rank(pod: Mapping[str, Any]) -> tuple[int, int, int, int, str]:
    """Sort key: pods to delete first sort first (unassigned, then Pending < Unknown < Running, then
    not ready, then most recently created; name breaks ties)."""
    m = meta(pod)
    assigned = 1 if (pod.get("spec") or {}).get("nodeName") else 0
    phase = _PHASE_RANK.get(accessors.phase(pod), 0)
    ready = 1 if is_pod_ready(pod) else 0
    created = str(m.get("creationTimestamp") or "")
    # Newer first: negate the timestamp's ordinal value through its characters.
    newer_first = -int("".join(ch for ch in created if ch.isdigit()) or 0)
    return (assigned, phase, ready, newer_first, str(m.get("name", "")))


class NameGenerator:
    """``<prefix><5 random chars>`` names from one seeded ``random.Random`` stream."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng

    def name(self, prefix: str) -> str:
        """A new name: ``prefix`` (cut to 58 characters) plus 5 characters of the generateName alphabet."""
        return prefix[:_MAX_GENERATED_BASE] + "".join(self._rng.choice(_ALPHABET) for _ in range(5))


class Expectations:
    """Per owner: names created but not yet seen in the cache, and names deleted but still in it."""

    def __init__(self) -> None:
        self._adds: dict[str, set[str]] = {}
        self._dels: dict[str, set[str]] = {}

    def expect_create(self, owner: str, name: str) -> None:
        """``name`` was created for ``owner``."""
        self._adds.setdefault(owner, set()).add(name)

    def expect_delete(self, owner: str, name: str) -> None:
        """``name`` was deleted for ``owner``."""
        self._dels.setdefault(owner, set()).add(name)

    def observed(self, owner: str, name: str, event: str) -> None:
        """The cache reported ``event`` for pod ``name`` of ``owner``."""
        if event == "ADDED":
            self._adds.get(owner, set()).discard(name)
        elif event == "DELETED":
            self._dels.get(owner, set()).discard(name)

    def reconcile(self, owner: str, present: Callable[[str], Mapping[str, Any] | None]) -> tuple[int, set[str]]:
        """Drop expectations the cache now reflects; return (creations still unseen, deletions still
        visible). A deleted pod that now carries a deletionTimestamp counts as reflected."""
        adds = self._adds.get(owner, set())
        for name in sorted(adds):
            if present(name) is not None:
                adds.discard(name)
        dels = self._dels.get(owner, set())
        for name in sorted(dels):
            pod = present(name)
            if pod is None or meta(pod).get("deletionTimestamp"):
                dels.discard(name)
        return len(adds), set(dels)

    def forget(self, owner: str) -> None:
        """Drop everything about ``owner``."""
        self._adds.pop(owner, None)
        self._dels.pop(owner, None)


def pod_from_template(template: Mapping[str, Any], *, name: str, namespace: str, owner_ref: Mapping[str, Any],
                      extra_labels: Mapping[str, str] | None = None) -> dict[str, Any]:
    """A Pod from a pod template: the template's labels (plus ``extra_labels``), annotations and spec,
    with ``owner_ref`` as its only ownerReference."""

    tmeta = template.get("metadata") or {}
    labels = dict(tmeta.get("labels") or {})
    labels.update(extra_labels or {})
    metadata: dict[str, Any] = {"name": name, "namespace": namespace, "ownerReferences": [dict(owner_ref)]}
    if labels:
        metadata["labels"] = labels
    if tmeta.get("annotations"):
        metadata["annotations"] = dict(tmeta["annotations"])
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": thaw(template.get("spec") or {})}


class PodControl:
    """Creates and deletes a workload's pods, recording the expectations the workload's next sync
    waits for (Kubernetes' ``controller.PodControl``). A generated name that collides is retried
    with a new suffix, up to ``NAME_ATTEMPTS`` times; a pod already gone counts as deleted."""

    NAME_ATTEMPTS = 5

    def __init__(self, client: Client, names: NameGenerator, expectations: Expectations) -> None:
        self.client = client
        self.names = names
        self.expectations = expectations

    def create(self, key: str, owner: Mapping[str, Any], template: Mapping[str, Any], owner_ref: Mapping[str, Any],
               extra_labels: Mapping[str, str] | None = None) -> str:
        """Create one pod ``<owner name>-<5 chars>`` from ``template`` in the owner's namespace; its name."""
        owner_meta = meta(owner)
        namespace = str(owner_meta.get("namespace", ""))
        for attempt in range(self.NAME_ATTEMPTS):
            pod_name = self.names.name(f"{owner_meta['name']}-")
            pod = pod_from_template(template, name=pod_name, namespace=namespace, owner_ref=owner_ref,
                                    extra_labels=extra_labels)
            try:
                self.client.create(pod, namespace=namespace)
            except ApiError as err:
                if err.reason == "AlreadyExists" and attempt + 1 < self.NAME_ATTEMPTS:
                    continue
                raise
            self.expectations.expect_create(key, pod_name)
            return pod_name
        raise AssertionError("unreachable: the last attempt returns or raises")

    def delete(self, key: str, pod: Mapping[str, Any]) -> str:
        """Delete ``pod`` (already gone is fine); its name."""
        pod_meta = meta(pod)
        name = str(pod_meta["name"])
        try:
            self.client.delete("Pod", name, pod_meta.get("namespace"))
        except ApiError as err:
            if err.reason != "NotFound":
                raise
        self.expectations.expect_delete(key, name)
        return name


def sorted_by_name(objs: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """``objs`` sorted by (namespace, name)."""
    return sorted(objs, key=lambda o: (str(meta(o).get("namespace", "")), str(meta(o).get("name", ""))))
