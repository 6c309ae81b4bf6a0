"""The default scheduler (kube-scheduler's stand-in for pods with ``schedulerName: default-scheduler``)
scores a node by what would be left free after placing the pod, as a fraction of the node's
allocatable (kube-scheduler's LeastAllocated: ``(allocatable - requested - request) / allocatable``),
so on nodes of different sizes the pod's own request counts against the smaller node more.
"""

from __future__ import annotations

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import pod
from volcano.conformance.lib.waits import bound

pytestmark = pytest.mark.scheduling_base

POOL = {"pool": "sized"}


def _node(name: str, cpu: int) -> dict[str, object]:
    capacity = {"cpu": str(cpu), "memory": "8Gi", "pods": "110"}
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {**POOL, "kubernetes.io/hostname": name}},
            "status": {"capacity": dict(capacity), "allocatable": dict(capacity)}}


def _bind(cluster: Cluster, name: str, cpu: str, node: str | None = None) -> str:
    selector = {"kubernetes.io/hostname": node} if node else dict(POOL)
    cluster.apply(pod(name, req={"cpu": cpu}, scheduler="default-scheduler", node_selector=selector))
    cluster.wait_until(lambda: bound(cluster.get("Pod", name)), 60, f"{name} bound")
    return str(cluster.get("Pod", name)["spec"]["nodeName"])


@pytest.mark.parametrize(("request_cpu", "chosen"), [("1", "sized-big"), ("100m", "sized-small")])
def test_the_default_scheduler_counts_the_pods_own_request_per_node_size(cluster: Cluster, request_cpu: str,
                                                                          chosen: str) -> None:
    """``sized-big`` (4 CPUs, 2 used) and ``sized-small`` (2 CPUs, 900m used): with a 1-CPU pod the big
    node keeps the larger share free (1/4 against 0.1/2), though before placing the small one has
    (1.1/2 against 2/4); a 100m pod leaves half of the small node free against 0.475 of the big
    (memory, untouched, is even on both)."""
    cluster.apply([_node("sized-small", 2), _node("sized-big", 4)])
    assert _bind(cluster, "fill-big", "2", "sized-big") == "sized-big"
    assert _bind(cluster, "fill-small", "900m", "sized-small") == "sized-small"
    assert _bind(cluster, "newcomer", request_cpu) == chosen
