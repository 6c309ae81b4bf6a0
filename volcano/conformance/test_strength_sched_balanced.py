"""nodeorder's BalancedAllocation and an extended resource the pod does not ask for (scheduler
reference §5.7; kube-scheduler's NodeResourcesBalancedAllocation, which Volcano runs over cpu, memory
and ``nvidia.com/gpu``): a scalar resource the pod requests none of is left out of the score, so a
node's GPUs neither help nor hurt a pod that uses none.

``bal-gpu`` (4.5 CPUs, 8Gi, 2 GPUs) and ``bal-plain`` (4 CPUs, 8Gi), both empty, for a pod of 1 CPU
and 1Gi, nodeorder's default weights: LeastAllocated gives 82 against 81 (the larger CPU share left
free), BalancedAllocation over cpu and memory 95 against 93, so the GPU node wins, 177 to 174.
Counting the unrequested GPU as a third fraction (0) would give the GPU node 90 for balance and
send the pod to ``bal-plain``.
"""

from __future__ import annotations

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import pod
from volcano.conformance.lib.waits import bound

pytestmark = pytest.mark.scheduling_base

POOL = {"pool": "balanced"}
CONF = ("actions: \"enqueue, allocate\"\ntiers:\n- plugins:\n  - name: priority\n  - name: gang\n"
        "- plugins:\n  - name: predicates\n  - name: proportion\n  - name: nodeorder\n")


def _node(name: str, capacity: dict[str, str]) -> dict[str, object]:
    capacity = {**capacity, "pods": "110"}
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {**POOL, "kubernetes.io/hostname": name}},
            "status": {"capacity": dict(capacity), "allocatable": dict(capacity),
                       "conditions": [{"type": "Ready", "status": "True"}]}}


@pytest.mark.scheduler_conf(CONF)
def test_gpus_the_pod_does_not_ask_for_leave_the_balance_alone(cluster: Cluster) -> None:
    """The 1-CPU, 1Gi pod goes to ``bal-gpu``."""
    cluster.apply([_node("bal-plain", {"cpu": "4", "memory": "8Gi"}),
                   _node("bal-gpu", {"cpu": "4500m", "memory": "8Gi", "nvidia.com/gpu": "2"})])
    cluster.apply(pod("cpu-only", req={"cpu": "1", "memory": "1Gi"}, node_selector=dict(POOL)))
    cluster.wait_until(lambda: bound(cluster.get("Pod", "cpu-only")), 60, "cpu-only bound")
    assert cluster.get("Pod", "cpu-only")["spec"]["nodeName"] == "bal-gpu"
