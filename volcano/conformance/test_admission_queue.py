"""Admission conformance: Queues (upstream "Queue Mutating E2E Test" and "Queue Validating E2E Test").

Mutating (CREATE): ``reclaimable`` defaults to true and ``weight`` to 1. Validating
(CREATE/UPDATE): quantities, deserved >= guarantee and deserved <= capability per resource,
the legacy hierarchy annotations, parents; the weight range is the CRD schema's. Messages are
``requestBody.<path>: Invalid value: <v>: <detail>`` from ``validatequeue.volcano.sh``.
Queues are cluster-scoped, so every case deletes the queues it made.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.test_admission import (
    QUEUE_WEBHOOK,
    denial,
    own_queue,
    plain,
    queue_manifest,
    schema_causes,
    update,
    webhook_message,
)

__all__: list[str] = []

Obj = dict[str, Any]
SUITE = "admission"
QUEUE_KIND = "Queue.scheduling.volcano.sh"
HIERARCHY = "volcano.sh/hierarchy"
WEIGHTS = "volcano.sh/hierarchy-weights"


def _create(cluster: Cluster, request: pytest.FixtureRequest, name: str, spec: Obj, **kw: Any) -> Obj:
    """Create queue ``name`` (deleted when the case ends); return it as stored."""
    own_queue(request, cluster, name)
    cluster.apply(queue_manifest(name, spec, **kw))
    stored: Obj = plain(cluster.get("Queue", name))
    return stored


def _denied(cluster: Cluster, request: pytest.FixtureRequest, name: str, spec: Obj, **kw: Any) -> str:
    """Create queue ``name``; it must be denied by the queue webhook and not stored."""
    own_queue(request, cluster, name)
    d = denial(lambda: cluster.apply(queue_manifest(name, spec, **kw)))
    assert cluster.try_get("Queue", name) is None, f"denied queue {name} was stored"
    return webhook_message(d, QUEUE_WEBHOOK)


def _delete(cluster: Cluster, name: str) -> None:
    """Delete the queue; the deletion is admitted and the queue goes away."""
    cluster.delete("Queue", name)
    cluster.wait_until(lambda: cluster.try_get("Queue", name) is None, 30, f"queue {name} deleted")


# -------------------------------------------------------------------------------------- mutating


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should set default reclaimable to true when not specified")
def test_default_reclaimable(cluster: Cluster, request: pytest.FixtureRequest) -> None:
    q = _create(cluster, request, "default-reclaimable-queue", {"weight": 1})
    assert q["spec"]["reclaimable"] is True
    assert q["spec"]["weight"] == 1


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should set default weight to 1 when not specified")
def test_default_weight(cluster: Cluster, request: pytest.FixtureRequest) -> None:
    q = _create(cluster, request, "default-weight-queue", {"reclaimable": True})
    assert q["spec"]["weight"] == 1
    assert q["spec"]["reclaimable"] is True


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should apply both default reclaimable and weight when not specified")
def test_default_reclaimable_and_weight(cluster: Cluster, request: pytest.FixtureRequest) -> None:
    q = _create(cluster, request, "both-defaults-queue", {})
    assert (q["spec"]["weight"], q["spec"]["reclaimable"]) == (1, True)


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should preserve existing field values when specified")
def test_explicit_queue_fields_preserved(cluster: Cluster, request: pytest.FixtureRequest) -> None:
    q = _create(cluster, request, "preserve-values-queue", {"weight": 5, "reclaimable": False})
    assert (q["spec"]["weight"], q["spec"]["reclaimable"]) == (5, False)


# ------------------------------------------------------------------------------------ validating


@pytest.mark.admission
@pytest.mark.parametrize(("name", "state"), [
    pytest.param("test-queue-open", "Open", id="state-open",
                 marks=pytest.mark.upstream(SUITE, "Should allow queue creation with valid state (Open)")),
    pytest.param("test-queue-closed-queue", "Closed", id="state-closed",
                 marks=pytest.mark.upstream(SUITE, "Should allow queue creation with valid state (Closed)")),
    pytest.param("test-queue-no-state", None, id="no-state",
                 marks=pytest.mark.upstream(SUITE, "Should allow queue creation without state set")),
    pytest.param("test-queue-deletable", None, id="delete-regular",
                 marks=pytest.mark.upstream(SUITE, "Should allow deletion of regular queues")),
])
def test_allow_create_and_delete(cluster: Cluster, request: pytest.FixtureRequest, name: str,
                                 state: str | None) -> None:
    """A weight-1 queue (with ``status.state`` ``state`` when given) is admitted and stored; its
    deletion is admitted and it goes away."""
    _create(cluster, request, name, {"weight": 1}, **({"status": {"state": state}} if state else {}))
    _delete(cluster, name)


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should reject queue creation with negative weight")
def test_reject_negative_weight(cluster: Cluster, request: pytest.FixtureRequest) -> None:
    own_queue(request, cluster, "test-queue-weight-negative")
    d = denial(lambda: cluster.apply(queue_manifest("test-queue-weight-negative", {"weight": -1})))
    assert cluster.try_get("Queue", "test-queue-weight-negative") is None
    assert schema_causes(d, QUEUE_KIND, "test-queue-weight-negative") == (
        "spec.weight: Invalid value: -1: spec.weight in body should be greater than or equal to 1")


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should allow queue creation without weight specified (uses default)")
def test_allow_without_weight(cluster: Cluster, request: pytest.FixtureRequest) -> None:
    q = _create(cluster, request, "test-queue-weight-default", {})
    assert q["spec"]["weight"] == 1
    _delete(cluster, "test-queue-weight-default")


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should allow queue creation with only deserved resource")
def test_allow_only_deserved(cluster: Cluster, request: pytest.FixtureRequest) -> None:
    q = _create(cluster, request, "test-queue-deserved-only", {"weight": 1, "deserved": {"cpu": "1", "memory": "1Gi"}})
    assert q["spec"]["deserved"] == {"cpu": "1", "memory": "1Gi"}
    _delete(cluster, "test-queue-deserved-only")


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should reject queue creation with only guarantee resource (deserved required)")
def test_reject_only_guarantee(cluster: Cluster, request: pytest.FixtureRequest) -> None:
    message = _denied(cluster, request, "test-queue-guarantee-only",
                      {"weight": 1, "guarantee": {"resource": {"cpu": "1", "memory": "1Gi"}}})
    # Two causes, in Go map order: check each.
    assert message.startswith("[") and message.endswith("]"), message
    assert 'requestBody.spec.deserved.cpu: Invalid value: "<nil>": deserved[cpu] must be >= guarantee[cpu]=1' \
        in message
    assert ('requestBody.spec.deserved.memory: Invalid value: "<nil>": '
            "deserved[memory] must be >= guarantee[memory]=1Gi") in message


_RESOURCE_DENIALS = [
    pytest.param("test-queue-capability-less-deserved",
                 {"weight": 1, "capability": {"cpu": "1", "memory": "1Gi"}, "deserved": {"cpu": "2", "memory": "1Gi"}},
                 'requestBody.spec.deserved.cpu: Invalid value: "2": deserved[cpu]=2 must be <= capability[cpu]=1',
                 marks=pytest.mark.upstream(SUITE, "Should reject queue creation with capability less than deserved"),
                 id="capability-below-deserved"),
    pytest.param("test-queue-deserved-less-guarantee",
                 {"weight": 1, "deserved": {"cpu": "2", "memory": "1Gi"},
                  "guarantee": {"resource": {"cpu": "2", "memory": "3Gi"}}},
                 'requestBody.spec.deserved.memory: Invalid value: "1Gi": '
                 "deserved[memory]=1Gi must be >= guarantee[memory]=3Gi",
                 marks=pytest.mark.upstream(SUITE, "Should reject queue creation with deserved less than guarantee"),
                 id="deserved-below-guarantee"),
    pytest.param("test-queue-guarantee-type-not-in-deserved",
                 {"weight": 1, "deserved": {"cpu": "10"}, "guarantee": {"resource": {"cpu": "5", "memory": "8Gi"}}},
                 'requestBody.spec.deserved.memory: Invalid value: "<nil>": '
                 "deserved[memory] must be >= guarantee[memory]=8Gi",
                 marks=pytest.mark.upstream(SUITE, "Should reject queue creation with guarantee resource type not "
                                                   "in deserved"),
                 id="guarantee-type-not-in-deserved"),
]


@pytest.mark.admission
@pytest.mark.parametrize(("name", "spec", "expected"), _RESOURCE_DENIALS)
def test_reject_inconsistent_resources(cluster: Cluster, request: pytest.FixtureRequest, name: str, spec: Obj,
                                       expected: str) -> None:
    """The queue webhook denies a queue whose capability, deserved and guarantee disagree, with
    exactly upstream's message, and nothing is stored."""
    assert _denied(cluster, request, name, spec) == expected


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should reject queue creation with capability less than guarantee")
def test_reject_capability_below_guarantee(cluster: Cluster, request: pytest.FixtureRequest) -> None:
    message = _denied(cluster, request, "test-queue-capability-less-guarantee",
                      {"weight": 1, "capability": {"cpu": "1", "memory": "1Gi"},
                       "guarantee": {"resource": {"cpu": "2", "memory": "3Gi"}}})
    # No deserved at all: both guarantee resources lack a deserved amount.
    assert "deserved[cpu] must be >= guarantee[cpu]=2" in message
    assert "deserved[memory] must be >= guarantee[memory]=3Gi" in message


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should allow queue creation with deserved resource type not in capability")
def test_allow_deserved_type_not_in_capability(cluster: Cluster, request: pytest.FixtureRequest) -> None:
    q = _create(cluster, request, "test-queue-deserved-type-not-in-capability",
                {"weight": 1, "capability": {"cpu": "10"}, "deserved": {"cpu": "5", "memory": "10Gi"}})
    assert q["spec"]["deserved"] == {"cpu": "5", "memory": "10Gi"}


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should allow queue creation with guarantee resource type not in capability")
def test_allow_guarantee_type_not_in_capability(cluster: Cluster, request: pytest.FixtureRequest) -> None:
    q = _create(cluster, request, "test-queue-guarantee-type-not-in-capability",
                {"weight": 1, "capability": {"cpu": "10"}, "deserved": {"cpu": "5", "memory": "8Gi"},
                 "guarantee": {"resource": {"cpu": "5", "memory": "8Gi"}}})
    assert q["spec"]["guarantee"]["resource"] == {"cpu": "5", "memory": "8Gi"}


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should reject queue creation with only hierarchy annotation but no weights")
def test_reject_hierarchy_without_weights(cluster: Cluster, request: pytest.FixtureRequest) -> None:
    message = _denied(cluster, request, "hierarchy-only-queue", {"weight": 1}, annotations={HIERARCHY: "a"})
    # The missing weights read as one empty weight, which is not a number.
    assert message == ('requestBody.metadata.annotations: Invalid value: "":  in the  is invalid number: '
                       'strconv.ParseFloat: parsing "": invalid syntax')


_HIERARCHY_DENIALS = [
    # The mutating webhook first roots both paths: "a/b" is checked as "root/a/b" against "1/1/2/3".
    pytest.param("mismatched-hierarchy-queue", "a/b", "1/2/3",
                 'Invalid value: "root/a/b": volcano.sh/hierarchy must have the same length with '
                 "volcano.sh/hierarchy-weights",
                 marks=pytest.mark.upstream(SUITE, "Should reject queue creation with mismatched hierarchy "
                                                   "annotation lengths"), id="length-mismatch"),
    pytest.param("test-queue-hierarchy-mismatch", "root/a/b", "1/2/3/4",
                 'Invalid value: "root/a/b": volcano.sh/hierarchy must have the same length with '
                 "volcano.sh/hierarchy-weights",
                 marks=pytest.mark.upstream(SUITE, "Should reject queue creation with mismatched hierarchy and "
                                                   "weights"), id="weights-mismatch"),
    pytest.param("test-queue-negative-hierarchy-weight", "root/a/b", "1/-1/3",
                 'Invalid value: "1/-1/3": -1 in the 1/-1/3 must be larger than 0',
                 marks=pytest.mark.upstream(SUITE, "Should reject queue creation with negative hierarchical weight"),
                 id="negative-weight"),
    pytest.param("test-queue-invalid-hierarchy-weight", "root/a/b", "1/a/3",
                 'Invalid value: "1/a/3": a in the 1/a/3 is invalid number: strconv.ParseFloat: parsing "a": '
                 "invalid syntax",
                 marks=pytest.mark.upstream(SUITE, "Should reject queue creation with invalid hierarchical weight "
                                                   "format"), id="non-numeric-weight"),
]


@pytest.mark.admission
@pytest.mark.parametrize(("name", "hierarchy", "weights", "expected"), _HIERARCHY_DENIALS)
def test_reject_bad_hierarchy_annotations(cluster: Cluster, request: pytest.FixtureRequest, name: str,
                                          hierarchy: str, weights: str, expected: str) -> None:
    message = _denied(cluster, request, name, {"weight": 1}, annotations={HIERARCHY: hierarchy, WEIGHTS: weights})
    assert message == f"requestBody.metadata.annotations: {expected}"


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should allow queue state update from Open to Closed")
def test_allow_update_with_closed_state(cluster: Cluster, request: pytest.FixtureRequest) -> None:
    _create(cluster, request, "test-queue-update-state", {"weight": 1}, status={"state": "Open"})
    cluster.wait_until(lambda: (cluster.get("Queue", "test-queue-update-state").get("status") or {})
                       .get("state") == "Open", 30, "queue Open")

    def close(q: Obj) -> None:
        q.setdefault("status", {})["state"] = "Closed"

    update(cluster, "Queue", "test-queue-update-state", close)
    # The update is admitted; Queue has a status subresource, so the main resource ignores the
    # status it carries: the state is still the controller's.
    stored = plain(cluster.get("Queue", "test-queue-update-state"))
    assert stored["status"]["state"] == "Open"
    assert stored["spec"]["weight"] == 1
    _delete(cluster, "test-queue-update-state")


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should reject queue update with negative weight")
def test_reject_update_negative_weight(cluster: Cluster, request: pytest.FixtureRequest) -> None:
    _create(cluster, request, "test-queue-update-weight-negative", {"weight": 1})

    def negative(q: Obj) -> None:
        q["spec"]["weight"] = -1

    d = denial(lambda: update(cluster, "Queue", "test-queue-update-weight-negative", negative))
    assert schema_causes(d, QUEUE_KIND, "test-queue-update-weight-negative") == (
        "spec.weight: Invalid value: -1: spec.weight in body should be greater than or equal to 1")
    assert cluster.get("Queue", "test-queue-update-weight-negative")["spec"]["weight"] == 1
    _delete(cluster, "test-queue-update-weight-negative")


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should allow hierarchical queue creation with valid parent")
def test_allow_child_of_valid_parent(cluster: Cluster, request: pytest.FixtureRequest) -> None:
    parent = _create(cluster, request, "test-parent-queue", {"weight": 1, "parent": "root"})
    child = _create(cluster, request, "test-child-queue", {"weight": 1, "parent": "test-parent-queue"})
    assert parent["spec"]["parent"] == "root"
    assert child["spec"]["parent"] == "test-parent-queue"
    _delete(cluster, "test-child-queue")
    _delete(cluster, "test-parent-queue")
