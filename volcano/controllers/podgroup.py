"""The PodGroup controller (Volcano's ``pg-controller``): PodGroups for plain pods.

A pod that asks for a Volcano scheduler (``spec.schedulerName`` in
``scheduler_names``, default ``("volcano",)``) and carries no
``scheduling.k8s.io/group-name`` annotation is not part of a Volcano Job; the
scheduler still needs a PodGroup to schedule it. This controller makes one and
ties the pod to it, as Volcano does:

* name ``podgroup-<uid>``: the uid of the pod's controller ownerReference
  (the ReplicaSet of a Deployment, a StatefulSet, a batch/v1 Job, ...), else
  the pod's own uid; pods of one workload therefore share one PodGroup;
* ``ownerReferences``: the pod's own list when one of them is a controller
  reference, else a controller reference to the pod;
* ``spec.minMember``: the owner's ``scheduling.volcano.sh/group-min-member``
  annotation (owners of kind ReplicaSet, StatefulSet, DaemonSet or batch/v1
  Job; not an integer or negative gives 1; default 1);
* ``spec.minResources``: the pod's resource-quota usage (see
  ``pod_quota_usage``) times ``minMember``;
* ``spec.queue``: the pod annotation ``scheduling.volcano.sh/queue-name``,
  else ``default`` (what the CRD default writes for an empty queue);
* ``spec.priorityClassName``: the pod's; ``spec.networkTopology`` from the
  pod annotations ``volcano.sh/network-topology-mode`` and
  ``volcano.sh/network-topology-highest-tier``;
* annotations: the owners' annotations under ``volcano.sh/`` (first owner
  wins per key), overridden by the pod's ``volcano.sh/preemptable``,
  ``volcano.sh/cooldown-time``, ``volcano.sh/revocable-zone`` and
  ``volcano.sh/jdb-min-available`` (else ``volcano.sh/jdb-max-unavailable``);
  labels: the pod's ``volcano.sh/preemptable`` and ``volcano.sh/cooldown-time``;
* ``status.phase: Pending`` (PodGroups have no status subresource).

Then the pod gets the annotation ``scheduling.k8s.io/group-name``. Only pod
*additions* trigger this. With workload support (default on) ReplicaSet and
StatefulSet additions and updates also trigger it: zero replicas deletes the
workload's PodGroup; otherwise the first of the workload's pods (by name)
matching its selector (a StatefulSet's also its ``updateRevision``) that has
no group annotation gets its PodGroup created or brought up to date. Volcano
lists pods by selector alone; here only pods controlled by the workload are
considered, so that a workload update costs its own pods, not the namespace's. The
controller never deletes other PodGroups: the owner's deletion garbage-collects
them through ``ownerReferences``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from volcano.api import accessors
from volcano.api.frozen import thaw
from volcano.api.quantity import format_milli
from volcano.api.resources import pod_limits, pod_requests
from volcano.api.well_known import GROUP_NAME, PREEMPTABLE
from volcano.apiserver.client import Client, Obj
from volcano.apiserver.errors import ApiError
from volcano.controllers.base import Controller, Recorder, WatchHandler
from volcano.informers import GuardedIndex, InformerFactory, same_owner_refs
from volcano.informers.poison import DATA_ERRORS
from volcano.sim import Clock, RandomStreams, Trace

__all__ = [
    "GROUP_MIN_MEMBER_ANNOTATION",
    "PODGROUP_NAME_PREFIX",
    "QUEUE_NAME_ANNOTATION",
    "PodGroupController",
    "build_podgroup_for_pod",
    "pod_quota_usage",
    "podgroup_name_for_pod",
    "quota_usage_to_k8s",
]

COMPONENT = "pg-controller"

GROUP_MIN_MEMBER_ANNOTATION = "scheduling.volcano.sh/group-min-member"
"""Owner (ReplicaSet, StatefulSet, DaemonSet, batch/v1 Job) annotation giving the PodGroup's minMember."""
QUEUE_NAME_ANNOTATION = "scheduling.volcano.sh/queue-name"
"""Pod annotation giving the PodGroup's queue."""
PODGROUP_NAME_PREFIX = "podgroup-"
"""Prefix of PodGroups made for plain pods."""

_VOLCANO_PREFIX = "volcano.sh/"
_COOLDOWN = "volcano.sh/cooldown-time"
_REVOCABLE_ZONE = "volcano.sh/revocable-zone"
_JDB_MIN = "volcano.sh/jdb-min-available"
_JDB_MAX = "volcano.sh/jdb-max-unavailable"
_NT_MODE = "volcano.sh/network-topology-mode"
_NT_TIER = "volcano.sh/network-topology-highest-tier"
_REVISION_HASH = "controller-revision-hash"
_OWNER_INDEX = "pg-controller/controller-uid"

# Owner kinds whose annotations are inherited, and the kind the client knows them by.
_OWNER_KINDS = {"ReplicaSet": "ReplicaSet", "DaemonSet": "DaemonSet", "StatefulSet": "StatefulSet",
                "Job": "Job.batch"}
_NATIVE_COMPUTE = ("cpu", "memory", "ephemeral-storage")
_BINARY_BASES = ("memory", "ephemeral-storage")
_INT32_MAX = 2**31 - 1


def _owner_refs(obj: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    refs = accessors.meta(obj).get("ownerReferences")
    return [r for r in refs if isinstance(r, Mapping)] if isinstance(refs, list) else []


def _controller_uid(obj: Mapping[str, Any]) -> list[str]:
    ref = accessors.controller_of(obj)
    return [str(ref.get("uid"))] if ref is not None and ref.get("uid") else []


def podgroup_name_for_pod(pod: Mapping[str, Any]) -> str:
    """``podgroup-<controller owner uid>``, or ``podgroup-<pod uid>`` for a pod without a controller."""
    ref = accessors.controller_of(pod)
    if ref is not None:
        return PODGROUP_NAME_PREFIX + str(ref.get("uid", ""))
    return PODGROUP_NAME_PREFIX + str(accessors.meta(pod).get("uid", ""))


def _is_native(name: str) -> bool:
    return "/" not in name or "kubernetes.io/" in name


def _is_extended(name: str) -> bool:
    return not _is_native(name) and not name.startswith("requests.")


def pod_quota_usage(pod: Mapping[str, Any]) -> dict[str, int]:
    """The pod's resource-quota usage in milli-units, with Volcano's extra keys.

    As Kubernetes' pod quota evaluator computes it: ``count/pods`` always;
    for a pod not yet Succeeded/Failed also ``pods``, ``cpu``/``requests.cpu``
    (when a cpu request exists), ``limits.cpu`` (when a cpu limit exists), the
    same for ``memory`` and ``ephemeral-storage``, ``hugepages-*`` and
    ``requests.hugepages-*`` for hugepage requests, and ``requests.<name>``
    for extended resources, to which Volcano adds the bare ``<name>`` (e.g.
    ``nvidia.com/gpu``). Requests and limits are the pod's effective ones
    (containers, init containers, overhead). Zero requests are absent.
    """
    usage: dict[str, int] = {"count/pods": 1000}
    phase = accessors.phase(pod)
    if phase in ("Succeeded", "Failed"):
        return usage
    requests = pod_requests(pod)
    limits = pod_limits(pod)
    req_names = set(requests.names())
    lim_names = set(limits.names())
    usage["pods"] = 1000
    for name in _NATIVE_COMPUTE:
        if name in req_names:
            usage[name] = usage["requests." + name] = requests.get(name)
        if name in lim_names:
            usage["limits." + name] = limits.get(name)
    for name in sorted(req_names):
        if name.startswith("hugepages-"):
            usage[name] = usage["requests." + name] = requests.get(name)
        elif _is_extended(name):
            usage["requests." + name] = requests.get(name)
    # Volcano: every non-native "requests.X" key also counts under "X".
    for key in sorted(usage):
        if key.startswith("requests.") and not _is_native(key):
            usage[key[len("requests."):]] = usage[key]
    return usage


def quota_usage_to_k8s(usage: Mapping[str, int]) -> dict[str, str]:
    """Milli-unit usage as a Kubernetes ResourceList (byte-sized resources in binary form when exact)."""
    out: dict[str, str] = {}
    for key in sorted(usage):
        milli = usage[key]
        base = key.split(".", 1)[1] if key.startswith(("requests.", "limits.")) else key
        binary = (base in _BINARY_BASES or base.startswith("hugepages-")) and milli % 1_024_000 == 0
        out[key] = format_milli(milli, binary=binary)
    return out


def _min_member(owner_annotations: Mapping[str, str]) -> int:
    text = owner_annotations.get(GROUP_MIN_MEMBER_ANNOTATION)
    if text is None:
        return 1
    try:
        value = int(str(text).strip(), 10)
    except ValueError:
        return 1
    if value < 0 or value > _INT32_MAX:
        return 1
    return value


def _network_topology(annotations: Mapping[str, str]) -> dict[str, Any] | None:
    if _NT_MODE not in annotations and _NT_TIER not in annotations:
        return None
    topology: dict[str, Any] = {"mode": "hard"}
    mode = str(annotations.get(_NT_MODE, "")).lower()
    if mode in ("hard", "soft"):
        topology["mode"] = mode
    if _NT_TIER in annotations:
        with contextlib.suppress(ValueError):
            topology["highestTierAllowed"] = int(str(annotations[_NT_TIER]), 10)
    return topology


def build_podgroup_for_pod(pod: Mapping[str, Any], name: str, owner_annotations: Mapping[str, str],
                           *, inherit_owner_annotations: bool = True) -> Obj:
    """The PodGroup Volcano builds for a plain pod (see the module docstring), as a plain dict.

    ``owner_annotations`` are the merged annotations of the pod's owners (first
    owner wins per key); they are used only when ``inherit_owner_annotations``.
    """
    meta = accessors.meta(pod)
    pod_ann = accessors.annotations(pod)
    pod_labels = accessors.labels(pod)
    min_member = _min_member(owner_annotations) if inherit_owner_annotations else 1
    usage = pod_quota_usage(pod)
    total = {key: value * min_member for key, value in usage.items()} if min_member else {}
    refs = _owner_refs(pod)
    if accessors.controller_of(pod) is not None:
        owner_refs = thaw(refs)
    else:
        owner_refs = [{"apiVersion": "v1", "kind": "Pod", "name": meta.get("name", ""),
                       "uid": meta.get("uid", ""), "controller": True, "blockOwnerDeletion": True}]
    annotations: dict[str, str] = {}
    if inherit_owner_annotations:
        for key in sorted(owner_annotations):
            if key.startswith(_VOLCANO_PREFIX):
                annotations[key] = owner_annotations[key]
    jdb = _JDB_MIN if _JDB_MIN in pod_ann else _JDB_MAX  # minAvailable wins over maxUnavailable
    annotations.update({k: pod_ann[k] for k in (PREEMPTABLE, _COOLDOWN, _REVOCABLE_ZONE, jdb) if k in pod_ann})
    labels = {key: pod_labels[key] for key in (PREEMPTABLE, _COOLDOWN) if key in pod_labels}
    spec: dict[str, Any] = {"minMember": min_member, "queue": pod_ann.get(QUEUE_NAME_ANNOTATION) or "default",
                            "minResources": quota_usage_to_k8s(total)}
    priority_class = (pod.get("spec") or {}).get("priorityClassName")
    if priority_class:
        spec["priorityClassName"] = priority_class
    topology = _network_topology(pod_ann)
    if topology is not None:
        spec["networkTopology"] = topology
    metadata: dict[str, Any] = {"name": name, "namespace": meta.get("namespace", "default"),
                                "ownerReferences": owner_refs}
    if annotations:
        metadata["annotations"] = annotations
    if labels:
        metadata["labels"] = labels
    return {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup", "metadata": metadata,
            "spec": spec, "status": {"phase": "Pending"}}


class PodGroupController(Controller[tuple[str, str, str]]):
    """Creates PodGroups for plain pods scheduled by Volcano (see the module docstring).

    ``start()`` registers the informer handlers; work runs from a ``WorkQueue``
    at ``Priority.CONTROLLER``. Failed API calls are retried with the queue's
    per-key exponential backoff.
    """

    COMPONENT = COMPONENT
    INDEXES = (("Pod", _OWNER_INDEX, GuardedIndex(_controller_uid, same_owner_refs)),)

    def __init__(self, client: Client, informers: InformerFactory, clock: Clock, *,
                 streams: RandomStreams | None = None, trace: Trace | None = None,
                 recorder: Recorder | None = None, scheduler_names: Sequence[str] = ("volcano",),
                 inherit_owner_annotations: bool = True, workload_support: bool = True) -> None:
        super().__init__(client, informers, clock, streams=streams, trace=trace, recorder=recorder)
        self.scheduler_names = tuple(scheduler_names)
        self.inherit_owner_annotations = inherit_owner_annotations
        self.workload_support = workload_support

    # -- handlers -------------------------------------------------------------------------------

    def _on_pod(self, event: str, pod: Obj, old: Obj | None) -> None:
        if event == "ADDED":
            meta = accessors.meta(pod)
            self.queue.add(("Pod", meta.get("namespace", ""), meta.get("name", "")))

    def _on_workload(self, event: str, obj: Obj, old: Obj | None) -> None:
        if event in ("ADDED", "MODIFIED"):
            meta = accessors.meta(obj)
            self.queue.add((str(obj.get("kind", "")), meta.get("namespace", ""), meta.get("name", "")))

    WATCHES = MappingProxyType({"Pod": _on_pod, "PodGroup": None, "ReplicaSet": _on_workload,
                                "StatefulSet": _on_workload})

    def watches(self) -> Mapping[str, WatchHandler | None]:
        """Pods and PodGroups; ReplicaSets and StatefulSets too with workload support."""
        if self.workload_support:
            return self.WATCHES
        return {k: v for k, v in self.WATCHES.items() if k in ("Pod", "PodGroup")}

    # -- processing -----------------------------------------------------------------------------

    def process(self, key: tuple[str, str, str]) -> None:
        """Sync a pod (kind ``Pod``) or a workload's PodGroup (ReplicaSet, StatefulSet)."""
        kind, namespace, name = key
        try:
            if kind == "Pod":
                self._sync_pod(namespace, name)
            else:
                self._sync_workload(kind, namespace, name)
        except DATA_ERRORS as exc:  # an object this controller cannot read is skipped until it changes
            obj = self.informer("Pod").get(name, namespace) if kind == "Pod" else None
            self.informers.unusable.handle("pg-controller", dict(obj) if obj is not None else None, exc)

    def _wants(self, pod: Mapping[str, Any]) -> bool:
        if (pod.get("spec") or {}).get("schedulerName") not in self.scheduler_names:
            return False
        return not accessors.annotations(pod).get(GROUP_NAME)

    def _sync_pod(self, namespace: str, name: str) -> None:
        pod = self.informer("Pod").get(name, namespace)
        if pod is None or not self._wants(pod):
            return
        pg_name = podgroup_name_for_pod(pod)
        if self.informer("PodGroup").get(pg_name, namespace) is None:
            try:
                self._create(pod, pg_name)
            except ValueError as err:  # e.g. a malformed quantity: Volcano logs it and moves on
                self.record("InvalidPod", f"{namespace}/{name}", str(err))
                return
        self._annotate(pod, pg_name)

    def _owner_annotations(self, pod: Mapping[str, Any]) -> dict[str, str]:
        merged: dict[str, str] = {}
        if not self.inherit_owner_annotations:
            return merged
        namespace = accessors.meta(pod).get("namespace")
        for ref in _owner_refs(pod):
            kind = _OWNER_KINDS.get(str(ref.get("kind", "")))
            owner_name = ref.get("name")
            if kind is None or not owner_name:
                continue
            try:
                owner = self.client.get(kind, str(owner_name), namespace)
            except (ApiError, LookupError):
                continue  # Volcano logs and skips an owner it cannot read
            for key, value in accessors.annotations(owner).items():
                merged.setdefault(key, value)
        return merged

    def _build(self, pod: Mapping[str, Any], pg_name: str) -> Obj:
        return build_podgroup_for_pod(pod, pg_name, self._owner_annotations(pod),
                                      inherit_owner_annotations=self.inherit_owner_annotations)

    def _create(self, pod: Mapping[str, Any], pg_name: str) -> None:
        namespace = accessors.meta(pod).get("namespace")
        if self.create_once(self._build(pod, pg_name), namespace=namespace):
            self.record("CreatePodGroup", f"{namespace}/{pg_name}", f"pod {accessors.meta(pod).get('name')}")

    def _annotate(self, pod: Mapping[str, Any], pg_name: str) -> None:
        if accessors.annotations(pod).get(GROUP_NAME):
            return
        meta = accessors.meta(pod)
        self.client.patch("Pod", meta["name"], {"metadata": {"annotations": {GROUP_NAME: pg_name}}},
                          meta.get("namespace"))
        self.record("BindPodGroup", f"{meta.get('namespace')}/{meta['name']}", pg_name)

    def _sync_workload(self, kind: str, namespace: str, name: str) -> None:
        workload = self.informer(kind).get(name, namespace)
        if workload is None:
            return
        spec = workload.get("spec") or {}
        replicas = spec.get("replicas", 1)
        if replicas == 0:
            pg_name = PODGROUP_NAME_PREFIX + str(accessors.meta(workload).get("uid", ""))
            try:
                self.client.delete("PodGroup", pg_name, namespace)
            except ApiError as err:
                if err.reason != "NotFound":
                    raise
            else:
                self.record("DeletePodGroup", f"{namespace}/{pg_name}", f"{kind} {name} has 0 replicas")
            return
        match = dict((spec.get("selector") or {}).get("matchLabels") or {})
        if kind == "StatefulSet":
            match[_REVISION_HASH] = accessors.status(workload).get("updateRevision", "")
        # The workload's own pods (found through their controller reference, not by scanning the
        # namespace) that match its selector.
        owned = self.informer("Pod").by_index(_OWNER_INDEX, str(accessors.meta(workload).get("uid", "")))
        candidates = [p for p in owned
                      if accessors.meta(p).get("namespace") == namespace
                      and all(accessors.labels(p).get(k) == v for k, v in match.items())]
        if not candidates:
            return
        pod = min(candidates, key=lambda p: str(accessors.meta(p).get("name", "")))
        if not self._wants(pod):
            return
        pg_name = podgroup_name_for_pod(pod)
        existing = self.informer("PodGroup").get(pg_name, namespace)
        if existing is None:
            self._create(pod, pg_name)
        else:
            self._update_if_changed(existing, pod)
        self._annotate(pod, pg_name)

    def _update_if_changed(self, existing: Obj, pod: Mapping[str, Any]) -> None:
        fresh = self._build(pod, accessors.meta(existing)["name"])
        current = thaw(existing)
        changed = False
        if current.get("spec") != fresh["spec"]:
            current["spec"] = fresh["spec"]
            changed = True
        for field in ("labels", "annotations"):
            if (current["metadata"].get(field) or {}) != (fresh["metadata"].get(field) or {}):
                current["metadata"][field] = fresh["metadata"].get(field, {})
                changed = True
        if changed:
            self.client.update(current)
            self.record("UpdatePodGroup", accessors.key(existing))
