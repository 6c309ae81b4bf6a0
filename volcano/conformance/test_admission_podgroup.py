"""Admission conformance: PodGroups (upstream "PodGroup Mutating E2E Test" and
"PodGroup Validating E2E Test").

Mutating (CREATE): a PodGroup whose queue is ``default`` (after the CRD default) takes the
queue named by its namespace's annotation ``scheduling.volcano.sh/queue-name``, if any; an
explicit queue is never changed. Validating (CREATE): a named queue must exist and be Open.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.test_admission import own_queue, plain, queue_manifest, wait_queue_open

__all__: list[str] = []

Obj = dict[str, Any]
SUITE = "admission"
QUEUE_ANNOTATION = "scheduling.volcano.sh/queue-name"


def _pg(name: str, queue: str | None, min_member: int = 1) -> Obj:
    """A PodGroup as upstream's Go struct sends it (an empty queue is left out: ``omitempty``)."""
    spec: Obj = {"minMember": min_member}
    if queue:
        spec["queue"] = queue
    return {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup", "metadata": {"name": name},
            "spec": spec}


def _open_queue(cluster: Cluster, request: pytest.FixtureRequest, name: str) -> None:
    """Create queue ``name`` (weight 1) and wait until it is Open, as upstream does (30 s)."""
    own_queue(request, cluster, name)
    cluster.apply(queue_manifest(name, {"weight": 1}, namespace=cluster.namespace))
    wait_queue_open(cluster, name)


def _namespace_queue(cluster: Cluster, request: pytest.FixtureRequest, queue: str) -> None:
    """Annotate the case's namespace with queue ``queue``, then create that queue and wait until it is Open."""
    cluster.patch("Namespace", cluster.namespace, {"metadata": {"annotations": {QUEUE_ANNOTATION: queue}}})
    ns = cluster.get("Namespace", cluster.namespace)
    assert ((ns["metadata"].get("annotations") or {}).get(QUEUE_ANNOTATION)) == queue
    _open_queue(cluster, request, queue)


def _created_queue(cluster: Cluster, pg: Obj) -> str:
    """Create ``pg``; return its queue as created, checking the store agrees."""
    created = plain(cluster.apply(pg)[0])
    stored = cluster.get("PodGroup", pg["metadata"]["name"])
    assert stored["spec"]["queue"] == created["spec"]["queue"]
    queue: str = created["spec"]["queue"]
    return queue


# -------------------------------------------------------------------------------------- mutating


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should not modify podgroup with custom queue")
def test_custom_queue_kept(cluster: Cluster, request: pytest.FixtureRequest) -> None:
    _open_queue(cluster, request, "custom-queue-podgroup")
    assert _created_queue(cluster, _pg("custom-queue-podgroup", "custom-queue-podgroup")) == "custom-queue-podgroup"


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should set queue from namespace annotation when podgroup uses default queue")
def test_queue_from_namespace_annotation(cluster: Cluster, request: pytest.FixtureRequest) -> None:
    _namespace_queue(cluster, request, "namespace-queue")
    assert _created_queue(cluster, _pg("default-queue-podgroup", "default")) == "namespace-queue"


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should keep default queue when namespace has no queue annotation")
def test_default_queue_kept_without_annotation(cluster: Cluster) -> None:
    ns = cluster.get("Namespace", cluster.namespace)
    assert QUEUE_ANNOTATION not in (ns["metadata"].get("annotations") or {})
    assert _created_queue(cluster, _pg("no-annotation-podgroup", "default")) == "default"


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should handle multiple podgroups in same namespace")
def test_multiple_podgroups_in_annotated_namespace(cluster: Cluster, request: pytest.FixtureRequest) -> None:
    _namespace_queue(cluster, request, "namespace-queue-multiple")
    _open_queue(cluster, request, "custom-queue-podgroup-2")
    assert _created_queue(cluster, _pg("multiple-1-default", "default")) == "namespace-queue-multiple"
    assert _created_queue(cluster, _pg("multiple-2-custom", "custom-queue-podgroup-2")) == "custom-queue-podgroup-2"


# ------------------------------------------------------------------------------------ validating


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should allow PodGroup creation with valid open queue")
def test_allow_podgroup_in_open_queue(cluster: Cluster, request: pytest.FixtureRequest) -> None:
    own_queue(request, cluster, "test-queue-open")
    cluster.apply(queue_manifest("test-queue-open", {"weight": 1}))
    # Upstream forces the state through the status subresource rather than waiting for the controller.
    cluster.patch("Queue", "test-queue-open", {"status": {"state": "Open"}}, subresource="status")
    assert cluster.get("Queue", "test-queue-open")["status"]["state"] == "Open"
    assert _created_queue(cluster, _pg("test-podgroup-valid", "test-queue-open")) == "test-queue-open"
    cluster.delete("PodGroup", "test-podgroup-valid")
    cluster.delete("Queue", "test-queue-open")
    cluster.wait_until(lambda: cluster.try_get("PodGroup", "test-podgroup-valid") is None
                       and cluster.try_get("Queue", "test-queue-open") is None, 30, "podgroup and queue deleted")


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should allow PodGroup creation without queue specified")
def test_allow_podgroup_without_queue(cluster: Cluster) -> None:
    # The CRD default fills the queue the client left out.
    assert _created_queue(cluster, _pg("test-podgroup-no-queue", None)) == "default"
    cluster.delete("PodGroup", "test-podgroup-no-queue")
    cluster.wait_until(lambda: cluster.try_get("PodGroup", "test-podgroup-no-queue") is None, 30,
                       "podgroup deleted")
