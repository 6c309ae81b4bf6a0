"""Exact verdicts of Volcano's Job webhooks, rule by rule (upstream ``admit_job.go``, ``util.go``,
``mutate_job.go``): the whole denial message, each rule's boundary, and the order in which several
fragments are concatenated."""

from __future__ import annotations

from typing import Any

import pytest

from volcano.admission.job import mutate_job, validate_job_create, validate_job_update, validate_policies
from volcano.admission.lookup import StaticView

from .conftest import base_job, open_view, queue

BOTH = "must not specify 'highestTierAllowed' and 'highestTierName' in networkTopology simultaneously"
TIERS = {"highestTierAllowed": 1, "highestTierName": "zone"}
LISTS = (" valid events are [* PodFailed PodEvicted PodPending Unknown TaskCompleted TaskFailed JobUpdated],"
         " valid actions are [AbortJob RestartJob RestartTask RestartPod RestartPartition TerminateJob CompleteJob"
         " ResumeJob];")
QUALIFIED = ("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
             "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
             "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")


def _one(text: str) -> str:
    return f"1 error occurred:\n\t* {text}\n\n"


def _partitioned(replicas: int, **policy: Any) -> dict[str, Any]:
    job = base_job()
    job["spec"]["tasks"][0].update(replicas=replicas, partitionPolicy=policy)
    return job


# -- partition policy (validatePartitionPolicy: bare text, topology appended with no separator) ------------

PARTITION_CASES = [
    pytest.param(2, {"totalPartitions": 0, "partitionSize": 2}, None,
                 "'TotalPartitions' must be greater than 0 in task: task-1, job: test-job", id="total-0"),
    pytest.param(2, {"totalPartitions": -1, "partitionSize": 2}, None,
                 "'TotalPartitions' must be greater than 0 in task: task-1, job: test-job", id="total-negative"),
    pytest.param(2, {"totalPartitions": 1, "partitionSize": 0}, None,
                 "'PartitionSize' must be greater than 0 in task: task-1, job: test-job", id="size-0"),
    pytest.param(5, {"totalPartitions": 2, "partitionSize": 2}, None,
                 "'Replicas' are not equal to TotalPartitions*PartitionSize in task: task-1, job: test-job",
                 id="replicas-above"),
    pytest.param(3, {"totalPartitions": 2, "partitionSize": 2}, None,
                 "'Replicas' are not equal to TotalPartitions*PartitionSize in task: task-1, job: test-job",
                 id="replicas-below"),
    pytest.param(4, {"totalPartitions": 2, "partitionSize": 2}, None, "", id="replicas-at-product"),
    pytest.param(4, {"totalPartitions": 2, "partitionSize": 2, "minPartitions": 1}, 3,
                 "'MinAvailable' is not equal to MinPartitions*PartitionSize in task: task-1, job: test-job",
                 id="min-available-off"),
    pytest.param(4, {"totalPartitions": 2, "partitionSize": 2, "minPartitions": 1}, 2, "", id="min-available-at"),
    pytest.param(4, {"totalPartitions": 2, "partitionSize": 2, "minPartitions": 0}, 3, "",
                 id="min-partitions-omitted-skips-check"),
    pytest.param(4, {"totalPartitions": 2, "partitionSize": 2, "networkTopology": TIERS}, None, BOTH,
                 id="topology-only"),
    pytest.param(4, {"totalPartitions": 2, "partitionSize": 2, "networkTopology": {"highestTierAllowed": 1}},
                 None, "", id="topology-allowed-only"),
    pytest.param(4, {"totalPartitions": 2, "partitionSize": 2, "networkTopology": {"highestTierName": "z"}},
                 None, "", id="topology-name-only"),
    pytest.param(2, {"totalPartitions": 0, "partitionSize": 2, "networkTopology": TIERS}, None,
                 "'TotalPartitions' must be greater than 0 in task: task-1, job: test-job" + BOTH,
                 id="arithmetic-and-topology"),
]


@pytest.mark.parametrize(("replicas", "policy", "min_available", "expected"), PARTITION_CASES)
def test_partition_policy_on_create(replicas: int, policy: dict[str, Any], min_available: int | None,
                                    expected: str, view: StaticView) -> None:
    job = _partitioned(replicas, **policy)
    if min_available is not None:
        job["spec"]["tasks"][0]["minAvailable"] = min_available
    job["spec"]["minAvailable"] = 1
    assert validate_job_create(job, view) == expected


@pytest.mark.parametrize(("replicas", "policy", "min_available", "expected"), PARTITION_CASES)
def test_partition_policy_on_update(replicas: int, policy: dict[str, Any], min_available: int | None,
                                    expected: str) -> None:
    """The update path returns the same text, naming the job (upstream passes the new Job)."""
    old = base_job()
    new = _partitioned(replicas, **policy)
    if min_available is not None:
        new["spec"]["tasks"][0]["minAvailable"] = min_available
    got = validate_job_update(old, new)
    if expected:
        assert got == expected
    else:  # admitted by the partition rule: the next rule (immutability of the task) answers
        assert got == ("job updates may not change fields other than `minAvailable`, `tasks[*].replicas under spec` "
                       "and `PriorityClassName`")


def test_partition_error_is_followed_by_the_next_fragment(view: StaticView) -> None:
    job = _partitioned(3, totalPartitions=2, partitionSize=2)
    job["spec"]["minAvailable"] = 5
    assert validate_job_create(job, view) == (
        "'Replicas' are not equal to TotalPartitions*PartitionSize in task: task-1, job: test-job"
        " job 'minAvailable' should not be greater than total replicas in tasks;")


# -- job-level networkTopology: written bare, first ---------------------------------------------------------

def test_job_network_topology_alone_and_with_other_fragments(view: StaticView) -> None:
    job = base_job()
    job["spec"]["networkTopology"] = dict(TIERS)
    assert validate_job_create(job, view) == BOTH
    job["spec"]["minAvailable"] = 2
    assert validate_job_create(job, view) == (
        BOTH + " job 'minAvailable' should not be greater than total replicas in tasks;")
    job["spec"]["networkTopology"] = {"highestTierAllowed": 0}
    assert validate_job_create(job, view) == (
        "job 'minAvailable' should not be greater than total replicas in tasks;")


def test_update_network_topology() -> None:
    old, new = base_job(), base_job()
    new["spec"]["networkTopology"] = dict(TIERS)
    assert validate_job_update(old, new) == BOTH
    new["spec"]["networkTopology"] = {"highestTierAllowed": 1, "highestTierName": ""}
    assert validate_job_update(old, new).startswith("job updates may not change fields other than")


# -- per-task fragments and their order ---------------------------------------------------------------------

def test_every_task_fragment_in_order(view: StaticView) -> None:
    job = base_job()
    job["metadata"]["name"] = "j"
    task = job["spec"]["tasks"][0]
    task.update(name="t", replicas=1, minAvailable=2, policies=[{"event": "Bogus", "action": "AbortJob"}],
                topologyPolicy="single-numa-node")
    task["template"]["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "500m"}}
    assert validate_job_create(job, view) == (
        "'minAvailable' is greater than 'replicas' in task: t, job: j;"
        + _one('spec.tasks.policies: Invalid value: "Bogus": invalid policy event') + LISTS
        + "the cpu request isn't an integer in spec.task[0] container[0].")


def test_duplicate_task_name_stops_the_loop(view: StaticView) -> None:
    job = base_job()
    second = dict(job["spec"]["tasks"][0])
    third = dict(second, name="other", minAvailable=9)
    job["spec"]["tasks"] += [second, third]
    # The third task's fragment would follow, but the loop stopped at the duplicate.
    assert validate_job_create(job, view) == "duplicated task name task-1;"


def test_duplicate_task_name_still_counts_its_replicas(view: StaticView) -> None:
    job = base_job()
    job["spec"]["tasks"].append(dict(job["spec"]["tasks"][0]))
    job["spec"]["minAvailable"] = 2  # 1 + 1 replicas counted before the break: not greater
    assert validate_job_create(job, view) == "duplicated task name task-1;"
    job["spec"]["minAvailable"] = 3
    assert validate_job_create(job, view) == (
        "duplicated task name task-1; job 'minAvailable' should not be greater than total replicas in tasks;")


@pytest.mark.parametrize(("task_min", "expected"), [
    (1, ""), (0, ""), (2, "'minAvailable' is greater than 'replicas' in task: task-1, job: test-job;")])
def test_task_min_available_boundary(task_min: int, expected: str, view: StaticView) -> None:
    job = base_job()
    job["spec"]["tasks"][0]["minAvailable"] = task_min
    assert validate_job_create(job, view) == expected


@pytest.mark.parametrize(("job_min", "expected"), [
    (1, ""), (0, ""), (2, "job 'minAvailable' should not be greater than total replicas in tasks;")])
def test_job_min_available_boundary(job_min: int, expected: str, view: StaticView) -> None:
    job = base_job()
    job["spec"]["minAvailable"] = job_min
    assert validate_job_create(job, view) == expected


def test_pod_and_job_name_qualified(view: StaticView) -> None:
    job = base_job()
    ok = "j" * (63 - len("-task-1-0"))
    job["metadata"]["name"] = ok
    assert validate_job_create(job, view) == ""
    long = ok + "x"
    job["metadata"]["name"] = long
    assert validate_job_create(job, view) == (
        f"create pod with name {long}-task-1-0 validate failed [name part must be no more than 63 characters];")
    job["metadata"]["name"] = "-bad"
    assert validate_job_create(job, view) == (
        f"create pod with name -bad-task-1-0 validate failed [{QUALIFIED}];"
        f"create job with name -bad validate failed [{QUALIFIED}]")


@pytest.mark.parametrize(("cpu", "where", "expected"), [
    ("2", "requests", ""), ("2", "limits", ""), ("1500m", "requests", "container[0]"),
    ("0", "requests", "container[0]"), (None, "requests", "container[0]")])
def test_topology_policy_cpu(cpu: str | None, where: str, expected: str, view: StaticView) -> None:
    job = base_job()
    task = job["spec"]["tasks"][0]
    task["topologyPolicy"] = "restricted"
    if cpu is not None:
        task["template"]["spec"]["containers"][0]["resources"] = {where: {"cpu": cpu}}
    got = validate_job_create(job, view)
    assert got == (f"the cpu request isn't an integer in spec.task[0] {expected}." if expected else "")


def test_topology_policy_checks_init_containers_after_containers(view: StaticView) -> None:
    job = base_job()
    task = job["spec"]["tasks"][0]
    task["topologyPolicy"] = "best-effort"
    spec = task["template"]["spec"]
    spec["containers"][0]["resources"] = {"requests": {"cpu": "1"}}
    spec["initContainers"] = [{"name": "init", "image": "busybox", "resources": {"requests": {"cpu": "100m"}}}]
    assert validate_job_create(job, view) == "the cpu request isn't an integer in spec.task[0] container[1]."
    task["topologyPolicy"] = "none"
    assert validate_job_create(job, view) == ""


# -- policies (go-multierror) ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("policies", "expected"), [
    ([{"event": "PodFailed", "exitCode": 1}], _one("must not specify event and exitCode simultaneously")),
    ([{"events": ["PodFailed"], "exitCode": 1}], _one("must not specify event and exitCode simultaneously")),
    ([{"action": "AbortJob"}], _one("either event and exitCode should be specified")),
    ([{"event": "PodFailed", "action": "Sync"}], _one('p: Invalid value: "Sync": invalid policy action')),
    ([{"event": "PodRunning", "action": "AbortJob"}], _one('p: Invalid value: "PodRunning": invalid policy event')),
    ([{"event": "PodFailed", "action": "AbortJob"}, {"events": ["PodFailed"], "action": "RestartJob"}],
     _one("duplicate event PodFailed  across different policy")),
    ([{"exitCode": 0}], _one("0 is not a valid error code")),
    ([{"exitCode": 3}, {"exitCode": 3}], _one("duplicate exitCode 3")),
    ([{"exitCode": 3}, {"exitCode": -3}], ""),
    ([{"event": "*", "action": "AbortJob"}], ""),
    ([{"event": "*", "action": "AbortJob"}, {"event": "PodFailed", "action": "AbortJob"}],
     _one("if there's * here, no other policy should be here")),
    ([{"events": ["PodFailed", "PodFailed"], "event": "PodFailed", "action": "AbortJob"}], ""),
    ([{"event": "*", "action": "AbortJob"}, {"event": "PodFailed", "action": "AbortJob"}, {"exitCode": 0}],
     "2 errors occurred:\n\t* 0 is not a valid error code\n\t* if there's * here, no other policy should be here\n\n"),
    ([{"event": "*", "action": "AbortJob"}, {"exitCode": 0}, {"event": "PodFailed", "action": "AbortJob"}],
     _one("0 is not a valid error code")),
])
def test_policy_messages(policies: list[dict[str, Any]], expected: str) -> None:
    assert validate_policies(policies, "p") == expected


def test_job_and_task_policies_use_their_own_paths(view: StaticView) -> None:
    job = base_job()
    job["spec"]["policies"] = [{"event": "Nope", "action": "AbortJob"}]
    job["spec"]["tasks"][0]["policies"] = [{"event": "PodFailed", "action": "Nope"}]
    assert validate_job_create(job, view) == (
        _one('spec.tasks.policies: Invalid value: "Nope": invalid policy action') + LISTS
        + _one('spec.policies: Invalid value: "Nope": invalid policy event') + LISTS).strip()


# -- plugins, volumes, queue, DAG -----------------------------------------------------------------------------

def test_unknown_plugins_each_named(view: StaticView) -> None:
    job = base_job()
    job["spec"]["plugins"] = {"svc": [], "zeta": [], "alpha": []}
    assert validate_job_create(job, view) == "unable to find job plugin: alpha; unable to find job plugin: zeta;"


@pytest.mark.parametrize(("volumes", "expected"), [
    ([{"mountPath": "", "volumeClaimName": "a"}], "mountPath is required;"),
    ([{"mountPath": "/a", "volumeClaimName": "a"}, {"mountPath": "/a", "volumeClaimName": "b"}],
     "duplicated mountPath: /a;"),
    ([{"mountPath": "/a"}], "either VolumeClaim or VolumeClaimName must be specified;"),
    ([{"mountPath": "/a", "volumeClaimName": "a", "volumeClaim": {}}],
     "conflict: If you want to use an existing PVC, just specify VolumeClaimName.If you want to create a new PVC, "
     "you do not need to specify VolumeClaimName"),
    ([{"mountPath": "/a", "volumeClaimName": "Bad_Name"}],
     "invalid VolumeClaimName Bad_Name : [a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
     "characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex "
     "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')]"),
    ([{"mountPath": "/a", "volumeClaimName": "a"}, {"mountPath": "/b", "volumeClaim": {}}], ""),
    # only the first failure is reported
    ([{"mountPath": "/a"}, {"mountPath": ""}], "either VolumeClaim or VolumeClaimName must be specified;"),
])
def test_volume_rules(volumes: list[dict[str, Any]], expected: str, view: StaticView) -> None:
    job = base_job()
    job["spec"]["volumes"] = volumes
    assert validate_job_create(job, view) == expected


@pytest.mark.parametrize(("name", "queues", "expected"), [
    ("ghost", [], 'unable to find job queue: queue.scheduling.volcano.sh "ghost" not found;'),
    ("q", [queue("q", "Closed")], "can only submit job to queue with state `Open`, queue `q` status is `Closed`;"),
    ("q", [queue("q", None)], "can only submit job to queue with state `Open`, queue `q` status is ``;"),
    ("q", [queue("q"), queue("c1", parent="q"), queue("c2", parent="q")],
     "can only submit job to leaf queue, queue `q` has 2 child queues;"),
    ("q", [queue("q", "Closed"), queue("c1", parent="q")],
     "can only submit job to queue with state `Open`, queue `q` status is `Closed`; "
     "can only submit job to leaf queue, queue `q` has 1 child queues;"),
    ("root", [], "can not submit job to root queue;"),
    ("q", [queue("q"), queue("other", parent="p")], ""),
])
def test_queue_rules(name: str, queues: list[dict[str, Any]], expected: str) -> None:
    job = base_job()
    job["spec"]["queue"] = name
    assert validate_job_create(job, open_view(*queues)) == expected


def test_root_queue_closed_gets_both_fragments() -> None:
    job = base_job()
    job["spec"]["queue"] = "root"
    view = StaticView(queues=[queue("root", "Closed"), queue("default")])
    assert validate_job_create(job, view) == (
        "can only submit job to queue with state `Open`, queue `root` status is `Closed`; "
        "can not submit job to root queue;")


def _dag_job(*edges: tuple[str, list[str] | None]) -> dict[str, Any]:
    job = base_job()
    template = job["spec"]["tasks"][0]["template"]
    job["spec"]["tasks"] = []
    for name, deps in edges:
        task: dict[str, Any] = {"name": name, "replicas": 1, "template": template}
        if deps is not None:
            task["dependsOn"] = {"name": deps}
        job["spec"]["tasks"].append(task)
    return job


@pytest.mark.parametrize(("edges", "dag"), [
    ([("a", None), ("b", ["a"]), ("c", ["a", "b"])], True),
    ([("a", ["c"]), ("b", ["a"]), ("c", ["b"])], False),
    ([("a", ["a"])], False),
    ([("a", None), ("b", ["c"]), ("c", ["b"])], False),
    ([("a", []), ("b", None)], True),
])
def test_dependencies_must_form_a_dag(edges: list[tuple[str, list[str] | None]], dag: bool,
                                      view: StaticView) -> None:
    job = _dag_job(*edges)
    job["spec"]["minAvailable"] = 1
    assert validate_job_create(job, view) == (
        "" if dag else "job has dependencies between tasks, but doesn't form a directed acyclic graph(DAG);")


def test_early_returns(view: StaticView) -> None:
    job = base_job()
    job["spec"]["tasks"] = []
    job["spec"]["minAvailable"] = 5
    assert validate_job_create(job, view) == "No task specified in job spec"
    job = base_job()
    job["spec"]["plugins"] = {"mpi": ["--master=boss"], "nope": []}
    job["spec"]["minAvailable"] = 5
    assert validate_job_create(job, view) == "The specified mpi master task was not found"
    job["spec"]["tasks"][0]["name"] = "boss"
    assert validate_job_create(job, view) == (
        "job 'minAvailable' should not be greater than total replicas in tasks; unable to find job plugin: nope;")
    job["spec"]["plugins"] = {"mpi": ["--master", "task-1"]}
    job["spec"]["tasks"][0]["name"] = "task-1"
    job["spec"]["minAvailable"] = 1
    assert validate_job_create(job, view) == ""


# -- update ----------------------------------------------------------------------------------------------------

def _two_tasks() -> dict[str, Any]:
    job = base_job()
    job["spec"]["tasks"].append(dict(job["spec"]["tasks"][0], name="task-2", replicas=2))
    return job


@pytest.mark.parametrize(("change", "expected"), [
    ({"task": {"replicas": -1}}, "'replicas' must be >= 0 in task: task-1"),
    ({"task": {"minAvailable": -1}}, "'minAvailable' must be >= 0 in task: task-1"),
    ({"task": {"minAvailable": 2}}, "'minAvailable' must be <= 'replicas' in task: task-1"),
    ({"task": {"minAvailable": 1}}, ""),
    ({"task": {"replicas": 0, "minAvailable": 0}, "minAvailable": 2}, ""),
    ({"minAvailable": 3}, ""),
    ({"minAvailable": 4}, "job 'minAvailable' must not be greater than total replicas"),
    ({"minAvailable": -1}, "job 'minAvailable' must be >= 0"),
    ({"priorityClassName": "high"}, ""),
    ({"queue": "other"}, "job updates may not change fields other than `minAvailable`, `tasks[*].replicas under "
                         "spec` and `PriorityClassName`"),
])
def test_update_rules(change: dict[str, Any], expected: str) -> None:
    old, new = _two_tasks(), _two_tasks()
    for key, value in change.items():
        if key == "task":
            new["spec"]["tasks"][0].update(value)
        else:
            new["spec"][key] = value
    assert validate_job_update(old, new) == expected


def test_update_may_not_add_or_remove_tasks() -> None:
    old, new = _two_tasks(), _two_tasks()
    new["spec"]["tasks"].pop()
    new["spec"]["minAvailable"] = 1
    assert validate_job_update(old, new) == "job updates may not add or remove tasks"


def test_update_may_fill_a_generated_claim_name_only() -> None:
    old, new = base_job(), base_job()
    old["spec"]["volumes"] = [{"mountPath": "/a", "volumeClaim": {"accessModes": ["ReadWriteOnce"]}}]
    new["spec"]["volumes"] = [{"mountPath": "/a", "volumeClaim": {"accessModes": ["ReadWriteOnce"]},
                               "volumeClaimName": "test-job-pvc-abc"}]
    assert validate_job_update(old, new) == ""
    new["spec"]["volumes"][0]["mountPath"] = "/b"
    assert validate_job_update(old, new).startswith("job updates may not change fields")
    old["spec"]["volumes"] = [{"mountPath": "/a", "volumeClaimName": "x"}]
    new["spec"]["volumes"] = [{"mountPath": "/a", "volumeClaimName": "y"}]
    assert validate_job_update(old, new).startswith("job updates may not change fields")


# -- mutate ----------------------------------------------------------------------------------------------------

def test_mutate_defaults_exactly() -> None:
    job: dict[str, Any] = {"metadata": {"name": "j"}, "spec": {
        "tasks": [{"replicas": 3, "template": {"spec": {"hostNetwork": True}}},
                  {"name": "b", "replicas": 4, "minAvailable": 1, "maxRetry": 7,
                   "template": {"spec": {"hostNetwork": True, "dnsPolicy": "Default"}}},
                  {"name": "c", "replicas": 6, "partitionPolicy": {"minPartitions": 2, "partitionSize": 2}},
                  {"name": "d", "replicas": 6, "partitionPolicy": {"minPartitions": 0, "partitionSize": 2}}],
        "plugins": {"pytorch": []}}}
    mutate_job(job, scheduler_name="sched")
    spec = job["spec"]
    assert (spec["queue"], spec["schedulerName"], spec["maxRetry"], spec["minAvailable"]) == ("default", "sched", 3,
                                                                                               3 + 1 + 4 + 6)
    assert [(t["name"], t["minAvailable"], t["maxRetry"]) for t in spec["tasks"]] == [
        ("default0", 3, 3), ("b", 1, 7), ("c", 4, 3), ("d", 6, 3)]
    assert spec["tasks"][0]["template"]["spec"]["dnsPolicy"] == "ClusterFirstWithHostNet"
    assert spec["tasks"][1]["template"]["spec"]["dnsPolicy"] == "Default"
    assert spec["plugins"] == {"pytorch": [], "svc": []}


def test_mutate_keeps_what_is_set() -> None:
    job: dict[str, Any] = {"spec": {"queue": "q", "schedulerName": "s", "maxRetry": -1, "minAvailable": 1,
                                    "tasks": [{"name": "t", "replicas": 2, "minAvailable": 0}],
                                    "plugins": {"mpi": [], "svc": ["--x"]}}}
    mutate_job(job)
    spec = job["spec"]
    assert (spec["queue"], spec["schedulerName"], spec["maxRetry"], spec["minAvailable"]) == ("q", "s", -1, 1)
    assert spec["tasks"] == [{"name": "t", "replicas": 2, "minAvailable": 0, "maxRetry": 3}]
    assert spec["plugins"] == {"mpi": [], "svc": ["--x"], "ssh": []}


def test_mutate_sums_task_minimums_when_job_minimum_is_zero() -> None:
    job: dict[str, Any] = {"spec": {"minAvailable": 0, "tasks": [{"name": "a", "replicas": 5, "minAvailable": 2},
                                                                  {"name": "b", "replicas": 2, "minAvailable": 2}]}}
    mutate_job(job)
    assert job["spec"]["minAvailable"] == 4
    job = {"spec": {"tasks": [{"name": "a"}], "plugins": {"env": []}}}
    mutate_job(job)
    assert job["spec"]["tasks"][0]["minAvailable"] == 0 and job["spec"]["minAvailable"] == 0
    assert job["spec"]["plugins"] == {"env": []}


IMMUTABLE = ("job updates may not change fields other than `minAvailable`, `tasks[*].replicas under spec` and "
             "`PriorityClassName`")


@pytest.mark.parametrize(("before", "after", "expected"), [
    ({}, {"ttlSecondsAfterFinished": 0}, IMMUTABLE),          # nil and &0 differ
    ({"ttlSecondsAfterFinished": 0}, {"ttlSecondsAfterFinished": 0}, ""),
    ({"ttlSecondsAfterFinished": 0}, {}, IMMUTABLE),
    ({}, {"ttlSecondsAfterFinished": None}, ""),
    ({}, {"networkTopology": {}}, IMMUTABLE),
    ({"networkTopology": {"mode": "hard"}}, {"networkTopology": {"mode": "hard", "highestTierAllowed": 0}},
     IMMUTABLE),
    ({}, {"maxRetry": 0}, ""),                                 # a plain int: 0 is absent
    ({}, {"plugins": {}}, ""),                                 # an empty map is a nil map
    ({}, {"policies": []}, ""),
    ({"policies": [{"event": "PodFailed", "action": "AbortJob"}]},
     {"policies": [{"event": "PodFailed", "action": "AbortJob", "timeout": "0s"}]}, IMMUTABLE),
])
def test_update_compares_pointers_as_go_does(before: dict[str, Any], after: dict[str, Any], expected: str) -> None:
    old, new = base_job(), base_job()
    old["spec"].pop("policies")
    new["spec"].pop("policies")
    old["spec"].update(before)
    new["spec"].update(after)
    assert validate_job_update(old, new) == expected


@pytest.mark.parametrize(("key", "value"), [
    ("dependsOn", {}), ("partitionPolicy", {"totalPartitions": 1, "partitionSize": 1})])
def test_update_setting_a_task_pointer_is_a_change(key: str, value: dict[str, Any]) -> None:
    old, new = base_job(), base_job()
    new["spec"]["tasks"][0][key] = value
    assert validate_job_update(old, new) == IMMUTABLE


def test_update_of_a_task_without_replicas() -> None:
    old, new = base_job(), base_job()
    for job in (old, new):
        job["spec"]["tasks"].append({"name": "idle", "template": job["spec"]["tasks"][0]["template"]})
    new["spec"]["minAvailable"] = 0
    new["spec"]["tasks"][1]["minAvailable"] = 0
    assert validate_job_update(old, new) == ""
