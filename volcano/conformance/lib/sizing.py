"""Cluster sizing as upstream's e2e helpers compute it (``test/e2e/util/node.go``)."""

from __future__ import annotations

from typing import Any

from volcano.api.resources import Resources, node_allocatable, pod_requests
from volcano.conformance.backends.base import Cluster

__all__ = ["cluster_node_number", "cluster_size", "compute_node", "idle_by_node", "slots"]

TERMINAL = ("Succeeded", "Failed")


def idle_by_node(cluster: Cluster) -> dict[str, Resources]:
    """Idle resources per untainted node: allocatable minus requests of live pods bound to it."""
    idle = {n["metadata"]["name"]: node_allocatable(n) for n in cluster.worker_nodes()}
    for p in cluster.list("Pod", "*"):
        node = p.get("spec", {}).get("nodeName")
        if node in idle and p.get("status", {}).get("phase") not in TERMINAL \
                and not p["metadata"].get("deletionTimestamp"):
            idle[node] = idle[node] - pod_requests(p)
    return idle


def slots(free: Resources, want: Resources) -> int:
    """How many times ``want`` fits in ``free`` (upstream's repeated ``LessEqual`` subtraction)."""
    count = 0
    while want.fits_in(free):
        free = free - want
        count += 1
    return count


def cluster_size(cluster: Cluster, req: dict[str, Any]) -> int:
    """How many pods requesting ``req`` fit on the untainted nodes (upstream ``ClusterSize``)."""
    want = Resources.from_k8s(req)
    total = sum(slots(free, want) for free in idle_by_node(cluster).values())
    assert total >= 1, f"no room for even one pod requesting {req}"
    return total


def compute_node(cluster: Cluster, req: dict[str, Any]) -> tuple[str, int]:
    """The first untainted node (by name) with room for ``req``, and how many ``req``-sized pods
    fit on it (upstream ``ComputeNode``)."""
    want = Resources.from_k8s(req)
    for name, free in sorted(idle_by_node(cluster).items()):
        n = slots(free, want)
        if n:
            return name, n
    raise AssertionError(f"no node has room for {req}")


def cluster_node_number(cluster: Cluster) -> int:
    """Number of untainted nodes (upstream ``ClusterNodeNumber``)."""
    return len(cluster.worker_nodes())
