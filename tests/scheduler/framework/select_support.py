"""Random nodes and pods of a few kinds for the node-selection property tests
(``test_select_cache``, ``test_select_carried``): the kinds touch each predicate the
selection serves (node selector, host port, toleration) and each score."""

from __future__ import annotations

import random
from typing import Any

Obj = dict[str, Any]


def random_node(i: int, rng: random.Random) -> Obj:
    """Node ``n<i>``: sometimes unschedulable or tainted, zone a or b, small random allocatable."""
    spec: Obj = {}
    if rng.random() < 0.1:
        spec["unschedulable"] = True
    if rng.random() < 0.1:
        spec["taints"] = [{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]
    cpu = rng.choice(["1", "2", "4"])
    return {"metadata": {"name": f"n{i}", "labels": {"zone": rng.choice(["a", "b"])}}, "spec": spec,
            "status": {"allocatable": {"cpu": cpu, "memory": rng.choice(["2Gi", "8Gi"]),
                                       "pods": rng.choice(["3", "110"])}}}


def kind_pod(i: int, kind: int, node: str = "", phase: str = "Pending", deleting: bool = False) -> Obj:
    """Pod ``p-<i>`` of PodGroup ``pg<i>``, its requests by ``kind % 3``; kind 3 selects zone a,
    kind 4 asks for host port 8080, kind 5 tolerates the taint. Optionally bound to ``node``, in
    ``phase``, or being deleted."""
    spec: Obj = {"schedulerName": "volcano",
                 "containers": [{"name": "c", "resources": {"requests": {
                     "cpu": ["100m", "500m", "1"][kind % 3], "memory": ["128Mi", "1Gi", "512Mi"][kind % 3]}}}]}
    if kind == 3:
        spec["nodeSelector"] = {"zone": "a"}
    if kind == 4:
        spec["containers"][0]["ports"] = [{"containerPort": 80, "hostPort": 8080}]
    if kind == 5:
        spec["tolerations"] = [{"key": "dedicated", "operator": "Exists"}]
    if node:
        spec["nodeName"] = node
    meta: Obj = {"name": f"p-{i}", "namespace": "ns", "uid": f"u{i}",
                 "annotations": {"scheduling.k8s.io/group-name": f"pg{i}"}}
    if deleting:
        meta["deletionTimestamp"] = "2024-01-01T00:00:00Z"
    return {"metadata": meta, "spec": spec, "status": {"phase": phase}}
