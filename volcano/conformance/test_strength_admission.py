"""Admission conformance at the limits: every bound Volcano's webhooks and CRD schemas enforce,
tested at the limit itself and one step on each side.

The existing admission cases mirror upstream's e2e suite, which tests each rule with one value far
past its limit (minAvailable 5 against 1 replica, weight -1). A rule that checks ``>`` where it
should check ``>=``, or sums the wrong replicas, passes those. Here every limit gets the value that
is just allowed, the limit, and the value just past it; jobs have more than one task and
replicas different from minAvailable, so a rule that reads the wrong field shows.

Denials are checked as a client sees them (webhook, message, nothing stored); admissions by the
stored object. Every case uses only the backend-neutral ``cluster`` fixture.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance import test_admission as adm
from volcano.conformance.backends.base import Cluster

__all__: list[str] = []

Obj = dict[str, Any]
JOB_KIND = "Job.batch.volcano.sh"
QUEUE_KIND = "Queue.scheduling.volcano.sh"


# ------------------------------------------------------------------------------------------- Job


@pytest.mark.admission
@pytest.mark.parametrize(("min_available", "admitted"), [(4, True), (5, True), (6, False)])
def test_job_min_available_at_total_replicas(cluster: Cluster, min_available: int, admitted: bool) -> None:
    """Job minAvailable against the sum of the replicas of all tasks (2 + 3)."""
    job = adm.two_task_job(f"job-min-available-{min_available}")
    job["spec"]["minAvailable"] = min_available
    got = adm.outcome(cluster, job, adm.JOB_WEBHOOK)
    if admitted:
        assert isinstance(got, dict) and got["spec"]["minAvailable"] == min_available
    else:
        assert got == "job 'minAvailable' should not be greater than total replicas in tasks;"


@pytest.mark.admission
@pytest.mark.parametrize(("task_min", "admitted"), [(0, True), (2, True), (3, True), (4, False)])
def test_task_min_available_at_replicas(cluster: Cluster, task_min: int, admitted: bool) -> None:
    """A task's minAvailable against its own replicas (3); the job's minAvailable stays 1."""
    name = f"task-min-available-{task_min}"
    job = adm.two_task_job(name, replicas=(3, 1))
    job["spec"]["tasks"][0]["minAvailable"] = task_min
    got = adm.outcome(cluster, job, adm.JOB_WEBHOOK)
    if admitted:
        assert isinstance(got, dict)
        assert [t["minAvailable"] for t in got["spec"]["tasks"]] == [task_min, 1]
        assert got["spec"]["minAvailable"] == 1
    else:
        assert got == f"'minAvailable' is greater than 'replicas' in task: task-1, job: {name};"


@pytest.mark.admission
def test_job_min_available_defaults_to_sum_of_task_min_available(cluster: Cluster) -> None:
    """Without a job minAvailable the webhook sums the tasks' minAvailable (2 + 1), not replicas (3 + 2)."""
    job = adm.two_task_job("job-min-available-sum", replicas=(3, 2))
    del job["spec"]["minAvailable"]
    job["spec"]["tasks"][0]["minAvailable"] = 2
    job["spec"]["tasks"][1]["minAvailable"] = 1
    got = adm.plain(cluster.apply(job)[0])
    assert got["spec"]["minAvailable"] == 3
    assert [t["minAvailable"] for t in got["spec"]["tasks"]] == [2, 1]


@pytest.mark.admission
@pytest.mark.parametrize(("given", "stored"), [(0, 3), (1, 1), (2, 2)])
def test_max_retry_zero_is_defaulted_positive_kept(cluster: Cluster, given: int, stored: int) -> None:
    """maxRetry 0 (the Go zero value) becomes 3, for the job and for each task; 1 and up are kept."""
    job = adm.base_job(f"max-retry-{given}")
    job["spec"]["maxRetry"] = given
    job["spec"]["tasks"][0]["maxRetry"] = given
    got = adm.plain(cluster.apply(job)[0])
    assert (got["spec"]["maxRetry"], got["spec"]["tasks"][0]["maxRetry"]) == (stored, stored)


_JOB_SCHEMA_LIMITS = [
    pytest.param("ttlSecondsAfterFinished", 0, None, id="ttl-zero"),
    pytest.param("ttlSecondsAfterFinished", -1, "spec.ttlSecondsAfterFinished: Invalid value: -1: "
                 "spec.ttlSecondsAfterFinished in body should be greater than or equal to 0", id="ttl-negative"),
    pytest.param("minSuccess", 1, None, id="min-success-one"),
    pytest.param("minSuccess", 0, "spec.minSuccess: Invalid value: 0: "
                 "spec.minSuccess in body should be greater than or equal to 1", id="min-success-zero"),
    pytest.param("minAvailable", 0, None, id="min-available-zero"),
    pytest.param("maxRetry", -1, "spec.maxRetry: Invalid value: -1: "
                 "spec.maxRetry in body should be greater than or equal to 0", id="max-retry-negative"),
]


@pytest.mark.admission
@pytest.mark.parametrize(("field", "value", "causes"), _JOB_SCHEMA_LIMITS)
def test_job_schema_lower_bounds(cluster: Cluster, field: str, value: int, causes: str | None) -> None:
    """The CRD schema's minimums: the bound is stored as given, one below is 422 Invalid."""
    name = f"job-bound-{field.lower()}-{value}".replace("--", "-minus-")
    job = adm.base_job(name)
    job["spec"][field] = value
    if causes is None:
        got = adm.plain(cluster.apply(job)[0])
        if field == "minAvailable":  # 0 is the Go zero value: the webhook defaults it to the tasks' sum
            assert got["spec"]["minAvailable"] == 1
        else:
            assert got["spec"][field] == value
        return
    d = adm.denial(lambda: cluster.apply(job))
    assert adm.schema_causes(d, JOB_KIND, name) == causes
    assert cluster.try_get("Job", name) is None


@pytest.mark.admission
@pytest.mark.parametrize(("name_length", "admitted"), [(58, True), (59, True), (60, False)])
def test_pod_name_length_limit(cluster: Cluster, name_length: int, admitted: bool) -> None:
    """The webhook checks each pod name ``<job>-<task>-<index>`` as a qualified name (at most 63
    characters): with task ``t`` a job name of 59 characters gives a 63-character pod name."""
    name = ("len" + "x" * 70)[:name_length]
    job = adm.base_job(name)
    job["spec"]["tasks"][0]["name"] = "t"
    got = adm.outcome(cluster, job, adm.JOB_WEBHOOK)
    if admitted:
        assert isinstance(got, dict) and got["metadata"]["name"] == name
    else:
        assert got == f"create pod with name {name}-t-0 validate failed [name part must be no more than 63 characters];"


@pytest.mark.admission
@pytest.mark.parametrize(("length", "causes"), [
    (63, None), (64, "spec.schedulerName: Too long: may not be more than 63 bytes")])
def test_scheduler_name_length(cluster: Cluster, length: int, causes: str | None) -> None:
    """The CRD schema's maxLength on ``spec.schedulerName``."""
    name = f"scheduler-name-{length}"
    job = adm.base_job(name)
    job["spec"]["schedulerName"] = ("s" * length)
    if causes is None:
        assert adm.plain(cluster.apply(job)[0])["spec"]["schedulerName"] == "s" * length
        return
    d = adm.denial(lambda: cluster.apply(job))
    assert adm.schema_causes(d, JOB_KIND, name) == causes
    assert cluster.try_get("Job", name) is None


@pytest.mark.admission
@pytest.mark.parametrize("length", [63, 64])
def test_task_name_length(cluster: Cluster, length: int) -> None:
    """A task name of 63 characters passes the schema but makes a pod name too long for the
    webhook; 64 is past the schema's maxLength."""
    job = adm.base_job(f"task-name-{length}")
    task = ("t" * length)
    job["spec"]["tasks"][0]["name"] = task
    d = adm.denial(lambda: cluster.apply(job))
    if length == 63:
        assert adm.webhook_message(d, adm.JOB_WEBHOOK) == (
            f"create pod with name task-name-63-{task}-0 validate failed "
            "[name part must be no more than 63 characters];")
    else:
        assert adm.schema_causes(d, JOB_KIND, "task-name-64") == (
            "spec.tasks[0].name: Too long: may not be more than 63 bytes")
    assert cluster.try_get("Job", f"task-name-{length}") is None


@pytest.mark.admission
@pytest.mark.parametrize(("new_min", "admitted"), [(5, True), (6, False)])
def test_update_min_available_at_total_replicas(cluster: Cluster, new_min: int, admitted: bool) -> None:
    """On UPDATE the job's minAvailable may rise to the total replicas (2 + 3), not past it."""
    name = f"adm.update-min-available-{new_min}"
    cluster.apply(adm.two_task_job(name))

    def change(job: Obj) -> None:
        job["spec"]["minAvailable"] = new_min

    if admitted:
        assert adm.update(cluster, "Job", name, change)["spec"]["minAvailable"] == new_min
        return
    d = adm.denial(lambda: adm.update(cluster, "Job", name, change))
    assert adm.webhook_message(d, adm.JOB_WEBHOOK) == "job 'minAvailable' must not be greater than total replicas"
    assert cluster.get("Job", name)["spec"]["minAvailable"] == 1


@pytest.mark.admission
@pytest.mark.parametrize(("task_min", "expected"), [
    pytest.param(3, None, id="at-replicas"),
    pytest.param(4, "'minAvailable' must be <= 'replicas' in task: task-1", id="above-replicas"),
    pytest.param(-1, None, id="negative"),
])
def test_update_task_min_available(cluster: Cluster, task_min: int, expected: str | None) -> None:
    """On UPDATE a task's minAvailable may change up to its replicas (3)."""
    name = f"adm.update-task-min-{task_min}".replace("--", "-minus-")
    cluster.apply(adm.two_task_job(name, replicas=(3, 1)))

    def change(job: Obj) -> None:
        job["spec"]["tasks"][0]["minAvailable"] = task_min
        job["spec"]["minAvailable"] = 1

    if task_min < 0:  # the CRD schema refuses it before the webhook sees it
        d = adm.denial(lambda: adm.update(cluster, "Job", name, change))
        assert adm.schema_causes(d, JOB_KIND, name) == (
            "spec.tasks[0].minAvailable: Invalid value: -1: "
            "spec.tasks[0].minAvailable in body should be greater than or equal to 0")
    elif expected is None:
        assert adm.update(cluster, "Job", name, change)["spec"]["tasks"][0]["minAvailable"] == task_min
        return
    else:
        d = adm.denial(lambda: adm.update(cluster, "Job", name, change))
        assert adm.webhook_message(d, adm.JOB_WEBHOOK) == expected
    assert cluster.get("Job", name)["spec"]["tasks"][0]["minAvailable"] == 3


_IMMUTABLE = ("job updates may not change fields other than `minAvailable`, `tasks[*].replicas under spec` "
              "and `PriorityClassName`")


@pytest.mark.admission
@pytest.mark.parametrize(("path", "value", "expected"), [
    pytest.param(("replicas",), 2, None, id="replicas"),
    pytest.param(("template", "spec", "containers", 0, "image"), "busybox:1.36", _IMMUTABLE, id="image"),
    pytest.param(("policies", 0, "action"), "RestartJob", _IMMUTABLE, id="task-policy"),
    pytest.param(("maxRetry",), 5, _IMMUTABLE, id="task-max-retry"),
])
def test_update_inside_a_task(cluster: Cluster, request: pytest.FixtureRequest, path: tuple[str | int, ...],
                              value: Any, expected: str | None) -> None:
    """Inside a task only the replicas (and minAvailable) may change on UPDATE."""
    name = f"update-task-{request.node.callspec.id}"
    job = adm.base_job(name)
    job["spec"]["tasks"][0]["policies"] = [{"event": "PodFailed", "action": "AbortJob"}]
    cluster.apply(job)

    def change(obj: Obj) -> None:
        node: Any = obj["spec"]["tasks"][0]
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value

    if expected is None:
        assert adm.update(cluster, "Job", name, change)["spec"]["tasks"][0]["replicas"] == value
        return
    before = adm.plain(cluster.get("Job", name))["spec"]
    d = adm.denial(lambda: adm.update(cluster, "Job", name, change))
    assert adm.webhook_message(d, adm.JOB_WEBHOOK) == expected
    assert adm.plain(cluster.get("Job", name))["spec"] == before


@pytest.mark.admission
@pytest.mark.parametrize(("exit_code", "admitted"), [(-1, True), (0, False), (1, True)])
def test_policy_exit_code_around_zero(cluster: Cluster, exit_code: int, admitted: bool) -> None:
    """Only exit code 0 is refused in an exit-code policy; -1 and 1 are fine."""
    job = adm.base_job(f"exit-code-{exit_code}".replace("--", "-minus-"))
    job["spec"]["policies"] = [{"exitCode": exit_code, "action": "RestartJob"}]
    got = adm.outcome(cluster, job, adm.JOB_WEBHOOK)
    if admitted:
        assert isinstance(got, dict) and got["spec"]["policies"][0]["exitCode"] == exit_code
    else:
        assert isinstance(got, str) and got.startswith("1 error occurred:\n\t* 0 is not a valid error code\n\n")


@pytest.mark.admission
@pytest.mark.parametrize(("replicas", "min_available", "expected"), [
    pytest.param(6, None, None, id="replicas-at-product"),
    pytest.param(7, None, "'Replicas' are not equal to TotalPartitions*PartitionSize in task: task-1, job: "
                          "partition-7-none", id="replicas-off-product"),
    pytest.param(6, 4, None, id="min-available-at-min-partitions"),
    pytest.param(6, 3, "'MinAvailable' is not equal to MinPartitions*PartitionSize in task: task-1, job: "
                       "partition-6-3", id="min-available-off-min-partitions"),
])
def test_partition_arithmetic(cluster: Cluster, replicas: int, min_available: int | None,
                              expected: str | None) -> None:
    """A partitioned task (3 partitions of 2, at least 2 of them): replicas must be 3 x 2 and a
    given minAvailable 2 x 2; without one the webhook derives it from the partitions."""
    name = f"partition-{replicas}-{min_available if min_available is not None else 'none'}"
    job = adm.base_job(name)
    task = job["spec"]["tasks"][0]
    task.update(replicas=replicas, partitionPolicy={"totalPartitions": 3, "partitionSize": 2, "minPartitions": 2})
    if min_available is not None:
        task["minAvailable"] = min_available
    got = adm.outcome(cluster, job, adm.JOB_WEBHOOK)
    if expected is None:
        assert isinstance(got, dict) and got["spec"]["tasks"][0]["minAvailable"] == 4
    else:
        assert got == expected


@pytest.mark.admission
@pytest.mark.parametrize(("policy", "cpu", "admitted"), [
    ("none", "500m", True), ("best-effort", "1", True), ("best-effort", "500m", False)])
def test_topology_policy_needs_whole_cpus(cluster: Cluster, policy: str, cpu: str, admitted: bool) -> None:
    """A task with a NUMA topology policy other than ``none`` must request whole CPUs."""
    name = f"numa-{policy}-{cpu}"
    job = adm.base_job(name)
    task = job["spec"]["tasks"][0]
    task["topologyPolicy"] = policy
    task["template"]["spec"]["containers"][0]["resources"] = {"requests": {"cpu": cpu}, "limits": {"cpu": cpu}}
    got = adm.outcome(cluster, job, adm.JOB_WEBHOOK)
    if admitted:
        assert isinstance(got, dict) and got["spec"]["tasks"][0]["topologyPolicy"] == policy
    else:
        assert got == "the cpu request isn't an integer in spec.task[0] container[0]."


# ----------------------------------------------------------------------------------------- Queue


def _queue_outcome(cluster: Cluster, request: pytest.FixtureRequest, name: str, spec: Obj) -> Obj | str:
    adm.own_queue(request, cluster, name)
    return adm.outcome(cluster, adm.queue_manifest(name, spec), adm.QUEUE_WEBHOOK)


@pytest.mark.admission
@pytest.mark.parametrize(("given", "stored"), [(0, 1), (1, 1), (2, 2), (65535, 65535)])
def test_queue_weight_within_range(cluster: Cluster, request: pytest.FixtureRequest, given: int, stored: int) -> None:
    """Weight 0 (the Go zero value) is defaulted to 1 by the mutating webhook before the schema's
    minimum of 1 is checked; 1 to 65535 are kept."""
    got = _queue_outcome(cluster, request, f"weight-{given}", {"weight": given})
    assert isinstance(got, dict) and got["spec"]["weight"] == stored


@pytest.mark.admission
def test_queue_weight_above_maximum(cluster: Cluster, request: pytest.FixtureRequest) -> None:
    adm.own_queue(request, cluster, "weight-65536")
    d = adm.denial(lambda: cluster.apply(adm.queue_manifest("weight-65536", {"weight": 65536})))
    assert adm.schema_causes(d, QUEUE_KIND, "weight-65536") == (
        "spec.weight: Invalid value: 65536: spec.weight in body should be less than or equal to 65535")
    assert cluster.try_get("Queue", "weight-65536") is None


_QUEUE_CHAIN = [
    pytest.param({"capability": {"cpu": "2"}, "deserved": {"cpu": "1999m"}}, None, id="deserved-below-capability"),
    pytest.param({"capability": {"cpu": "2"}, "deserved": {"cpu": "2"}}, None, id="deserved-at-capability"),
    pytest.param({"capability": {"cpu": "2"}, "deserved": {"cpu": "2001m"}},
                 'requestBody.spec.deserved.cpu: Invalid value: "2001m": deserved[cpu]=2001m must be <= '
                 "capability[cpu]=2", id="deserved-above-capability"),
    pytest.param({"deserved": {"memory": "1Gi"}, "guarantee": {"resource": {"memory": "1023Mi"}}}, None,
                 id="guarantee-below-deserved"),
    pytest.param({"deserved": {"memory": "1Gi"}, "guarantee": {"resource": {"memory": "1Gi"}}}, None,
                 id="guarantee-at-deserved"),
    pytest.param({"deserved": {"memory": "1Gi"}, "guarantee": {"resource": {"memory": "1025Mi"}}},
                 'requestBody.spec.deserved.memory: Invalid value: "1Gi": deserved[memory]=1Gi must be >= '
                 "guarantee[memory]=1025Mi", id="guarantee-above-deserved"),
    pytest.param({"guarantee": {"resource": {"cpu": "0"}}},
                 'requestBody.spec.deserved.cpu: Invalid value: "<nil>": deserved[cpu] must be >= '
                 "guarantee[cpu]=0", id="zero-guarantee-without-deserved"),
    pytest.param({"guarantee": {"resource": {"cpu": "1m"}}},
                 'requestBody.spec.deserved.cpu: Invalid value: "<nil>": deserved[cpu] must be >= '
                 "guarantee[cpu]=1m", id="least-guarantee-without-deserved"),
    pytest.param({"capability": {"cpu": "0"}, "deserved": {"cpu": "0"}}, None, id="zero-capability"),
    pytest.param({"capability": {"cpu": "0"}, "deserved": {"cpu": "1m"}},
                 'requestBody.spec.deserved.cpu: Invalid value: "1m": deserved[cpu]=1m must be <= '
                 "capability[cpu]=0", id="least-deserved-over-zero-capability"),
]


@pytest.mark.admission
@pytest.mark.parametrize(("spec", "expected"), _QUEUE_CHAIN)
def test_queue_resource_chain_at_limits(cluster: Cluster, request: pytest.FixtureRequest, spec: Obj,
                                        expected: str | None) -> None:
    """guarantee <= deserved <= capability per resource: equal is fine, one unit over is refused."""
    name = f"chain-{request.node.callspec.id}"
    got = _queue_outcome(cluster, request, name, {"weight": 1, **spec})
    if expected is None:
        assert isinstance(got, dict)
        for key, value in spec.items():
            assert got["spec"][key] == value
    else:
        assert got == expected


@pytest.mark.admission
def test_parent_queue_with_allocated_pods(cluster: Cluster, request: pytest.FixtureRequest) -> None:
    """A leaf queue whose pods are running cannot become the parent of another queue (its pods
    would sit in a non-leaf queue); an idle leaf queue can."""
    for name in ("alloc-second", "alloc-first", "alloc-parent", "alloc-empty"):
        adm.own_queue(request, cluster, name)
    cluster.apply(adm.queue_manifest("alloc-parent", {"weight": 1}))
    cluster.apply(adm.queue_manifest("alloc-empty", {"weight": 1}))
    adm.wait_queue_open(cluster, "alloc-parent")
    job = adm.base_job("alloc-job")
    job["spec"]["queue"] = "alloc-parent"
    cluster.apply(job)

    def allocated_pods() -> str:
        q = cluster.get("Queue", "alloc-parent")
        return str(((q.get("status") or {}).get("allocated") or {}).get("pods") or "0")

    cluster.wait_until(lambda: allocated_pods() == "1", 300, "one pod allocated in alloc-parent")
    got = adm.outcome(cluster, adm.queue_manifest("alloc-first", {"weight": 1, "parent": "alloc-parent"}),
                   adm.QUEUE_WEBHOOK)
    assert got == ("queue alloc-parent cannot be the parent queue of queue alloc-first because it has "
                   "allocated Pods: 1")
    child = adm.outcome(cluster, adm.queue_manifest("alloc-first", {"weight": 1, "parent": "alloc-empty"}),
                     adm.QUEUE_WEBHOOK)
    assert isinstance(child, dict) and child["spec"]["parent"] == "alloc-empty"


def _family(cluster: Cluster, request: pytest.FixtureRequest, parent: Obj, *children: tuple[str, Obj]) -> None:
    """Create queue ``h-parent`` with ``parent`` and the given children under it (all deleted at the
    end, children first)."""
    adm.own_queue(request, cluster, "h-parent")
    cluster.apply(adm.queue_manifest("h-parent", {"weight": 1, **parent}))
    for name, spec in children:
        adm.own_queue(request, cluster, name)
        cluster.apply(adm.queue_manifest(name, {"weight": 1, "parent": "h-parent", **spec}))


@pytest.mark.admission
@pytest.mark.parametrize(("cpu", "expected"), [
    ("3999m", None), ("4", None),
    ("4001m", "queue h-child capability[cpu]=4001m exceeds its ancestor's capability=4")])
def test_child_capability_within_ancestor(cluster: Cluster, request: pytest.FixtureRequest, cpu: str,
                                          expected: str | None) -> None:
    _family(cluster, request, {"capability": {"cpu": "4"}})
    adm.own_queue(request, cluster, "h-child")
    got = adm.outcome(cluster, adm.queue_manifest("h-child", {"weight": 1, "parent": "h-parent",
                                                           "capability": {"cpu": cpu}}), adm.QUEUE_WEBHOOK)
    if expected is None:
        assert isinstance(got, dict) and got["spec"]["capability"] == {"cpu": cpu}
    else:
        assert got == expected


@pytest.mark.admission
@pytest.mark.parametrize(("key", "cpu", "expected"), [
    ("deserved", "2", None),
    ("deserved", "2001m", "parent queue h-parent validation failed: sum of children's deserved (cpu 4001.00, "
                          "memory 0.00) exceeds parent's deserved limit (cpu 4000.00, memory 0.00)"),
    ("guarantee", "2", None),
    ("guarantee", "2001m", "parent queue h-parent validation failed: sum of children's guarantee (cpu 4001.00, "
                           "memory 0.00) exceeds parent's guarantee limit (cpu 4000.00, memory 0.00)"),
])
def test_children_sum_within_parent(cluster: Cluster, request: pytest.FixtureRequest, key: str, cpu: str,
                                    expected: str | None) -> None:
    """The siblings' deserved (guarantee) together may reach the parent's, not pass it."""
    def amounts(value: str, deserved: str) -> Obj:
        if key == "deserved":
            return {"deserved": {"cpu": value}}
        return {"deserved": {"cpu": deserved}, "guarantee": {"resource": {"cpu": value}}}

    _family(cluster, request, amounts("4", "8"), ("h-first", amounts("2", "3")))
    adm.own_queue(request, cluster, "h-second")
    got = adm.outcome(cluster, adm.queue_manifest("h-second", {"weight": 1, "parent": "h-parent", **amounts(cpu, "3")}),
                   adm.QUEUE_WEBHOOK)
    if expected is None:
        assert isinstance(got, dict) and got["spec"]["parent"] == "h-parent"
    else:
        assert got == expected


@pytest.mark.admission
def test_queue_with_children_cannot_be_deleted(cluster: Cluster, request: pytest.FixtureRequest) -> None:
    _family(cluster, request, {}, ("h-a", {}), ("h-b", {}))
    d = adm.denial(lambda: cluster.delete("Queue", "h-parent"))
    assert adm.webhook_message(d, adm.QUEUE_WEBHOOK) == (
        "queue h-parent can not be deleted because it has 2 child queues: h-a, h-b")
    cluster.delete("Queue", "h-a")
    cluster.wait_until(lambda: cluster.try_get("Queue", "h-a") is None, 30, "h-a deleted")
    d = adm.denial(lambda: cluster.delete("Queue", "h-parent"))
    assert adm.webhook_message(d, adm.QUEUE_WEBHOOK) == (
        "queue h-parent can not be deleted because it has 1 child queues: h-b")
    assert cluster.try_get("Queue", "h-parent") is not None


@pytest.mark.admission
@pytest.mark.parametrize(("args", "admitted"), [
    pytest.param(["--master", "task-2"], True, id="master-as-next-argument"),
    pytest.param(["--master=task-2"], True, id="master-with-equals"),
    pytest.param(["--worker=task-1"], False, id="default-master-absent"),
    pytest.param(["--master", "launcher"], False, id="named-master-absent"),
    # A bare --master at the end is a flag error (value missing): the default, or the value before, stays.
    pytest.param(["--master"], False, id="bare-master-keeps-default"),
    pytest.param(["--master=task-2", "--master"], True, id="bare-master-keeps-earlier"),
])
def test_mpi_master_task_must_exist(cluster: Cluster, request: pytest.FixtureRequest, args: list[str],
                                    admitted: bool) -> None:
    """validatejob: with the ``mpi`` plugin the master task (``--master``, given as ``--master=x`` or
    ``--master x``; ``master`` by default) must be one of the job's tasks (``task-1``, ``task-2``)."""
    job = adm.two_task_job(f"mpi-master-{request.node.callspec.id}", replicas=(1, 1))
    job["spec"]["plugins"] = {"mpi": args, "ssh": [], "svc": []}
    got = adm.outcome(cluster, job, adm.JOB_WEBHOOK)
    if admitted:
        assert isinstance(got, dict) and got["spec"]["plugins"]["mpi"] == args, got
    else:
        assert got == "The specified mpi master task was not found", got
