"""Admission conformance: the Queue webhook's hierarchical checks as upstream ``validate_queue.go`` writes
them, and quantities as ``resource.Quantity.String()`` prints them.

* Sums of guarantee / deserved are ``api.Resource`` values compared with ``LessPartly(sum, Zero)``: a
  resource the parent does not set is a zero limit, and the sums print as ``cpu <milli>.00, memory
  <bytes>.00[, <name> <milli>.00]``.
* A child's capability is compared per resource with the nearest ancestor (not root) that sets that
  resource; single values print as quantities (cpu, memory) or ``%.2f`` of the milli-value (others).
* A queue with children: its capability must reach each child subtree's largest; its guarantee and
  deserved the sum of its children's (``queue <q> validation failed: ...``).
* The field errors are aggregated and returned alone; after them only the first hierarchy error is.
* Field paths are ``requestBody.spec.<field>.<resource>``; every guarantee resource needs a deserved one,
  even at zero; quantities in messages are canonical (``1000m`` is ``1``).

Each case is a handful of queues and no pods.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.test_admission import (
    QUEUE_WEBHOOK,
    denial,
    outcome,
    own_queue,
    queue_manifest,
    update,
    webhook_message,
)

__all__: list[str] = []

Obj = dict[str, Any]
GPU = "nvidia.com/gpu"


def _queues(cluster: Cluster, request: pytest.FixtureRequest, *queues: tuple[str, str, Obj]) -> None:
    """Create ``(name, parent, spec)`` queues in order, each deleted when the case ends (children first)."""
    for name, parent, spec in queues:
        own_queue(request, cluster, name)
        body = {"weight": 1, **spec}
        if parent:
            body["parent"] = parent
        cluster.apply(queue_manifest(name, body))


def _try(cluster: Cluster, request: pytest.FixtureRequest, name: str, parent: str, spec: Obj) -> Obj | str:
    own_queue(request, cluster, name)
    body = {"weight": 1, **spec}
    if parent:
        body["parent"] = parent
    return outcome(cluster, queue_manifest(name, body), QUEUE_WEBHOOK)


def _refused_update(cluster: Cluster, name: str, spec: Obj) -> str:
    """The queue webhook's message refusing to merge ``spec`` into queue ``name``'s spec."""
    return webhook_message(denial(lambda: update(cluster, "Queue", name, lambda q: q["spec"].update(spec))),
                           QUEUE_WEBHOOK)


@pytest.mark.admission
@pytest.mark.parametrize(("parent", "child", "expected"), [
    pytest.param({}, {"guarantee": {"resource": {"cpu": "1"}}, "deserved": {"cpu": "1"}},
                 "parent queue m11-sum-p validation failed: sum of children's guarantee (cpu 1000.00, memory 0.00) "
                 "exceeds parent's guarantee limit (cpu 0.00, memory 0.00)", id="parent-without-guarantee"),
    pytest.param({"deserved": {"cpu": "1"}}, {"deserved": {"cpu": "1", "memory": "1Ki"}},
                 "parent queue m11-sum-p validation failed: sum of children's deserved (cpu 1000.00, memory 1024.00) "
                 "exceeds parent's deserved limit (cpu 1000.00, memory 0.00)", id="memory-absent-from-parent"),
    pytest.param({"guarantee": {"resource": {"cpu": "1"}}, "deserved": {"cpu": "1"}},
                 {"guarantee": {"resource": {GPU: "0"}}, "deserved": {GPU: "0"}},
                 f"parent queue m11-sum-p validation failed: sum of children's guarantee (cpu 0.00, memory 0.00, "
                 f"{GPU} 0.00) exceeds parent's guarantee limit (cpu 1000.00, memory 0.00)", id="zero-gpu"),
    pytest.param({"deserved": {"cpu": "1", GPU: "2"}}, {"deserved": {"cpu": "1", GPU: "2"}}, None, id="at-limit"),
])
def test_children_sum_treats_a_resource_the_parent_lacks_as_zero(
        cluster: Cluster, request: pytest.FixtureRequest, parent: Obj, child: Obj, expected: str | None) -> None:
    _queues(cluster, request, ("m11-sum-p", "", parent))
    got = _try(cluster, request, "m11-sum-c", "m11-sum-p", child)
    if expected is None:
        assert isinstance(got, dict) and got["spec"]["parent"] == "m11-sum-p"
    else:
        assert got == expected


@pytest.mark.admission
@pytest.mark.parametrize(("capability", "expected"), [
    pytest.param({"cpu": "3"}, "queue m11-anc-c capability[cpu]=3 exceeds its ancestor's capability=2", id="cpu"),
    pytest.param({"memory": "2Gi"}, "queue m11-anc-c capability[memory]=2Gi exceeds its ancestor's capability=1Gi",
                 id="memory"),
    pytest.param({GPU: "3"}, f"queue m11-anc-c capability[{GPU}]=3000.00 exceeds its ancestor's capability=2000.00",
                 id="gpu"),
    pytest.param({"cpu": "2", "memory": "1Gi", GPU: "1"}, None, id="within"),
])
def test_capability_is_held_to_the_nearest_ancestor_setting_each_resource(
        cluster: Cluster, request: pytest.FixtureRequest, capability: Obj, expected: str | None) -> None:
    """The grandparent sets cpu and gpus, the parent memory only: each resource meets its own ancestor."""
    _queues(cluster, request, ("m11-anc-g", "", {"capability": {"cpu": "2", GPU: "2"}}),
            ("m11-anc-p", "m11-anc-g", {"capability": {"memory": "1Gi"}}))
    got = _try(cluster, request, "m11-anc-c", "m11-anc-p", {"capability": capability})
    if expected is None:
        assert isinstance(got, dict) and got["spec"]["capability"] == capability
    else:
        assert got == expected


@pytest.mark.admission
def test_only_the_first_hierarchy_error_is_given(cluster: Cluster, request: pytest.FixtureRequest) -> None:
    """A child over its ancestor's capability and over its parent's guarantee hears of the capability only."""
    _queues(cluster, request, ("m11-first-p", "", {"capability": {"cpu": "1"}, "guarantee": {"resource": {"cpu": "1"}},
                                                  "deserved": {"cpu": "1"}}))
    got = _try(cluster, request, "m11-first-c", "m11-first-p",
               {"capability": {"cpu": "2"}, "guarantee": {"resource": {"cpu": "2"}}, "deserved": {"cpu": "2"}})
    assert got == "queue m11-first-c capability[cpu]=2 exceeds its ancestor's capability=1"


@pytest.mark.admission
def test_field_errors_are_given_alone(cluster: Cluster, request: pytest.FixtureRequest) -> None:
    """Both errors of the guarantee field come together, and the missing parent is not mentioned."""
    got = _try(cluster, request, "m11-fields", "m11-no-such-parent", {"guarantee": {"resource": {"cpu": "0"}},
                                                                      "deserved": {"memory": "1Gi"},
                                                                      "capability": {"memory": "1024Mi"}})
    assert got == 'requestBody.spec.deserved.cpu: Invalid value: "<nil>": deserved[cpu] must be >= guarantee[cpu]=0'
    got = _try(cluster, request, "m11-fields", "m11-no-such-parent",
               {"deserved": {"cpu": "1000m", "memory": "1025Mi"}, "guarantee": {"resource": {"cpu": "2"}},
                "capability": {"memory": "1Gi"}})
    assert got == ('[requestBody.spec.deserved.cpu: Invalid value: "1": deserved[cpu]=1 must be >= guarantee[cpu]=2, '
                   'requestBody.spec.deserved.memory: Invalid value: "1025Mi": deserved[memory]=1025Mi must be <= '
                   "capability[memory]=1Gi]")


@pytest.mark.admission
def test_a_parent_update_is_held_to_its_subtree(cluster: Cluster, request: pytest.FixtureRequest) -> None:
    """A middle queue without a capability passes on its children's largest; the children's deserved sum
    bounds the parent's deserved."""
    _queues(cluster, request, ("m11-tree-p", "", {"capability": {"cpu": "8"}, "deserved": {"memory": "4Gi"}}),
            ("m11-tree-m", "m11-tree-p", {"deserved": {"memory": "2Gi"}}),
            ("m11-tree-k", "m11-tree-p", {"deserved": {"memory": "2Gi"}}),
            ("m11-tree-g1", "m11-tree-m", {"capability": {"cpu": "4"}}),
            ("m11-tree-g2", "m11-tree-m", {"capability": {"cpu": "3"}}))
    assert _refused_update(cluster, "m11-tree-p", {"capability": {"cpu": "3"}}) == (
        "queue m11-tree-p capability[cpu]=3 is smaller than its descendants' max capability=4")
    assert _refused_update(cluster, "m11-tree-p", {"deserved": {"memory": "3Gi"}}) == (
        "queue m11-tree-p validation failed: sum of children's deserved (cpu 0.00, memory 4294967296.00) exceeds "
        "parent's deserved limit (cpu 0.00, memory 3221225472.00)")
    stored = update(cluster, "Queue", "m11-tree-p", lambda q: q["spec"].update({"capability": {"cpu": "4"}}))
    assert stored["spec"]["capability"] == {"cpu": "4"}
