"""A minimal apps/v1 ReplicaSet controller.

Keeps ``spec.replicas`` (default 1) active pods for every ReplicaSet:

* a pod belongs to a ReplicaSet through its controller ownerReference (the
  controller does not adopt orphan pods that merely match the selector);
* active pods are those not Succeeded/Failed and not being deleted, so a
  finished or terminating pod is replaced at once;
* new pods are made from ``spec.template`` (labels, annotations, spec,
  including ``schedulerName``) and named ``<replicaset>-<5 chars>`` from the
  seeded ``controller.replicaset`` random stream, with a controller
  ownerReference (``blockOwnerDeletion: true``) to the ReplicaSet;
* on scale-down the pods deleted first are: unassigned before assigned,
  Pending before Unknown before Running, not ready before ready, newest first
  (a simplification of Kubernetes' ``ActivePods`` ranking);
* ``status``: ``replicas`` (active pods), ``fullyLabeledReplicas``,
  ``readyReplicas``, ``availableReplicas`` (= ready; ``minReadySeconds`` is
  not modelled) and ``observedGeneration``, written through the status
  subresource when they change.

Pods the controller created or deleted but its cache has not yet observed are
remembered (``Expectations``), so a sync that runs before the watch catches
up never creates or deletes twice. Deleting a ReplicaSet is left to
ownerReference garbage collection in the API server.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, ClassVar

from volcano.api import accessors
from volcano.apiserver.client import Client, Obj
from volcano.controllers.base import Controller, Recorder, WatchHandler
from volcano.controllers.builtin._common import (
    Expectations,
    NameGenerator,
    PodControl,
    controller_of,
    controller_ref_to,
    controller_uid_index,
    deletion_rank,
    int_field,
    is_pod_active,
    is_pod_ready,
    meta,
)
from volcano.informers import InformerFactory
from volcano.sim import Clock, RandomStreams, Trace

__all__ = ["ReplicaSetController"]

COMPONENT = "replicaset-controller"
_INDEX = "replicaset-controller/controller-uid"


class ReplicaSetController(Controller[str]):
    """Reconciles apps/v1 ReplicaSets (see the module docstring).

    The owner kind is a class attribute, so that a controller of the same shape
    (core/v1 ReplicationController) subclasses it and changes only ``KIND``,
    ``API_VERSION``, ``COMPONENT`` and ``NAME_STREAM``."""

    KIND: ClassVar[str] = "ReplicaSet"
    """The owner kind reconciled (also the informer and the status subresource addressed)."""
    API_VERSION: ClassVar[str] = "apps/v1"
    """The owner's apiVersion, written into the pods' controller ownerReference."""
    COMPONENT = COMPONENT
    NAME_STREAM: ClassVar[str] = "controller.replicaset"
    """The random stream the pod name suffixes come from."""
    INDEXES = (("Pod", _INDEX, controller_uid_index),)

    def __init__(self, client: Client, informers: InformerFactory, clock: Clock, *,
                 streams: RandomStreams, trace: Trace | None = None, recorder: Recorder | None = None) -> None:
        super().__init__(client, informers, clock, streams=streams, trace=trace, recorder=recorder)
        self.names = NameGenerator(streams.stream(self.NAME_STREAM))
        self.expectations = Expectations()
        self.pods = PodControl(client, self.names, self.expectations)

    def watches(self) -> Mapping[str, WatchHandler | None]:
        """The owner kind (``KIND``) and its pods."""
        return MappingProxyType({self.KIND: ReplicaSetController._on_replicaset, "Pod": ReplicaSetController._on_pod})

    def _on_replicaset(self, event: str, rs: Obj, old: Obj | None) -> None:
        key = f"{meta(rs).get('namespace', '')}/{meta(rs).get('name', '')}"
        if event == "DELETED":
            self.expectations.forget(key)
            return
        self.queue.add(key)

    def _on_pod(self, event: str, pod: Obj, old: Obj | None) -> None:
        ref = controller_of(pod)
        if ref is None or ref.get("kind") != self.KIND or \
                str(ref.get("apiVersion", "")).partition("/")[0] != self.API_VERSION.partition("/")[0]:
            return
        key = f"{meta(pod).get('namespace', '')}/{ref.get('name', '')}"
        self.expectations.observed(key, str(meta(pod).get("name", "")), event)
        self.queue.add(key)

    def process(self, key: str) -> None:
        """Create or delete pods until ``spec.replicas`` are active; write status."""
        namespace, _, name = key.partition("/")
        pods_informer = self.informer("Pod")
        rs = self.informer(self.KIND).get(name, namespace)
        if rs is None:
            self.expectations.forget(key)
            return
        if meta(rs).get("deletionTimestamp"):
            return
        try:
            desired = int_field(rs, "spec.replicas", 1)
        except ValueError as err:
            self.record("InvalidSpec", key, str(err))  # a real controller logs it and moves on
            return
        pods = [p for p in pods_informer.by_index(_INDEX, str(meta(rs).get("uid", "")))
                if meta(p).get("namespace") == namespace]
        unseen, deleting = self.expectations.reconcile(key, lambda n: pods_informer.get(n, namespace))
        active = [p for p in pods if is_pod_active(p) and meta(p).get("name") not in deleting]
        diff = len(active) + unseen - desired
        victims: Sequence[Mapping[str, Any]] = []
        if diff < 0:
            for _ in range(-diff):
                self._create_pod(key, rs)
        elif diff > 0:
            victims = sorted(active, key=deletion_rank)[:diff]
            for pod in victims:
                self._delete_pod(key, pod)
        gone = {meta(p).get("name") for p in victims}
        self._update_status(rs, [p for p in active if meta(p).get("name") not in gone])

    def _create_pod(self, key: str, rs: Mapping[str, Any]) -> None:
        rs_meta = meta(rs)
        pod_name = self.pods.create(key, rs, (rs.get("spec") or {}).get("template") or {},
                                    controller_ref_to(rs, self.API_VERSION, self.KIND))
        self.record("CreatePod", f"{rs_meta.get('namespace')}/{pod_name}", f"{self.KIND.lower()} {rs_meta['name']}")

    def _delete_pod(self, key: str, pod: Mapping[str, Any]) -> None:
        name = self.pods.delete(key, pod)
        self.record("DeletePod", f"{meta(pod).get('namespace')}/{name}", "scale down")

    def _update_status(self, rs: Mapping[str, Any], active: Sequence[Mapping[str, Any]]) -> None:
        template_labels = ((((rs.get("spec") or {}).get("template") or {}).get("metadata") or {})
                           .get("labels") or {})
        ready = sum(1 for p in active if is_pod_ready(p))
        status = {
            "replicas": len(active),
            "fullyLabeledReplicas": sum(1 for p in active
                                        if all((meta(p).get("labels") or {}).get(k) == v
                                               for k, v in template_labels.items())),
            "readyReplicas": ready,
            "availableReplicas": ready,
            "observedGeneration": int(meta(rs).get("generation") or 0),
        }
        current = accessors.status(rs)
        if all(current.get(k) == v for k, v in status.items()):
            return
        self.client.patch(self.KIND, str(meta(rs)["name"]), {"status": status}, meta(rs).get("namespace"),
                          subresource="status")
