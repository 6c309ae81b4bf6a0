"""nodeorder's BalancedAllocation over three resources (scheduler reference §5.7; kube-scheduler's
NodeResourcesBalancedAllocation, which Volcano runs over cpu, memory and ``nvidia.com/gpu``): for a
pod that asks for GPUs the score is ``(1 - std) x 100`` of the three requested-to-allocatable
fractions after placing it (the population standard deviation; ``|f1 - f2| / 2`` is only the
two-resource case).

Two workers of 4 CPUs, 16Gi and 2 GPUs, least-requested switched off (weight 0) so that balance
alone decides; worker-1 runs a pod of 1 CPU and 5Gi. A pod of 1 CPU, 4Gi and 1 GPU scores on worker-0
fractions (.25, .25, .5): std .118, score 88; on worker-1 (.5, .5625, .5): std .029, score 97, so it
goes to worker-1. Over cpu and memory alone worker-0 would score 100 against 96.
"""

from __future__ import annotations

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import pod
from volcano.conformance.lib.waits import bound

pytestmark = pytest.mark.scheduling_base

CONF = ("actions: \"enqueue, allocate\"\ntiers:\n- plugins:\n  - name: priority\n  - name: gang\n"
        "- plugins:\n  - name: predicates\n  - name: proportion\n  - name: nodeorder\n    arguments:\n"
        "      leastrequested.weight: 0\n      balancedresource.weight: 1\n")


@pytest.mark.cluster(workers=2, cpu="4", memory="16Gi", gpu=2, control_plane=False)
@pytest.mark.scheduler_conf(CONF)
def test_balance_counts_the_gpu_fraction_of_a_gpu_pod(cluster: Cluster) -> None:
    """The 1-CPU, 4Gi, 1-GPU pod goes to worker-1."""
    workers = sorted(w["metadata"]["name"] for w in cluster.worker_nodes())
    cluster.apply(pod("resident", req={"cpu": "1", "memory": "5Gi"},
                      node_selector={"kubernetes.io/hostname": workers[1]}))
    cluster.wait_until(lambda: bound(cluster.get("Pod", "resident")), 60, "the resident binds")
    cluster.apply(pod("gpu-pod", req={"cpu": "1", "memory": "4Gi", "nvidia.com/gpu": "1"}))
    cluster.wait_until(lambda: bound(cluster.get("Pod", "gpu-pod")), 60, "the GPU pod binds")
    assert cluster.get("Pod", "gpu-pod")["spec"]["nodeName"] == workers[1]
