"""binpack's per-resource weights (scheduler reference §5.8): a node scores the weighted mean of
``(request + used) / allocatable`` over the resources the task requests that have a weight
(``binpack.cpu``, ``binpack.memory``, and the extra resources named in ``binpack.resources`` with
``binpack.resources.<name>``, 1 unless told; a negative weight counts as 1). The cases run binpack
as the only scorer, so its weights alone decide between two nodes.
"""

from __future__ import annotations

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import pod
from volcano.conformance.lib.waits import bound

pytestmark = pytest.mark.scheduling_base

GPU = "nvidia.com/gpu"


def _conf(cpu: int, gpu: int | None, *, listed: bool = True) -> str:
    lines = ["  - name: binpack", "    arguments:", "      binpack.weight: 10", f"      binpack.cpu: {cpu}",
             "      binpack.memory: 0"]
    if listed:
        lines.append(f"      binpack.resources: {GPU}")
        if gpu is not None:
            lines.append(f"      binpack.resources.{GPU}: {gpu}")
    return ("actions: \"enqueue, allocate\"\ntiers:\n- plugins:\n  - name: priority\n  - name: gang\n"
            "- plugins:\n  - name: predicates\n  - name: proportion\n" + "\n".join(lines) + "\n")


CASES = [
    # (cpu weight, gpu weight, gpu listed, node chosen): worker-0 holds 2 of 4 GPUs and 0.5 CPU,
    # worker-1 3 of 4 CPUs and no GPU; the pod asks 1 CPU and 1 GPU. worker-0 scores
    # (0.375 c + 0.75 g) / (c + g), worker-1 (1.0 c + 0.25 g) / (c + g).
    (1, None, False, 1),  # GPUs not weighed: CPU packing alone, worker-1
    (1, 1, True, 1),  # 1.125 / 2 against 1.25 / 2
    (1, 2, True, 0),  # 1.875 / 3 against 1.5 / 3
    (1, None, True, 1),  # listed without a weight: weight 1
    (1, -2, True, 1),  # a negative weight counts as 1
    (0, 1, True, 0),  # CPU not weighed: GPU packing alone
    (1, 0, True, 1),  # a GPU weight of 0 adds nothing
]


@pytest.mark.cluster(workers=2, cpu="4", gpu=4)
@pytest.mark.parametrize(("cpu", "gpu", "listed", "chosen"), [
    pytest.param(cpu, gpu, listed, chosen, marks=pytest.mark.scheduler_conf(_conf(cpu, gpu, listed=listed)))
    for cpu, gpu, listed, chosen in CASES
])
def test_binpack_weighs_extra_resources(cluster: Cluster, cpu: int, gpu: int | None, listed: bool,
                                        chosen: int) -> None:
    """The pod goes to the node binpack's weights make fuller after placing it (table above)."""
    workers = sorted(w["metadata"]["name"] for w in cluster.worker_nodes())
    holders = [pod("gpu-holder", req={"cpu": "500m", GPU: "2"}, node_selector={"kubernetes.io/hostname": workers[0]}),
               pod("cpu-holder", req={"cpu": "3"}, node_selector={"kubernetes.io/hostname": workers[1]})]
    cluster.apply(holders)
    cluster.wait_until(lambda: all(bound(cluster.get("Pod", n)) for n in ("gpu-holder", "cpu-holder")), 60,
                       "holders bound")
    cluster.apply(pod("packed", req={"cpu": "1", GPU: "1"}))
    cluster.wait_until(lambda: bound(cluster.get("Pod", "packed")), 60, "the pod binds")
    assert cluster.get("Pod", "packed")["spec"]["nodeName"] == workers[chosen]
