"""API conformance: field selectors per kind, ``metadata.generation`` per kind, and metadata nulls.

A real API server converts each term of a ``fieldSelector`` with the kind's field label
conversion before it lists anything: a label the kind does not index is 400 BadRequest whose
message is that conversion's error (kinds without a conversion of their own accept only
``metadata.name`` and ``metadata.namespace``; Pod, Node, Namespace, Secret, Event, batch Job
and custom resources each have their own list and wording). The labels a kind does index
select what the object holds, with a pod's legacy ``spec.host`` and an Event's ``source``
(its ``source.component``) converted first.

``metadata.generation`` is set only by the registry strategies that keep one (custom resources,
workloads such as Deployments and batch Jobs); a ConfigMap or Secret has none, not even after a
change or a graceful deletion. JSON nulls in metadata are decoded as Go decodes them into
ObjectMeta: a null field is left out and a null label or annotation value is the empty string.

Every case uses only the backend-neutral ``cluster`` fixture.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.test_admission import denial, plain

__all__: list[str] = []

Obj = dict[str, Any]
NOT_KNOWN = '"{0}" is not a known field selector: only "metadata.name", "metadata.namespace"'
NOT_SUPPORTED = "field label not supported: {0}"


def _cm(name: str, **meta: Any) -> Obj:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, **meta}, "data": {"k": "v"}}


def _pod(name: str, **spec: Any) -> Obj:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"schedulerName": "strength-absent-scheduler",
                     "containers": [{"name": "c", "image": "busybox:1.36"}], **spec}}


def _names(listed: Obj) -> list[str]:
    return sorted(o["metadata"]["name"] for o in listed["items"])


# --------------------------------------------------------------------------- unsupported field labels


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
@pytest.mark.parametrize(("kind", "selector", "message"), [
    pytest.param("ConfigMap", "spec.foo=bar", NOT_KNOWN.format("spec.foo"), id="configmap"),
    pytest.param("ConfigMap", "metadata.name=a,data.k=v", NOT_KNOWN.format("data.k"), id="configmap-second-term"),
    pytest.param("Deployment", "spec.replicas=1", NOT_KNOWN.format("spec.replicas"), id="deployment"),
    pytest.param("Pod", "spec.foo=bar", NOT_SUPPORTED.format("spec.foo"), id="pod"),
    pytest.param("Pod", "metadata.labels=x", NOT_SUPPORTED.format("metadata.labels"), id="pod-labels"),
    pytest.param("Secret", "data.k!=v", NOT_SUPPORTED.format("data.k"), id="secret"),
    pytest.param("Event", "message=x", NOT_SUPPORTED.format("message"), id="event"),
    pytest.param("Node", "metadata.namespace=", NOT_SUPPORTED.format("metadata.namespace"), id="node-namespace"),
    pytest.param("Namespace", "metadata.namespace=", NOT_SUPPORTED.format("metadata.namespace"),
                 id="namespace-namespace"),
    pytest.param("Job.batch", "status.succeeded=1",
                 'field label "status.succeeded" not supported for batchv1.Job', id="batch-job"),
    pytest.param("Job", "spec.queue=default", NOT_SUPPORTED.format("spec.queue"), id="volcano-job"),
    pytest.param("PodGroup", "status.phase=Pending", NOT_SUPPORTED.format("status.phase"), id="podgroup"),
    pytest.param("Queue", "metadata.namespace=", NOT_SUPPORTED.format("metadata.namespace"),
                 id="cluster-scoped-custom-resource"),
])
def test_unsupported_field_label_is_bad_request(cluster: Cluster, kind: str, selector: str, message: str) -> None:
    """A field label the kind does not index: 400 BadRequest with the conversion's message."""
    d = denial(lambda: cluster.list_page(kind, field_selector=selector))
    assert (d.code, d.reason, d.message) == (400, "BadRequest", message), d


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
@pytest.mark.parametrize(("kind", "selector"), [
    pytest.param("ConfigMap", "metadata.namespace!=absent-ns", id="configmap-namespace"),
    pytest.param("Job", "metadata.name!=absent", id="volcano-job-name"),
    pytest.param("PodGroup", "metadata.namespace!=absent-ns", id="podgroup-namespace"),
    pytest.param("Node", "spec.unschedulable=false", id="node-unschedulable"),
    pytest.param("Namespace", "status.phase=Active", id="namespace-phase"),
    pytest.param("Queue", "metadata.name=default", id="queue-name"),
    pytest.param("Job.batch", "status.successful=0", id="batch-job-successful"),
    pytest.param("Service", "spec.type=ClusterIP", id="service-type"),
    pytest.param("ReplicationController", "status.replicas=0", id="rc-replicas"),
])
def test_supported_field_labels_are_accepted(cluster: Cluster, kind: str, selector: str) -> None:
    """The labels each kind indexes are accepted (a list, not a refusal)."""
    listed = plain(cluster.list_page(kind, field_selector=selector))
    assert isinstance(listed["items"], list)


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_cluster_objects_by_indexed_fields(cluster: Cluster) -> None:
    """Nodes by ``spec.unschedulable`` (absent reads ``false``), namespaces by phase, the default
    Queue by name."""
    workers = {n["metadata"]["name"] for n in cluster.worker_nodes()}
    schedulable = set(_names(plain(cluster.list_page("Node", field_selector="spec.unschedulable=false"))))
    assert workers and workers <= schedulable
    assert not workers & set(_names(plain(cluster.list_page("Node", field_selector="spec.unschedulable=true"))))
    active = _names(plain(cluster.list_page("Namespace", field_selector="status.phase=Active")))
    assert cluster.namespace in active and "default" in active
    assert cluster.namespace not in _names(plain(cluster.list_page("Namespace",
                                                                   field_selector="status.phase=Terminating")))
    assert _names(plain(cluster.list_page("Queue", field_selector="metadata.name=default"))) == ["default"]


# ---------------------------------------------------------------------------- supported field labels


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
@pytest.mark.parametrize(("selector", "expected"), [
    pytest.param("spec.schedulerName=strength-absent-scheduler", ["fs-a", "fs-b"], id="scheduler-name"),
    pytest.param("spec.nodeName=", ["fs-a", "fs-b"], id="unbound"),
    pytest.param("spec.host=", ["fs-a", "fs-b"], id="legacy-host"),
    pytest.param("spec.nodeName!=", [], id="bound"),
    pytest.param("status.phase=Pending", ["fs-a", "fs-b"], id="phase"),
    pytest.param("status.phase!=Pending", [], id="not-phase"),
    pytest.param("spec.restartPolicy=Never", ["fs-b"], id="restart-policy"),
    pytest.param("spec.restartPolicy=Always", ["fs-a"], id="restart-policy-default"),
    pytest.param("spec.hostNetwork=false", ["fs-a", "fs-b"], id="host-network-unset"),
    pytest.param("spec.hostNetwork=true", [], id="host-network"),
    pytest.param("metadata.name=fs-b,status.phase=Pending", ["fs-b"], id="conjunction"),
])
def test_pod_field_selectors(cluster: Cluster, selector: str, expected: list[str]) -> None:
    """Pods no scheduler binds, selected by the labels a pod indexes (with their defaults)."""
    cluster.create(_pod("fs-a"))
    cluster.create(_pod("fs-b", restartPolicy="Never"))
    assert _names(plain(cluster.list_page("Pod", field_selector=selector))) == expected


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_secret_and_event_field_selectors(cluster: Cluster) -> None:
    """A Secret by ``type``; an Event by its involved object, reason, type and ``source`` (the
    reporting component)."""
    for name, kind in (("fs-opaque", "Opaque"), ("fs-basic", "kubernetes.io/basic-auth")):
        cluster.create({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name}, "type": kind,
                        "data": {"username": "dQ==", "password": "cA=="}})
    assert _names(plain(cluster.list_page("Secret", field_selector="type=Opaque,metadata.name!=x"))) == ["fs-opaque"]
    assert "fs-opaque" not in _names(plain(cluster.list_page("Secret", field_selector="type!=Opaque")))
    cluster.create({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "fs-event"},
                    "involvedObject": {"apiVersion": "v1", "kind": "Pod", "name": "fs-pod",
                                       "namespace": cluster.namespace},
                    "reason": "StrengthTested", "message": "m", "type": "Normal",
                    "source": {"component": "strength-source"}})
    for selector, expected in (("source=strength-source", ["fs-event"]), ("source=other", []),
                               ("involvedObject.name=fs-pod,involvedObject.kind=Pod", ["fs-event"]),
                               ("reason=StrengthTested,type=Normal", ["fs-event"]),
                               ("reason=StrengthTested,type=Warning", [])):
        assert _names(plain(cluster.list_page("Event", field_selector=selector))) == expected, selector


# ---------------------------------------------------------------------------------- generation


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_configmap_and_secret_have_no_generation(cluster: Cluster) -> None:
    """A ConfigMap and a Secret carry no ``metadata.generation``: not at create, not after a data
    change, not when a finalizer holds their deletion; a generation sent by the client is dropped."""
    made = plain(cluster.create(_cm("gen-cm", generation=7)))
    assert "generation" not in made["metadata"]
    changed = plain(cluster.patch("ConfigMap", "gen-cm", {"data": {"k": "changed"}}))
    assert changed["data"] == {"k": "changed"} and "generation" not in changed["metadata"]
    secret = plain(cluster.create({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "gen-secret"},
                                   "data": {"k": "dg=="}}))
    assert "generation" not in secret["metadata"]
    cluster.create(_cm("gen-held", finalizers=["example.com/hold"]))
    cluster.delete("ConfigMap", "gen-held")
    held = plain(cluster.get("ConfigMap", "gen-held"))
    assert held["metadata"]["deletionTimestamp"] and "generation" not in held["metadata"]
    cluster.patch("ConfigMap", "gen-held", {"metadata": {"finalizers": None}})
    cluster.wait_until(lambda: cluster.try_get("ConfigMap", "gen-held") is None, 30, "gen-held removed")


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_workload_generation(cluster: Cluster) -> None:
    """A batch Job and a Deployment start at generation 1 whatever the client sends; a spec
    change adds one, a label change does not; a finalizer-held deletion adds one."""
    labels = {"app": "gen-deploy"}
    template = {"metadata": {"labels": labels},
                "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}],
                         "schedulerName": "strength-absent-scheduler"}}
    deploy = plain(cluster.create({"apiVersion": "apps/v1", "kind": "Deployment",
                                   "metadata": {"name": "gen-deploy", "generation": 5},
                                   "spec": {"replicas": 0, "selector": {"matchLabels": labels},
                                            "template": template}}))
    assert deploy["metadata"]["generation"] == 1
    relabelled = plain(cluster.patch("Deployment", "gen-deploy", {"metadata": {"labels": {"team": "a"}}}))
    assert relabelled["metadata"]["generation"] == 1
    scaled = plain(cluster.patch("Deployment", "gen-deploy", {"spec": {"minReadySeconds": 3}}))
    assert scaled["metadata"]["generation"] == 2
    job_template = {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox:1.36"}],
                             "schedulerName": "strength-absent-scheduler"}}
    job = plain(cluster.create({"apiVersion": "batch/v1", "kind": "Job",
                                "metadata": {"name": "gen-batch", "finalizers": ["example.com/hold"]},
                                "spec": {"suspend": True, "template": job_template}}))
    assert job["metadata"]["generation"] == 1
    cluster.delete("Job.batch", "gen-batch", propagation_policy="Background")
    held = plain(cluster.get("Job.batch", "gen-batch"))
    assert held["metadata"]["deletionTimestamp"] and held["metadata"]["generation"] == 2
    cluster.patch("Job.batch", "gen-batch", {"metadata": {"finalizers": None}})
    cluster.wait_until(lambda: cluster.try_get("Job.batch", "gen-batch") is None, 30, "gen-batch removed")


# ------------------------------------------------------------------------------------ metadata nulls


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_null_metadata_fields_decode_as_go_does(cluster: Cluster) -> None:
    """``labels: {"a": null}`` is the label ``a`` with the empty value (selectable with ``a=``);
    ``annotations: null`` and ``finalizers: null`` are left out of the stored object."""
    made = plain(cluster.create(_cm("null-meta", labels={"a": None, "b": "x"}, annotations=None,
                                    finalizers=None)))
    assert made["metadata"]["labels"] == {"a": "", "b": "x"}
    assert made["metadata"].get("annotations") is None and made["metadata"].get("finalizers") is None
    stored = plain(cluster.get("ConfigMap", "null-meta"))
    assert stored["metadata"]["labels"] == {"a": "", "b": "x"}
    assert cluster.names(cluster.list("ConfigMap", label_selector="a=")) == ["null-meta"]
    annotated = plain(cluster.create(_cm("null-ann", annotations={"note": None})))
    assert annotated["metadata"]["annotations"] == {"note": ""}
