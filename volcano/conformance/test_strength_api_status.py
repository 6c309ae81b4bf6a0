"""API conformance: what a status write of a workload controller may say.

The ``status`` subresource of Deployments, ReplicaSets, StatefulSets and ReplicationControllers is
validated as kube-apiserver's status strategies do: every counter is not negative, the
ready/available/updated counters are not above ``status.replicas``, and ``availableReplicas`` is
not above ``readyReplicas``; a missing counter counts as 0 (the Go struct's zero). A refused write
is 422 Invalid naming each field with its value, in the order Go lists them, and the stored status
is unchanged; the limits themselves (equal counters, zeros) are accepted.

The workloads have ``replicas: 0`` and a scheduler that does not exist, so no pod is made and the
controllers' own status writes agree with the ones accepted here. Every case uses only the
backend-neutral ``cluster`` fixture.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.test_admission import denial, plain

__all__: list[str] = []

Obj = dict[str, Any]
NEG = "must be greater than or equal to 0"
ABOVE = "cannot be greater than status.replicas"


def _workload(kind: str, name: str) -> Obj:
    labels = {"app": name}
    template = {"metadata": {"labels": labels},
                "spec": {"schedulerName": "strength-absent-scheduler",
                         "containers": [{"name": "c", "image": "busybox:1.36"}]}}
    spec: Obj = {"replicas": 0, "template": template}
    spec["selector"] = labels if kind == "ReplicationController" else {"matchLabels": labels}
    if kind == "StatefulSet":
        spec["serviceName"] = name
    api = "v1" if kind == "ReplicationController" else "apps/v1"
    return {"apiVersion": api, "kind": kind, "metadata": {"name": name}, "spec": spec}


def _title(kind: str, name: str) -> str:
    return f'{kind} "{name}"' if kind == "ReplicationController" else f'{kind}.apps "{name}"'


def _refused_status(cluster: Cluster, kind: str, name: str, status: Obj) -> str:
    """The causes of the 422 refusing a status merge patch (the stored status unchanged)."""
    before = cluster.get(kind, name).get("status")
    d = denial(lambda: cluster.patch(kind, name, {"status": status}, subresource="status"))
    assert (d.code, d.reason) == (422, "Invalid"), d
    prefix = f"{_title(kind, name)} is invalid: "
    assert d.message.startswith(prefix), d.message
    assert cluster.get(kind, name).get("status") == before
    return d.message[len(prefix):]


_ZEROS = {
    "Deployment": {"replicas": 0, "updatedReplicas": 0, "readyReplicas": 0, "availableReplicas": 0,
                   "unavailableReplicas": 0},
    "ReplicaSet": {"replicas": 0, "fullyLabeledReplicas": 0, "readyReplicas": 0, "availableReplicas": 0},
    "StatefulSet": {"replicas": 0, "readyReplicas": 0, "currentReplicas": 0, "updatedReplicas": 0,
                    "availableReplicas": 0},
    "ReplicationController": {"replicas": 0, "fullyLabeledReplicas": 0, "readyReplicas": 0,
                              "availableReplicas": 0},
}


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_deployment_status_counters(cluster: Cluster) -> None:
    """``deployments/status``: ``replicas: -1`` is refused with every counter then above it; each
    other counter one below 0; above ``replicas`` by one; ``availableReplicas`` above
    ``readyReplicas``; all at their limits (equal) is stored."""
    cluster.create(_workload("Deployment", "st-deploy"))
    base = _ZEROS["Deployment"]
    causes = _refused_status(cluster, "Deployment", "st-deploy", {**base, "replicas": -1})
    assert causes == (f"[status.replicas: Invalid value: -1: {NEG}, "
                      f"status.updatedReplicas: Invalid value: 0: {ABOVE}, "
                      f"status.readyReplicas: Invalid value: 0: {ABOVE}, "
                      f"status.availableReplicas: Invalid value: 0: {ABOVE}]"), causes
    for field in ("observedGeneration", "unavailableReplicas", "collisionCount"):
        causes = _refused_status(cluster, "Deployment", "st-deploy", {**base, field: -1})
        assert causes == f"status.{field}: Invalid value: -1: {NEG}", causes
    causes = _refused_status(cluster, "Deployment", "st-deploy",
                             {**base, "replicas": 2, "updatedReplicas": 3, "readyReplicas": 2, "availableReplicas": 2})
    assert causes == f"status.updatedReplicas: Invalid value: 3: {ABOVE}", causes
    causes = _refused_status(cluster, "Deployment", "st-deploy",
                             {**base, "replicas": 2, "readyReplicas": 1, "availableReplicas": 2})
    assert causes == "status.availableReplicas: Invalid value: 2: cannot be greater than readyReplicas", causes
    causes = _refused_status(cluster, "Deployment", "st-deploy",
                             {**base, "replicas": 2, "readyReplicas": 3, "availableReplicas": 3})
    assert causes == (f"[status.readyReplicas: Invalid value: 3: {ABOVE}, "
                      f"status.availableReplicas: Invalid value: 3: {ABOVE}]"), causes
    limit = {**base, "replicas": 2, "updatedReplicas": 2, "readyReplicas": 2, "availableReplicas": 2,
             "collisionCount": 0, "observedGeneration": 0}
    stored = plain(cluster.patch("Deployment", "st-deploy", {"status": limit}, subresource="status"))
    assert {k: stored["status"].get(k) for k in limit} == limit


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
@pytest.mark.parametrize("kind", ["ReplicaSet", "ReplicationController"])
def test_replica_set_status_counters(cluster: Cluster, kind: str) -> None:
    """A ReplicaSet's and a ReplicationController's status: ``fullyLabeledReplicas``,
    ``readyReplicas`` and ``availableReplicas`` at most ``replicas``, available at most ready,
    ``observedGeneration`` not negative; the limits are stored."""
    name = f"st-{kind.lower()}"
    cluster.create(_workload(kind, name))
    base = _ZEROS[kind]
    causes = _refused_status(cluster, kind, name, {**base, "replicas": 1, "fullyLabeledReplicas": 2})
    assert causes == f"status.fullyLabeledReplicas: Invalid value: 2: {ABOVE}", causes
    causes = _refused_status(cluster, kind, name, {**base, "observedGeneration": -1})
    assert causes == f"status.observedGeneration: Invalid value: -1: {NEG}", causes
    causes = _refused_status(cluster, kind, name, {**base, "replicas": 3, "readyReplicas": 2, "availableReplicas": 3})
    assert causes == "status.availableReplicas: Invalid value: 3: cannot be greater than readyReplicas", causes
    causes = _refused_status(cluster, kind, name, {**base, "fullyLabeledReplicas": -1})
    assert causes == f"status.fullyLabeledReplicas: Invalid value: -1: {NEG}", causes
    limit = {"replicas": 3, "fullyLabeledReplicas": 3, "readyReplicas": 3, "availableReplicas": 3}
    stored = plain(cluster.patch(kind, name, {"status": limit}, subresource="status"))
    assert {k: stored["status"].get(k) for k in limit} == limit


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_stateful_set_status_counters(cluster: Cluster) -> None:
    """A StatefulSet's status: ``currentReplicas`` and ``updatedReplicas`` at most ``replicas``,
    ``availableReplicas`` at most ``readyReplicas`` (its own wording, ``status.readyReplicas``),
    ``collisionCount`` not negative."""
    cluster.create(_workload("StatefulSet", "st-sts"))
    base = _ZEROS["StatefulSet"]
    causes = _refused_status(cluster, "StatefulSet", "st-sts",
                             {**base, "replicas": 1, "currentReplicas": 2, "updatedReplicas": 1})
    assert causes == f"status.currentReplicas: Invalid value: 2: {ABOVE}", causes
    causes = _refused_status(cluster, "StatefulSet", "st-sts",
                             {**base, "replicas": 2, "readyReplicas": 1, "availableReplicas": 2})
    assert causes == ("status.availableReplicas: Invalid value: 2: cannot be greater than status.readyReplicas"), causes
    causes = _refused_status(cluster, "StatefulSet", "st-sts", {**base, "collisionCount": -1})
    assert causes == f"status.collisionCount: Invalid value: -1: {NEG}", causes
    limit = {"replicas": 2, "readyReplicas": 2, "currentReplicas": 2, "updatedReplicas": 2, "availableReplicas": 2}
    stored = plain(cluster.patch("StatefulSet", "st-sts", {"status": limit}, subresource="status"))
    assert {k: stored["status"].get(k) for k in limit} == limit
