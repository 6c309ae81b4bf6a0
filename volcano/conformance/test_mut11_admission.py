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
    JOB_WEBHOOK,
    QUEUE_WEBHOOK,
    base_job,
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


# -- decoding into the Go types --------------------------------------------------------------------------------------
# Each Volcano webhook unmarshals the object into its Go struct first; on CREATE the mutating webhook does so
# before the CRD schema is checked, so a field of the wrong JSON type is that webhook's denial with the
# decoder's message: the innermost struct holding the field, the JSON path without indices or map keys, and
# the Go type (``[]T`` for a list, ``T`` for one of its items).

_JOB_DECODING: list[tuple[tuple[str | int, ...], Any, str]] = [
    (('tasks',), 'x',
     'string into Go struct field JobSpec.spec.tasks of type []v1alpha1.TaskSpec'),
    (('tasks',), ['x'],
     'string into Go struct field JobSpec.spec.tasks of type v1alpha1.TaskSpec'),
    (('tasks', 0, 'policies'), 'x',
     'string into Go struct field TaskSpec.spec.tasks.policies of type []v1alpha1.LifecyclePolicy'),
    (('tasks', 0, 'policies'), ['x'],
     'string into Go struct field TaskSpec.spec.tasks.policies of type v1alpha1.LifecyclePolicy'),
    (('tasks', 0, 'policies'), [{'action': 5}],
     'number into Go struct field LifecyclePolicy.spec.tasks.policies.action of type v1alpha1.Action'),
    (('policies',), [{'event': 5}],
     'number into Go struct field LifecyclePolicy.spec.policies.event of type v1alpha1.Event'),
    (('policies',), [{'events': 'PodFailed'}],
     'string into Go struct field LifecyclePolicy.spec.policies.events of type []v1alpha1.Event'),
    (('policies',), [{'events': [5]}],
     'number into Go struct field LifecyclePolicy.spec.policies.events of type v1alpha1.Event'),
    (('policies',), [{'exitCode': '1'}],
     'string into Go struct field LifecyclePolicy.spec.policies.exitCode of type int32'),
    (('volumes',), 'x',
     'string into Go struct field JobSpec.spec.volumes of type []v1alpha1.VolumeSpec'),
    (('volumes',), ['x'],
     'string into Go struct field JobSpec.spec.volumes of type v1alpha1.VolumeSpec'),
    (('volumes',), [{'mountPath': 5}],
     'number into Go struct field VolumeSpec.spec.volumes.mountPath of type string'),
    (('volumes',), [{'mountPath': '/d', 'volumeClaim': 'x'}],
     'string into Go struct field VolumeSpec.spec.volumes.volumeClaim of type v1.PersistentVolumeClaimSpec'),
    (('volumes',), [{'mountPath': '/d', 'volumeClaim': {'accessModes': 'x'}}],
     'string into Go struct field PersistentVolumeClaimSpec.spec.volumes.volumeClaim.accessModes '
     'of type []v1.PersistentVolumeAccessMode'),
    (('volumes',), [{'mountPath': '/d', 'volumeClaim': {'accessModes': [5]}}],
     'number into Go struct field PersistentVolumeClaimSpec.spec.volumes.volumeClaim.accessModes '
     'of type v1.PersistentVolumeAccessMode'),
    (('volumes',), [{'mountPath': '/d', 'volumeClaim': {'volumeMode': 5}}],
     'number into Go struct field PersistentVolumeClaimSpec.spec.volumes.volumeClaim.volumeMode '
     'of type v1.PersistentVolumeMode'),
    (('volumes',), [{'mountPath': '/d', 'volumeClaim': {'dataSource': 'x'}}],
     'string into Go struct field PersistentVolumeClaimSpec.spec.volumes.volumeClaim.dataSource '
     'of type v1.TypedLocalObjectReference'),
    (('volumes',), [{'mountPath': '/d', 'volumeClaim': {'dataSourceRef': 'x'}}],
     'string into Go struct field PersistentVolumeClaimSpec.spec.volumes.volumeClaim.dataSourceRef '
     'of type v1.TypedObjectReference'),
    (('volumes',), [{'mountPath': '/d', 'volumeClaim': {'resources': 'x'}}],
     'string into Go struct field PersistentVolumeClaimSpec.spec.volumes.volumeClaim.resources '
     'of type v1.VolumeResourceRequirements'),
    (('volumes',), [{'mountPath': '/d', 'volumeClaim': {'selector': 'x'}}],
     'string into Go struct field PersistentVolumeClaimSpec.spec.volumes.volumeClaim.selector '
     'of type v1.LabelSelector'),
    (('volumes',), [{'mountPath': '/d', 'volumeClaim': {'selector': {'matchExpressions': 'x'}}}],
     'string into Go struct field LabelSelector.spec.volumes.volumeClaim.selector.matchExpressions '
     'of type []v1.LabelSelectorRequirement'),
    (('volumes',), [{'mountPath': '/d', 'volumeClaim': {'selector': {'matchExpressions': ['x']}}}],
     'string into Go struct field LabelSelector.spec.volumes.volumeClaim.selector.matchExpressions '
     'of type v1.LabelSelectorRequirement'),
    (('volumes',), [{'mountPath': '/d', 'volumeClaim': {'selector': {'matchExpressions': [{'operator': 5}]}}}],
     'number into Go struct field LabelSelectorRequirement.spec.volumes.volumeClaim.selector.matchExpressions.operator '
     'of type v1.LabelSelectorOperator'),
    (('volumes',), [{'mountPath': '/d', 'volumeClaim': {'selector': {'matchLabels': 'x'}}}],
     'string into Go struct field LabelSelector.spec.volumes.volumeClaim.selector.matchLabels '
     'of type map[string]string'),
    (('tasks', 0, 'topologyPolicy'), 5,
     'number into Go struct field TaskSpec.spec.tasks.topologyPolicy of type v1alpha1.NumaPolicy'),
    (('tasks', 0, 'dependsOn'), 'x',
     'string into Go struct field TaskSpec.spec.tasks.dependsOn of type v1alpha1.DependsOn'),
    (('tasks', 0, 'dependsOn'), {'iteration': 5},
     'number into Go struct field DependsOn.spec.tasks.dependsOn.iteration of type v1alpha1.Iteration'),
    (('tasks', 0, 'partitionPolicy'), 'x',
     'string into Go struct field TaskSpec.spec.tasks.partitionPolicy of type v1alpha1.PartitionPolicySpec'),
    (('tasks', 0, 'partitionPolicy'), {'totalPartitions': '2'},
     'string into Go struct field PartitionPolicySpec.spec.tasks.partitionPolicy.totalPartitions of type int32'),
    (('tasks', 0, 'partitionPolicy'), {'networkTopology': 'x'},
     'string into Go struct field PartitionPolicySpec.spec.tasks.partitionPolicy.networkTopology '
     'of type v1alpha1.NetworkTopologySpec'),
    (('tasks', 0, 'partitionPolicy'), {'networkTopology': {'mode': 5}},
     'number into Go struct field NetworkTopologySpec.spec.tasks.partitionPolicy.networkTopology.mode '
     'of type v1alpha1.NetworkTopologyMode'),
    (('networkTopology',), 'x',
     'string into Go struct field JobSpec.spec.networkTopology of type v1alpha1.NetworkTopologySpec'),
    (('networkTopology',), {'mode': 5},
     'number into Go struct field NetworkTopologySpec.spec.networkTopology.mode of type v1alpha1.NetworkTopologyMode'),
    (('networkTopology',), {'highestTierAllowed': '1'},
     'string into Go struct field NetworkTopologySpec.spec.networkTopology.highestTierAllowed of type int'),
    (('ttlSecondsAfterFinished',), '1',
     'string into Go struct field JobSpec.spec.ttlSecondsAfterFinished of type int32'),
    (('minSuccess',), '1',
     'string into Go struct field JobSpec.spec.minSuccess of type int32'),
    (('tasks', 0, 'maxRetry'), '1',
     'string into Go struct field TaskSpec.spec.tasks.maxRetry of type int32'),
    (('tasks', 0, 'name'), 5,
     'number into Go struct field TaskSpec.spec.tasks.name of type string'),
    (('plugins',), {'ssh': 'x'},
     'string into Go struct field JobSpec.spec.plugins of type []string'),
    (('plugins',), {'ssh': [5]},
     'number into Go struct field JobSpec.spec.plugins of type string'),
]


@pytest.mark.admission
@pytest.mark.parametrize(("path", "value", "message"), _JOB_DECODING,
                         ids=[f"{'.'.join(map(str, c[0]))}-{i}" for i, c in enumerate(_JOB_DECODING)])
def test_a_wrongly_typed_job_field_names_its_go_struct_and_type(cluster: Cluster, path: tuple[str | int, ...],
                                                               value: Any, message: str) -> None:
    job = base_job("m11-decode")
    node: Any = job["spec"]
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    assert outcome(cluster, job, "mutatejob.volcano.sh") == f"json: cannot unmarshal {message}"


_OTHER_DECODING: list[tuple[str, Obj, str]] = [
    ("Queue", {"weight": "1"}, "string into Go struct field QueueSpec.spec.weight of type int32"),
    ("Queue", {"parent": 5}, "number into Go struct field QueueSpec.spec.parent of type string"),
    ("Queue", {"capability": "x"}, "string into Go struct field QueueSpec.spec.capability of type v1.ResourceList"),
    ("Queue", {"guarantee": "x"}, "string into Go struct field QueueSpec.spec.guarantee of type v1beta1.Guarantee"),
    ("Queue", {"affinity": "x"}, "string into Go struct field QueueSpec.spec.affinity of type v1beta1.Affinity"),
    ("Queue", {"affinity": {"nodeGroupAffinity": "x"}},
     "string into Go struct field Affinity.spec.affinity.nodeGroupAffinity of type v1beta1.NodeGroupAffinity"),
    ("Queue", {"affinity": {"nodeGroupAntiAffinity": "x"}},
     "string into Go struct field Affinity.spec.affinity.nodeGroupAntiAffinity of type v1beta1.NodeGroupAntiAffinity"),
    ("Queue", {"extendClusters": "x"},
     "string into Go struct field QueueSpec.spec.extendClusters of type []v1beta1.Cluster"),
    ("Queue", {"extendClusters": ["x"]},
     "string into Go struct field QueueSpec.spec.extendClusters of type v1beta1.Cluster"),
    ("Queue", {"extendClusters": [{"weight": "1"}]},
     "string into Go struct field Cluster.spec.extendClusters.weight of type int32"),
    ("Queue", {"dequeueStrategy": 5},
     "number into Go struct field QueueSpec.spec.dequeueStrategy of type v1beta1.DequeueStrategy"),
    ("PodGroup", {"minTaskMember": "x"},
     "string into Go struct field PodGroupSpec.spec.minTaskMember of type map[string]int32"),
    ("PodGroup", {"minTaskMember": {"a": "1"}},
     "string into Go struct field PodGroupSpec.spec.minTaskMember of type int32"),
    ("PodGroup", {"subGroupPolicy": "x"},
     "string into Go struct field PodGroupSpec.spec.subGroupPolicy of type []v1beta1.SubGroupPolicySpec"),
    ("PodGroup", {"subGroupPolicy": ["x"]},
     "string into Go struct field PodGroupSpec.spec.subGroupPolicy of type v1beta1.SubGroupPolicySpec"),
    ("PodGroup", {"subGroupPolicy": [{"subGroupSize": "1"}]},
     "string into Go struct field SubGroupPolicySpec.spec.subGroupPolicy.subGroupSize of type int32"),
    ("PodGroup", {"subGroupPolicy": [{"labelSelector": "x"}]},
     "string into Go struct field SubGroupPolicySpec.spec.subGroupPolicy.labelSelector of type v1.LabelSelector"),
    ("PodGroup", {"subGroupPolicy": [{"matchLabelKeys": "x"}]},
     "string into Go struct field SubGroupPolicySpec.spec.subGroupPolicy.matchLabelKeys of type []string"),
    ("PodGroup", {"subGroupPolicy": [{"networkTopology": {"mode": 5}}]},
     "number into Go struct field NetworkTopologySpec.spec.subGroupPolicy.networkTopology.mode of type "
     "v1beta1.NetworkTopologyMode"),
    ("PodGroup", {"networkTopology": "x"},
     "string into Go struct field PodGroupSpec.spec.networkTopology of type v1beta1.NetworkTopologySpec"),
    ("PodGroup", {"minResources": "x"},
     "string into Go struct field PodGroupSpec.spec.minResources of type v1.ResourceList"),
    ("PodGroup", {"queue": 5}, "number into Go struct field PodGroupSpec.spec.queue of type string"),
]


@pytest.mark.admission
@pytest.mark.parametrize(("kind", "spec", "message"), _OTHER_DECODING,
                         ids=[f"{c[0]}-{next(iter(c[1]))}-{i}" for i, c in enumerate(_OTHER_DECODING)])
def test_a_wrongly_typed_queue_or_podgroup_field_names_its_go_struct_and_type(
        cluster: Cluster, request: pytest.FixtureRequest, kind: str, spec: Obj, message: str) -> None:
    if kind == "Queue":
        own_queue(request, cluster, "m11-decode-q")
        obj = queue_manifest("m11-decode-q", {"weight": 1, **spec})
    else:
        obj = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
               "metadata": {"name": "m11-decode-pg"}, "spec": {"minMember": 1, **spec}}
    webhook = "mutatequeue.volcano.sh" if kind == "Queue" else "mutatepodgroup.volcano.sh"
    assert outcome(cluster, obj, webhook) == f"json: cannot unmarshal {message}"


@pytest.mark.admission
@pytest.mark.parametrize(("init_cpu", "admitted"), [("2", True), ("500m", False)])
def test_a_topology_policy_checks_init_containers_after_the_containers(cluster: Cluster, init_cpu: str,
                                                                        admitted: bool) -> None:
    """``validateTaskTopoPolicy`` walks the containers, then the init containers, numbering them on: an
    init container asking part of a CPU is ``container[1]`` after the one container."""
    job = base_job(f"m11-numa-init-{init_cpu}")
    task = job["spec"]["tasks"][0]
    task["topologyPolicy"] = "single-numa-node"
    spec = task["template"]["spec"]
    spec["containers"][0]["resources"] = {"requests": {"cpu": "1"}, "limits": {"cpu": "1"}}
    spec["initContainers"] = [{"name": "init", "image": "busybox:1.24",
                               "resources": {"limits": {"cpu": init_cpu}}}]
    got = outcome(cluster, job, JOB_WEBHOOK)
    if admitted:
        assert isinstance(got, dict) and got["spec"]["tasks"][0]["topologyPolicy"] == "single-numa-node"
    else:
        assert got == "the cpu request isn't an integer in spec.task[0] container[1]."
