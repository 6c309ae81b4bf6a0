"""Job conformance: upstream ``jobseq`` lifecycle-policy, queue-command and queue-status cases
(job_error_handling.go, queue.go, queue_job_status.go).

The jobs are upstream's: two tasks of two nginx pods each ("success" plus "fail" or "delete"),
"fail" pods ending after 10 s with exit code 127 (``xxx`` is not a command) and restartPolicy
Never; "delete one pod" deletes ``<job>-delete-0``. Phase sequences are observed at every change
of cluster time, in order, as upstream's watch-based ``WaitJobPhases`` does.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import (
    Task,
    job,
    plain,
    pod,
    pod_group,
    priority_class,
    queue,
    queue_command,
)
from volcano.conformance.lib.sizing import cluster_node_number, cluster_size
from volcano.conformance.lib.waits import (
    count_phase,
    job_conditions,
    pg_name,
    wait_job_phases,
    wait_pg_phase,
    wait_tasks_ready,
)

__all__ = ["wait_job_phases"]

Obj = dict[str, Any]
SUITE = "jobseq"
NO_REQUESTS: dict[str, str] = {}  # upstream's TaskSpec without Req
UNSCHEDULABLE_TAINT = {"key": "unschedulable-taint-key", "value": "unschedulable-taint-val", "effect": "NoSchedule"}


# -- helpers -----------------------------------------------------------------------------------------

def _policy(action: str, event: str | None = None, **extra: Any) -> Obj:
    out: Obj = {"action": action}
    if event is not None:
        out["event"] = event
    out.update(extra)
    return out


def _success(rep: int = 2, policies: list[Obj] | None = None) -> Task:
    return Task(name="success", rep=rep, min=rep, req=NO_REQUESTS, policies=policies)


def _fail(rep: int = 2, policies: list[Obj] | None = None, exit_code: int = 127, duration: str = "10s") -> Task:
    return Task(name="fail", rep=rep, min=rep, req=NO_REQUESTS, duration=duration, exit_code=exit_code,
                restart_policy="Never", policies=policies)


def _delete(policies: list[Obj] | None = None) -> Task:
    return Task(name="delete", rep=2, min=2, req=NO_REQUESTS, policies=policies)


def _delete_one_pod(cluster: Cluster, name: str) -> None:
    cluster.delete("Pod", f"{name}-delete-0")


def _wait_job_ready(cluster: Cluster, name: str, timeout: float = 300) -> None:
    need = int(cluster.get("Job", name)["spec"].get("minAvailable") or 0)
    wait_tasks_ready(cluster, name, need, timeout)


def _set_taint_on_all_nodes(cluster: Cluster, taint: Obj, present: bool) -> None:
    """Upstream ``TaintAllNodes`` / ``RemoveTaintsFromAllNodes``: every node, control plane included."""
    for node in cluster.list("Node"):
        taints = [t for t in plain(node.get("spec", {}).get("taints") or []) if t.get("key") != taint["key"]]
        if present:
            taints.append(dict(taint))
        cluster.patch("Node", node["metadata"]["name"], {"spec": {"taints": taints}})


def _completing_tasks(policies: list[Obj] | None = None) -> list[Task]:
    return [Task(name="completed-task", rep=2, min=2, req=NO_REQUESTS, duration="5s", policies=policies),
            Task(name="terminating-task", rep=2, min=2, req=NO_REQUESTS)]


def _case(case_id: str, upstream: str, *values: Any) -> Any:
    return pytest.param(*values, marks=pytest.mark.upstream(SUITE, upstream), id=case_id)


# -- job and task level policies ---------------------------------------------------------------------

@pytest.mark.job_lifecycle
@pytest.mark.parametrize(("name", "tasks", "policies", "phases", "never"), [
    _case("job-podfailed-restartjob", "job level LifecyclePolicy, Event: PodFailed; Action: RestartJob",
          "failed-restart-job", [_success(), _fail()], [_policy("RestartJob", "PodFailed")],
          ["Pending", "Running", "Restarting"], ()),
    _case("job-podfailed-terminatejob", "job level LifecyclePolicy, Event: PodFailed; Action: TerminateJob",
          "failed-terminate-job", [_success(), _fail()], [_policy("TerminateJob", "PodFailed")],
          ["Pending", "Running", "Terminating", "Terminated"], ()),
    _case("job-podfailed-abortjob", "job level LifecyclePolicy, Event: PodFailed; Action: AbortJob",
          "failed-abort-job", [_success(), _fail()], [_policy("AbortJob", "PodFailed")],
          ["Pending", "Running", "Aborting", "Aborted"], ()),
    _case("job-podfailed-restartpod-podevicted-terminate-timeout",
          "job level LifecyclePolicy, Event: PodFailed, Action: RestartPod; Event PodEvicted, Action: TerminateJob, "
          "Timeout: 5m",
          # The failing pod runs a simulated minute: the Running between two restarts then lasts long
          # enough for a loaded HTTP run's readings (the Job's conditions keep one entry per phase).
          "failed-restart-job", [_success(), _fail(rep=1, duration="60s")],
          [_policy("RestartPod", "PodFailed"), _policy("TerminateJob", "PodEvicted", timeout="5m")],
          ["Pending", "Running", "Restarting", "Running"], ("Terminating", "Terminated")),
    _case("job-exitcode-restartjob", "job level LifecyclePolicy, error code: 3; Action: RestartJob",
          "errorcode-restart-job", [_success(rep=1), _fail(rep=1, exit_code=3)], [_policy("RestartJob", exitCode=3)],
          ["Pending", "Running", "Restarting"], ()),
    _case("task-podfailed-restartjob", "Task level LifecyclePolicy, Event: PodFailed; Action: RestartJob",
          "failed-restart-job", [_success(), _fail(policies=[_policy("RestartJob", "PodFailed")])], None,
          ["Pending", "Running", "Restarting"], ()),
    _case("task-policy-overrides-job-policy",
          "job level LifecyclePolicy, Event: PodFailed; Action: AbortJob and Task level lifecyclePolicy, "
          "Event : PodFailed; Action: RestartJob",
          "failed-restart-job", [_success(), _fail(policies=[_policy("RestartJob", "PodFailed")])],
          [_policy("AbortJob", "PodFailed")], ["Pending", "Running", "Restarting"], ("Aborting", "Aborted")),
])
def test_policy_takes_the_job_through(cluster: Cluster, name: str, tasks: list[Task], policies: list[Obj] | None,
                                      phases: list[str], never: tuple[str, ...]) -> None:
    """A job (or task) lifecycle policy takes the job through ``phases`` in order, and through none
    of ``never`` on the way (restarting a pod or a task's own policy must not escalate)."""
    cluster.apply(job(name, tasks, policies=policies))
    seen = wait_job_phases(cluster, name, phases)
    assert not set(never) & set(seen), seen


@pytest.mark.job_lifecycle
@pytest.mark.parametrize(("name", "tasks", "policies", "phases"), [
    _case("job-podevicted-restartjob", "job level LifecyclePolicy, Event: PodEvicted; Action: RestartJob",
          "evicted-restart-job", [_success(), _delete()], [_policy("RestartJob", "PodEvicted")],
          ["Restarting", "Pending", "Running"]),
    _case("job-podevicted-terminatejob", "job level LifecyclePolicy, Event: PodEvicted; Action: TerminateJob",
          "evicted-terminate-job", [_success(), _delete()], [_policy("TerminateJob", "PodEvicted")],
          ["Terminating", "Terminated"]),
    _case("job-podevicted-abortjob", "job level LifecyclePolicy, Event: PodEvicted; Action: AbortJob",
          "evicted-abort-job", [_success(), _delete()], [_policy("AbortJob", "PodEvicted")], ["Aborting", "Aborted"]),
    _case("job-any-restartjob", "job level LifecyclePolicy, Event: Any; Action: RestartJob",
          "any-restart-job", [_success(), _delete()], [_policy("RestartJob", "*")],
          ["Restarting", "Pending", "Running"]),
    _case("job-events-list-terminatejob", "job level LifecyclePolicy, Event[]: PodEvicted, PodFailed; "
          "Action: TerminateJob",
          "evicted-terminate-job", [_success(), _delete()],
          [_policy("TerminateJob", events=["PodEvicted", "PodFailed", "PodEvicted"])], ["Terminating", "Terminated"]),
    _case("task-podevicted-restartjob", "Task level LifecyclePolicy, Event: PodEvicted; Action: RestartJob",
          "evicted-restart-job", [_success(), _delete(policies=[_policy("RestartJob", "PodEvicted")])], None,
          ["Restarting", "Pending", "Running"]),
    _case("task-podevicted-terminatejob", "Task level LifecyclePolicy, Event: PodEvicted; Action: TerminateJob",
          "evicted-terminate-job", [_success(), _delete(policies=[_policy("TerminateJob", "PodEvicted")])], None,
          ["Terminating", "Terminated"]),
])
def test_policy_on_a_deleted_pod(cluster: Cluster, name: str, tasks: list[Task], policies: list[Obj] | None,
                                 phases: list[str]) -> None:
    """Once the job runs, deleting one of its pods (PodEvicted) makes the policy take it through ``phases``."""
    cluster.apply(job(name, tasks, policies=policies))
    wait_job_phases(cluster, name, ["Pending", "Running"])
    before = job_conditions(cluster, name)
    _delete_one_pod(cluster, name)
    wait_job_phases(cluster, name, phases, since=before)


@pytest.mark.job_lifecycle
@pytest.mark.parametrize(("task_policies", "job_policies"), [
    _case("job-level", "job level LifecyclePolicy, Event: TaskCompleted; Action: CompletedJob",
          None, [_policy("CompleteJob", "TaskCompleted")]),
    _case("task-level", "Task level LifecyclePolicy, Event: TaskCompleted; Action: CompletedJob",
          [_policy("CompleteJob", "TaskCompleted")], None),
])
def test_taskcompleted_completejob(cluster: Cluster, task_policies: list[Obj] | None,
                                   job_policies: list[Obj] | None) -> None:
    """TaskCompleted -> CompleteJob (on the job or on the completing task) completes the job, which
    stops the nginx task that never ends by itself."""
    name = "any-complete-job"
    cluster.apply(job(name, _completing_tasks(policies=task_policies), policies=job_policies))
    wait_job_phases(cluster, name, ["Pending", "Completed"])
    cluster.wait_until(lambda: count_phase(cluster.job_pods(name), ("Running", "Pending")) == 0, 300,
                       f"no pod of {name} left running")


@pytest.mark.job_lifecycle
@pytest.mark.parametrize(("name", "action", "phases", "after_untaint"), [
    _case("restart", "Job error handling: Restart job when job is unschedulable",
          "job-restart-when-unschedulable", "RestartJob", ["Restarting", "Pending"], ["Running"]),
    _case("abort", "Job error handling: Abort job when job is unschedulable",
          "job-abort-when-unschedulable", "AbortJob", ["Aborting", "Aborted"], []),
])
def test_policy_when_unschedulable(cluster: Cluster, name: str, action: str, phases: list[str],
                                   after_untaint: list[str]) -> None:
    """A running job filling the cluster, with policy Unknown -> ``action``: once every node is tainted
    and one of its pods deleted, the job goes through ``phases``; untainted, through ``after_untaint``."""
    rep = cluster_size(cluster, {"cpu": "1"})
    cluster.apply(job(name, [Task(name="test", rep=rep, min=rep, req={"cpu": "1"})],
                      policies=[_policy(action, "Unknown")]))
    _wait_job_ready(cluster, name)
    _set_taint_on_all_nodes(cluster, UNSCHEDULABLE_TAINT, present=True)
    before = job_conditions(cluster, name)
    cluster.delete("Pod", f"{name}-test-0")
    wait_job_phases(cluster, name, phases, since=before)
    before = job_conditions(cluster, name)
    _set_taint_on_all_nodes(cluster, UNSCHEDULABLE_TAINT, present=False)
    if after_untaint:
        wait_job_phases(cluster, name, after_untaint, since=before)


@pytest.mark.job_lifecycle
@pytest.mark.upstream(SUITE, "job level LifecyclePolicy, Event: TaskFailed; Action: TerminateJob")
def test_job_taskfailed_terminatejob(cluster: Cluster) -> None:
    name = "task-failed-terminate-job"
    cluster.apply(job(name, [
        Task(name="success", rep=2, min=2, req=NO_REQUESTS, duration="5s"),
        # Long enough that the restart-count patch below, not the container's own exit, fails the task:
        # over HTTP at --serve-speed 50 a 10 s run was 0.2 s of wall time, a race the patch could lose.
        Task(name="failed", rep=2, min=2, req=NO_REQUESTS, duration="600s", exit_code=127, restart_policy="Never",
             max_retry=3),
    ], policies=[_policy("TerminateJob", "TaskFailed")]))
    wait_job_phases(cluster, name, ["Pending", "Running"])
    before = job_conditions(cluster, name)
    cluster.patch("Pod", f"{name}-failed-0", {"status": {"containerStatuses": [{"restartCount": 4}]}},
                  subresource="status")
    wait_job_phases(cluster, name, ["Terminating", "Terminated"], since=before)


# -- task priority -----------------------------------------------------------------------------------

@pytest.mark.job_lifecycle
@pytest.mark.upstream(SUITE, "Task Priority")
def test_task_priority(cluster: Cluster) -> None:
    cluster.apply([priority_class("master-pri", 100), priority_class("worker-pri", -50)])
    rep = cluster_size(cluster, {"cpu": "1"})
    nodes = cluster_node_number(cluster)
    req = {"cpu": str(rep // nodes - 1)}
    name = "task-priority-job"
    # As upstream wrote it: both tasks carry master-pri.
    cluster.apply(job(name, [Task(name="higherprioritytask", rep=nodes, req=req, priority_class="master-pri"),
                             Task(name="lowerprioritytask", rep=nodes, req=req, priority_class="master-pri")],
                      min=nodes))
    wait_job_phases(cluster, name, ["Pending", "Running"])

    def ready_by_class(cls: str) -> int:
        return count_phase([p for p in cluster.job_pods(name) if p["spec"].get("priorityClassName") == cls],
                           ("Running", "Succeeded"))

    def exact() -> bool:
        return ready_by_class("master-pri") == nodes and ready_by_class("worker-pri") == 0

    cluster.wait_until(exact, 300, f"exactly {nodes} master-pri pods ready and no worker-pri pod")
    cluster.hold(exact, 30, f"exactly {nodes} master-pri pods ready and no worker-pri pod")


# -- queue.go ----------------------------------------------------------------------------------------

def _queue_state(cluster: Cluster, name: str) -> str | None:
    q = cluster.try_get("Queue", name)
    return None if q is None else q.get("status", {}).get("state")


def _wait_queue_state(cluster: Cluster, name: str, state: str, timeout: float = 600) -> None:
    cluster.wait_until(lambda: _queue_state(cluster, name) == state, timeout, f"queue {name} state {state}")


def _create_queues(cluster: Cluster, parents: dict[str, str | None]) -> None:
    """Upstream ``CreateQueues``: weight 1 and the given parent; then wait until each is Open."""
    for name, parent in parents.items():
        cluster.apply(queue(name, parent=parent))
    for name in parents:
        _wait_queue_state(cluster, name, "Open")


def _queue_command(cluster: Cluster, name: str, action: str) -> None:
    """Upstream ``CreateQueueCommand``: a bus Command in namespace ``default`` targeting the queue."""
    cluster.apply(queue_command(cluster.get("Queue", name), action))


@pytest.mark.queue
@pytest.mark.upstream(SUITE, "Queue Command Close And Open With State Check")
def test_queue_command_close_and_open(cluster: Cluster) -> None:
    name = "queue-command-close"
    _create_queues(cluster, {name: None})
    _queue_command(cluster, name, "CloseQueue")
    _wait_queue_state(cluster, name, "Closed")
    _queue_command(cluster, name, "OpenQueue")
    _wait_queue_state(cluster, name, "Open")


@pytest.mark.queue
@pytest.mark.upstream(SUITE, "Queue Command Close And Open With Hierarchical Queues")
def test_queue_command_hierarchical(cluster: Cluster) -> None:
    _create_queues(cluster, {"queue1": "root", "queue2": "root"})
    _create_queues(cluster, {"queue11": "queue1"})
    _queue_command(cluster, "queue1", "CloseQueue")
    _wait_queue_state(cluster, "queue11", "Closed")
    _queue_command(cluster, "queue11", "OpenQueue")
    # Upstream checks once that queue11 is still Closed; a child cannot open under a closed parent.
    cluster.hold(lambda: _queue_state(cluster, "queue11") == "Closed", 30, "queue11 stays Closed")
    _queue_command(cluster, "queue1", "OpenQueue")
    _wait_queue_state(cluster, "queue1", "Open")


# -- queue_job_status.go -----------------------------------------------------------------------------

STATUS_QUEUE = "queue-jobs-status-transition"


@pytest.mark.podgroup_status
@pytest.mark.upstream(SUITE, "Transform from running to pending should succeed")
def test_podgroup_running_to_pending(cluster: Cluster) -> None:
    _create_queues(cluster, {STATUS_QUEUE: None})
    rep = cluster_size(cluster, {"cpu": "500m"})
    assert rep >= 4, "the case needs room for at least 4 half-CPU pods"
    names = [f"queue-job-status-transition-test-job-{i}" for i in range(2)]
    for name in names:
        cluster.apply(job(name, [Task(name="queue-job", rep=rep, min=rep, req={"cpu": "500m"})], queue=STATUS_QUEUE))
    first, second = names

    def phases() -> list[str | None]:
        out = []
        for job_name in names:
            obj = cluster.try_get("PodGroup", pg_name(cluster, job_name))
            out.append(None if obj is None else obj.get("status", {}).get("phase"))
        return out

    def queue_has_pending_group() -> bool:
        """Upstream ``GetPodGroupStatistics(queue).Pending > 0``."""
        return any(g.get("spec", {}).get("queue") == STATUS_QUEUE and g.get("status", {}).get("phase") == "Pending"
                   for g in cluster.list("PodGroup"))

    def bound_pods(job_name: str) -> int:
        return sum(1 for p in cluster.job_pods(job_name) if p["spec"].get("nodeName"))

    # Each job fills the cluster: the queue runs the first gang and keeps the second out (upstream waits
    # for "some group Running"; here, which one and that the other is Pending).
    cluster.wait_until(lambda: phases() == ["Running", "Pending"], 300, f"{first} Running and {second} Pending")
    deleted = {p["metadata"]["uid"] for p in cluster.job_pods(first)}
    for p in cluster.job_pods(first):
        cluster.delete("Pod", p["metadata"]["name"])
    # Upstream's check, as written: a group of the queue is Pending. The second job's group is Pending from
    # the start, so this alone cannot fail; the checks after it can. Volcano does not guarantee that the
    # emptied gang is ever seen Pending: its recreated pods are placed in the session that first sees them.
    cluster.wait_until(queue_has_pending_group, 600, f"a podgroup of queue {STATUS_QUEUE} Pending")
    cluster.wait_until(lambda: not deleted & {p["metadata"]["uid"] for p in cluster.job_pods(first)}, 300,
                       f"the deleted pods of {first} gone")
    cluster.wait_until(lambda: phases()[0] == "Running" and bound_pods(first) == rep, 300,
                       f"{first} recreated and placed again as a whole gang")
    cluster.hold(lambda: bound_pods(second) == 0, 30, f"no pod of {second} placed while {first} holds the cluster")


@pytest.mark.podgroup_status
@pytest.mark.upstream(SUITE, "Transform from running to unknown after a member is gone should succeed")
def test_podgroup_running_to_unknown(cluster: Cluster) -> None:
    _create_queues(cluster, {STATUS_QUEUE: None})
    group = "queue-podgroup-status-transition-unknown"
    cluster.apply(pod_group(group, min_member=2, queue=STATUS_QUEUE))
    names = [f"queue-podgroup-status-transition-{i}" for i in range(2)]
    for name in names:
        cluster.apply(pod(name, req={"cpu": "500m"}, restart_policy="Never", group=group))
    cluster.wait_until(lambda: count_phase([cluster.get("Pod", n) for n in names], ("Running",)) == 2, 300,
                       "both pods Running")
    wait_pg_phase(cluster, group, "Running")
    cluster.delete("Pod", names[0])
    cluster.wait_until(lambda: cluster.try_get("Pod", names[0]) is None, 300, f"pod {names[0]} gone")
    wait_pg_phase(cluster, group, "Unknown")
