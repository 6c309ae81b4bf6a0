"""Cluster backends the conformance suite runs against: ``memory`` (the default) and ``kubeconfig``."""

from volcano.conformance.backends.base import Cluster, ClusterShape, NodeShape

__all__ = ["Cluster", "ClusterShape", "NodeShape"]
