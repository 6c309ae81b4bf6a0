"""The objects a fresh kube-apiserver creates for itself: system namespaces and priority classes."""

from __future__ import annotations

from typing import Any

__all__ = ["BOOTSTRAP_OBJECTS"]

BOOTSTRAP_OBJECTS: tuple[dict[str, Any], ...] = (
    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}},
    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "kube-system"}},
    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "kube-public"}},
    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "kube-node-lease"}},
    {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
     "metadata": {"name": "system-cluster-critical"}, "value": 2000000000,
     "description": "Used for system critical pods that must run in the cluster, but can be moved to another "
                    "node if necessary."},
    {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
     "metadata": {"name": "system-node-critical"}, "value": 2000001000,
     "description": "Used for system critical pods that must not be moved from their current node."},
)
"""Namespaces ``default``, ``kube-system``, ``kube-public``, ``kube-node-lease``; priority classes
``system-cluster-critical`` (2000000000) and ``system-node-critical`` (2000001000)."""
