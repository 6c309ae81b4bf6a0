"""Preferred node affinity by every operator of a node selector requirement (Kubernetes
``NodeSelectorRequirement``, ``nodeaffinity`` NodeAffinity scorer; scheduler reference, nodeorder):
``Exists`` and ``DoesNotExist`` test the label key, ``Gt`` and ``Lt`` compare the label value as an
integer strictly (a value that is not an integer matches neither), and ``matchFields`` on
``metadata.name`` with ``In`` or ``NotIn`` names nodes. A term whose requirements all hold adds its
weight to a node's score.

Shape: two workers; worker-1 carries a busy pod, so least-requested alone sends the newcomer to the
emptier worker-0, and a preference met only on worker-1 (weight 1, scaled by ``nodeaffinity.weight``
2 to 200 points against least-requested's 50) sends it to worker-1.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import pod
from volcano.conformance.lib.waits import bound

Obj = dict[str, Any]

pytestmark = [pytest.mark.scheduling_base, pytest.mark.cluster(workers=2, cpu="4", memory="16Gi",
                                                               control_plane=False)]

REQ = {"cpu": "1", "memory": "1Gi"}
LABELS = ({"cov-rank": "9", "cov-size": "big", "cov-plain": "yes"},   # worker-0
          {"cov-rank": "5", "cov-size": "7", "cov-gold": "yes"})      # worker-1


def _setup(cluster: Cluster) -> list[str]:
    """Sorted worker names, labelled with ``LABELS``; worker-1 runs the busy pod (2 CPUs, 8Gi)."""
    workers = sorted(w["metadata"]["name"] for w in cluster.worker_nodes())
    for worker, labels in zip(workers, LABELS, strict=True):
        cluster.patch("Node", worker, {"metadata": {"labels": labels}}, namespace="")
    cluster.apply(pod("busy", req={"cpu": "2", "memory": "8Gi"}, node_selector={"kubernetes.io/hostname": workers[1]}))
    cluster.wait_until(lambda: bound(cluster.get("Pod", "busy")), 60, "the busy pod binds")
    return workers


def _place(cluster: Cluster, preference: Obj) -> str:
    p = pod("newcomer", req=REQ)
    p["spec"]["affinity"] = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{
        "weight": 1, "preference": preference}]}}
    cluster.apply(p)
    cluster.wait_until(lambda: bound(cluster.get("Pod", "newcomer")), 60, "the newcomer binds")
    return str(cluster.get("Pod", "newcomer")["spec"]["nodeName"])


def _expr(key: str, op: str, *values: str) -> Obj:
    req: Obj = {"key": key, "operator": op}
    if values:
        req["values"] = list(values)
    return {"matchExpressions": [req]}


@pytest.mark.parametrize(("preference", "chosen"), [
    (_expr("cov-rank", "Lt", "9"), 1),        # 5 < 9 only on worker-1 (9 < 9 is false)
    (_expr("cov-rank", "Gt", "5"), 0),        # 9 > 5 only on worker-0 (5 > 5 is false)
    (_expr("cov-rank", "Lt", "5"), 0),        # nowhere (5 < 5 false): least-requested decides
    (_expr("cov-size", "Gt", "6"), 1),        # "big" is not an integer, 7 > 6
    (_expr("cov-gold", "Exists"), 1),
    (_expr("cov-plain", "DoesNotExist"), 1),
    (_expr("cov-missing", "Exists"), 0),
    ({"matchExpressions": [{"key": "cov-gold", "operator": "Exists"},
                           {"key": "cov-rank", "operator": "Gt", "values": ["6"]}]}, 0),  # ANDed: no node
], ids=["lt", "gt-strict", "lt-nowhere", "gt-not-an-integer", "exists", "does-not-exist",
        "exists-nowhere", "and"])
def test_preferred_expressions_by_operator(cluster: Cluster, preference: Obj, chosen: int) -> None:
    """Each preference goes to worker-1 exactly when its requirements hold on worker-1 only."""
    workers = _setup(cluster)
    assert _place(cluster, preference) == workers[chosen]


@pytest.mark.parametrize(("op", "target", "chosen"), [("In", 1, 1), ("NotIn", 0, 1), ("In", 0, 0),
                                                      ("NotIn", 1, 0)])
def test_preferred_match_fields_name_the_node(cluster: Cluster, op: str, target: int, chosen: int) -> None:
    """``matchFields`` ``metadata.name`` ``In [worker-1]`` or ``NotIn [worker-0]`` prefers worker-1;
    ``In [worker-0]`` or ``NotIn [worker-1]`` prefers the emptier worker-0."""
    workers = _setup(cluster)
    preference = {"matchFields": [{"key": "metadata.name", "operator": op, "values": [workers[target]]}]}
    assert _place(cluster, preference) == workers[chosen]
