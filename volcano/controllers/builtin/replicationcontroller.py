"""A minimal core/v1 ReplicationController controller.

A ReplicationController is the ReplicaSet's predecessor: the same reconcile
loop (keep ``spec.replicas`` (default 1) active pods made from
``spec.template``, replace finished or terminating pods, delete surplus pods
by the same ranking, write ``replicas``, ``fullyLabeledReplicas``,
``readyReplicas``, ``availableReplicas`` and ``observedGeneration`` through the
status subresource) with a plain ``key: value`` map as ``spec.selector``.
Ownership goes through the pods' controller ownerReference
(``apiVersion: v1, kind: ReplicationController``), as for ReplicaSets, so the
selector never decides which pods count. Pods are named ``<rc>-<5 chars>`` from
the seeded ``controller.replicationcontroller`` random stream.
"""

from __future__ import annotations

from volcano.controllers.builtin.replicaset import ReplicaSetController

__all__ = ["ReplicationControllerController"]

COMPONENT = "replicationcontroller-controller"


class ReplicationControllerController(ReplicaSetController):
    """Reconciles core/v1 ReplicationControllers (see the module docstring)."""

    OWNER = OWNER_KIND = "ReplicationController"
    API_VERSION = "v1"
    COMPONENT = COMPONENT
    NAME_STREAM = "controller.replicationcontroller"
