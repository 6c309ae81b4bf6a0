"""nodeorder's BalancedAllocation leaves out ``nvidia.com/gpu`` for a pod that requests none
(Kubernetes scores an extended resource the pod does not request as (0, 0), skipped): a GPU node,
a little ahead on LeastAllocated, keeps its lead for a cpu-and-memory pod; a pod that does request a
GPU is balanced over all three."""

from __future__ import annotations

from volcano.testbed import FakeCluster

CONF = ("actions: \"enqueue, allocate\"\ntiers:\n- plugins:\n  - name: priority\n  - name: gang\n"
        "- plugins:\n  - name: predicates\n  - name: proportion\n  - name: nodeorder\n")


def _place(requests: dict[str, str]) -> str:
    fc = FakeCluster(seed=1, scheduler_conf=CONF)
    fc.add_node("bal-plain", cpu="4", memory="8Gi")
    fc.add_node("bal-gpu", cpu="4500m", memory="8Gi", gpu=2)
    fc.add_node("bal-gpu-b", cpu="4", memory="8Gi", gpu=2)
    fc.apply({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
              "spec": {"schedulerName": "volcano",
                       "containers": [{"name": "c", "image": "nginx", "resources": {"requests": requests,
                                                                                     "limits": requests}}]}})
    fc.run(5)
    return str(fc.client.get("Pod", "p", "default")["spec"].get("nodeName") or "")


def test_a_pod_without_gpus_is_balanced_over_cpu_and_memory_only() -> None:
    # bal-gpu: least 82 + balanced 95 = 177; bal-plain and bal-gpu-b: 81 + 93 = 174 (with the GPU as a
    # third fraction of 0, bal-gpu would score 82 + 90 = 172 and lose).
    assert _place({"cpu": "1", "memory": "1Gi"}) == "bal-gpu"


def test_a_pod_with_gpus_is_balanced_over_all_three() -> None:
    # Only the GPU nodes fit; bal-gpu: least 82 + balanced over (.222, .125, .5) 84 = 166 against
    # bal-gpu-b's 81 + 84 = 165.
    assert _place({"cpu": "1", "memory": "1Gi", "nvidia.com/gpu": "1"}) == "bal-gpu"
