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
from typing import Any

from volcano.api import accessors
from volcano.controllers.builtin._common import (
    deletion_rank,
    desired_replicas,
    is_pod_active,
    is_pod_ready,
    meta,
)
from volcano.controllers.builtin._owner import PodOwnerController

__all__ = ["ReplicaSetController"]

COMPONENT = "replicaset-controller"


class ReplicaSetController(PodOwnerController):
    """Reconciles apps/v1 ReplicaSets (see the module docstring).

    The owner kind is a class attribute, so that a controller of the same shape
    (core/v1 ReplicationController) subclasses it and changes only ``OWNER``,
    ``OWNER_KIND``, ``API_VERSION``, ``COMPONENT`` and ``NAME_STREAM``."""

    OWNER = OWNER_KIND = "ReplicaSet"
    API_VERSION = "apps/v1"
    COMPONENT = COMPONENT
    NAME_STREAM = "controller.replicaset"

    def process(self, key: str) -> None:
        """Create or delete pods until ``spec.replicas`` are active; write status."""
        namespace, _, name = key.partition("/")
        rs = self.informer(self.OWNER).get(name, namespace)
        if rs is None:
            self.expectations.forget(key)
            return
        if meta(rs).get("deletionTimestamp"):
            return
        desired = desired_replicas(self, key, rs)
        if desired is None:
            return
        pods, unseen, deleting = self.owned_pods(rs)
        active = [p for p in pods if is_pod_active(p) and meta(p).get("name") not in deleting]
        diff = len(active) + unseen - desired
        victims: Sequence[Mapping[str, Any]] = []
        if diff < 0:
            for _ in range(-diff):
                self.create_pod(key, rs)
        elif diff > 0:
            victims = sorted(active, key=deletion_rank)[:diff]
            for pod in victims:
                self.delete_pod(key, pod, "scale down")
        gone = {meta(p).get("name") for p in victims}
        self._update_status(rs, [p for p in active if meta(p).get("name") not in gone])

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
        self.client.patch(self.OWNER, str(meta(rs)["name"]), {"status": status}, meta(rs).get("namespace"),
                          subresource="status")
