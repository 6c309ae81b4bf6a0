"""Admission conformance: the exact text and boundary of Volcano webhook rules (upstream
``admit_job.go``, ``validate_podgroup.go``, ``admit_pod.go``, ``validate_queue.go``).

* ``validatejob``: fragments are concatenated in the webhook's order (per task: minAvailable over replicas,
  then the pod name; then the job's plugins, volumes, queue); the job-level networkTopology error and the
  partition policy errors are written bare (no leading space, no ``;``), and on UPDATE the partition error
  names the job.
* ``validatepodgroup``: of several sub-group policies giving both tier fields only the first is named.
* ``validatepod``: ``volcano.sh/jdb-*`` values: an integer above 0, a percentage in 1..99, anything else is
  refused with ``strconv.Atoi``'s error.
* ``validatequeue``: a queue may sit at most 5 levels deep (itself included, root not counted).

Every denial is a 403 naming the webhook, and nothing is stored.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import pod
from volcano.conformance.test_admission import (
    JOB_WEBHOOK,
    POD_WEBHOOK,
    PODGROUP_WEBHOOK,
    QUEUE_WEBHOOK,
    base_job,
    denial,
    outcome,
    own_queue,
    plain,
    queue_manifest,
    update,
    webhook_message,
)

__all__: list[str] = []

Obj = dict[str, Any]
BOTH = "must not specify 'highestTierAllowed' and 'highestTierName' in networkTopology simultaneously"
TIERS = {"mode": "hard", "highestTierAllowed": 1, "highestTierName": "zone"}
MIN_AVAILABLE = "volcano.sh/jdb-min-available"
MAX_UNAVAILABLE = "volcano.sh/jdb-max-unavailable"
PERCENT = "it must be a valid percentage which between 1% ~ 99%"


@pytest.mark.admission
def test_job_fragments_in_webhook_order(cluster: Cluster) -> None:
    """A job breaking four rules gets four fragments, in the webhook's order, the whole trimmed."""
    job = base_job("mut8-order")
    job["spec"]["tasks"][0]["minAvailable"] = 2
    job["spec"]["plugins"] = {"mut8-nope": []}
    job["spec"]["volumes"] = [{"mountPath": "/data"}]
    job["spec"]["queue"] = "mut8-absent-queue"
    assert outcome(cluster, job, JOB_WEBHOOK) == (
        "'minAvailable' is greater than 'replicas' in task: task-1, job: mut8-order;"
        " unable to find job plugin: mut8-nope;"
        " either VolumeClaim or VolumeClaimName must be specified;"
        ' unable to find job queue: queue.scheduling.volcano.sh "mut8-absent-queue" not found;')


@pytest.mark.admission
def test_job_network_topology_error_is_written_bare(cluster: Cluster) -> None:
    """The job-level tier error comes first, with no ``;`` of its own."""
    job = base_job("mut8-tiers")
    job["spec"]["networkTopology"] = dict(TIERS)
    assert outcome(cluster, job, JOB_WEBHOOK) == BOTH
    job["spec"]["plugins"] = {"mut8-nope": []}
    assert outcome(cluster, job, JOB_WEBHOOK) == BOTH + " unable to find job plugin: mut8-nope;"


@pytest.mark.admission
def test_partition_error_on_update_names_the_job(cluster: Cluster) -> None:
    """A partitioned task (1 partition of 1) admitted; raising its replicas to 2 breaks
    replicas == totalPartitions x partitionSize, refused before the immutability rule."""
    job = base_job("mut8-part")
    job["spec"]["tasks"][0]["partitionPolicy"] = {"totalPartitions": 1, "partitionSize": 1}
    created = outcome(cluster, job, JOB_WEBHOOK)
    assert isinstance(created, dict) and created["spec"]["tasks"][0]["minAvailable"] == 1

    def more(obj: Obj) -> None:
        obj["spec"]["tasks"][0]["replicas"] = 2

    d = denial(lambda: update(cluster, "Job", "mut8-part", more))
    assert webhook_message(d, JOB_WEBHOOK) == (
        "'Replicas' are not equal to TotalPartitions*PartitionSize in task: task-1, job: mut8-part")
    assert cluster.get("Job", "mut8-part")["spec"]["tasks"][0]["replicas"] == 1


@pytest.mark.admission
def test_podgroup_names_the_first_bad_subgroup_only(cluster: Cluster) -> None:
    sub = [{"name": "sg-a", "networkTopology": dict(TIERS)}, {"name": "sg-b", "networkTopology": dict(TIERS)}]
    pg = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup", "metadata": {"name": "mut8-pg"},
          "spec": {"minMember": 1, "queue": "default", "subGroupPolicy": sub}}
    assert outcome(cluster, pg, PODGROUP_WEBHOOK) == f"in subGroupPolicy 'sg-a': {BOTH}."


@pytest.mark.admission
def test_disruption_budget_annotation_boundaries(cluster: Cluster) -> None:
    """1, 1% and 99% are admitted; the first value out of range, or not a number, is refused with its
    own message."""
    for i, (key, value) in enumerate([(MIN_AVAILABLE, "1"), (MAX_UNAVAILABLE, "1%"), (MIN_AVAILABLE, "99%")]):
        made = plain(cluster.apply(pod(f"mut8-ok-{i}", req={"cpu": "10m"}, annotations={key: value}))[0])
        assert made["metadata"]["annotations"][key] == value
    refused = [
        ({MAX_UNAVAILABLE: "-1"}, f'invalid value <"-1"> for {MAX_UNAVAILABLE}, it must be a positive integer'),
        ({MIN_AVAILABLE: "99.5%"}, f'invalid value strconv.Atoi: parsing "99.5": invalid syntax for {MIN_AVAILABLE}'),
        ({MIN_AVAILABLE: "half"}, f'invalid value strconv.Atoi: parsing "half": invalid syntax for {MIN_AVAILABLE}'),
        ({MAX_UNAVAILABLE: "-5%"}, f'invalid value <"-5%"> for {MAX_UNAVAILABLE}, {PERCENT}'),
        ({MIN_AVAILABLE: "0", MAX_UNAVAILABLE: "0%"},
         f'invalid value <"0"> for {MIN_AVAILABLE}, it must be a positive integer'),
        ({MIN_AVAILABLE: "1", MAX_UNAVAILABLE: "100%"}, f'invalid value <"100%"> for {MAX_UNAVAILABLE}, {PERCENT}'),
    ]
    for i, (given, expected) in enumerate(refused):
        name = f"mut8-bad-{i}"
        d = denial(lambda a=given, n=name: cluster.apply(pod(n, req={"cpu": "10m"}, annotations=a)))
        assert webhook_message(d, POD_WEBHOOK) == expected
        assert cluster.try_get("Pod", name) is None


@pytest.mark.admission
def test_queue_depth_limit(cluster: Cluster, request: pytest.FixtureRequest) -> None:
    """Queues mut8-d1 (under root) .. mut8-d5 chain to depth 5; mut8-d6 under mut8-d5 would be
    depth 6 and is refused."""
    for i in range(1, 6):
        name = f"mut8-d{i}"
        own_queue(request, cluster, name)
        spec: Obj = {"weight": 1}
        if i > 1:
            spec["parent"] = f"mut8-d{i - 1}"
        cluster.apply(queue_manifest(name, spec))
    d = denial(lambda: cluster.apply(queue_manifest("mut8-d6", {"weight": 1, "parent": "mut8-d5"})))
    assert webhook_message(d, QUEUE_WEBHOOK) == "queue mut8-d6 exceeds the maximum allowed depth of 5"
    assert cluster.try_get("Queue", "mut8-d6") is None


@pytest.mark.admission
def test_partition_errors_concatenate_without_separator(cluster: Cluster) -> None:
    """A partitioned task whose replicas are not totalPartitions x partitionSize and whose partition
    gives both tier fields: upstream appends the tier error straight after the arithmetic one."""
    job = base_job("mut8-part-tiers")
    job["spec"]["tasks"][0]["partitionPolicy"] = {"totalPartitions": 2, "partitionSize": 1,
                                                  "networkTopology": dict(TIERS)}
    assert outcome(cluster, job, JOB_WEBHOOK) == (
        "'Replicas' are not equal to TotalPartitions*PartitionSize in task: task-1, job: mut8-part-tiers" + BOTH)
    job["spec"]["tasks"][0]["replicas"] = 2
    job["spec"]["minAvailable"] = 3
    assert outcome(cluster, job, JOB_WEBHOOK) == (
        BOTH + " job 'minAvailable' should not be greater than total replicas in tasks;")


@pytest.mark.admission
def test_job_name_longer_than_a_qualified_name(cluster: Cluster) -> None:
    """A job name of 64 characters is a valid object name but not a qualified name: its pods' names
    and its own are refused, the pod fragment first (the job fragment has no ``;``)."""
    limit = "name part must be no more than 63 characters"
    ok = "m" * (63 - len("-task-1-0"))
    created = outcome(cluster, base_job(ok), JOB_WEBHOOK)
    assert isinstance(created, dict) and created["metadata"]["name"] == ok
    name = "m" * 64
    assert outcome(cluster, base_job(name), JOB_WEBHOOK) == (
        f"create pod with name {name}-task-1-0 validate failed [{limit}];"
        f"create job with name {name} validate failed [{limit}]")


@pytest.mark.admission
def test_two_policy_errors_are_listed_together(cluster: Cluster) -> None:
    """go-multierror's text for two errors: the first bad policy (exit code 0) stops the loop, then the
    ``*`` rule is added; the valid lists follow (their order is Go's map order, so only the start is fixed)."""
    job = base_job("mut8-multi")
    job["spec"]["policies"] = [{"event": "*", "action": "AbortJob"}, {"event": "PodFailed", "action": "AbortJob"},
                               {"exitCode": 0, "action": "AbortJob"}]
    got = outcome(cluster, job, JOB_WEBHOOK)
    assert isinstance(got, str) and got.startswith(
        "2 errors occurred:\n\t* 0 is not a valid error code\n\t* if there's * here, no other policy should be "
        "here\n\n valid events are ["), got


@pytest.mark.admission
@pytest.mark.parametrize(("cpu", "admitted"), [("1", True), ("500m", False)])
def test_topology_policy_reads_limits_when_requests_are_absent(cluster: Cluster, cpu: str, admitted: bool) -> None:
    """A container giving only limits: the webhook checks the limit's CPU for a whole number."""
    name = f"mut8-numa-{cpu}"
    job = base_job(name)
    task = job["spec"]["tasks"][0]
    task["topologyPolicy"] = "best-effort"
    task["template"]["spec"]["containers"][0]["resources"] = {"limits": {"cpu": cpu}}
    got = outcome(cluster, job, JOB_WEBHOOK)
    if admitted:
        assert isinstance(got, dict) and got["spec"]["tasks"][0]["topologyPolicy"] == "best-effort"
    else:
        assert got == "the cpu request isn't an integer in spec.task[0] container[0]."


@pytest.mark.admission
def test_update_of_a_job_with_a_task_of_no_replicas(cluster: Cluster) -> None:
    """A task that leaves ``replicas`` out has none; raising the job's minAvailable within the total is an
    allowed update (replicas and minAvailable are ignored by the immutability check)."""
    job = base_job("mut8-noreps")
    job["spec"]["tasks"].append({"name": "idle", "template": job["spec"]["tasks"][0]["template"]})
    created = outcome(cluster, job, JOB_WEBHOOK)
    assert isinstance(created, dict) and created["spec"]["tasks"][1].get("replicas", 0) == 0

    def lower(obj: Obj) -> None:
        obj["spec"]["minAvailable"] = 0

    def back(obj: Obj) -> None:
        obj["spec"]["minAvailable"] = 1

    update(cluster, "Job", "mut8-noreps", lower)
    assert cluster.get("Job", "mut8-noreps")["spec"].get("minAvailable", 0) == 0
    update(cluster, "Job", "mut8-noreps", back)
    assert cluster.get("Job", "mut8-noreps")["spec"]["minAvailable"] == 1


@pytest.mark.admission
def test_pod_takes_the_preemption_policy_of_its_class(cluster: Cluster, request: pytest.FixtureRequest) -> None:
    """Kubernetes' Priority admission copies the class's value and preemptionPolicy into the pod."""
    pc = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "mut8-never"},
          "value": 7, "preemptionPolicy": "Never"}
    cluster.apply(pc)
    request.addfinalizer(lambda: cluster.delete("PriorityClass", "mut8-never"))
    made = plain(cluster.apply(pod("mut8-never-pod", req={"cpu": "10m"}, priority_class="mut8-never"))[0])
    assert (made["spec"]["priority"], made["spec"]["preemptionPolicy"]) == (7, "Never")
    plain_pod = plain(cluster.apply(pod("mut8-plain-pod", req={"cpu": "10m"}))[0])
    assert plain_pod["spec"].get("preemptionPolicy") == "PreemptLowerPriority"


@pytest.mark.admission
def test_moving_a_queue_checks_its_capability_against_the_new_ancestor(cluster: Cluster,
                                                                      request: pytest.FixtureRequest) -> None:
    """Changing only ``spec.parent`` still runs the hierarchical resource checks: a queue capped at 4 CPUs
    may not move under a parent capped at 2."""
    own_queue(request, cluster, "mut8-small")
    cluster.apply(queue_manifest("mut8-small", {"weight": 1, "capability": {"cpu": "2"}}))
    own_queue(request, cluster, "mut8-mover")
    cluster.apply(queue_manifest("mut8-mover", {"weight": 1, "capability": {"cpu": "4"}}))

    def move(obj: Obj) -> None:
        obj["spec"]["parent"] = "mut8-small"

    d = denial(lambda: update(cluster, "Queue", "mut8-mover", move))
    assert webhook_message(d, QUEUE_WEBHOOK) == (
        "queue mut8-mover capability[cpu]=4 exceeds its ancestor's capability=2")
    assert cluster.get("Queue", "mut8-mover")["spec"].get("parent", "root") in ("", "root")


@pytest.mark.admission
def test_string_for_a_list_is_refused_by_decoding(cluster: Cluster) -> None:
    """``dependsOn.name`` is a list of task names: a plain string does not unmarshal into the Go type, and
    the first webhook called (the mutating one) denies the Job with the decoder's message."""
    job = base_job("mut8-depends")
    job["spec"]["tasks"][0]["dependsOn"] = {"name": "other"}
    assert outcome(cluster, job, "mutatejob.volcano.sh") == (
        "json: cannot unmarshal string into Go struct field DependsOn.spec.tasks.dependsOn.name of type []string")
