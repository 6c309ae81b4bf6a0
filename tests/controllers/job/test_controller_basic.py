"""Job controller: the happy path, PodGroup gate, status counters, conditions, events."""

from __future__ import annotations

from tests.controllers.job.conftest import Cluster, job, task


def test_podgroup_created_pods_only_after_podgroup_leaves_pending(cluster: Cluster) -> None:
    cluster.submit(job("demo", [task("worker", 2)]))
    assert cluster.phase("demo") == "Pending"
    pg = cluster.podgroup("demo")
    assert pg is not None
    uid = cluster.job("demo")["metadata"]["uid"]
    assert pg["metadata"]["name"] == f"demo-{uid}"
    assert cluster.pods("demo") == {}
    cluster.set_pg_phase("demo", "Pending")
    assert cluster.pods("demo") == {}
    cluster.set_pg_phase("demo", "Inqueue")
    assert sorted(cluster.pods("demo")) == ["demo-worker-0", "demo-worker-1"]
    assert cluster.status("demo")["pending"] == 2


def test_happy_path_to_completed_and_finished_kill(cluster: Cluster) -> None:
    cluster.start(job("demo", [task("worker", 2)]))
    st = cluster.status("demo")
    assert st["state"]["phase"] == "Running" and st["running"] == 2 and st["minAvailable"] == 2
    assert st["taskStatusCount"] == {"worker": {"phase": {"Running": 2}}}
    cluster.set_pods("demo", "Succeeded")
    assert cluster.phase("demo") == "Completed"
    assert cluster.phases("demo") == ["Pending", "Running", "Completed"]
    st = cluster.status("demo")
    # The finished-state kill: version bumped, PodGroup deleted, counters rewritten (Volcano quirk #4616).
    assert st["version"] == 1
    assert cluster.podgroup("demo") is None
    assert st.get("succeeded", 0) == 0
    assert [c["status"] for c in st["conditions"]] == ["Pending", "Running", "Completed"]
    assert "runningDuration" in st
    # Succeeded pods are retained.
    assert sorted(cluster.pods("demo")) == ["demo-worker-0", "demo-worker-1"]


def test_pod_labels_annotations_owner_and_scheduler(cluster: Cluster) -> None:
    cluster.submit(job("demo", [task("worker", 1)]))
    cluster.set_pg_phase("demo")
    pod = cluster.pods("demo")["demo-worker-0"]
    meta = pod["metadata"]
    uid = cluster.job("demo")["metadata"]["uid"]
    assert meta["labels"] == {"volcano.sh/task-index": "0", "volcano.sh/job-name": "demo",
                              "volcano.sh/task-spec": "worker", "volcano.sh/job-namespace": "default",
                              "volcano.sh/queue-name": "default"}
    ann = meta["annotations"]
    assert ann["scheduling.k8s.io/group-name"] == f"demo-{uid}"
    assert ann["volcano.sh/job-version"] == "0" and ann["volcano.sh/job-retry-count"] == "0"
    assert ann["volcano.sh/template-uid"] == "demo-worker"
    assert meta["ownerReferences"] == [{"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "name": "demo",
                                        "uid": uid, "controller": True, "blockOwnerDeletion": True}]
    assert pod["spec"]["schedulerName"] == "volcano"


def test_pod_deleted_by_someone_else_is_recreated_without_policies(cluster: Cluster) -> None:
    cluster.start(job("demo", [task("worker", 2)]))
    cluster.delete_pod("demo-worker-1")
    assert "demo-worker-1" in cluster.pods("demo")
    assert cluster.phase("demo") in ("Running", "Pending")


def test_failed_pod_without_policy_is_kept_and_job_fails_when_all_finish(cluster: Cluster) -> None:
    cluster.start(job("demo", [task("worker", 2)]))
    cluster.set_pod("demo-worker-0", "Failed")
    assert cluster.phase("demo") == "Running"
    assert cluster.pods("demo")["demo-worker-0"]["status"]["phase"] == "Failed"
    cluster.set_pod("demo-worker-1", "Succeeded")
    assert cluster.phase("demo") == "Failed"


def test_missing_queue_retries_then_terminates(cluster: Cluster) -> None:
    cluster.submit(job("lost", [task("worker", 1)], queue="nowhere"), ms=10)
    assert cluster.phase("lost") == ""
    cluster.run(3_000_000)
    assert cluster.phases("lost") == ["Terminating", "Terminated"]
    msgs = [e["message"] for e in cluster.events("ExecuteAction")]
    assert "Job failed on action SyncJob for retry limit reached" in msgs
    requeues = cluster.trace.records(component="job-controller", event="Requeue", obj="default/lost")
    assert len(requeues) == 15
    assert requeues[0].detail == 'queue.scheduling.volcano.sh "nowhere" not found'


def test_bad_policy_timeout_is_reported_not_crashing(cluster: Cluster) -> None:
    cluster.start(job("bad", [task("worker", 1)], policies=[{"event": "PodFailed", "action": "AbortJob",
                                                              "timeout": "soon"}]))
    cluster.set_pod("bad-worker-0", "Failed")
    requeues = cluster.trace.records(component="job-controller", event="Requeue", obj="default/bad")
    assert requeues and "policy timeout 'soon' is not a duration" in requeues[0].detail


def _scale(cluster: Cluster, name: str, replicas: int) -> None:
    """Set the one task's replicas, its minAvailable and the job's minAvailable to ``replicas``; sync."""
    j = cluster.job(name)
    j["spec"]["tasks"][0]["replicas"] = replicas
    j["spec"]["tasks"][0]["minAvailable"] = replicas
    j["spec"]["minAvailable"] = replicas
    cluster.server.update(j)
    cluster.run()


def test_scale_up_and_down_follow_replicas(cluster: Cluster) -> None:
    cluster.start(job("scale", [task("default", 2)], plugins={"svc": []}))
    _scale(cluster, "scale", 4)
    assert sorted(cluster.pods("scale")) == [f"scale-default-{i}" for i in range(4)]
    cm = cluster.server.get("ConfigMap", "scale-svc", "default")
    assert cm["data"]["VC_DEFAULT_NUM"] == "4"
    assert cm["data"]["default.host"] == "\n".join(f"scale-default-{i}.scale" for i in range(4))
    pg = cluster.podgroup("scale")
    assert pg is not None and pg["spec"]["minMember"] == 4
    _scale(cluster, "scale", 1)
    assert sorted(cluster.pods("scale")) == ["scale-default-0"]
    assert cluster.server.get("ConfigMap", "scale-svc", "default")["data"]["VC_DEFAULT_NUM"] == "1"


def test_same_seed_same_trace() -> None:
    def scenario() -> list[str]:
        c = Cluster(seed=3)
        c.start(job("demo", [task("worker", 2)], plugins={"ssh": [], "svc": []}))
        secret = str(c.server.get("Secret", "demo-ssh", "default")["data"])
        c.set_pods("demo", "Succeeded")
        # The finished-state kill removes what the plugins created.
        assert c.snapshot()["Secret"] == [] and c.snapshot()["ConfigMap"] == []
        return [*c.trace.lines(), secret]
    first = scenario()
    assert first == scenario()
    assert any("JobPhase" in line and "Completed" in line for line in first)
