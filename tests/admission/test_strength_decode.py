"""``volcano.admission.decode``: the Go decoder's refusal of a wrongly typed Volcano spec, field by field."""

from __future__ import annotations

from typing import Any

import pytest

from volcano.admission.decode import spec_decode_error

JOB = "Job.batch.volcano.sh"
QUEUE = "Queue.scheduling.volcano.sh"
PODGROUP = "PodGroup.scheduling.volcano.sh"


def _job(**spec: Any) -> dict[str, Any]:
    task = {"name": "t", "replicas": 1, "template": {"spec": {"containers": "not-decoded"}}}
    base: dict[str, Any] = {"minAvailable": 1, "queue": "default", "tasks": [task]}
    return {"spec": {**base, **spec}}


@pytest.mark.parametrize(("kind", "obj", "message"), [
    (JOB, _job(minAvailable=1.5), "number 1.5 into Go struct field JobSpec.spec.minAvailable of type int32"),
    (JOB, _job(minAvailable=-(2**31) - 1),
     "number -2147483649 into Go struct field JobSpec.spec.minAvailable of type int32"),
    (JOB, _job(queue=False), "bool into Go struct field JobSpec.spec.queue of type string"),
    (JOB, _job(queue=["a"]), "array into Go struct field JobSpec.spec.queue of type string"),
    (JOB, {"spec": "x"}, "string into Go struct field Job.spec of type v1alpha1.JobSpec"),
    (JOB, _job(tasks="x"), "string into Go struct field JobSpec.spec.tasks of type []v1alpha1.TaskSpec"),
    (JOB, _job(tasks=[{"name": "t", "replicas": 1}, "x"]),
     "string into Go struct field JobSpec.spec.tasks of type v1alpha1.TaskSpec"),
    (JOB, _job(tasks=[{"name": "t", "topologyPolicy": 1}]),
     "number into Go struct field TaskSpec.spec.tasks.topologyPolicy of type v1alpha1.NumaPolicy"),
    (JOB, _job(tasks=[{"name": "t", "dependsOn": {"name": "a"}}]),
     "string into Go struct field DependsOn.spec.tasks.dependsOn.name of type []string"),
    (JOB, _job(tasks=[{"name": "t", "partitionPolicy": {"networkTopology": {"highestTierAllowed": "1"}}}]),
     "string into Go struct field NetworkTopologySpec.spec.tasks.partitionPolicy.networkTopology."
     "highestTierAllowed of type int"),
    (JOB, _job(policies=[{"events": [1]}]),
     "number into Go struct field LifecyclePolicy.spec.policies.events of type v1alpha1.Event"),
    (JOB, _job(plugins={"svc": [1]}), "number into Go struct field JobSpec.spec.plugins of type string"),
    (JOB, _job(plugins=[]), "array into Go struct field JobSpec.spec.plugins of type map[string][]string"),
    (JOB, _job(volumes=[{"mountPath": "/m", "volumeClaim": {"resources": []}}]),
     "array into Go struct field PersistentVolumeClaimSpec.spec.volumes.volumeClaim.resources of type "
     "v1.VolumeResourceRequirements"),
    (JOB, _job(volumes=[{"mountPath": "/m", "volumeClaim": {"selector": {"matchLabels": {"a": 1}}}}]),
     "number into Go struct field LabelSelector.spec.volumes.volumeClaim.selector.matchLabels of type string"),
    (QUEUE, {"spec": {"weight": "1"}}, "string into Go struct field QueueSpec.spec.weight of type int32"),
    (QUEUE, {"spec": {"capability": []}}, "array into Go struct field QueueSpec.spec.capability of type "
                                          "v1.ResourceList"),
    (QUEUE, {"spec": {"extendClusters": [{"weight": 0.5}]}},
     "number 0.5 into Go struct field Cluster.spec.extendClusters.weight of type int32"),
    (PODGROUP, {"spec": {"minTaskMember": {"a": 1.5}}},
     "number 1.5 into Go struct field PodGroupSpec.spec.minTaskMember of type int32"),
    (PODGROUP, {"spec": {"subGroupPolicy": [{"labelSelector": {"matchExpressions": [{"operator": 1}]}}]}},
     "number into Go struct field LabelSelectorRequirement.spec.subGroupPolicy.labelSelector.matchExpressions."
     "operator of type v1.LabelSelectorOperator"),
])
def test_the_first_mismatch_in_go_words(kind: str, obj: dict[str, Any], message: str) -> None:
    assert spec_decode_error(kind, obj) == "json: cannot unmarshal " + message


def test_what_decodes() -> None:
    """Nulls, unknown fields, quantities of either JSON type and the pod template are not refused."""
    assert spec_decode_error(JOB, _job(queue=None, unknown={"x": 1})) is None
    assert spec_decode_error(QUEUE, {"spec": {"capability": {"cpu": 2, "memory": "1Gi"}}}) is None
    assert spec_decode_error(JOB, {"metadata": {}}) is None
    assert spec_decode_error("Pod", {"spec": {"containers": "x"}}) is None


def test_integral_floats_become_ints_in_place() -> None:
    obj = _job(minAvailable=2.0, tasks=[{"name": "t", "replicas": 3.0}], plugins={"svc": ["a"]})
    pg: dict[str, Any] = {"spec": {"minTaskMember": {"a": 4.0}, "subGroupPolicy": [{"minSubGroups": 1.0}]}}
    assert spec_decode_error(JOB, obj) is None and spec_decode_error(PODGROUP, pg) is None
    assert obj["spec"]["minAvailable"] == 2 and isinstance(obj["spec"]["minAvailable"], int)
    assert isinstance(obj["spec"]["tasks"][0]["replicas"], int)
    assert isinstance(pg["spec"]["minTaskMember"]["a"], int)
    assert isinstance(pg["spec"]["subGroupPolicy"][0]["minSubGroups"], int)
    assert obj["spec"]["queue"] == "default"


def test_first_in_document_order() -> None:
    obj = {"spec": {"queue": 1, "minAvailable": "x"}}
    assert "spec.queue" in (spec_decode_error(JOB, obj) or "")
    obj = {"spec": {"minAvailable": "x", "queue": 1}}
    assert "spec.minAvailable" in (spec_decode_error(JOB, obj) or "")
