"""API conformance: namespace lifecycle, the ``scale`` subresource of every workload kind, and a
pod's graceful deletion, as a client of kube-apiserver observes them.

* A namespace is created ``Active`` with the ``kubernetes`` finalizer; deleting it marks it
  ``Terminating`` (its content may no longer grow: 403 Forbidden naming the namespace; a second
  delete is 409 Conflict), its content goes, then the namespace itself.
* ``replicasets/scale`` and ``replicationcontrollers/scale`` present the workload as an
  ``autoscaling/v1 Scale`` (its identity, desired and observed replicas, the selector printed
  as a string: set-based for a ReplicaSet, ``k=v`` pairs for a ReplicationController); a
  patch of it sets the workload's replicas and answers with the new resourceVersion.
* A pod a kubelet runs is deleted gracefully: ``deletionTimestamp`` and
  ``deletionGracePeriodSeconds`` from its ``terminationGracePeriodSeconds``, then it goes.

Every case uses only the backend-neutral ``cluster`` fixture.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.test_admission import denial, plain

__all__: list[str] = []

Obj = dict[str, Any]
PURGED = ("The system is ensuring all content is removed from this namespace.  Upon completion, this namespace "
          "will automatically be purged by the system.")


def _cm(name: str, namespace: str | None = None) -> Obj:
    meta: Obj = {"name": name}
    if namespace:
        meta["namespace"] = namespace
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": {"k": "v"}}


def _delete_quietly(cluster: Cluster, kind: str, name: str) -> None:
    try:
        cluster.delete(kind, name)
    except Exception as err:  # already gone (404) or already terminating (409)
        if getattr(err, "code", getattr(err, "status", None)) not in (404, 409):
            raise


# ------------------------------------------------------------------------------- namespace lifecycle


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_namespace_lifecycle(cluster: Cluster, request: pytest.FixtureRequest) -> None:
    """Create, fill, delete: Active with the ``kubernetes`` finalizer, then Terminating (no new
    content, a second delete is 409), then gone with its content."""
    ns = f"{cluster.namespace}-sub"[:63]
    request.addfinalizer(lambda: _delete_quietly(cluster, "Namespace", ns))
    made = plain(cluster.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}))
    assert made["status"] == {"phase": "Active"}
    assert made["spec"]["finalizers"] == ["kubernetes"]
    assert "generation" not in made["metadata"] and "namespace" not in made["metadata"]
    cluster.create(_cm("inside", ns))
    cluster.delete("Namespace", ns)
    marked = plain(cluster.try_get("Namespace", ns) or {"metadata": {}, "status": {}})
    if marked["metadata"]:  # a fast namespace controller may already have purged it
        assert marked["metadata"]["deletionTimestamp"] and marked["status"]["phase"] == "Terminating"
        late = denial(lambda: cluster.create(_cm("late", ns)))
        if late.code != 404:  # (NotFound once the namespace is purged)
            assert (late.code, late.reason) == (403, "Forbidden"), late
            assert late.message == (f'configmaps "late" is forbidden: unable to create new content in namespace '
                                    f"{ns} because it is being terminated")
    cluster.wait_until(lambda: cluster.try_get("Namespace", ns) is None, 120, "the namespace is purged")
    assert cluster.list("ConfigMap", ns) == []
    gone = denial(lambda: cluster.create(_cm("after", ns)))
    assert (gone.code, gone.reason, gone.message) == (404, "NotFound", f'namespaces "{ns}" not found'), gone


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_terminating_namespace_delete_again_is_conflict(cluster: Cluster, request: pytest.FixtureRequest) -> None:
    """A namespace held by a metadata finalizer stays Terminating; deleting it again is 409
    Conflict; once the finalizer is removed it goes."""
    ns = f"{cluster.namespace}-held"[:63]
    request.addfinalizer(lambda: _delete_quietly(cluster, "Namespace", ns))
    cluster.create({"apiVersion": "v1", "kind": "Namespace",
                    "metadata": {"name": ns, "finalizers": ["example.com/hold"]}})
    cluster.delete("Namespace", ns)
    cluster.wait_until(lambda: not (cluster.get("Namespace", ns).get("spec") or {}).get("finalizers"), 120,
                       "the namespace controller releases its finalizer")
    held = plain(cluster.get("Namespace", ns))
    assert held["status"]["phase"] == "Terminating" and held["metadata"]["finalizers"] == ["example.com/hold"]
    again = denial(lambda: cluster.delete("Namespace", ns))
    assert (again.code, again.reason, again.message) == (
        409, "Conflict", f'Operation cannot be fulfilled on namespaces "{ns}": {PURGED}'), again
    cluster.patch("Namespace", ns, {"metadata": {"finalizers": None}})
    cluster.wait_until(lambda: cluster.try_get("Namespace", ns) is None, 60, "the namespace goes")


# ------------------------------------------------------------------------------ scale subresources


def _template(labels: dict[str, str]) -> Obj:
    return {"metadata": {"labels": labels},
            "spec": {"schedulerName": "strength-absent-scheduler",
                     "containers": [{"name": "c", "image": "busybox:1.36"}]}}


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_replicaset_scale(cluster: Cluster) -> None:
    """A ReplicaSet's Scale: its identity, replicas and set-based selector string; patching it
    answers with the ReplicaSet's new resourceVersion; a negative count is 422."""
    labels = {"app": "rs-scaled", "tier": "a"}
    selector = {"matchLabels": {"app": "rs-scaled"},
                "matchExpressions": [{"key": "tier", "operator": "In", "values": ["b", "a"]}]}
    made = plain(cluster.create({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "rs-scaled"},
                                 "spec": {"replicas": 0, "selector": selector, "template": _template(labels)}}))
    scale = plain(cluster.scale("ReplicaSet", "rs-scaled"))
    assert (scale["apiVersion"], scale["kind"]) == ("autoscaling/v1", "Scale")
    meta = scale["metadata"]
    assert (meta["name"], meta["namespace"], meta["uid"]) == ("rs-scaled", cluster.namespace, made["metadata"]["uid"])
    assert meta["creationTimestamp"] == made["metadata"]["creationTimestamp"]
    assert scale["spec"] == {"replicas": 0}
    assert scale["status"]["selector"] == "app=rs-scaled,tier in (a,b)"
    answered = plain(cluster.scale("ReplicaSet", "rs-scaled", replicas=1))
    stored = plain(cluster.get("ReplicaSet", "rs-scaled"))
    assert answered["spec"] == {"replicas": 1} and stored["spec"]["replicas"] == 1
    assert answered["metadata"]["resourceVersion"] != made["metadata"]["resourceVersion"]
    cluster.wait_until(lambda: cluster.scale("ReplicaSet", "rs-scaled")["status"].get("replicas") == 1, 120,
                       "the Scale's status.replicas follows the ReplicaSet")
    d = denial(lambda: cluster.scale("ReplicaSet", "rs-scaled", replicas=-2))
    assert (d.code, d.reason, d.message) == (422, "Invalid", 'Scale.autoscaling "rs-scaled" is invalid: '
                                             "spec.replicas: Invalid value: -2: must be greater than or equal to 0")
    d = denial(lambda: cluster.scale("ReplicaSet", "rs-absent"))
    assert (d.code, d.reason, d.message) == (404, "NotFound", 'replicasets.apps "rs-absent" not found'), d


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_replication_controller_scale(cluster: Cluster) -> None:
    """A ReplicationController's Scale prints its map selector as sorted ``k=v`` pairs."""
    labels = {"b": "2", "a": "1"}
    cluster.create({"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "rc-scaled"},
                    "spec": {"replicas": 0, "selector": labels, "template": _template(labels)}})
    scale = plain(cluster.scale("ReplicationController", "rc-scaled"))
    assert (scale["kind"], scale["spec"], scale["status"]) == ("Scale", {"replicas": 0},
                                                               {"replicas": 0, "selector": "a=1,b=2"})
    assert plain(cluster.scale("ReplicationController", "rc-scaled", replicas=2))["spec"] == {"replicas": 2}
    assert cluster.get("ReplicationController", "rc-scaled")["spec"]["replicas"] == 2


# ---------------------------------------------------------------------------- graceful pod deletion


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_running_pod_is_deleted_gracefully(cluster: Cluster) -> None:
    """A running pod's delete marks it with its own grace period (``terminationGracePeriodSeconds``)
    and a deletionTimestamp; the kubelet then removes it."""
    cluster.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "graceful"},
                    "spec": {"terminationGracePeriodSeconds": 7,
                             "containers": [{"name": "c", "image": "busybox:1.36", "command": ["sleep", "3600"]}]}})
    cluster.wait_until(lambda: cluster.get("Pod", "graceful").get("status", {}).get("phase") == "Running", 120,
                       "the pod runs")
    cluster.delete("Pod", "graceful")
    marked = cluster.try_get("Pod", "graceful")
    if marked is not None:  # (a fast kubelet may already have removed it)
        meta = plain(marked)["metadata"]
        assert meta["deletionTimestamp"] and meta["deletionGracePeriodSeconds"] == 7
    cluster.wait_until(lambda: cluster.try_get("Pod", "graceful") is None, 120, "the pod goes")


# ------------------------------------------------------------------------------ status subresource


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_workload_status_subresource(cluster: Cluster) -> None:
    """``deployments/status`` writes status only (the spec in that patch is ignored, generation
    stays); status sent to the Deployment itself is ignored; a status that does not decode is
    400; a missing Deployment is 404 by name."""
    labels = {"app": "status-deploy"}
    made = plain(cluster.create({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "status-deploy"},
                                 "spec": {"replicas": 0, "selector": {"matchLabels": labels},
                                          "template": _template(labels)}}))
    answered = plain(cluster.patch("Deployment", "status-deploy", {"status": {"observedGeneration": 7},
                                                                   "spec": {"replicas": 4}}, subresource="status"))
    assert answered["status"]["observedGeneration"] == 7
    assert answered["spec"]["replicas"] == 0 and answered["metadata"]["generation"] == made["metadata"]["generation"]
    assert cluster.get("Deployment", "status-deploy")["spec"]["replicas"] == 0
    main = plain(cluster.patch("Deployment", "status-deploy", {"status": {"observedGeneration": 99},
                                                               "metadata": {"labels": {"patched": "yes"}}}))
    assert main["metadata"]["labels"] == {"patched": "yes"}
    assert main["status"].get("observedGeneration") != 99
    d = denial(lambda: cluster.patch("Deployment", "status-deploy", {"status": {"replicas": "three"}},
                                     subresource="status"))
    assert (d.code, d.reason, d.message) == (
        400, "BadRequest", 'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal '
        "string into Go struct field DeploymentStatus.status.replicas of type int32"), d
    d = denial(lambda: cluster.patch("Deployment", "status-absent", {"status": {}}, subresource="status"))
    assert (d.code, d.reason, d.message) == (404, "NotFound", 'deployments.apps "status-absent" not found'), d
