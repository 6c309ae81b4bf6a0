"""Volcano's Job admission rules as pure functions (mutating defaults, CREATE checks, UPDATE rules)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from volcano.admission.job import (
    VALID_ACTIONS,
    VALID_EVENTS,
    mutate_job,
    validate_job_create,
    validate_job_update,
    validate_policies,
)
from volcano.admission.lookup import StaticView


def _queue(name: str, state: str = "Open", parent: str = "") -> dict[str, Any]:
    return {"metadata": {"name": name}, "spec": {"parent": parent} if parent else {}, "status": {"state": state}}


def _task(name: str, replicas: int = 1, **extra: Any) -> dict[str, Any]:
    return {"name": name, "replicas": replicas,
            "template": {"spec": {"containers": [{"name": "c", "image": "busybox"}]}}, **extra}


# -- mutating ---------------------------------------------------------------------------------------

def test_mutate_fills_every_default() -> None:
    job: dict[str, Any] = {"metadata": {"name": "j"}, "spec": {"tasks": [_task("", 2), _task("", 3)]}}
    mutate_job(job)
    spec = job["spec"]
    assert spec["queue"] == "default"
    assert spec["schedulerName"] == "volcano"
    assert spec["maxRetry"] == 3
    assert [t["name"] for t in spec["tasks"]] == ["default0", "default1"]
    assert [t["minAvailable"] for t in spec["tasks"]] == [2, 3]
    assert [t["maxRetry"] for t in spec["tasks"]] == [3, 3]
    assert spec["minAvailable"] == 5


def test_mutate_uses_task_min_available_and_scheduler_name() -> None:
    job: dict[str, Any] = {"spec": {"tasks": [_task("a", 2, minAvailable=1), _task("b", 3)]}}
    mutate_job(job, scheduler_name="custom")
    assert job["spec"]["minAvailable"] == 4
    assert job["spec"]["schedulerName"] == "custom"


def test_mutate_preserves_explicit_values() -> None:
    job: dict[str, Any] = {"spec": {"queue": "q", "schedulerName": "s", "maxRetry": 10, "minAvailable": 2,
                                    "tasks": [_task("t", 3, minAvailable=2, maxRetry=5)]}}
    before = copy.deepcopy(job)
    mutate_job(job)
    assert job == before


def test_mutate_partition_policy_min_available() -> None:
    job: dict[str, Any] = {"spec": {"tasks": [_task("t", 6, partitionPolicy={
        "totalPartitions": 3, "partitionSize": 2, "minPartitions": 2})]}}
    mutate_job(job)
    assert job["spec"]["tasks"][0]["minAvailable"] == 4
    assert job["spec"]["minAvailable"] == 4


def test_mutate_host_network_dns_policy() -> None:
    task = _task("t")
    task["template"]["spec"]["hostNetwork"] = True
    job: dict[str, Any] = {"spec": {"tasks": [task]}}
    mutate_job(job)
    assert job["spec"]["tasks"][0]["template"]["spec"]["dnsPolicy"] == "ClusterFirstWithHostNet"


@pytest.mark.parametrize(("plugins", "expected"), [
    ({"tensorflow": []}, {"tensorflow", "svc"}),
    ({"pytorch": []}, {"pytorch", "svc"}),
    ({"ray": []}, {"ray", "svc"}),
    ({"mpi": ["--master=task-1", "--worker=task-1"]}, {"mpi", "svc", "ssh"}),
    ({"env": []}, {"env"}),
])
def test_mutate_adds_framework_plugins(plugins: dict[str, list[str]], expected: set[str]) -> None:
    job: dict[str, Any] = {"spec": {"tasks": [_task("task-1")], "plugins": plugins}}
    mutate_job(job)
    assert set(job["spec"]["plugins"]) == expected


def test_mutate_keeps_existing_svc_args() -> None:
    job: dict[str, Any] = {"spec": {"tasks": [_task("t")],
                                    "plugins": {"tensorflow": [], "svc": ["--enable-networking"]}}}
    mutate_job(job)
    assert job["spec"]["plugins"]["svc"] == ["--enable-networking"]


# -- policies ---------------------------------------------------------------------------------------

@pytest.mark.parametrize(("policies", "fragment"), [
    ([{"event": "PodFailed", "action": "AbortJob"}, {"event": "PodFailed", "action": "RestartJob"}],
     "duplicate event PodFailed  across different policy"),
    ([{"event": "PodFailed", "action": "AbortJob", "exitCode": 1}],
     "must not specify event and exitCode simultaneously"),
    ([{"action": "AbortJob"}], "either event and exitCode should be specified"),
    ([{"event": "PodEvicted", "action": "InvalidAction"}],
     'spec.policies: Invalid value: "InvalidAction": invalid policy action'),
    ([{"event": "OutOfSync", "action": "AbortJob"}], 'spec.policies: Invalid value: "OutOfSync": invalid policy event'),
    ([{"action": "AbortJob", "exitCode": 0}], "0 is not a valid error code"),
    ([{"action": "AbortJob", "exitCode": 1}, {"action": "RestartJob", "exitCode": 1}], "duplicate exitCode 1"),
    ([{"event": "*", "action": "AbortJob"}, {"event": "PodFailed", "action": "RestartJob"}],
     "if there's * here, no other policy should be here"),
    ([{"events": ["*", "PodFailed"], "action": "AbortJob"}], "if there's * here, no other policy should be here"),
])
def test_policy_errors(policies: list[dict[str, Any]], fragment: str) -> None:
    text = validate_policies(policies, "spec.policies")
    assert text.startswith("1 error occurred:\n\t* ")
    assert fragment in text


@pytest.mark.parametrize("policies", [
    [],
    [{"event": "PodEvicted", "action": "RestartJob"}, {"event": "TaskCompleted", "action": "CompleteJob"}],
    [{"events": ["PodFailed", "PodFailed"], "action": "RestartPod"}],
    [{"event": "PodPending", "action": "RestartTask", "timeout": "5m"}],
    [{"exitCode": 3, "action": "RestartPartition"}, {"exitCode": 4, "action": "AbortJob"}],
    [{"event": "*", "action": "TerminateJob"}],
])
def test_valid_policies(policies: list[dict[str, Any]]) -> None:
    assert validate_policies(policies, "spec.policies") == ""


def test_two_errors_use_multierror_plural() -> None:
    text = validate_policies([{"event": "PodFailed", "action": "Nope"}], "spec.policies")
    assert text.count("* ") == 1
    text = validate_policies([{"event": "*", "action": "AbortJob"},
                              {"event": "PodFailed", "action": "AbortJob"},
                              {"event": "PodFailed", "action": "AbortJob"}], "spec.policies")
    assert text.startswith("2 errors occurred:\n\t* duplicate event PodFailed")
    assert "if there's * here" in text


# -- create -----------------------------------------------------------------------------------------

def _create(job: dict[str, Any], view: StaticView) -> str:
    mutate_job(job)
    return validate_job_create(job, view)


def test_base_job_is_admitted(job: dict[str, Any], view: StaticView) -> None:
    assert _create(job, view) == ""


def test_no_tasks(job: dict[str, Any], view: StaticView) -> None:
    job["spec"]["tasks"] = []
    assert validate_job_create(job, view) == "No task specified in job spec"


def test_mpi_master_missing(job: dict[str, Any], view: StaticView) -> None:
    job["spec"]["plugins"] = {"mpi": ["--master=boss", "--worker=task-1"]}
    assert validate_job_create(job, view) == "The specified mpi master task was not found"
    job["spec"]["plugins"] = {"mpi": []}  # default master name "master"
    assert validate_job_create(job, view) == "The specified mpi master task was not found"
    job["spec"]["plugins"] = {"mpi": ["--master", "task-1"]}
    assert validate_job_create(job, view) == ""


def test_duplicate_task_stops_the_loop(job: dict[str, Any], view: StaticView) -> None:
    task = job["spec"]["tasks"][0]
    bad = copy.deepcopy(task)
    bad["minAvailable"] = 5  # after the duplicate: never reported
    job["spec"]["tasks"] = [task, copy.deepcopy(task), bad]
    assert validate_job_create(job, view) == "duplicated task name task-1;"


def test_task_min_available_greater_than_replicas(job: dict[str, Any], view: StaticView) -> None:
    job["spec"]["tasks"][0].update(replicas=3, minAvailable=5)
    assert validate_job_create(job, view) == \
        "'minAvailable' is greater than 'replicas' in task: task-1, job: test-job;"


def test_job_min_available_greater_than_total(job: dict[str, Any], view: StaticView) -> None:
    job["spec"]["minAvailable"] = 5
    assert validate_job_create(job, view) == "job 'minAvailable' should not be greater than total replicas in tasks;"


def test_messages_are_concatenated_in_order(job: dict[str, Any], view: StaticView) -> None:
    job["spec"]["tasks"][0].update(replicas=3, minAvailable=5)
    job["spec"]["minAvailable"] = 9
    job["spec"]["plugins"] = {"nope": []}
    msg = validate_job_create(job, view)
    assert msg.index("'minAvailable' is greater") < msg.index("job 'minAvailable' should not") \
        < msg.index("unable to find job plugin: nope;")


def test_task_policy_error_lists_valid_sets(job: dict[str, Any], view: StaticView) -> None:
    job["spec"]["tasks"][0]["policies"] = [{"event": "PodFailed", "action": "Bad"}]
    msg = validate_job_create(job, view)
    assert 'spec.tasks.policies: Invalid value: "Bad": invalid policy action' in msg
    assert f"valid events are [{' '.join(VALID_EVENTS)}], valid actions are [{' '.join(VALID_ACTIONS)}];" in msg


def test_pod_name_too_long(job: dict[str, Any], view: StaticView) -> None:
    job["metadata"]["name"] = "j" * 60
    msg = validate_job_create(job, view)
    assert msg.startswith(f"create pod with name {'j' * 60}-task-1-0 validate failed [name part must be no more "
                          "than 63 characters];")


def test_job_name_must_be_qualified(job: dict[str, Any], view: StaticView) -> None:
    job["metadata"]["name"] = "-bad"
    msg = validate_job_create(job, view)
    assert "create job with name -bad validate failed [name part must consist of alphanumeric" in msg


def test_pod_template_errors(job: dict[str, Any], view: StaticView) -> None:
    job["spec"]["tasks"][0]["template"]["spec"]["containers"] = []
    assert validate_job_create(job, view) == "spec.task[0].template.spec.containers: Required value."
    job["spec"]["tasks"][0]["template"]["spec"]["containers"] = [
        {"name": "c", "image": "x", "resources": {"requests": {"cpu": "2"}, "limits": {"cpu": "1"}}},
        {"name": "c", "image": "x"}]
    msg = validate_job_create(job, view)
    assert 'must be less than or equal to cpu limit of 1' in msg
    assert 'template.spec.containers[1].name: Duplicate value: "c"' in msg


def test_topology_policy_needs_integer_cpu(job: dict[str, Any], view: StaticView) -> None:
    task = job["spec"]["tasks"][0]
    task["topologyPolicy"] = "single-numa-node"
    task["template"]["spec"]["containers"][0]["resources"] = {"limits": {"cpu": "500m", "memory": "1Gi"}}
    assert validate_job_create(job, view) == "the cpu request isn't an integer in spec.task[0] container[0]."
    task["template"]["spec"]["containers"][0]["resources"] = {"limits": {"cpu": "2", "memory": "1Gi"}}
    assert validate_job_create(job, view) == ""


@pytest.mark.parametrize(("policy", "fragment"), [
    ({"totalPartitions": 0, "partitionSize": 1}, "'TotalPartitions' must be greater than 0 in task: task-1"),
    ({"totalPartitions": 1, "partitionSize": 0}, "'PartitionSize' must be greater than 0 in task: task-1"),
    ({"totalPartitions": 2, "partitionSize": 2}, "'Replicas' are not equal to TotalPartitions*PartitionSize"),
])
def test_partition_policy(job: dict[str, Any], view: StaticView, policy: dict[str, int], fragment: str) -> None:
    job["spec"]["tasks"][0].update(replicas=1, partitionPolicy=policy)
    assert fragment in validate_job_create(job, view)


def test_partition_min_available(job: dict[str, Any], view: StaticView) -> None:
    job["spec"]["tasks"][0].update(replicas=4, minAvailable=3, partitionPolicy={
        "totalPartitions": 2, "partitionSize": 2, "minPartitions": 1})
    assert "'MinAvailable' is not equal to MinPartitions*PartitionSize" in validate_job_create(job, view)


def test_network_topology_tiers_exclusive(job: dict[str, Any], view: StaticView) -> None:
    job["spec"]["networkTopology"] = {"mode": "hard", "highestTierAllowed": 1, "highestTierName": "x"}
    assert "must not specify 'highestTierAllowed' and 'highestTierName' in networkTopology simultaneously" in \
        validate_job_create(job, view)


@pytest.mark.parametrize(("volumes", "expected"), [
    ([{"mountPath": ""}], "mountPath is required;"),
    ([{"mountPath": "/var", "volumeClaimName": "pvc1"}, {"mountPath": "/var", "volumeClaimName": "pvc2"}],
     "duplicated mountPath: /var;"),
    ([{"mountPath": "/var"}], "either VolumeClaim or VolumeClaimName must be specified;"),
    ([{"mountPath": "/var", "volumeClaimName": "x", "volumeClaim": {}}],
     "conflict: If you want to use an existing PVC, just specify VolumeClaimName.If you want to create a new PVC, "
     "you do not need to specify VolumeClaimName"),
    ([{"mountPath": "/var", "volumeClaimName": "Bad_Name"}], "invalid VolumeClaimName Bad_Name : [a lowercase RFC"),
])
def test_volumes(job: dict[str, Any], view: StaticView, volumes: list[dict[str, Any]], expected: str) -> None:
    job["spec"]["volumes"] = volumes
    assert validate_job_create(job, view).startswith(expected)


def test_valid_volumes(job: dict[str, Any], view: StaticView) -> None:
    job["spec"]["volumes"] = [{"mountPath": "/a", "volumeClaimName": "pvc-a"},
                              {"mountPath": "/b", "volumeClaim": {"accessModes": ["ReadWriteOnce"]}}]
    assert validate_job_create(job, view) == ""


def test_queue_rules(job: dict[str, Any]) -> None:
    view = StaticView(queues=[_queue("root"), _queue("default"), _queue("closed", "Closed"),
                              _queue("fresh", ""), _queue("parent"), _queue("a", parent="parent"),
                              _queue("b", parent="parent")])
    job["spec"]["queue"] = "missing"
    assert validate_job_create(job, view) == \
        'unable to find job queue: queue.scheduling.volcano.sh "missing" not found;'
    job["spec"]["queue"] = "closed"
    assert validate_job_create(job, view) == \
        "can only submit job to queue with state `Open`, queue `closed` status is `Closed`;"
    job["spec"]["queue"] = "fresh"
    assert validate_job_create(job, view) == \
        "can only submit job to queue with state `Open`, queue `fresh` status is ``;"
    job["spec"]["queue"] = "root"
    assert validate_job_create(job, view) == "can not submit job to root queue;"
    job["spec"]["queue"] = "parent"
    assert validate_job_create(job, view) == "can only submit job to leaf queue, queue `parent` has 2 child queues;"
    job["spec"]["queue"] = "a"
    assert validate_job_create(job, view) == ""


def test_depends_on_must_be_a_dag(job: dict[str, Any], view: StaticView) -> None:
    t1, t2 = _task("t1", dependsOn={"name": ["t2"]}), _task("t2")
    job["spec"].update(minAvailable=2, tasks=[t1, t2])
    assert validate_job_create(job, view) == ""
    t2["dependsOn"] = {"name": ["t1"]}
    assert validate_job_create(job, view) == \
        "job has dependencies between tasks, but doesn't form a directed acyclic graph(DAG);"
    t2.pop("dependsOn")
    t1["dependsOn"] = {"name": ["nowhere"]}
    assert "directed acyclic graph" in validate_job_create(job, view)


# -- update -----------------------------------------------------------------------------------------

def _updated(job: dict[str, Any], change: Any) -> str:
    mutate_job(job)
    new = copy.deepcopy(job)
    change(new)
    return validate_job_update(job, new)


def test_update_scale_allowed(job: dict[str, Any]) -> None:
    def scale(j: dict[str, Any]) -> None:
        j["spec"]["minAvailable"] = 3
        j["spec"]["tasks"][0]["replicas"] = 5
        j["spec"]["tasks"][0]["minAvailable"] = 2
        j["spec"]["priorityClassName"] = "high"
        j["metadata"]["labels"] = {"x": "y"}
        j["status"] = {"state": {"phase": "Running"}}
    assert _updated(job, scale) == ""


@pytest.mark.parametrize(("change", "expected"), [
    (lambda j: j["spec"].update(minAvailable=10), "job 'minAvailable' must not be greater than total replicas"),
    (lambda j: j["spec"].update(minAvailable=-1), "job 'minAvailable' must be >= 0"),
    (lambda j: j["spec"]["tasks"][0].update(replicas=-1), "'replicas' must be >= 0 in task: task-1"),
    (lambda j: j["spec"]["tasks"][0].update(minAvailable=-1), "'minAvailable' must be >= 0 in task: task-1"),
    (lambda j: j["spec"]["tasks"][0].update(minAvailable=4), "'minAvailable' must be <= 'replicas' in task: task-1"),
    (lambda j: j["spec"]["tasks"].append(copy.deepcopy(j["spec"]["tasks"][0]) | {"name": "new-task"}),
     "job updates may not add or remove tasks"),
    (lambda j: j["spec"].update(queue="another-queue"), "job updates may not change fields other than "
     "`minAvailable`, `tasks[*].replicas under spec` and `PriorityClassName`"),
    (lambda j: j["spec"].update(maxRetry=7), "job updates may not change fields other than"),
    (lambda j: j["spec"]["tasks"][0]["template"]["spec"]["containers"][0].update(image="nginx"),
     "job updates may not change fields other than"),
    (lambda j: j["spec"].update(networkTopology={"highestTierAllowed": 1, "highestTierName": "t"}),
     "must not specify 'highestTierAllowed' and 'highestTierName' in networkTopology simultaneously"),
])
def test_update_denials(job: dict[str, Any], change: Any, expected: str) -> None:
    assert _updated(job, change).startswith(expected)


def test_update_may_fill_generated_claim_name(job: dict[str, Any]) -> None:
    job["spec"]["volumes"] = [{"mountPath": "/data", "volumeClaim": {"accessModes": ["ReadWriteOnce"]}}]
    assert _updated(job, lambda j: j["spec"]["volumes"][0].update(volumeClaimName="test-job-pvc-abc")) == ""
    job["spec"]["volumes"] = [{"mountPath": "/data", "volumeClaimName": "fixed"}]
    assert _updated(job, lambda j: j["spec"]["volumes"][0].update(volumeClaimName="other")) != ""


def test_update_treats_go_zero_values_as_absent(job: dict[str, Any]) -> None:
    assert _updated(job, lambda j: j["spec"].update(plugins={}, volumes=[], runningEstimate=None)) == ""
