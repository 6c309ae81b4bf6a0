"""What the Job controller writes, seen through the API: the Job's status counters, the identity
it stamps on every pod, and what a restart of each scope changes (controllers reference §2.3, §2.6,
§2.7, §3.2).

* ``status``: pods counted by phase (``pending``, ``running``, ``succeeded``, ``failed``) and per
  task (``taskStatusCount``), ``minAvailable`` copied from the spec, ``version`` and ``retryCount``;
* every pod: its task index, task, job, queue, PodGroup, job version, template and retry count as
  annotations and labels, and the scheduler hints the Job's own labels and annotations carry;
* a restart: RestartJob replaces every pod and starts a new job version; RestartTask replaces the
  triggering task's pods and RestartPod that one pod, both keeping the version; each counts one
  retry. A task's policies are read before the job's, and only for a pod of that task.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import Task, job
from volcano.conformance.lib.waits import count_phase, job_conditions, job_phase, pg_name, wait_job_phases

pytestmark = pytest.mark.job_lifecycle
Obj = dict[str, Any]
NO_REQUESTS: dict[str, str] = {}
COUNTERS = ("pending", "running", "succeeded", "failed", "terminating")


def _status(cluster: Cluster, name: str) -> Obj:
    return dict(cluster.get("Job", name).get("status") or {})


def _counters(status: Obj) -> dict[str, int]:
    """The phase counters of a Job status (an absent counter is 0, as Go's omitempty writes it)."""
    return {k: int(status.get(k) or 0) for k in COUNTERS}


def _task_counts(status: Obj) -> dict[str, dict[str, int]]:
    return {task: {ph: int(n) for ph, n in ((v or {}).get("phase") or {}).items() if n}
            for task, v in (status.get("taskStatusCount") or {}).items()}


@pytest.mark.cluster(workers=2)
def test_the_status_counts_pods_by_phase_and_by_task(cluster: Cluster) -> None:
    """Two pods that keep running, one that succeeds and one that fails after 5 s (no policy), job
    minAvailable 3 of 4 replicas: once both have ended the job stays Running (not every pod has
    finished) and its status counts 2 running, 1 succeeded and 1 failed, per task too, with
    ``minAvailable`` 3, version 0 and no retry."""
    name = "counts"
    cluster.apply(job(name, [Task(name="run", rep=2, req=NO_REQUESTS),
                             Task(name="ok", rep=1, req=NO_REQUESTS, duration="5s", restart_policy="Never"),
                             Task(name="bad", rep=1, req=NO_REQUESTS, duration="5s", exit_code=1,
                                  restart_policy="Never")], min=3))
    want = {"pending": 0, "running": 2, "succeeded": 1, "failed": 1, "terminating": 0}
    want_tasks = {"run": {"Running": 2}, "ok": {"Succeeded": 1}, "bad": {"Failed": 1}}
    cluster.wait_until(lambda: _counters(_status(cluster, name)) == want
                       and _task_counts(_status(cluster, name)) == want_tasks, 120,
                       f"{name}'s status counts {want}, per task {want_tasks}")
    status = _status(cluster, name)
    assert (status.get("minAvailable"), int(status.get("version") or 0), int(status.get("retryCount") or 0)) == \
        (3, 0, 0), status
    cluster.hold(lambda: job_phase(cluster, name) == "Running" and _counters(_status(cluster, name)) == want, 20,
                 f"{name} keeps running with the same counts")


JOB_ANNOTATIONS = {"volcano.sh/preemptable": "true", "volcano.sh/cooldown-time": "600s",
                   "volcano.sh/revocable-zone": "rz1", "team": "blue"}


@pytest.mark.cluster(workers=2)
@pytest.mark.parametrize(("jdb", "copied"), [
    ({"volcano.sh/jdb-max-unavailable": "1"}, {"volcano.sh/jdb-max-unavailable": "1"}),
    ({"volcano.sh/jdb-min-available": "2", "volcano.sh/jdb-max-unavailable": "1"},
     {"volcano.sh/jdb-min-available": "2"}),
])
def test_every_pod_carries_its_job_identity(cluster: Cluster, jdb: dict[str, str], copied: dict[str, str]) -> None:
    """Each pod of a 2-task job (controllers reference §2.6): annotations task index, task, PodGroup
    ``<job>-<uid>``, job, queue, job version 0, template ``<job>-<task>``, retry count 0; of the Job's
    annotations the preemptable, cooldown-time and revocable-zone hints, and jdb-min-available, or
    jdb-max-unavailable only without it; labels task index, job, task, namespace, queue, and of the
    Job's labels only preemptable and cooldown-time."""
    name = "ident"
    cluster.apply(job(name, [Task(name="a", rep=2, req=NO_REQUESTS), Task(name="b", rep=1, req=NO_REQUESTS)],
                      annotations={**JOB_ANNOTATIONS, **jdb},
                      labels={"volcano.sh/preemptable": "true", "volcano.sh/cooldown-time": "600s", "team": "red"}))
    cluster.wait_until(lambda: len(cluster.job_pods(name)) == 3, 60, f"pods of {name} created")
    group = pg_name(cluster, name)
    ns = cluster.get("Job", name)["metadata"]["namespace"]
    for task, index in (("a", 0), ("a", 1), ("b", 0)):
        p = cluster.get("Pod", f"{name}-{task}-{index}")
        ann, labels = p["metadata"].get("annotations") or {}, p["metadata"].get("labels") or {}
        volcano_ann = {k: v for k, v in ann.items() if k.startswith(("volcano.sh/", "scheduling.k8s.io/"))}
        assert volcano_ann == {
            "volcano.sh/task-index": str(index), "volcano.sh/task-spec": task, "scheduling.k8s.io/group-name": group,
            "volcano.sh/job-name": name, "volcano.sh/queue-name": "default", "volcano.sh/job-version": "0",
            "volcano.sh/template-uid": f"{name}-{task}", "volcano.sh/job-retry-count": "0",
            "volcano.sh/preemptable": "true", "volcano.sh/cooldown-time": "600s", "volcano.sh/revocable-zone": "rz1",
            **copied}, volcano_ann
        assert "team" not in ann and "team" not in labels
        assert labels == {"volcano.sh/task-index": str(index), "volcano.sh/job-name": name,
                          "volcano.sh/task-spec": task, "volcano.sh/job-namespace": ns,
                          "volcano.sh/queue-name": "default", "volcano.sh/preemptable": "true",
                          "volcano.sh/cooldown-time": "600s"}, labels


def _evicted(action: str) -> list[Obj]:
    return [{"event": "PodEvicted", "action": action}]


def _live(cluster: Cluster, name: str) -> dict[str, Obj]:
    return {p["metadata"]["name"]: p for p in cluster.job_pods(name) if not p["metadata"].get("deletionTimestamp")}


@pytest.mark.cluster(workers=2)

def _evict_and_settle(cluster: Cluster, name: str, evicted: str, running: int,
                      replaced: set[str]) -> Callable[[], bool]:
    """Once the job's ``running`` pods run, delete pod ``evicted`` (its name without the job's) and
    wait until the job has restarted and exactly the pods named in ``replaced`` are new, the others
    kept and all running; returns that check, for the case to hold."""
    cluster.wait_until(lambda: count_phase(_live(cluster, name).values(), ("Running",)) == running, 120,
                       f"{name} running")
    wait_job_phases(cluster, name, ["Running"])
    first = {n.removeprefix(f"{name}-"): p["metadata"]["uid"] for n, p in _live(cluster, name).items()}
    before = job_conditions(cluster, name)
    cluster.delete("Pod", f"{name}-{evicted}")
    wait_job_phases(cluster, name, ["Restarting", "Running"], since=before)

    def settled() -> bool:
        live = {n.removeprefix(f"{name}-"): p for n, p in _live(cluster, name).items()}
        return (sorted(live) == sorted(first) and count_phase(live.values(), ("Running",)) == running
                and {n for n, p in live.items() if p["metadata"]["uid"] != first[n]} == replaced)

    cluster.wait_until(settled, 120, f"pods {sorted(replaced)} of {name} replaced, the others kept")
    return settled

@pytest.mark.parametrize(("task_policy", "job_policy", "deleted", "replaced", "version"), [
    (None, "RestartJob", "a-0", {"a-0", "a-1", "b-0"}, 1),
    ("RestartTask", None, "a-0", {"a-0", "a-1"}, 0),
    ("RestartPod", None, "a-0", {"a-0"}, 0),
    ("RestartPod", "RestartJob", "a-0", {"a-0"}, 0),
    ("RestartPod", "RestartJob", "b-0", {"a-0", "a-1", "b-0"}, 1),
], ids=["job", "task", "pod", "task-policy-first", "other-task-job-policy"])
def test_a_restart_replaces_the_pods_of_its_scope(cluster: Cluster, task_policy: str | None,
                                                  job_policy: str | None, deleted: str, replaced: set[str],
                                                  version: int) -> None:
    """Tasks ``a`` (2 pods, optionally a PodEvicted policy of its own) and ``b`` (1 pod), optionally a
    job PodEvicted policy. Deleting pod ``deleted`` of the running job restarts it once (Restarting,
    then Running again, retryCount 1): the pods of the policy's scope come back as new pods, the
    others keep running untouched. Only a whole-job restart starts a new version, which the new pods
    record with the retry count."""
    name = "scope"
    cluster.apply(job(name, [Task(name="a", rep=2, req=NO_REQUESTS,
                                  policies=_evicted(task_policy) if task_policy else None),
                             Task(name="b", rep=1, req=NO_REQUESTS)],
                      policies=_evicted(job_policy) if job_policy else None))
    settled = _evict_and_settle(cluster, name, deleted, 3, replaced)
    status = _status(cluster, name)
    assert (int(status.get("retryCount") or 0), int(status.get("version") or 0)) == (1, version), status
    for short in replaced:
        ann = cluster.get("Pod", f"{name}-{short}")["metadata"].get("annotations") or {}
        assert (ann.get("volcano.sh/job-version"), ann.get("volcano.sh/job-retry-count")) == (str(version), "1"), ann
    cluster.hold(lambda: settled() and job_phase(cluster, name) == "Running", 30, f"{name} restarted once only")


@pytest.mark.cluster(workers=2)
def test_restart_partition_replaces_the_partition_of_the_evicted_pod(cluster: Cluster) -> None:
    """Task ``a`` of 4 pods in partitions of 2 (pods 0-1 partition 0, pods 2-3 partition 1) with
    PodEvicted -> RestartPartition: deleting pod 2 replaces pods 2 and 3 and keeps partition 0 and
    task ``b`` running; one retry, the job version unchanged."""
    name = "parts"
    spec = job(name, [Task(name="b", rep=1, req=NO_REQUESTS)])
    parted = Task(name="a", rep=4, req=NO_REQUESTS, policies=_evicted("RestartPartition")).manifest(name, 1)
    parted["partitionPolicy"] = {"totalPartitions": 2, "partitionSize": 2, "minPartitions": 1}
    spec["spec"]["tasks"].append(parted)
    spec["spec"]["minAvailable"] = 3
    cluster.apply(spec)
    settled = _evict_and_settle(cluster, name, "a-2", 5, {"a-2", "a-3"})
    status = _status(cluster, name)
    assert (int(status.get("retryCount") or 0), int(status.get("version") or 0)) == (1, 0), status
    cluster.hold(lambda: settled() and job_phase(cluster, name) == "Running", 30, f"{name} restarted once only")


@pytest.mark.cluster(workers=2, cpu="1")
def test_a_tasks_status_count_holds_each_phase_of_its_pods(cluster: Cluster) -> None:
    """One task of three 1-CPU pods (job minAvailable 1) on two 1-CPU workers: two run and one stays
    pending, and the task's ``taskStatusCount`` holds both phases (Running 2, Pending 1), as the
    job's counters do."""
    name = "mixed"
    cluster.apply(job(name, [Task(name="work", rep=3, req={"cpu": "1"})], min=1))
    want = {"pending": 1, "running": 2, "succeeded": 0, "failed": 0, "terminating": 0}
    cluster.wait_until(lambda: _counters(_status(cluster, name)) == want, 120, f"{name}'s status counts {want}")
    cluster.wait_until(lambda: _task_counts(_status(cluster, name)) == {"work": {"Running": 2, "Pending": 1}}, 60,
                       f"{name}'s task counts both phases")


@pytest.mark.cluster(workers=1)
def test_pods_the_api_refuses_are_reported_and_retried_until_the_limit(cluster: Cluster) -> None:
    """A job whose annotation ``volcano.sh/jdb-min-available: "0"`` (copied onto its pods) the pod
    webhook refuses: the controller reports a Warning ``FailedCreate`` "Error creating pods: [...]"
    naming each pod, retries the sync (rate limited), and once the retries are spent terminates the
    job; no pod ever exists."""
    name = "refused"
    cluster.apply(job(name, [Task(name="t", rep=2, req=NO_REQUESTS)],
                      annotations={"volcano.sh/jdb-min-available": "0"}))
    wait_job_phases(cluster, name, ["Terminated"], timeout=900)
    [event] = [e for e in cluster.events(kind="Job", name=name) if e.get("reason") == "FailedCreate"]
    assert event.get("type") == "Warning", event
    message = str(event.get("message"))
    assert message.startswith("Error creating pods: [") and all(
        f"failed to create pod {name}-t-{i}" in message for i in range(2)), message
    assert int(event.get("count") or 1) > 1, "the failed sync is retried"
    assert not cluster.job_pods(name)
