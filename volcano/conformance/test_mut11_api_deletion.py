"""API conformance: what a DELETE leaves behind at once, per propagation policy, and a second delete.

* ``Background`` (and no policy: a ConfigMap's default) removes an owner without finalizers at once,
  whatever its dependents: the DELETE returns with the object gone, and the garbage collector then
  deletes each dependent (one held by its own finalizer stays, marked with ``deletionTimestamp`` and
  ``deletionGracePeriodSeconds: 0``, until the finalizer is removed).
* ``Foreground`` marks the owner with the ``foregroundDeletion`` finalizer; a dependent whose owner
  reference does not set ``blockOwnerDeletion`` does not hold it: the owner goes, the dependent is
  deleted too (held by its own finalizer, marked).
* A second DELETE of a pod already terminating, without a grace period, changes nothing
  (``rest.BeforeDelete``: only a shorter grace period moves the deadline).

Objects are ConfigMaps (no controller writes them) and one pod. Every case uses only the
backend-neutral ``cluster`` fixture.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.test_admission import plain

__all__: list[str] = []

Obj = dict[str, Any]
HOLD = "example.com/mut11-hold"


def _cm(name: str, **meta: Any) -> Obj:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, **meta}, "data": {"k": "v"}}


def _owned(cluster: Cluster, owner: str, dependent: str, *, block: bool) -> None:
    """Create ``owner`` and ``dependent`` (owned by it, held by the ``HOLD`` finalizer)."""
    made = plain(cluster.create(_cm(owner)))
    ref = {"apiVersion": "v1", "kind": "ConfigMap", "name": owner, "uid": made["metadata"]["uid"]}
    if block:
        ref["blockOwnerDeletion"] = True
    cluster.create(_cm(dependent, ownerReferences=[ref], finalizers=[HOLD]))


def _marked(cluster: Cluster, name: str) -> Obj | None:
    """The metadata of ``name`` once it is marked for deletion (None before, or when gone)."""
    obj = cluster.try_get("ConfigMap", name)
    meta = plain(obj)["metadata"] if obj is not None else {}
    return meta if meta.get("deletionTimestamp") else None


def _release(cluster: Cluster, name: str) -> None:
    """Remove ``name``'s finalizers; being marked, it then goes."""
    cluster.patch("ConfigMap", name, {"metadata": {"finalizers": None}})
    cluster.wait_until(lambda: cluster.try_get("ConfigMap", name) is None, 60, f"{name} removed")


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
@pytest.mark.parametrize("policy", [None, "Background"], ids=["default", "background"])
def test_background_deletion_removes_the_owner_at_once(cluster: Cluster, policy: str | None) -> None:
    """The owner is gone when the DELETE returns, though its (blocking) dependent still exists; the
    dependent is then marked for deletion with grace 0, its own finalizer kept, and goes once released."""
    owner, dependent = f"bg-owner-{policy or 'default'}".lower(), f"bg-dep-{policy or 'default'}".lower()
    _owned(cluster, owner, dependent, block=True)
    cluster.delete("ConfigMap", owner, propagation_policy=policy)
    assert cluster.try_get("ConfigMap", owner) is None
    cluster.wait_until(lambda: _marked(cluster, dependent) is not None, 60, "the dependent marked for deletion")
    meta = _marked(cluster, dependent)
    assert meta is not None and (meta["finalizers"], meta["deletionGracePeriodSeconds"]) == ([HOLD], 0), meta
    _release(cluster, dependent)


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_foreground_deletion_is_not_held_by_a_non_blocking_dependent(cluster: Cluster) -> None:
    """Foreground with a dependent whose reference lacks ``blockOwnerDeletion``: the owner goes and the
    dependent is deleted (marked, its own finalizer kept, without ``foregroundDeletion``: it has no
    dependents)."""
    _owned(cluster, "fg-nb-owner", "fg-nb-dep", block=False)
    cluster.delete("ConfigMap", "fg-nb-owner", propagation_policy="Foreground")
    cluster.wait_until(lambda: cluster.try_get("ConfigMap", "fg-nb-owner") is None, 60, "the owner goes")
    cluster.wait_until(lambda: _marked(cluster, "fg-nb-dep") is not None, 60, "the dependent marked for deletion")
    meta = _marked(cluster, "fg-nb-dep")
    assert meta is not None and meta["finalizers"] == [HOLD], meta
    _release(cluster, "fg-nb-dep")


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_second_delete_of_a_terminating_pod_keeps_its_deadline(cluster: Cluster) -> None:
    """A running pod deleted twice (no grace period given): the second DELETE succeeds and leaves the
    deletion timestamp and grace period of the first (``terminationGracePeriodSeconds``)."""
    cluster.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "twice-deleted"},
                    "spec": {"terminationGracePeriodSeconds": 600,
                             "containers": [{"name": "c", "image": "busybox:1.36", "command": ["sleep", "3600"]}]}})
    cluster.wait_until(lambda: (cluster.get("Pod", "twice-deleted").get("status") or {}).get("phase") == "Running",
                       120, "the pod runs")
    cluster.delete("Pod", "twice-deleted")
    first = plain(cluster.get("Pod", "twice-deleted"))["metadata"]
    assert first["deletionTimestamp"] and first["deletionGracePeriodSeconds"] == 600, first
    cluster.delete("Pod", "twice-deleted")
    again = plain(cluster.get("Pod", "twice-deleted"))["metadata"]
    assert (again["deletionTimestamp"], again["deletionGracePeriodSeconds"]) == (first["deletionTimestamp"], 600)
