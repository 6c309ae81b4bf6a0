"""API conformance: request options a client sends beside the object, checked before the object is read.

* ``DeleteOptions`` (apimachinery's ``ValidateDeleteOptions``, applied by the delete handler before
  the lookup): a ``propagationPolicy`` other than ``Foreground``, ``Background`` or ``Orphan`` is 422
  Invalid on ``DeleteOptions.meta.k8s.io`` listing the supported values (with ``"nil"``), for an
  object that exists (it stays) and for one that does not (422, not 404).
* A delete of an object whose deletion a finalizer holds changes nothing (the deletion is pending).
* ``pods/log`` without a container names the init containers too.

Every case uses only the backend-neutral ``cluster`` fixture.
"""

from __future__ import annotations

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.test_admission import denial

__all__: list[str] = []

UNSUPPORTED = ('DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": '
               'supported values: "Foreground", "Background", "Orphan", "nil"')


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_delete_with_an_unknown_propagation_policy(cluster: Cluster) -> None:
    """``propagationPolicy: Sideways``: 422 before the object is looked up; nothing is deleted; the
    same delete with ``Orphan`` then removes the object."""
    cluster.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "del-opts"}, "data": {"k": "v"}})
    d = denial(lambda: cluster.delete("ConfigMap", "del-opts", propagation_policy="Sideways"))
    assert (d.code, d.reason, d.message) == (422, "Invalid", UNSUPPORTED), d
    assert cluster.get("ConfigMap", "del-opts")["data"] == {"k": "v"}
    d = denial(lambda: cluster.delete("ConfigMap", "del-opts-absent", propagation_policy="Sideways"))
    assert (d.code, d.message) == (422, UNSUPPORTED), d
    cluster.delete("ConfigMap", "del-opts", propagation_policy="Orphan")
    assert cluster.try_get("ConfigMap", "del-opts") is None


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_second_delete_of_a_held_object_changes_nothing(cluster: Cluster) -> None:
    """A finalizer holds a PodGroup's deletion: ``deletionTimestamp``, ``deletionGracePeriodSeconds: 0``
    and ``generation`` + 1 (``rest.BeforeDelete``); a second delete of it is a no-op (same
    timestamp, grace period and generation: the deletion is already pending); removing the
    finalizer removes it."""
    cluster.create({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
                    "metadata": {"name": "held-pg", "finalizers": ["example.com/cov-hold"]},
                    "spec": {"minMember": 1, "queue": "default"}})
    assert cluster.get("PodGroup", "held-pg")["metadata"]["generation"] == 1
    cluster.delete("PodGroup", "held-pg")
    first = cluster.get("PodGroup", "held-pg")["metadata"]
    assert (first["deletionGracePeriodSeconds"], first["generation"]) == (0, 2), first
    assert first["deletionTimestamp"]
    cluster.delete("PodGroup", "held-pg")
    again = cluster.get("PodGroup", "held-pg")["metadata"]
    # (the resourceVersion is not compared: the scheduler may write the PodGroup's status meanwhile)
    assert (again["deletionTimestamp"], again["deletionGracePeriodSeconds"], again["generation"]) == (
        first["deletionTimestamp"], 0, 2)
    cluster.patch("PodGroup", "held-pg", {"metadata": {"finalizers": None}})
    cluster.wait_until(lambda: cluster.try_get("PodGroup", "held-pg") is None, 30, "held-pg removed")


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_pod_log_lists_init_containers(cluster: Cluster) -> None:
    """``pods/log`` without a container of a pod with two containers and an init container: 400 listing
    both (``LogLocation``); the init container's name is a valid choice (an unscheduled pod's log is
    empty: no host, no location)."""
    spec = {"schedulerName": "cov-absent-scheduler",
            "initContainers": [{"name": "setup", "image": "busybox:1.36"}],
            "containers": [{"name": "a", "image": "busybox:1.36"}, {"name": "b", "image": "busybox:1.36"}]}
    cluster.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "init-logs"}, "spec": spec})
    d = denial(lambda: cluster.pod_log("init-logs"))
    assert (d.code, d.reason, d.message) == (
        400, "BadRequest", "a container name must be specified for pod init-logs, choose one of: [a b] or one of the "
        "init containers: [setup]"), d
    assert cluster.pod_log("init-logs", container="setup") == ""
