"""nodeorder's LeastAllocated score to the point (scheduler reference §5.7; kube-scheduler's
NodeResourcesFit with the LeastAllocated strategy over cpu and memory, equal weights).

Per resource the score is ``(allocatable - requested) * 100 / allocatable`` in integers, 0 when the
request exceeds the node, and the node's score is the integer average of the two. A pod that
requests no memory counts as 200Mi of it for this score (kube-scheduler's non-zero default), so a
node with less memory than that scores 0 for memory while predicates still let the pod in.

Each case offers two nodes whose scores differ by one point, nodeorder's other scorers switched off
(weight 0): the pod goes to the node one point ahead. The nodes are the suite's own, sized for the
case (``lr-a`` and ``lr-b``, reached through a ``pool`` label), so the integers do not depend on the
cluster's workers.
"""

from __future__ import annotations

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import pod
from volcano.conformance.lib.waits import bound

pytestmark = pytest.mark.scheduling_base

POOL = {"pool": "least-requested"}
CONF = ("actions: \"enqueue, allocate\"\ntiers:\n- plugins:\n  - name: priority\n  - name: gang\n"
        "- plugins:\n  - name: predicates\n  - name: proportion\n  - name: nodeorder\n    arguments:\n"
        "      leastrequested.weight: 1\n      mostrequested.weight: 0\n      balancedresource.weight: 0\n"
        "      nodeaffinity.weight: 0\n      podaffinity.weight: 0\n      tainttoleration.weight: 0\n"
        "      imagelocality.weight: 0\n      podtopologyspread.weight: 0\n")


def _node(name: str, cpu: str, memory: str) -> dict[str, object]:
    capacity = {"cpu": cpu, "memory": memory, "pods": "110"}
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {**POOL, "kubernetes.io/hostname": name}},
            "status": {"capacity": dict(capacity), "allocatable": dict(capacity),
                       "conditions": [{"type": "Ready", "status": "True"}]}}


@pytest.mark.scheduler_conf(CONF)
@pytest.mark.parametrize(("a", "b"), [
    # lr-a: cpu (4-1)/4 -> 75; 200Mi of memory asked of 100Mi -> 0; (75 + 0) // 2 = 37.
    # lr-b: cpu 75; memory (204-200)/204 -> 1 (1.96); (75 + 1) // 2 = 38.
    pytest.param(("4", "100Mi"), ("4", "204Mi"), id="memory-beyond-the-node-scores-0"),
    # lr-a: cpu (7-1)/7 -> 85 (85.7); memory (600-200)/600 -> 66 (66.7); (85 + 66) // 2 = 75.
    # lr-b: cpu 75; memory (900-200)/900 -> 77 (77.8); (75 + 77) // 2 = 76.
    pytest.param(("7", "600Mi"), ("4", "900Mi"), id="each-resource-floored-before-the-average"),
])
def test_least_requested_scores_in_whole_points(cluster: Cluster, a: tuple[str, str], b: tuple[str, str]) -> None:
    """A one-CPU pod without a memory request goes to ``lr-b``, one point ahead of ``lr-a``."""
    cluster.apply([_node("lr-a", *a), _node("lr-b", *b)])
    cluster.apply(pod("newcomer", req={"cpu": "1"}, node_selector=dict(POOL)))
    cluster.wait_until(lambda: bound(cluster.get("Pod", "newcomer")), 60, "newcomer bound")
    assert cluster.get("Pod", "newcomer")["spec"]["nodeName"] == "lr-b"
