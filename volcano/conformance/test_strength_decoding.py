"""Admission conformance: a Volcano object's spec is decoded into its Go type before any rule runs.

Volcano's webhooks unmarshal the AdmissionReview's object into the Go struct first, and the API
server calls the mutating webhooks before it checks a custom resource against its CRD schema, so a
wrongly typed field is the first webhook's denial with Go's decoder message, an integral float is
the integer, and an update (which no decoding webhook sees first) meets the schema. Every case
uses only the backend-neutral ``cluster`` fixture.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance import test_admission as adm
from volcano.conformance.backends.base import Cluster

__all__: list[str] = []

Obj = dict[str, Any]
JOB_KIND = "Job.batch.volcano.sh"


# ------------------------------------------------------------------- decoding into the Go types

_UNDECODABLE = [
    pytest.param(("minAvailable",), 1.5, "mutatejob.volcano.sh",
                 "json: cannot unmarshal number 1.5 into Go struct field JobSpec.spec.minAvailable of type int32",
                 id="job-min-available-fraction"),
    pytest.param(("minAvailable",), "2", "mutatejob.volcano.sh",
                 "json: cannot unmarshal string into Go struct field JobSpec.spec.minAvailable of type int32",
                 id="job-min-available-string"),
    pytest.param(("maxRetry",), 2**31, "mutatejob.volcano.sh",
                 "json: cannot unmarshal number 2147483648 into Go struct field JobSpec.spec.maxRetry of type int32",
                 id="job-max-retry-overflow"),
    pytest.param(("queue",), 5, "mutatejob.volcano.sh",
                 "json: cannot unmarshal number into Go struct field JobSpec.spec.queue of type string",
                 id="job-queue-number"),
    pytest.param(("tasks", 1, "replicas"), True, "mutatejob.volcano.sh",
                 "json: cannot unmarshal bool into Go struct field TaskSpec.spec.tasks.replicas of type int32",
                 id="task-replicas-bool"),
    pytest.param(("policies",), {"event": "PodEvicted"}, "mutatejob.volcano.sh",
                 "json: cannot unmarshal object into Go struct field JobSpec.spec.policies of type "
                 "[]v1alpha1.LifecyclePolicy", id="job-policies-object"),
    pytest.param(("plugins",), ["ssh"], "mutatejob.volcano.sh",
                 "json: cannot unmarshal array into Go struct field JobSpec.spec.plugins of type map[string][]string",
                 id="job-plugins-array"),
]


@pytest.mark.admission
@pytest.mark.parametrize(("path", "value", "webhook", "message"), _UNDECODABLE)
def test_wrongly_typed_job_field_is_refused_by_decoding(cluster: Cluster, request: pytest.FixtureRequest,
                                                        path: tuple[str | int, ...], value: Any, webhook: str,
                                                        message: str) -> None:
    """A Job field of the wrong JSON type: the mutating webhook, called before the CRD schema is
    checked, cannot unmarshal the Job into its Go type and denies it with the decoder's message."""
    job = adm.two_task_job(f"undecodable-{request.node.callspec.id}")
    node: Any = job["spec"]
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    assert adm.outcome(cluster, job, webhook) == message


@pytest.mark.admission
@pytest.mark.parametrize(("min_available", "admitted"), [(5.0, True), (6.0, False)])
def test_integral_float_is_an_integer(cluster: Cluster, min_available: float, admitted: bool) -> None:
    """``5.0`` is the integer 5 (the API server forwards it so): stored as 5, and 6.0 is past the
    5 replicas as 6 would be."""
    job = adm.two_task_job(f"integral-{int(min_available)}")
    job["spec"]["minAvailable"] = min_available
    got = adm.outcome(cluster, job, adm.JOB_WEBHOOK)
    if admitted:
        assert isinstance(got, dict) and got["spec"]["minAvailable"] == 5
        assert isinstance(got["spec"]["minAvailable"], int)
    else:
        assert got == "job 'minAvailable' should not be greater than total replicas in tasks;"


@pytest.mark.admission
def test_wrongly_typed_update_is_refused_by_the_schema(cluster: Cluster) -> None:
    """On update no mutating webhook runs for a Job, and the CRD schema is checked before the
    validating webhook decodes it: a string minAvailable is the schema's 422."""
    cluster.apply(adm.two_task_job("undecodable-update"))
    d = adm.denial(lambda: cluster.patch("Job", "undecodable-update", {"spec": {"minAvailable": "3"}}))
    assert adm.schema_causes(d, JOB_KIND, "undecodable-update") == (
        'spec.minAvailable: Invalid value: "3": spec.minAvailable in body must be of type integer: "string"')
    assert cluster.get("Job", "undecodable-update")["spec"]["minAvailable"] == 1


@pytest.mark.admission
def test_wrongly_typed_queue_and_podgroup_fields(cluster: Cluster, request: pytest.FixtureRequest) -> None:
    """Queue and PodGroup are decoded the same way by their mutating webhooks."""
    own_queue_name = "undecodable-queue"
    adm.own_queue(request, cluster, own_queue_name)
    got = adm.outcome(cluster, adm.queue_manifest(own_queue_name, {"weight": 1, "reclaimable": "yes"}),
                   "mutatequeue.volcano.sh")
    assert got == "json: cannot unmarshal string into Go struct field QueueSpec.spec.reclaimable of type bool"
    pg = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup", "metadata": {"name": "undecodable-pg"},
          "spec": {"minMember": 1.5}}
    assert adm.outcome(cluster, pg, "mutatepodgroup.volcano.sh") == (
        "json: cannot unmarshal number 1.5 into Go struct field PodGroupSpec.spec.minMember of type int32")


@pytest.mark.admission
def test_update_may_not_name_both_topology_limits(cluster: Cluster) -> None:
    """An update that gives a Job's networkTopology both highestTierAllowed and highestTierName is
    denied for that, before the rule that the field may not change at all."""
    job = adm.two_task_job("topology-update")
    job["spec"]["networkTopology"] = {"highestTierAllowed": 1}
    cluster.apply(job)
    d = adm.denial(lambda: cluster.patch("Job", "topology-update", {"spec": {"networkTopology": {
        "highestTierName": "zone"}}}))
    assert adm.webhook_message(d, adm.JOB_WEBHOOK) == (
        "must not specify 'highestTierAllowed' and 'highestTierName' in networkTopology simultaneously")
    assert "highestTierName" not in cluster.get("Job", "topology-update")["spec"]["networkTopology"]
