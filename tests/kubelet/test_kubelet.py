"""The simulated kubelet's pod lifecycle, driven through a FakeCluster."""

from __future__ import annotations

from typing import Any

import pytest

from volcano.apiserver import ApiError
from volcano.apiserver.faults import inject_stored_object
from volcano.kubelet import KubeletConfig
from volcano.testbed import FakeCluster


def pod(name: str, *, cpu: str = "1", duration: str | None = None, exit_code: int | None = None,
        restart: str = "Never", group: str | None = None, gang: bool = False, gpu: int = 0,
        grace: int | None = None) -> dict[str, Any]:
    annotations: dict[str, str] = {}
    if duration is not None:
        annotations["sim.volcano.sh/duration"] = duration
    if exit_code is not None:
        annotations["sim.volcano.sh/exit-code"] = str(exit_code)
    if group is not None:
        annotations["scheduling.k8s.io/group-name"] = group
    if gang:
        annotations["sim.volcano.sh/progress"] = "gang"
    requests: dict[str, str] = {"cpu": cpu}
    if gpu:
        requests["nvidia.com/gpu"] = str(gpu)
    resources: dict[str, Any] = {"requests": requests}
    if gpu:  # an extended resource needs a limit equal to its request
        resources["limits"] = {"nvidia.com/gpu": str(gpu)}
    spec: dict[str, Any] = {"restartPolicy": restart,
                            "containers": [{"name": "main", "image": "busybox", "resources": resources}]}
    if grace is not None:
        spec["terminationGracePeriodSeconds"] = grace
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "annotations": annotations},
            "spec": spec}


def podgroup(name: str, min_member: int) -> dict[str, Any]:
    return {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
            "metadata": {"name": name}, "spec": {"minMember": min_member, "queue": "default"}}


def start(c: FakeCluster, manifest: dict[str, Any], node: str) -> None:
    c.apply(manifest)
    c.server.bind(manifest["metadata"]["name"], "default", node)


def phase(c: FakeCluster, name: str) -> str:
    return c.get("Pod", name)["status"]["phase"]


def gone(c: FakeCluster, name: str) -> bool:
    return not c.list("Pod", "default") or all(p["metadata"]["name"] != name for p in c.list("Pod", "default"))


@pytest.fixture
def c() -> FakeCluster:
    cluster = FakeCluster(seed=0)
    cluster.add_nodes(2, cpu="4", memory="8Gi", pods=3, gpu=1)
    return cluster


def test_bound_pod_runs_after_start_delay_with_kubelet_status(c: FakeCluster) -> None:
    start(c, pod("p", duration="10s"), "node-0")
    c.run(0.999)
    assert phase(c, "p") == "Pending"
    assert c.run_until(lambda c: phase(c, "p") == "Running") == 1.0
    status = c.get("Pod", "p")["status"]
    assert status["startTime"] == "2024-01-01T00:00:01Z"
    assert status["hostIP"] == c.get("Node", "node-0")["status"]["addresses"][0]["address"]
    assert status["podIP"].startswith("10.64.0.")
    [cs] = status["containerStatuses"]
    assert cs["ready"] and cs["started"] and cs["restartCount"] == 0
    assert cs["state"] == {"running": {"startedAt": "2024-01-01T00:00:01Z"}}
    conditions = {cond["type"]: cond["status"] for cond in status["conditions"]}
    assert conditions == {"PodScheduled": "True", "Initialized": "True", "ContainersReady": "True",
                          "Ready": "True"}
    assert c.run_until(lambda c: phase(c, "p") == "Succeeded") == 11.0
    term = c.get("Pod", "p")["status"]["containerStatuses"][0]["state"]["terminated"]
    assert (term["exitCode"], term["reason"]) == (0, "Completed")
    assert [(r.event, r.object, r.detail) for r in c.trace.records(component="kubelet")] == [
        ("PodRunning", "default/p", "node-0"), ("PodSucceeded", "default/p", "node-0")]


def test_pod_ips_are_distinct_and_deterministic() -> None:
    def ips() -> list[str]:
        cluster = FakeCluster(seed=3)
        cluster.add_nodes(2, cpu="4")
        for i in range(4):
            start(cluster, pod(f"p{i}", cpu="100m"), f"node-{i % 2}")
        cluster.run(2)
        return [p["status"]["podIP"] for p in cluster.list("Pod")]

    first = ips()
    assert len(set(first)) == 4
    assert first == ips()


def test_nonzero_exit_with_restart_never_fails(c: FakeCluster) -> None:
    start(c, pod("p", duration="5s", exit_code=3), "node-0")
    assert c.run_until(lambda c: phase(c, "p") == "Failed") == 6.0
    term = c.get("Pod", "p")["status"]["containerStatuses"][0]["state"]["terminated"]
    assert (term["exitCode"], term["reason"]) == (3, "Error")
    assert c.kubelet.node_used("node-0").get("cpu") == 0


@pytest.mark.parametrize(("policy", "exit_code"), [("OnFailure", 1), ("Always", 1), ("Always", 0)])
def test_restart_in_place(c: FakeCluster, policy: str, exit_code: int) -> None:
    start(c, pod("p", duration="5s", exit_code=exit_code, restart=policy), "node-0")
    c.run(6.5)  # exited at 6 s, waiting for the restart
    status = c.get("Pod", "p")["status"]
    assert status["phase"] == "Running"
    cs = status["containerStatuses"][0]
    assert cs["restartCount"] == 1 and not cs["ready"] and "waiting" in cs["state"]
    assert cs["lastState"]["terminated"]["exitCode"] == exit_code
    c.run(0.5)  # restarted at 7 s; runs its 5 s again
    assert c.get("Pod", "p")["status"]["containerStatuses"][0]["state"]["running"]
    assert c.kubelet.remaining_work_ms("default", "p") == 5000
    c.run(6)
    assert c.get("Pod", "p")["status"]["containerStatuses"][0]["restartCount"] == 2
    assert [r.time_ms for r in c.trace.records(event="PodRestarted")] == [7000, 13000]


def test_on_failure_with_exit_zero_succeeds(c: FakeCluster) -> None:
    start(c, pod("p", duration="2s", restart="OnFailure"), "node-0")
    assert c.run_until(lambda c: phase(c, "p") == "Succeeded") == 3.0


def test_out_of_cpu_is_rejected_like_the_kubelet(c: FakeCluster) -> None:
    start(c, pod("a", cpu="3500m"), "node-0")
    c.run(0.1)
    start(c, pod("b", cpu="1"), "node-0")
    c.run(0.1)
    status = c.get("Pod", "b")["status"]
    assert status["phase"] == "Failed"
    assert status["reason"] == "OutOfcpu"
    assert status["message"] == ("Pod was rejected: Node didn't have enough resource: cpu, requested: 1000, "
                                 "used: 3500, capacity: 4000")
    assert [e["reason"] for e in c.events("Pod", "b")] == ["OutOfcpu"]
    c.run(2)
    assert phase(c, "a") == "Running"


def test_out_of_gpu_and_out_of_pods(c: FakeCluster) -> None:
    start(c, pod("g1", cpu="100m", gpu=1), "node-1")
    start(c, pod("g2", cpu="100m", gpu=1), "node-1")
    start(c, pod("x1", cpu="100m"), "node-1")
    start(c, pod("x2", cpu="100m"), "node-1")
    start(c, pod("x3", cpu="100m"), "node-1")
    c.run(0.1)
    assert phase(c, "g1") == "Pending"
    assert c.get("Pod", "g2")["status"]["reason"] == "OutOfnvidia.com/gpu"
    assert "nvidia.com/gpu, requested: 1, used: 1, capacity: 1" in c.get("Pod", "g2")["status"]["message"]
    assert phase(c, "x1") == phase(c, "x2") == "Pending"
    assert c.get("Pod", "x3")["status"]["reason"] == "OutOfpods"
    assert "pods, requested: 1, used: 3, capacity: 3" in c.get("Pod", "x3")["status"]["message"]


def test_terminated_pods_free_their_node(c: FakeCluster) -> None:
    start(c, pod("a", cpu="4", duration="1s"), "node-0")
    c.run(3)
    assert phase(c, "a") == "Succeeded"
    start(c, pod("b", cpu="4"), "node-0")
    c.run(2)
    assert phase(c, "b") == "Running"


def test_invalid_annotation_fails_the_pod_with_a_clear_message(c: FakeCluster) -> None:
    manifest = pod("p")
    manifest["metadata"]["annotations"]["sim.volcano.sh/duration"] = "forever"
    with pytest.raises(ApiError) as info:  # refused at create now (422 naming the annotation) ...
        c.apply(manifest)
    assert info.value.code == 422 and "sim.volcano.sh/duration" in info.value.message
    inject_stored_object(c.server, {**manifest, "status": {"phase": "Pending"}})  # ... but one stored before
    c.server.bind("p", "default", "node-0")
    c.run(0.1)
    status = c.get("Pod", "p")["status"]
    assert (status["phase"], status["reason"]) == ("Failed", "InvalidSimAnnotation")
    assert "sim.volcano.sh/duration" in status["message"] and "'forever'" in status["message"]


def test_graceful_deletion_runs_for_the_grace_period(c: FakeCluster) -> None:
    start(c, pod("p", grace=20), "node-0")
    c.run(5)
    c.delete("Pod", "p")
    c.run(19.5)
    live = c.get("Pod", "p")
    assert live["metadata"]["deletionTimestamp"] and live["status"]["phase"] == "Running"
    assert c.run_until(lambda c: gone(c, "p")) == 25.0
    [killed] = c.trace.records(event="PodKilled")
    assert killed.time_ms == 25_000


def test_stop_delay_ends_deletion_early_with_exit_zero() -> None:
    cluster = FakeCluster(kubelet=KubeletConfig(stop_delay_ms=2000))
    cluster.add_node("n", cpu="2")
    start(cluster, pod("p"), "n")
    cluster.run(2)
    seen: list[dict[str, Any]] = []
    cluster.informers.informer("Pod").add_handler(
        lambda kind, obj, old: seen.append(obj) if kind == "DELETED" else None)
    cluster.delete("Pod", "p")
    assert cluster.run_until(lambda c: gone(c, "p")) == 4.0
    cluster.run(0.1)
    [final] = seen
    assert final["status"]["phase"] == "Succeeded"
    assert final["status"]["containerStatuses"][0]["state"]["terminated"]["exitCode"] == 0


def test_grace_expiry_kills_with_137() -> None:
    cluster = FakeCluster()
    cluster.add_node("n", cpu="2")
    start(cluster, pod("p", grace=3), "n")
    cluster.run(2)
    seen: list[dict[str, Any]] = []
    cluster.informers.informer("Pod").add_handler(
        lambda kind, obj, old: seen.append(obj) if kind == "DELETED" else None)
    cluster.delete("Pod", "p")
    cluster.run(3.1)
    [final] = seen
    assert final["status"]["phase"] == "Failed"
    assert final["status"]["containerStatuses"][0]["state"]["terminated"]["exitCode"] == 137


def test_work_ending_during_grace_terminates_at_once(c: FakeCluster) -> None:
    start(c, pod("p", duration="10s", grace=30), "node-0")
    c.run(5)
    c.delete("Pod", "p")
    assert c.run_until(lambda c: gone(c, "p")) == 11.0
    assert [r.event for r in c.trace.records(component="kubelet")] == ["PodRunning", "PodSucceeded"]


def test_deleting_a_pod_that_has_not_started_removes_it_at_once(c: FakeCluster) -> None:
    start(c, pod("p"), "node-0")
    c.run(0.5)
    c.delete("Pod", "p")
    c.run(0.001)
    assert gone(c, "p")
    assert c.kubelet.node_used("node-0").get("cpu") == 0


def test_gang_pods_progress_only_with_min_member_running(c: FakeCluster) -> None:
    c.apply(podgroup("pg", 2))
    start(c, pod("a", cpu="1", duration="10s", group="pg", gang=True), "node-0")
    c.run(20)
    assert phase(c, "a") == "Running"
    assert c.kubelet.remaining_work_ms("default", "a") == 10_000
    start(c, pod("b", cpu="1", duration="10s", group="pg", gang=True), "node-1")  # runs at 21 s
    c.run_until(lambda c: phase(c, "a") == "Succeeded" and phase(c, "b") == "Succeeded")
    assert [(r.time_ms, r.object) for r in c.trace.records(event="PodSucceeded")] == [
        (31_000, "default/a"), (31_000, "default/b")]


def test_gang_progress_pauses_and_resumes_exactly(c: FakeCluster) -> None:
    c.apply(podgroup("pg", 2))
    start(c, pod("a", duration="10s", group="pg", gang=True), "node-0")
    start(c, pod("b", duration="30s", group="pg", gang=True), "node-1")
    c.run(5)  # both running since 1 s: 4 s of work done
    c.fail_node("node-1")
    assert c.kubelet.remaining_work_ms("default", "a") == 6000
    c.run(7.5)
    assert c.kubelet.remaining_work_ms("default", "a") == 6000
    c.recover_node("node-1")  # t = 12.5 s
    c.run_until(lambda c: phase(c, "a") == "Succeeded")
    assert c.now == 18.5
    # a finishing does not strand b: succeeded members still count towards minMember
    c.run_until(lambda c: phase(c, "b") == "Succeeded")
    assert c.now == 18.5 + 20


def test_gang_pod_without_its_podgroup_waits(c: FakeCluster) -> None:
    start(c, pod("a", duration="2s", group="missing", gang=True), "node-0")
    c.run(10)
    assert phase(c, "a") == "Running"
    c.apply(podgroup("missing", 1))
    assert c.run_until(lambda c: phase(c, "a") == "Succeeded") == 12.0


def test_alone_pods_ignore_their_gang(c: FakeCluster) -> None:
    c.apply(podgroup("pg", 5))
    start(c, pod("a", duration="2s", group="pg"), "node-0")
    assert c.run_until(lambda c: phase(c, "a") == "Succeeded") == 3.0


def test_fail_node_marks_it_unreachable_and_evicts_after_timeout(c: FakeCluster) -> None:
    start(c, pod("a"), "node-0")
    tolerant = pod("t")
    tolerant["spec"]["tolerations"] = [{"key": "node.kubernetes.io/unreachable", "operator": "Exists",
                                        "effect": "NoExecute", "tolerationSeconds": 10}]
    start(c, tolerant, "node-0")
    c.run(2)
    c.fail_node("node-0")
    node = c.get("Node", "node-0")
    ready = next(cond for cond in node["status"]["conditions"] if cond["type"] == "Ready")
    assert ready["status"] == "Unknown"
    assert sorted((t["key"], t["effect"]) for t in node["spec"]["taints"]) == [
        ("node.kubernetes.io/unreachable", "NoExecute"), ("node.kubernetes.io/unreachable", "NoSchedule")]
    c.run(10.5)
    assert gone(c, "t") and not gone(c, "a")
    c.run(290)
    assert gone(c, "a")
    c.recover_node("node-0")
    node = c.get("Node", "node-0")
    assert not node["spec"].get("taints")
    assert next(cond for cond in node["status"]["conditions"] if cond["type"] == "Ready")["status"] == "True"
    start(c, pod("b"), "node-0")
    assert c.run_until(lambda c: phase(c, "b") == "Running")


def test_pods_bound_to_a_failed_node_start_after_recovery(c: FakeCluster) -> None:
    c.fail_node("node-0")
    start(c, pod("a"), "node-0")
    c.run(30)
    assert phase(c, "a") == "Pending"
    c.recover_node("node-0")
    assert c.run_until(lambda c: phase(c, "a") == "Running") == 31.0


def test_unknown_node_fails_clearly(c: FakeCluster) -> None:
    from volcano.apiserver import ApiError

    with pytest.raises(ApiError) as err:
        c.fail_node("nope")
    assert err.value.code == 404 and "nope" in str(err.value)


def test_same_seed_same_trace() -> None:
    def scenario() -> list[str]:
        cluster = FakeCluster(seed=7)
        cluster.add_nodes(3, cpu="2")
        cluster.apply(podgroup("pg", 3))
        for i in range(6):
            start(cluster, pod(f"p{i}", cpu="1", duration=f"{i + 1}s", group="pg", gang=i < 3,
                               restart="OnFailure", exit_code=i % 2), f"node-{i % 3}")
        cluster.run(30)
        return cluster.trace.lines()

    first = scenario()
    assert len(first) > 10
    assert first == scenario()


def test_node_manifest_without_ready_condition_is_reported_ready() -> None:
    cluster = FakeCluster()
    cluster.apply({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "bare"}})
    cluster.run(0.01)
    conditions = cluster.get("Node", "bare")["status"]["conditions"]
    assert [(cond["type"], cond["status"]) for cond in conditions] == [("Ready", "True")]
    start(cluster, pod("p", cpu="64"), "bare")  # no allocatable known: admitted
    assert cluster.run_until(lambda c: phase(c, "p") == "Running") == 1.01


def test_deleting_a_node_removes_its_pods(c: FakeCluster) -> None:
    start(c, pod("a"), "node-0")
    c.run(2)
    c.delete("Node", "node-0")
    c.run(0.01)
    assert gone(c, "a")


def test_finish_containers_ends_a_process_that_has_no_duration(c: FakeCluster) -> None:
    start(c, pod("driver"), "node-0")  # no duration: runs until something ends it
    c.run(30)
    assert phase(c, "driver") == "Running"
    assert c.kubelet.finish_containers("default", "driver", exit_code=0)
    c.run(0.001)
    assert phase(c, "driver") == "Succeeded"
    assert c.kubelet.node_used("node-0").get("cpu") == 0
    assert not c.kubelet.finish_containers("default", "driver")  # not running any more


def test_finish_containers_follows_the_restart_policy(c: FakeCluster) -> None:
    start(c, pod("p", duration="1h", restart="OnFailure"), "node-0")
    c.run(5)
    c.kubelet.finish_containers("default", "p", exit_code=2)
    c.run(0.001)
    cs = c.get("Pod", "p")["status"]["containerStatuses"][0]
    assert cs["restartCount"] == 1 and cs["lastState"]["terminated"]["exitCode"] == 2
