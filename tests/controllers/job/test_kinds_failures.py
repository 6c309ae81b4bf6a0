"""Kinds pinned whole: the Job controller under failures and rare orderings.

The whole ``job-controller`` decision trace and the whole Job status for: a pod delete the API
refuses while a Job is aborted (and the abort completing once it is allowed), a Job whose queue
is deleted before the controller's first sync (every retry, then the terminate of a Job without a
status), a RestartTask policy whose failed pod is gone before the controller handles the failure;
the ssh plugin's port at its limits; the Job's priority class and memory quantities carried into
the pods and the PodGroup.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

import pytest

from tests.controllers.job.conftest import NS, Cluster, job, task
from tests.scheduler.kinds_support import RefusingClient


class RefusingCluster(Cluster):
    """The Job controller test cluster whose controller writes through a ``RefusingClient``."""

    def __init__(self, refuse: Callable[[str, tuple[Any, ...]], bool] = lambda verb, args: False) -> None:
        self.refuse = refuse
        super().__init__()

    def controller_client(self) -> RefusingClient:
        """A ``RefusingClient`` over the API server, kept as ``client``."""
        self.client = RefusingClient(self.server, self.refuse)
        return self.client

    def ctrace(self, after_ms: int = -1) -> list[tuple[int, str, str, str]]:
        """The controller's trace records after ``after_ms``: (time, event, object, detail)."""
        return [(r.time_ms, r.event, r.object, r.detail) for r in self.trace
                if r.component == "job-controller" and r.time_ms > after_ms]


T0 = "2024-01-01T00:00:00Z"


def _pg_name(c: Cluster, name: str) -> str:
    return f"{name}-{c.job(name)['metadata']['uid']}"


def test_a_refused_pod_delete_holds_an_abort_until_the_delete_is_allowed() -> None:
    """Job ``x`` of tasks ``a`` and ``b`` (one pod each) is aborted while the API refuses to delete ``x-b-0``:
    each attempt deletes ``x-a-0``, fails on ``x-b-0``, records a FailedDelete event naming the pod and the
    error, and leaves the Job Running with its counts as they were; once deletes are allowed the next retry
    aborts it (the PodGroup deleted, the Job Aborted)."""
    refusing = {"on": True}
    c = RefusingCluster(lambda verb, args: refusing["on"] and verb == "delete" and args[:2] == ("Pod", "x-b-0"))
    c.start(job("x", [task("a", 1), task("b", 1)]))
    pg = _pg_name(c, "x")
    uids = {n: p["metadata"]["uid"] for n, p in c.pods("x").items()}
    c.command("x", "AbortJob", ms=30)
    kill = "failed to kill 1 pods of 2"
    sync = "failed to delete 1 pods of 1"
    abort = "AbortJob on Running (event=CommandIssued action=AbortJob)"
    assert c.ctrace() == [
        (0, "JobPhase", "default/x", "- -> Pending"),
        (0, "CreatePodGroup", "default/x", pg),
        (100, "JobPhase", "default/x", "Pending -> Running"),
        (150, "Command", "default/x", "AbortJob"),
        (150, "ExecuteAction", "default/x", abort),
        (150, "Requeue", "default/x", kill),
        *[(150, "Requeue", "default/x", sync)] * 3,
        (155, "ExecuteAction", "default/x", abort),
        (155, "Requeue", "default/x", kill),
        *[(155, "Requeue", "default/x", sync)] * 5,
        *[(160, "Requeue", "default/x", sync)] * 2,
        (165, "ExecuteAction", "default/x", abort),
        (165, "Requeue", "default/x", kill),
        *[(165, "Requeue", "default/x", sync)] * 5,
        *[(170, "Requeue", "default/x", sync)] * 4,
        *[(180, "Requeue", "default/x", sync)] * 2,
    ]
    assert c.status("x") == {
        "state": {"phase": "Running", "lastTransitionTime": T0}, "running": 2, "minAvailable": 2,
        "taskStatusCount": {"a": {"phase": {"Running": 1}}, "b": {"phase": {"Running": 1}}},
        "conditions": [{"status": s, "lastTransitionTime": T0} for s in ("Pending", "Running")]}
    failed = [(e["message"], e.get("count")) for e in c.events("FailedDelete")]
    assert failed == [("Error deleting pods: ['failed to delete pod x-b-0, err Internal error occurred: refused by "
                       "the test']", 21)]
    # x-a-0 was deleted and, the Job still Running, created again; x-b-0 is the original pod.
    assert {n: (p["metadata"]["uid"] == uids[n], p["metadata"].get("deletionTimestamp"))
            for n, p in c.pods("x").items()} == {"x-a-0": (False, None), "x-b-0": (True, None)}
    refusing["on"] = False
    c.run(1000)
    assert c.ctrace(after_ms=180) == [
        (185, "ExecuteAction", "default/x", abort),
        (185, "JobPhase", "default/x", "Running -> Aborting"),
        (185, "DeletePodGroup", "default/x", pg),
        (185, "JobPhase", "default/x", "Aborting -> Aborted"),
    ]
    assert c.status("x") == {
        "state": {"phase": "Aborted", "lastTransitionTime": T0}, "minAvailable": 2, "version": 11,
        "runningDuration": "0s",
        "conditions": [{"status": s, "lastTransitionTime": T0} for s in ("Pending", "Running", "Aborting", "Aborted")]}


def test_a_job_whose_queue_is_gone_before_its_first_sync_is_terminated_without_a_status() -> None:
    """Queue ``q`` deleted between the Job's creation and the controller's first sync: every sync fails
    (queue not found) with exponential back-off from 5 ms until the retries run out (15), then the Job,
    which never got a status, is terminated: Terminating then Terminated, version 3."""
    c = RefusingCluster()
    c.server.create({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": "q"},
                     "spec": {"weight": 1}})
    c.server.create(job("x", [task("a", 1)], queue="q"))
    c.server.delete("Queue", "q")
    c.run(600_000)
    missing = 'queue.scheduling.volcano.sh "q" not found'
    times = [0] + [5 * (2 ** k - 1) for k in range(1, 15)]
    assert c.ctrace() == [
        *[(t, "Requeue", "default/x", missing) for t in times],
        (163835, "JobPhase", "default/x", "- -> Terminating"),
        (163835, "JobPhase", "default/x", "Terminating -> Terminated"),
    ]
    end = "2024-01-01T00:02:43Z"
    assert c.status("x") == {
        "version": 3, "state": {"phase": "Terminated", "lastTransitionTime": end}, "runningDuration": "2m43s",
        "conditions": [{"status": "Terminating", "lastTransitionTime": end},
                       {"status": "Terminated", "lastTransitionTime": end}]}
    assert [(e["reason"], e["message"]) for e in c.events("ExecuteAction")] == \
        [("ExecuteAction", "Job failed on action SyncJob for retry limit reached")]
    assert c.pods("x") == {} and c.podgroup("x") is None


def test_restart_task_after_the_last_pod_is_gone_recreates_it() -> None:
    """A one-pod Job with ``PodFailed: RestartTask`` whose pod fails and is deleted before the controller
    handles the failure: the task restart finds no pod to kill, the Job goes Restarting then Pending (retry
    1) and the pod is created again."""
    c = RefusingCluster()
    c.start(job("x", [task("a", 1, policies=[{"event": "PodFailed", "action": "RestartTask"}])]))
    pg = _pg_name(c, "x")
    c.set_pod("x-a-0", "Failed", ms=0)
    c.delete_pod("x-a-0", ms=500)
    assert c.ctrace() == [
        (0, "JobPhase", "default/x", "- -> Pending"),
        (0, "CreatePodGroup", "default/x", pg),
        (100, "JobPhase", "default/x", "Pending -> Running"),
        (150, "ExecuteAction", "default/x", "RestartTask on Running (event=PodFailed pod=x-a-0 exitCode=1)"),
        (150, "JobPhase", "default/x", "Running -> Restarting"),
        (150, "JobPhase", "default/x", "Restarting -> Pending"),
    ]
    status = c.status("x")
    status.pop("conditions")
    assert status == {"state": {"phase": "Pending", "lastTransitionTime": T0}, "pending": 1, "minAvailable": 1,
                      "taskStatusCount": {"a": {"phase": {"Pending": 1}}}, "retryCount": 1}
    assert {n: (p.get("status") or {}).get("phase") for n, p in c.pods("x").items()} == {"x-a-0": "Pending"}


def _config(port: str) -> str:
    lines = "StrictHostKeyChecking no\nUserKnownHostsFile /dev/null\n"
    for i in range(2):
        lines += f"Host x-a-{i}\n  HostName x-a-{i}.x\n  Port {port}\n"
    return lines


@pytest.mark.parametrize(("flag", "port"), [
    ("--ssh-port=0", "22"), ("--ssh-port=1", "1"), ("--ssh-port=2", "2"), ("--ssh-port=65535", "65535"),
    ("--ssh-port=65536", "22"), ("--ssh-port=-1", "22"), (None, "22")])
def test_the_ssh_port_in_the_config_at_its_limits(flag: str | None, port: str) -> None:
    """``--ssh-port`` within 1..65535 is written in every Host block of the ``<job>-ssh`` Secret's config;
    outside it (and without the flag) the port is 22."""
    c = RefusingCluster()
    c.submit(job("x", [task("a", 2)], plugins={"ssh": [flag] if flag else []}))
    secret = c.server.get("Secret", "x-ssh", NS)
    assert base64.b64decode(secret["data"]["config"]).decode() == _config(port)


def test_the_jobs_priority_class_and_memory_quantities_reach_pods_and_podgroup() -> None:
    """``spec.priorityClassName`` of the Job goes to the pods whose template names none (``a``), not to a
    template naming its own (``b``), and to the PodGroup; the templates' memory stays in its binary form
    (``1Gi``) in the PodGroup's minResources."""
    mine = {"spec": {"priorityClassName": "mine", "restartPolicy": "Never", "containers": [
        {"name": "main", "image": "busybox", "resources": {"requests": {"memory": "1Gi", "cpu": "1"}}}]}}
    c = RefusingCluster()
    c.submit(job("x", [task("a", 1), task("b", 1, template=mine)], priorityClassName="jobs"))
    c.set_pg_phase("x", "Inqueue")
    assert {n: p["spec"].get("priorityClassName") for n, p in c.pods("x").items()} == {"x-a-0": "jobs",
                                                                                       "x-b-0": "mine"}
    pg = c.podgroup("x")
    assert pg is not None
    assert pg["spec"] == {
        "minMember": 2, "minTaskMember": {"a": 1, "b": 1}, "queue": "default", "priorityClassName": "jobs",
        "minResources": {"count/pods": "2", "cpu": "1500m", "limits.cpu": "500m", "memory": "1Gi", "pods": "2",
                         "requests.cpu": "1500m", "requests.memory": "1Gi"}}


PENDING = {"state": {"phase": "Pending", "lastTransitionTime": T0},
           "conditions": [{"status": "Pending", "lastTransitionTime": T0}]}
REFUSED = "Internal error occurred: refused by the test"


def _events(c: Cluster) -> list[tuple[str, str, str, int]]:
    return [(e["reason"], e["type"], e["message"], int(e.get("count") or 0)) for e in c.events()]


def test_a_refused_pod_create_fails_each_sync_until_it_is_allowed() -> None:
    """Job ``x`` of two pods, the API refusing to create ``x-a-1``: each sync creates what it can, records a
    FailedCreate event naming the pod and the error and is retried with back-off (5, 10, 20 ms...); the Job
    status is not written past Pending. Allowed again, the next retry creates the pod and counts both."""
    refusing = {"on": True}
    c = RefusingCluster(lambda verb, args: refusing["on"] and verb == "create" and args[0].get("kind") == "Pod"
                        and args[0]["metadata"]["name"] == "x-a-1")
    c.submit(job("x", [task("a", 2)]), ms=50)
    pg = _pg_name(c, "x")
    c.set_pg_phase("x", "Inqueue", ms=40)
    first, again = "failed to create 1 pods of 2", "failed to create 1 pods of 1"
    assert c.ctrace() == [
        (0, "JobPhase", "default/x", "- -> Pending"),
        (0, "CreatePodGroup", "default/x", pg),
        (50, "Requeue", "default/x", first),
        (50, "Requeue", "default/x", again),
        *[(t, "Requeue", "default/x", again) for t in (55, 55, 65, 65, 85, 85)],
    ]
    assert _events(c) == [("FailedCreate", "Warning", f"Error creating pods: ['failed to create pod x-a-1, err: "
                                                      f"{REFUSED}']", 8)]
    assert c.status("x") == {**PENDING, "minAvailable": 2}
    assert sorted(c.pods("x")) == ["x-a-0"]
    refusing["on"] = False
    c.run(200)
    assert sorted(c.pods("x")) == ["x-a-0", "x-a-1"]
    assert c.status("x") == {**PENDING, "minAvailable": 2, "pending": 2,
                             "taskStatusCount": {"a": {"phase": {"Pending": 2}}}}


@pytest.mark.parametrize(("refuse", "volumes", "reason", "message"), [
    ("PodGroup", None, "PodGroupError", f"Failed to create PodGroup, err: {REFUSED}"),
    ("PersistentVolumeClaim", [{"mountPath": "/d", "volumeClaim": {
        "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}],
     "PVCError", f"Failed to create PVC, err: {REFUSED}"),
    (None, [{"mountPath": "/d", "volumeClaimName": "missing"}], "PVCError",
     "Failed to create PVC, err: pvc missing is not found, the job will be in the Pending state until the PVC is "
     "created"),
])
def test_a_sync_failing_before_its_pods(refuse: str | None, volumes: list[dict[str, Any]] | None, reason: str,
                                        message: str) -> None:
    """The PodGroup create refused, a volume claim's create refused, or a named claim that does not exist: the
    Job goes Pending, each sync fails with the error (a Warning event of the step's reason, aggregated), is
    retried at 0 and 5 ms, and no pod or PodGroup exists."""
    c = RefusingCluster(lambda verb, args: verb == "create" and args[0].get("kind") == refuse)
    extra: dict[str, Any] = {"volumes": volumes} if volumes else {}
    c.submit(job("x", [task("a", 1)], **extra), ms=9)
    detail = message.split("err: ", 1)[1]
    assert c.ctrace() == [(0, "JobPhase", "default/x", "- -> Pending"), (0, "Requeue", "default/x", detail),
                          (0, "Requeue", "default/x", detail), (5, "Requeue", "default/x", detail)]
    assert _events(c) == [(reason, "Warning", message, 3)]
    assert c.status("x") == {**PENDING, "minAvailable": 1}
    assert c.pods("x") == {} and c.podgroup("x") is None
