"""Job conformance: upstream ``jobp`` job cases (job_lifecycle.go, job_restart.go, job_scale_up_down.go,
min_success.go, job_controlled_resource.go, pg_controller.go).

Same jobs, names and numbers as upstream; the containers' work is simulated through the builders
(``duration``/``exit_code`` set both a real command and the simulated kubelet's annotations).
Where upstream's check cannot fail (a "Pending" wait, a ready count of zero) the case asserts
what it meant: no pod gets a node over a stable window, the pods are actually gone.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.api.quantity import parse_quantity
from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import Obj, Task, job, plain
from volcano.conformance.lib.sizing import compute_node
from volcano.conformance.lib.waits import (
    bound,
    count_phase,
    job_phase,
    pg_name,
    pod_group_of,
    wait_job_phase,
    wait_job_phases,
    wait_job_unschedulable,
    wait_tasks_ready,
)

__all__: list[str] = []

SUITE = "jobp"
NO_REQUESTS: dict[str, str] = {}  # upstream's TaskSpec without Req: a container without requests
TERMINATE_ON_FAILURE = [{"event": "PodFailed", "action": "TerminateJob"}]


# -- helpers -----------------------------------------------------------------------------------------

def _live(pods: list[Obj]) -> list[Obj]:
    return [p for p in pods if not p["metadata"].get("deletionTimestamp")]


def delete_and_wait_cleaned_up(cluster: Cluster, name: str, timeout: float = 300) -> None:
    """Delete the Job; it, its PodGroup and its pods must all go (upstream ``WaitJobCleanedUp``)."""
    group = pg_name(cluster, name)
    pods = cluster.names(cluster.job_pods(name))
    cluster.delete("Job", name)

    def gone() -> bool:
        return (cluster.try_get("Job", name) is None and cluster.try_get("PodGroup", group) is None
                and all(cluster.try_get("Pod", p) is None for p in pods) and not cluster.job_pods(name))

    cluster.wait_until(gone, timeout, f"job {name}, podgroup {group} and pods {pods} cleaned up")


def wait_job_ready(cluster: Cluster, name: str, timeout: float = 300) -> None:
    """Upstream ``WaitJobReady``: at least ``spec.minAvailable`` pods Running or Succeeded."""
    need = int(cluster.get("Job", name)["spec"].get("minAvailable") or 0)
    wait_tasks_ready(cluster, name, need, timeout)


# -- job_lifecycle.go --------------------------------------------------------------------------------

@pytest.mark.job_lifecycle
@pytest.mark.upstream(SUITE, "Delete job that is pending state")
def test_delete_pending_job(cluster: Cluster) -> None:
    name = "pending-delete-job"
    cluster.apply(job(name, [Task(name="success", rep=2, min=2, req={"cpu": "10000"})]))
    wait_job_phases(cluster, name, ["Pending"])
    cluster.hold(lambda: job_phase(cluster, name) == "Pending" and not any(bound(p) for p in cluster.job_pods(name)),
                 30, f"job {name} stays Pending with no pod on a node")
    delete_and_wait_cleaned_up(cluster, name)


def _fails_with_code_3() -> Task:
    """Upstream's failing task: one pod that exits 3 after 10 s and is not restarted."""
    return Task(name="fail", rep=1, min=1, req=NO_REQUESTS, duration="10s", exit_code=3, restart_policy="Never")


@pytest.mark.job_lifecycle
@pytest.mark.parametrize(("name", "tasks", "policies", "phases"), [
    pytest.param("running-delete-job", [Task(name="success", rep=2, min=2, req=NO_REQUESTS)], None,
                 ["Pending", "Running"], marks=pytest.mark.upstream(SUITE, "Delete job that is Running state"),
                 id="running"),
    pytest.param("complete-delete-job", [Task(name="completed-task", rep=2, min=2, req=NO_REQUESTS, duration="5s")],
                 None, ["Pending", "Running", "Completed"],
                 marks=pytest.mark.upstream(SUITE, "Delete job that is Completed state"), id="completed"),
    pytest.param("failed-delete-job", [_fails_with_code_3()], [{"event": "PodFailed", "action": "AbortJob"}],
                 ["Pending", "Running", "Aborted"],
                 marks=pytest.mark.upstream(SUITE, "Delete job that is Failed job"), id="aborted"),
    pytest.param("terminate-delete-job", [_fails_with_code_3()], TERMINATE_ON_FAILURE,
                 ["Pending", "Running", "Terminated"],
                 marks=pytest.mark.upstream(SUITE, "Delete job that is terminated job"), id="terminated"),
    pytest.param("terminate-delete-job", [Task(name="complete", rep=1, min=1, req={"cpu": "1"}, limit=NO_REQUESTS,
                                               duration="10s", restart_policy="Never")],
                 TERMINATE_ON_FAILURE, ["Pending", "Running", "Completed"],
                 marks=pytest.mark.upstream(SUITE, "Create and Delete job with CPU requirement"), id="with-cpu"),
])
def test_delete_job_in_phase(cluster: Cluster, name: str, tasks: list[Task], policies: list[Obj] | None,
                             phases: list[str]) -> None:
    """Upstream's delete cases (job_lifecycle.go): the job goes through ``phases`` in order; deleting
    it then removes the job, its PodGroup and its pods."""
    cluster.apply(job(name, tasks, policies=policies))
    wait_job_phases(cluster, name, phases)
    delete_and_wait_cleaned_up(cluster, name)


@pytest.mark.job_lifecycle
@pytest.mark.upstream(SUITE, "Checking Event Generation for job")
def test_execute_action_event(cluster: Cluster) -> None:
    name = "terminate-job"
    cluster.apply(job(name, [Task(name="complete", rep=1, min=1, req=NO_REQUESTS, duration="10s", exit_code=127,
                                  restart_policy="Never")], policies=TERMINATE_ON_FAILURE))

    def terminate_action() -> bool:
        return any(e["involvedObject"].get("name", "").startswith(name) and e.get("reason") == "ExecuteAction"
                   and "TerminateJob" in (e.get("message") or "") for e in cluster.events())

    cluster.wait_until(terminate_action, 300, f"ExecuteAction event with TerminateJob for job {name}")


@pytest.mark.job_lifecycle
@pytest.mark.upstream(SUITE, "Checking Unschedulable Event Generation for job")
def test_unschedulable_event(cluster: Cluster) -> None:
    name = "unschedulable-job"
    node, slots = compute_node(cluster, {"cpu": "1"})
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": [node]}]}]}}}
    cluster.apply(job(name, [Task(name="complete", rep=slots + 1, min=slots + 1, req={"cpu": "1"},
                                  limit={"cpu": "1"}, duration="10s", restart_policy="Never",
                                  affinity=affinity)], policies=TERMINATE_ON_FAILURE))
    wait_job_unschedulable(cluster, name)
    # The gang of slots+1 pods cannot fit on the one node they may use: none is placed.
    cluster.hold(lambda: not any(bound(p) for p in cluster.job_pods(name)), 30,
                 f"no pod of {name} gets a node")


# -- job_restart.go ----------------------------------------------------------------------------------

_RESTART_POLICIES = [{"event": "PodEvicted", "action": "RestartJob"}, {"event": "PodFailed", "action": "RestartJob"}]


def _assert_pod_gone_and_retained(cluster: Cluster, gone: str, kept: str) -> None:
    cluster.wait_until(lambda: cluster.try_get("Pod", gone) is None, 300, f"pod {gone} gone")
    pod = cluster.try_get("Pod", kept)
    assert pod is not None, f"pod {kept} should be retained"
    assert not pod["metadata"].get("deletionTimestamp"), f"pod {kept} should not be deleted"


@pytest.mark.job_lifecycle
@pytest.mark.parametrize(("name", "kept", "max_retry", "phase", "retries", "kept_phase"), [
    pytest.param("last-retry-job",
                 Task(name="failed-task", rep=1, min=1, req=NO_REQUESTS, duration="0s", exit_code=127,
                      restart_policy="Never", max_retry=1),
                 2, "Failed", 2, "Failed",
                 marks=pytest.mark.upstream(SUITE, "Retain failed pod on last Retry"), id="failed-on-last-retry"),
    pytest.param("complete-retry-job",
                 Task(name="succeeded-task", rep=1, min=1, req=NO_REQUESTS, duration="1s", restart_policy="Never",
                      max_retry=1, policies=[{"event": "TaskCompleted", "action": "CompleteJob"}]),
                 1, "Completed", 0, "Succeeded",
                 marks=pytest.mark.upstream(SUITE, "Retain succeeded pod when job complete"),
                 id="succeeded-when-complete"),
])
def test_retain_pod(cluster: Cluster, name: str, kept: Task, max_retry: int, phase: str, retries: int,
                    kept_phase: str) -> None:
    """Upstream's job_restart.go: a job of a long-running task and task ``kept`` (restarted on a pod
    evicted or failed, ``maxRetry`` ``max_retry``) ends ``phase`` after ``retries`` restarts; the
    long-running pod is deleted, ``kept``'s pod is retained (not being deleted) in ``kept_phase``."""
    running = Task(name="running-task", rep=1, min=1, req=NO_REQUESTS, duration="1000s", restart_policy="Never",
                   max_retry=1)
    cluster.apply(job(name, [running, kept], min=2, min_success=2, max_retry=max_retry, policies=_RESTART_POLICIES))
    wait_job_phase(cluster, name, phase, 300)
    assert (cluster.get("Job", name)["status"].get("retryCount") or 0) == retries
    kept_pod = f"{name}-{kept.name}-0"
    _assert_pod_gone_and_retained(cluster, f"{name}-running-task-0", kept_pod)
    assert cluster.get("Pod", kept_pod)["status"]["phase"] == kept_phase


# -- job_scale_up_down.go ----------------------------------------------------------------------------

def _svc_job(name: str) -> Obj:
    return job(name, [Task(name="default", rep=2, min=2, req={"cpu": "500m"})], plugins={"svc": []})


def _expected_hosts(spec: Obj, name: str) -> dict[str, str]:
    """The svc plugin's host file for a job spec (upstream ``svc.GenerateHosts``)."""
    out: dict[str, str] = {}
    for task in spec["tasks"]:
        tpl = task["template"].get("spec", {})
        hosts = []
        for i in range(int(task.get("replicas") or 0)):
            host = tpl.get("hostname") or f"{name}-{task['name']}-{i}"
            hosts.append(f"{host}.{tpl.get('subdomain') or name}")
            if tpl.get("hostname"):
                break
        key = task["name"].replace("-", "_")
        out[f"{key}.host"] = "\n".join(hosts)
        out[f"VC_{key.upper()}_HOSTS"] = ",".join(hosts)
        out[f"VC_{key.upper()}_NUM"] = str(len(hosts))
    return out


def _scale(cluster: Cluster, name: str, min_available: int, replicas: int, task_min: int | None = None) -> Obj:
    """Upstream ``UpdateJob``: the whole spec written back with new sizes."""
    spec = plain(cluster.get("Job", name)["spec"])
    spec["minAvailable"] = min_available
    spec["tasks"][0]["replicas"] = replicas
    if task_min is not None:
        spec["tasks"][0]["minAvailable"] = task_min
    cluster.patch("Job", name, {"spec": spec})
    return spec


def _wait_hosts(cluster: Cluster, name: str, spec: Obj) -> None:
    want = _expected_hosts(spec, name)

    def matches() -> bool:
        cm = cluster.try_get("ConfigMap", f"{name}-svc")
        return cm is not None and dict(cm.get("data") or {}) == want

    cluster.wait_until(matches, 30, f"configmap {name}-svc data == {want}")


def _wait_live_pods(cluster: Cluster, name: str, n: int) -> None:
    cluster.wait_until(lambda: len(cluster.job_pods(name)) == n
                       and count_phase(cluster.job_pods(name), ("Running",)) == n, 300,
                       f"exactly {n} pods of {name}, all Running")


def _running_at_least(n: int) -> Any:
    def check(cluster: Cluster, name: str) -> None:
        assert count_phase(cluster.job_pods(name), ("Running", "Succeeded")) >= n
    return check


def _only_the_first_pod(cluster: Cluster, name: str) -> None:
    _wait_live_pods(cluster, name, 1)
    assert cluster.names(cluster.job_pods(name)) == [f"{name}-default-0"]


@pytest.mark.job_lifecycle
@pytest.mark.job_plugins
@pytest.mark.parametrize(("name", "size", "task_min", "check"), [
    pytest.param("scale-up-job", 4, None, _running_at_least(4), marks=pytest.mark.upstream(SUITE, "Scale up"),
                 id="up"),
    pytest.param("scale-down-job", 1, 1, _only_the_first_pod, marks=pytest.mark.upstream(SUITE, "Scale down"),
                 id="down"),
])
def test_scale(cluster: Cluster, name: str, size: int, task_min: int | None, check: Any) -> None:
    """A running svc job resized (minAvailable = replicas = ``size``) gets its pods and host file."""
    cluster.apply(_svc_job(name))
    wait_job_ready(cluster, name)
    spec = _scale(cluster, name, size, size, task_min=task_min)
    wait_job_ready(cluster, name)
    check(cluster, name)
    _wait_hosts(cluster, name, spec)
    delete_and_wait_cleaned_up(cluster, name)


@pytest.mark.job_lifecycle
@pytest.mark.job_plugins
@pytest.mark.upstream(SUITE, "Scale down to zero and scale up")
def test_scale_down_to_zero_and_up(cluster: Cluster) -> None:
    name = "scale-down-job"
    cluster.apply(_svc_job(name))
    wait_job_ready(cluster, name)
    spec = _scale(cluster, name, 0, 0, task_min=0)
    # Upstream waits for 0 ready pods (vacuous); scaling to zero means the pods go away.
    cluster.wait_until(lambda: not cluster.job_pods(name), 300, f"pods of {name} gone after scaling to zero")
    _wait_hosts(cluster, name, spec)
    spec = _scale(cluster, name, 2, 2)
    wait_job_ready(cluster, name)
    assert count_phase(cluster.job_pods(name), ("Running", "Succeeded")) >= 2
    _wait_hosts(cluster, name, spec)
    delete_and_wait_cleaned_up(cluster, name)


# -- min_success.go ----------------------------------------------------------------------------------

@pytest.mark.job_lifecycle
@pytest.mark.upstream(SUITE, "Min Success")
def test_min_success(cluster: Cluster) -> None:
    name = "min-success-job"
    cluster.apply(job(name, [Task(name="short", rep=3, min=1, req=NO_REQUESTS, duration="3s"),
                             Task(name="log", rep=2, min=1, req=NO_REQUESTS, duration="100000s")],
                      min_success=2))
    wait_job_ready(cluster, name)
    cluster.wait_until(lambda: count_phase(cluster.job_pods(name), ("Succeeded",)) >= 2, 120,
                       f"2 pods of {name} Succeeded")
    wait_job_phase(cluster, name, "Completed", 60)


# -- job_controlled_resource.go ----------------------------------------------------------------------

@pytest.mark.job_lifecycle
@pytest.mark.podgroup_status
@pytest.mark.upstream(SUITE, "Generate PodGroup and valid minResource when creating job")
def test_podgroup_min_resources(cluster: Cluster) -> None:
    name = "job-name-podgroup"
    res = {"cpu": "1", "memory": "1000Mi", "nvidia.com/gpu": "1"}
    cluster.apply(job(name, [Task(name="task-1", rep=1, min=1, req=res, limit=res),
                             Task(name="task-2", rep=1, min=1, req=res, limit=res)]))
    wait_job_phase(cluster, name, "Pending")
    cluster.wait_until(lambda: pod_group_of(cluster, name) is not None, 300, f"podgroup of {name} created")
    pg = pod_group_of(cluster, name)
    assert pg is not None
    got = {k: parse_quantity(v) for k, v in (pg["spec"].get("minResources") or {}).items()}
    want = {k: parse_quantity(v) for k, v in {
        "count/pods": "2", "pods": "2", "cpu": "2", "requests.cpu": "2", "limits.cpu": "2",
        "memory": "2000Mi", "requests.memory": "2000Mi", "limits.memory": "2000Mi",
        "nvidia.com/gpu": "2", "requests.nvidia.com/gpu": "2"}.items()}
    assert got == want


# -- pg_controller.go --------------------------------------------------------------------------------

def _replication_controller(name: str, pod_name: str, labels: dict[str, str], scheduler: str | None) -> Obj:
    spec: Obj = {"containers": [{"name": pod_name, "image": "nginx:1.29.3-alpine",
                                 "imagePullPolicy": "IfNotPresent"}]}
    if scheduler:
        spec["schedulerName"] = scheduler
    return {"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": name},
            "spec": {"selector": dict(labels),
                     "template": {"metadata": {"name": pod_name, "labels": dict(labels)}, "spec": spec}}}


def _wait_any_pod_running(cluster: Cluster) -> None:
    cluster.wait_until(lambda: count_phase(cluster.pods(), ("Running",)) >= 1, 300, "a pod Running")


@pytest.mark.podgroup_status
@pytest.mark.upstream(SUITE, "Create volcano rc, pg controller process")
def test_volcano_rc_gets_podgroup(cluster: Cluster) -> None:
    cluster.apply(_replication_controller("rc-volcano", "pod-volcano", {"schedulerName": "volcano"}, "volcano"))
    _wait_any_pod_running(cluster)
    groups = cluster.list("PodGroup")
    assert groups, "pod group not found"
    assert any(g.get("status", {}).get("phase", "Pending") != "Pending" for g in groups), \
        f"no ready podgroup: {[g.get('status', {}).get('phase') for g in groups]}"


@pytest.mark.podgroup_status
@pytest.mark.upstream(SUITE, "Create default-scheduler rc, pg controller don't process")
def test_default_scheduler_rc_gets_no_podgroup(cluster: Cluster) -> None:
    cluster.apply(_replication_controller("rc-default-scheduler", "pod-default-scheduler", {"a": "b"}, None))
    _wait_any_pod_running(cluster)
    cluster.hold(lambda: not cluster.list("PodGroup"), 10, "no podgroup for default-scheduler pods")
    assert not _live([p for p in cluster.pods()
                      if (p["metadata"].get("annotations") or {}).get("scheduling.k8s.io/group-name")])
