"""Upstream e2e ``jobp`` cases (catalogue §3.3) the Job controller decides, plus Commands,
delayed (timeout) actions, dependsOn and the retry limit."""

from __future__ import annotations

from fractions import Fraction

import pytest

from tests.controllers.job.conftest import Cluster, fail_until_retry_limit, job, task
from tests.controllers.job.test_jobseq_cases import subsequence
from volcano.api.quantity import parse_quantity


def test_case_35_podgroup_min_resources(cluster: Cluster) -> None:
    res = {"cpu": "1", "memory": "1000Mi", "nvidia.com/gpu": "1"}
    tasks = [task("task-1", 1), task("task-2", 1)]
    for t in tasks:
        t["template"]["spec"]["containers"][0]["resources"] = {"requests": dict(res), "limits": dict(res)}
    cluster.submit(job("job-name-podgroup", tasks))
    assert cluster.phase("job-name-podgroup") == "Pending"
    pg = cluster.podgroup("job-name-podgroup")
    assert pg is not None
    got = {k: parse_quantity(v) for k, v in pg["spec"]["minResources"].items()}
    mem = Fraction(2000 * 1024 * 1024)
    assert got == {"count/pods": 2, "pods": 2, "cpu": 2, "requests.cpu": 2, "limits.cpu": 2, "memory": mem,
                   "requests.memory": mem, "limits.memory": mem, "nvidia.com/gpu": 2,
                   "requests.nvidia.com/gpu": 2}
    assert pg["spec"]["minResources"]["memory"] == "2000Mi"


@pytest.mark.parametrize("state", ["Pending", "Running", "Completed", "Aborted", "Terminated"])
def test_cases_36_to_40_delete_job_cleans_up(cluster: Cluster, state: str) -> None:
    name = f"delete-{state.lower()}"
    policies = None
    if state == "Aborted":
        policies = [{"event": "PodFailed", "action": "AbortJob"}]
    elif state == "Terminated":
        policies = [{"event": "PodFailed", "action": "TerminateJob"}]
    manifest = job(name, [task("task", 2)], policies=policies, plugins={"svc": []})
    if state == "Pending":
        cluster.submit(manifest)
        cluster.set_pg_phase(name)
    else:
        cluster.start(manifest)
    if state == "Completed":
        cluster.set_pods(name, "Succeeded")
    elif state in ("Aborted", "Terminated"):
        cluster.set_pod(f"{name}-task-0", "Failed", exit_code=3)
    assert cluster.phase(name) == state
    cluster.server.delete("Job", name, "default")
    cluster.run(1000)
    assert cluster.server.list("Job", "default")["items"] == []
    assert cluster.snapshot() == {"Pod": [], "PodGroup": [], "ConfigMap": [], "Service": [], "Secret": [],
                                  "NetworkPolicy": []}


def test_case_41_terminate_policy_not_triggered_when_pod_succeeds(cluster: Cluster) -> None:
    name = "cpu-job"
    cluster.start(job(name, [task("task", 1, cpu="1")], policies=[{"event": "PodFailed", "action": "TerminateJob"}]))
    cluster.set_pod(f"{name}-task-0", "Succeeded")
    assert cluster.phases(name) == ["Pending", "Running", "Completed"]


def test_case_42_execute_action_event(cluster: Cluster) -> None:
    name = "event-job"
    cluster.start(job(name, [task("task", 1)], policies=[{"event": "PodFailed", "action": "TerminateJob"}]))
    cluster.set_pod(f"{name}-task-0", "Failed", exit_code=127)
    events = cluster.events("ExecuteAction")
    assert any("TerminateJob" in e["message"] and e["involvedObject"]["name"] == name for e in events)
    assert any(e["message"] == "Start to execute action TerminateJob " for e in events)


def test_case_44_retain_failed_pod_on_last_retry(cluster: Cluster) -> None:
    name = "last-retry-job"
    policies = [{"event": "PodEvicted", "action": "RestartJob"}, {"event": "PodFailed", "action": "RestartJob"}]
    cluster.start(job(name, [task("running-task", 1, max_retry=1), task("failed-task", 1)], policies=policies,
                      max_retry=2, minSuccess=2))
    cluster.set_pod(f"{name}-failed-task-0", "Failed")
    assert cluster.phase(name) == "Restarting" and cluster.status(name)["retryCount"] == 1
    cluster.set_pg_phase(name)
    cluster.set_pods(name, "Running")
    cluster.set_pod(f"{name}-failed-task-0", "Failed")
    assert cluster.phase(name) == "Failed"
    assert cluster.status(name)["retryCount"] == 2
    pods = cluster.pods(name)
    assert f"{name}-running-task-0" not in pods
    assert "deletionTimestamp" not in pods[f"{name}-failed-task-0"]["metadata"]


def test_case_45_retain_succeeded_pod_when_job_completes(cluster: Cluster) -> None:
    name = "complete-retry-job"
    policies = [{"event": "PodEvicted", "action": "RestartJob"}, {"event": "PodFailed", "action": "RestartJob"}]
    cluster.start(job(name, [task("running-task", 1),
                             task("succeeded-task", 1, policies=[{"event": "TaskCompleted", "action": "CompleteJob"}])],
                      policies=policies, max_retry=1, minSuccess=2))
    cluster.set_pod(f"{name}-succeeded-task-0", "Succeeded")
    assert cluster.phase(name) == "Completed"
    assert cluster.status(name).get("retryCount", 0) == 0
    assert sorted(cluster.pods(name)) == [f"{name}-succeeded-task-0"]


def test_case_48_scale_to_zero_and_back(cluster: Cluster) -> None:
    name = "scale-zero"
    cluster.start(job(name, [task("default", 2)], plugins={"svc": []}))

    def rescale(n: int) -> None:
        j = cluster.job(name)
        j["spec"]["tasks"][0].update(replicas=n, minAvailable=n)
        j["spec"]["minAvailable"] = n
        cluster.server.update(j)
        cluster.run()

    rescale(0)
    assert cluster.pods(name) == {}
    cm = cluster.server.get("ConfigMap", f"{name}-svc", "default")["data"]
    assert cm == {"default.host": "", "VC_DEFAULT_HOSTS": "", "VC_DEFAULT_NUM": "0"}
    assert cluster.phase(name) == "Running"  # scaled to zero keeps its phase
    rescale(2)
    cluster.set_pods(name, "Running")
    assert sorted(cluster.pods(name)) == [f"{name}-default-0", f"{name}-default-1"]
    assert cluster.server.get("ConfigMap", f"{name}-svc", "default")["data"]["VC_DEFAULT_NUM"] == "2"


def test_case_49_min_success(cluster: Cluster) -> None:
    name = "min-success-job"
    cluster.start(job(name, [task("short", 3, min_available=1), task("log", 2, min_available=1)],
                      min_available=2, minSuccess=2))
    cluster.set_pod(f"{name}-short-0", "Succeeded")
    assert cluster.phase(name) == "Running"
    cluster.set_pod(f"{name}-short-1", "Succeeded")
    assert cluster.phase(name) == "Completed"
    # The log pods were still running: the finished-state kill removes them.
    assert sorted(cluster.pods(name)) == [f"{name}-short-0", f"{name}-short-1"]


def test_completed_vs_failed_task_min_available(cluster: Cluster) -> None:
    name = "task-min"
    cluster.start(job(name, [task("a", 2, min_available=2), task("b", 1)]))
    cluster.set_pod(f"{name}-a-0", "Succeeded")
    cluster.set_pod(f"{name}-a-1", "Failed")
    cluster.set_pod(f"{name}-b-0", "Succeeded")
    assert cluster.phase(name) == "Failed"


def test_vcctl_suspend_and_resume(cluster: Cluster) -> None:
    name = "suspend-job"
    cluster.start(job(name, [task("task", 2)]))
    cluster.command(name, "AbortJob")
    assert cluster.phase(name) == "Aborted"
    assert cluster.pods(name) == {}
    assert cluster.server.list("Command", "default")["items"] == []  # consumed and deleted
    assert any(e["reason"] == "CommandIssued" for e in cluster.events())
    cluster.command(name, "ResumeJob")
    # Nothing left to kill: Restarting passes straight on to Pending (restart rule).
    assert cluster.phases(name)[-2:] == ["Restarting", "Pending"]
    assert cluster.status(name)["retryCount"] == 1
    cluster.set_pg_phase(name)
    cluster.set_pods(name, "Running")
    assert subsequence(["Aborting", "Aborted", "Restarting", "Pending", "Running"], cluster.phases(name))


def test_suspend_pending_job(cluster: Cluster) -> None:
    name = "suspend-pending"
    cluster.submit(job(name, [task("task", 2)]))
    cluster.set_pg_phase(name)
    cluster.command(name, "AbortJob")
    assert cluster.phase(name) == "Aborted"
    assert cluster.pods(name) == {}


@pytest.mark.parametrize(("action", "final"), [("TerminateJob", "Terminated"), ("CompleteJob", "Completed"),
                                               ("RestartJob", "Restarting")])
def test_commands(cluster: Cluster, action: str, final: str) -> None:
    name = f"cmd-{action.lower()}"
    cluster.start(job(name, [task("task", 1)]))
    cluster.command(name, action)
    assert cluster.phase(name) == final


def test_command_for_other_kinds_is_ignored(cluster: Cluster) -> None:
    cluster.start(job("keep", [task("task", 1)]))
    cluster.server.create({"apiVersion": "bus.volcano.sh/v1alpha1", "kind": "Command",
                           "metadata": {"name": "close", "namespace": "default"}, "action": "CloseQueue",
                           "target": {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue",
                                      "name": "default", "uid": "x"}})
    cluster.run()
    assert [c["metadata"]["name"] for c in cluster.server.list("Command", "default")["items"]] == ["close"]


def test_pod_pending_timeout_fires_when_pods_stay_pending(cluster: Cluster) -> None:
    name = "pending-timeout"
    cluster.submit(job(name, [task("task", 1)],
                       policies=[{"event": "PodPending", "action": "AbortJob", "timeout": "1m"}]))
    cluster.set_pg_phase(name)
    assert cluster.phase(name) == "Pending"
    cluster.run(59_000)
    assert cluster.phase(name) == "Pending"
    cluster.run(2_000)
    assert cluster.phase(name) == "Aborted"
    assert any(e["message"] == "Execute action AbortJob after 1m0s" for e in cluster.events("ExecuteAction"))


def test_pod_pending_timeout_cancelled_when_pod_runs(cluster: Cluster) -> None:
    name = "pending-cancel"
    cluster.submit(job(name, [task("task", 1)],
                       policies=[{"event": "PodPending", "action": "AbortJob", "timeout": "1m"}]))
    cluster.set_pg_phase(name)
    cluster.run(10_000)
    cluster.set_pods(name, "Running")
    cluster.run(120_000)
    assert cluster.phase(name) == "Running"


def test_pod_pending_without_timeout_never_matches(cluster: Cluster) -> None:
    name = "pending-no-timeout"
    cluster.submit(job(name, [task("task", 1)], policies=[{"event": "PodPending", "action": "AbortJob"}]))
    cluster.set_pg_phase(name)
    cluster.run(600_000)
    assert cluster.phase(name) == "Pending"


def test_depends_on_creates_dependent_task_when_dependency_ready(cluster: Cluster) -> None:
    name = "deps"
    cluster.submit(job(name, [task("master", 1), task("worker", 2, dependsOn={"name": ["master"]})]))
    cluster.set_pg_phase(name)
    assert sorted(cluster.pods(name)) == [f"{name}-master-0"]
    cluster.set_pod(f"{name}-master-0", "Running")
    assert sorted(cluster.pods(name)) == [f"{name}-master-0", f"{name}-worker-0", f"{name}-worker-1"]


def test_restart_limit_reaches_failed(cluster: Cluster) -> None:
    name = "retry-limit"
    cluster.start(job(name, [task("task", 1)], policies=[{"event": "PodFailed", "action": "RestartJob"}],
                      max_retry=3))
    fail_until_retry_limit(cluster, name, max_retry=3)
    assert cluster.phases(name)[-2:] == ["Restarting", "Failed"]


def test_volume_claim_generated_created_and_mounted(cluster: Cluster) -> None:
    name = "pvc-job"
    claim = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}
    cluster.submit(job(name, [task("task", 1)], volumes=[{"mountPath": "/data", "volumeClaim": claim}]))
    vol = cluster.job(name)["spec"]["volumes"][0]
    generated = vol["volumeClaimName"]
    assert generated.startswith(f"{name}-pvc-") and len(generated) == len(name) + 5 + 12
    pvc = cluster.server.get("PersistentVolumeClaim", generated, "default")
    assert pvc["metadata"]["ownerReferences"][0]["name"] == name
    cluster.set_pg_phase(name)
    pod = cluster.pods(name)[f"{name}-task-0"]
    mounted = pod["spec"]["containers"][0]["volumeMounts"][0]
    assert mounted["mountPath"] == "/data"
    assert {"name": mounted["name"], "persistentVolumeClaim": {"claimName": generated}} in pod["spec"]["volumes"]
    # A second sync finds the claim and neither recreates it nor generates another name.
    assert [p["metadata"]["name"] for p in cluster.server.list("PersistentVolumeClaim", "default")["items"]] \
        == [generated]


def test_missing_named_claim_keeps_job_pending_with_event(cluster: Cluster) -> None:
    name = "pvc-missing"
    cluster.submit(job(name, [task("task", 1)], volumes=[{"mountPath": "/data", "volumeClaimName": "absent"}]))
    assert cluster.phase(name) == "Pending"
    assert cluster.podgroup(name) is None
    msgs = [e["message"] for e in cluster.events("PVCError")]
    assert msgs and "pvc absent is not found" in msgs[0]


def test_restart_task_kills_only_that_task_and_keeps_podgroup(cluster: Cluster) -> None:
    name = "restart-task"
    cluster.start(job(name, [task("a", 2, policies=[{"event": "PodFailed", "action": "RestartTask"}]),
                             task("b", 1)]))
    pg_before = cluster.podgroup(name)
    b_uid = cluster.pods(name)[f"{name}-b-0"]["metadata"]["uid"]
    a_uid = cluster.pods(name)[f"{name}-a-1"]["metadata"]["uid"]
    cluster.set_pod(f"{name}-a-0", "Failed")
    st = cluster.status(name)
    assert st["retryCount"] == 1 and st.get("version", 0) == 0
    pg_after = cluster.podgroup(name)
    assert pg_before is not None and pg_after is not None
    assert pg_after["metadata"]["uid"] == pg_before["metadata"]["uid"]  # a targeted restart keeps the PodGroup
    pods = cluster.pods(name)
    assert pods[f"{name}-b-0"]["metadata"]["uid"] == b_uid  # other task untouched
    assert pods[f"{name}-a-1"]["metadata"]["uid"] != a_uid  # the whole task was recreated
    assert "Restarting" in cluster.phases(name)


def test_podgroup_pending_event(cluster: Cluster) -> None:
    name = "unschedulable"
    cluster.submit(job(name, [task("a", 2)]))
    pg = cluster.podgroup(name)
    assert pg is not None
    cluster.server.patch("PodGroup", pg["metadata"]["name"], {"status": {"phase": "Pending", "conditions": [
        {"type": "Unschedulable", "status": "True", "reason": "NotEnoughResources",
         "message": "2/2 tasks in gang unschedulable"}]}}, "default")
    cluster.run()
    msgs = [e["message"] for e in cluster.events("PodGroupPending")]
    assert msgs == [f"PodGroup default:{name} unschedulable, reason: 2/2 tasks in gang unschedulable"]
    assert cluster.events("PodGroupPending")[0]["type"] == "Warning"


def test_queue_with_extend_clusters_marks_job_forwarding(cluster: Cluster) -> None:
    cluster.server.create({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue",
                           "metadata": {"name": "fwd"}, "spec": {"weight": 1,
                                                                 "extendClusters": [{"name": "c2", "weight": 1}]}})
    cluster.run()
    name = "forwarded"
    cluster.submit(job(name, [task("a", 1)], queue="fwd"))
    assert cluster.job(name)["metadata"]["annotations"]["volcano.sh/job-forwarding"] == "true"
    cluster.set_pg_phase(name)
    pod = cluster.pods(name)[f"{name}-a-0"]
    assert pod["metadata"]["labels"]["volcano.sh/job-forwarding"] == "true"


@pytest.mark.parametrize("annotations", [None, {}, {"team": "a"}])
def test_a_forwarded_job_with_null_annotations_is_marked_too(cluster: Cluster, annotations: dict | None) -> None:
    """``metadata.annotations: null`` is Go's nil map (no annotations): the forwarding mark is added
    beside whatever is there; the controller used to raise on the null (setdefault kept the None)."""
    cluster.server.create({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue",
                           "metadata": {"name": "fwd"}, "spec": {"weight": 1,
                                                                 "extendClusters": [{"name": "c2", "weight": 1}]}})
    cluster.run()
    name = "forwarded-null"
    manifest = job(name, [task("a", 1)], queue="fwd")
    manifest["metadata"]["annotations"] = annotations
    cluster.submit(manifest)
    assert cluster.job(name)["metadata"]["annotations"] == {**(annotations or {}), "volcano.sh/job-forwarding": "true"}
    assert cluster.phase(name) == "Pending"
