"""API conformance: the garbage collector's handling of owner references a client writes.

* A dependent none of whose owners exists (no object with the reference's uid; an object of
  the same name but another uid is not its owner) is deleted.
* A dependent with one live owner and one absent owner keeps the live reference only.
* Deleting a Deployment: Background removes its ReplicaSet and that ReplicaSet's pods; Orphan
  keeps the ReplicaSet, without its reference to the Deployment.

Every case uses only the backend-neutral ``cluster`` fixture.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.test_admission import plain

__all__: list[str] = []

Obj = dict[str, Any]
GHOST_UID = "5a1c3f3e-0000-4000-8000-000000000001"


def _cm(name: str, refs: list[Obj] | None = None) -> Obj:
    meta: Obj = {"name": name}
    if refs:
        meta["ownerReferences"] = refs
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": {"k": "v"}}


def _ref(name: str, uid: str) -> Obj:
    return {"apiVersion": "v1", "kind": "ConfigMap", "name": name, "uid": uid}


def _ref_names(cluster: Cluster, name: str) -> list[str] | None:
    obj = cluster.try_get("ConfigMap", name)
    return None if obj is None else [r["name"] for r in obj["metadata"].get("ownerReferences") or []]


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_dependent_of_absent_owners_is_collected(cluster: Cluster) -> None:
    """Owner references to no live object: the dependent is deleted, also when an object of the
    owner's name exists with another uid; a live owner beside an absent one keeps the dependent,
    whose dangling reference is removed."""
    live = plain(cluster.create(_cm("gc-live")))
    cluster.create(_cm("gc-orphaned", [_ref("gc-ghost", GHOST_UID)]))
    cluster.create(_cm("gc-wrong-uid", [_ref("gc-live", GHOST_UID)]))
    cluster.create(_cm("gc-mixed", [_ref("gc-ghost", GHOST_UID), _ref("gc-live", live["metadata"]["uid"])]))
    cluster.wait_until(lambda: cluster.try_get("ConfigMap", "gc-orphaned") is None, 120, "gc-orphaned collected")
    cluster.wait_until(lambda: cluster.try_get("ConfigMap", "gc-wrong-uid") is None, 120, "gc-wrong-uid collected")
    cluster.wait_until(lambda: _ref_names(cluster, "gc-mixed") == ["gc-live"], 120,
                       "gc-mixed keeps only its live owner")
    assert cluster.try_get("ConfigMap", "gc-live") is not None


def _deployment(name: str) -> Obj:
    labels = {"app": name}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"replicas": 1, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels},
                                  "spec": {"schedulerName": "strength-absent-scheduler",
                                           "containers": [{"name": "c", "image": "busybox:1.36"}]}}}}


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
@pytest.mark.parametrize("policy", ["Background", "Orphan"])
def test_deployment_deletion_propagates(cluster: Cluster, policy: str) -> None:
    """Background: the ReplicaSet and its pod go with the Deployment. Orphan: the ReplicaSet
    stays without its reference to the Deployment, and keeps its pod."""
    name = f"gc-{policy.lower()}"
    deployment = plain(cluster.create(_deployment(name)))
    selector = f"app={name}"

    def replica_sets() -> list[Obj]:
        return [plain(o) for o in cluster.list("ReplicaSet", label_selector=selector)]

    cluster.wait_until(lambda: len(replica_sets()) == 1 and len(cluster.pods(selector)) == 1, 120,
                       "the Deployment's ReplicaSet and pod exist")
    owner_refs = replica_sets()[0]["metadata"]["ownerReferences"]
    assert [(r["kind"], r["uid"]) for r in owner_refs] == [("Deployment", deployment["metadata"]["uid"])]
    cluster.delete("Deployment", name, propagation_policy=policy)
    cluster.wait_until(lambda: cluster.try_get("Deployment", name) is None, 120, "the Deployment goes")
    if policy == "Background":
        cluster.wait_until(lambda: not replica_sets() and not cluster.pods(selector), 120,
                           "the ReplicaSet and its pod are collected")
        return
    cluster.wait_until(lambda: len(replica_sets()) == 1 and not replica_sets()[0]["metadata"].get("ownerReferences"),
                       120, "the ReplicaSet is orphaned")
    cluster.hold(lambda: len(replica_sets()) == 1 and len(cluster.pods(selector)) == 1, 10,
                 "the orphaned ReplicaSet keeps its pod")
