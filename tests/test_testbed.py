"""The FakeCluster facade: names, defaults and behaviours other tests depend on."""

from __future__ import annotations

from pathlib import Path

import pytest

from volcano.api.frozen import is_frozen
from volcano.api.manifest import ManifestError
from volcano.apiserver import ApiError
from volcano.testbed import FakeCluster

POD = """
apiVersion: v1
kind: Pod
metadata:
  name: web
  labels: {app: web, tier: front}
  annotations: {sim.volcano.sh/duration: 5s}
spec:
  restartPolicy: Never
  containers: [{name: c, image: nginx, resources: {requests: {cpu: 500m}}}]
"""

VCJOB = """
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: demo}
spec:
  minAvailable: 1
  tasks: [{name: t, replicas: 1, template: {spec: {containers: [{name: c, image: busybox}]}}}]
"""

BATCHJOB = """
apiVersion: batch/v1
kind: Job
metadata: {name: demo}
spec:
  template: {spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}}
"""


def test_new_cluster_has_default_namespace_and_open_queues(fake_cluster: FakeCluster) -> None:
    c = fake_cluster
    assert c.get("Namespace", "default")["metadata"]["name"] == "default"
    queues = {q["metadata"]["name"]: q for q in c.list("Queue")}
    assert set(queues) == {"root", "default"}
    for queue in queues.values():
        assert queue["status"]["state"] == "Open"
        assert queue["spec"]["weight"] == 1
        assert "parent" not in queue["spec"]
    assert queues["default"]["spec"]["reclaimable"] is True
    assert c.now == 0.0
    assert c.client is c.server and c.kubelet is not None and c.streams.seed == 0


def test_add_node_shape(fake_cluster: FakeCluster) -> None:
    node = fake_cluster.add_node("n1", cpu="8", memory="16Gi", pods=20, gpu=2, labels={"zone": "a"},
                                 taints=["dedicated=ml:NoSchedule", {"key": "x", "effect": "NoExecute"}])
    assert node["status"]["capacity"] == node["status"]["allocatable"] == {
        "cpu": "8", "memory": "16Gi", "pods": "20", "nvidia.com/gpu": "2", "ephemeral-storage": "100Gi"}
    assert node["metadata"]["labels"]["kubernetes.io/hostname"] == "n1"
    assert node["metadata"]["labels"]["zone"] == "a"
    assert node["spec"]["taints"] == [{"key": "dedicated", "value": "ml", "effect": "NoSchedule"},
                                      {"key": "x", "effect": "NoExecute"}]
    ready = [cond for cond in node["status"]["conditions"] if cond["type"] == "Ready"]
    assert ready and ready[0]["status"] == "True"
    assert is_frozen(node)


def test_add_node_defaults_have_no_gpu(fake_cluster: FakeCluster) -> None:
    node = fake_cluster.add_node("n")
    assert node["status"]["capacity"] == {"cpu": "4", "memory": "8Gi", "pods": "110", "ephemeral-storage": "100Gi"}
    assert "taints" not in node["spec"]
    bare = fake_cluster.add_node("bare", ephemeral_storage=None)
    assert "ephemeral-storage" not in bare["status"]["capacity"]


@pytest.mark.parametrize(("kwargs", "needle"), [
    ({"cpu": "lots"}, "cpu"), ({"memory": "-1Gi"}, "memory"), ({"pods": -1}, "pods"), ({"gpu": 1.5}, "gpu"),
    ({"taints": ["nokey"]}, "taints[0]"), ({"taints": [{"key": "k", "effect": "Sometimes"}]}, "taints[0].effect"),
    ({"labels": {"a": 1}}, "labels"),
])
def test_add_node_bad_input_names_the_field(fake_cluster: FakeCluster, kwargs: dict[str, object],
                                            needle: str) -> None:
    with pytest.raises(ValueError) as err:
        fake_cluster.add_node("n", **kwargs)  # type: ignore[arg-type]
    assert needle in str(err.value)
    assert fake_cluster.list("Node") == []


def test_add_nodes_numbers_continue(fake_cluster: FakeCluster) -> None:
    first = fake_cluster.add_nodes(2, cpu="2")
    second = fake_cluster.add_nodes(1, cpu="2")
    other = fake_cluster.add_nodes(1, prefix="gpu-", gpu=1)
    assert [n["metadata"]["name"] for n in first + second + other] == ["node-0", "node-1", "node-2", "gpu-0"]
    assert [n["metadata"]["name"] for n in fake_cluster.list("Node")] == ["gpu-0", "node-0", "node-1", "node-2"]


def test_apply_creates_then_updates_keeping_status(fake_cluster: FakeCluster) -> None:
    c = fake_cluster
    c.add_node("n")
    [created] = c.apply(POD)
    assert created["metadata"]["namespace"] == "default"
    c.server.bind("web", "default", "n")
    c.run(2)
    assert c.get("Pod", "web")["status"]["phase"] == "Running"
    [updated] = c.apply(POD.replace("tier: front", "tier: back"))
    assert updated["metadata"]["uid"] == created["metadata"]["uid"]
    assert updated["metadata"]["labels"] == {"app": "web", "tier": "back"}
    assert updated["status"]["phase"] == "Running"


def test_apply_accepts_path_dict_and_list(fake_cluster: FakeCluster, tmp_path: Path) -> None:
    path = tmp_path / "q.yaml"
    path.write_text("apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: q1}\n"
                    "spec: {weight: 2}\n")
    fake_cluster.apply(path)
    fake_cluster.apply({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"a": "1"}})
    fake_cluster.apply([{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"b": "2"}}])
    assert fake_cluster.get("Queue", "q1")["spec"]["weight"] == 2
    assert fake_cluster.get("ConfigMap", "cm")["data"] == {"b": "2"}


def test_apply_validates_every_document_before_storing(fake_cluster: FakeCluster) -> None:
    text = POD + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {}\n"
    with pytest.raises(ManifestError):
        fake_cluster.apply(text)
    with pytest.raises(ManifestError, match="document 1"):
        fake_cluster.apply(POD + "---\napiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n")
    assert fake_cluster.list("Pod") == []


def test_apply_rejection_raises_api_error(fake_cluster: FakeCluster) -> None:
    with pytest.raises(ApiError) as err:
        fake_cluster.apply(POD.replace("name: web", "name: web\n  namespace: nowhere"))
    assert err.value.code == 404


def test_job_means_volcano_job_and_job_batch_means_kubernetes(fake_cluster: FakeCluster) -> None:
    c = fake_cluster
    c.apply(VCJOB)
    c.apply(BATCHJOB)
    assert c.get("Job", "demo")["apiVersion"] == "batch.volcano.sh/v1alpha1"
    assert c.get("Job.batch", "demo")["apiVersion"] == "batch/v1"
    c.delete("Job.batch", "demo")
    assert c.get("Job", "demo")
    with pytest.raises(ApiError):
        c.get("Job.batch", "demo")


def test_cluster_scoped_kinds_ignore_namespace(fake_cluster: FakeCluster) -> None:
    assert fake_cluster.get("Queue", "root", namespace="elsewhere")["metadata"]["name"] == "root"
    assert [q["metadata"]["name"] for q in fake_cluster.list("Queue", namespace="x")] == ["default", "root"]


def test_list_with_label_selectors(fake_cluster: FakeCluster) -> None:
    c = fake_cluster
    c.apply(POD)
    c.apply(POD.replace("name: web", "name: db").replace("app: web", "app: db"))
    names = lambda pods: [p["metadata"]["name"] for p in pods]  # noqa: E731
    assert names(c.list("Pod", "default", label_selector="app=web")) == ["web"]
    assert names(c.list("Pod", label_selector="tier=front")) == ["db", "web"]
    assert names(c.list("Pod", label_selector={"matchExpressions": [
        {"key": "app", "operator": "NotIn", "values": ["web"]}]})) == ["db"]
    assert names(c.list("Pod", "other")) == []


def _web_bound_to_n(c: FakeCluster) -> FakeCluster:
    """``c`` with node ``n`` and pod ``web`` (POD) bound to it by hand (no scheduling cycle yet)."""
    c.add_node("n")
    c.apply(POD)
    c.server.bind("web", "default", "n")
    return c


def test_delete_and_evict(fake_cluster: FakeCluster) -> None:
    c = _web_bound_to_n(fake_cluster)
    c.run(2)
    c.apply(POD.replace("name: web", "name: web2"))  # created after the last scheduling cycle
    c.evict("web")
    assert c.get("Pod", "web")["metadata"]["deletionTimestamp"]
    c.delete("Pod", "web2")  # never bound: removed at once
    assert [p["metadata"]["name"] for p in c.list("Pod")] == ["web"]
    c.run(31)
    assert c.list("Pod") == []


def test_run_and_run_until(fake_cluster: FakeCluster) -> None:
    c = _web_bound_to_n(fake_cluster)
    c.run(0.25)
    assert c.now == 0.25

    def web_succeeded(cluster: FakeCluster) -> bool:
        return cluster.get("Pod", "web")["status"]["phase"] == "Succeeded"

    assert c.run_until(web_succeeded) == 6.0
    assert c.now == 6.0
    with pytest.raises(ValueError, match="seconds"):
        c.run(-1)


def test_run_until_timeout_names_the_predicate(fake_cluster: FakeCluster) -> None:
    def never_true(cluster: FakeCluster) -> bool:
        return False

    with pytest.raises(TimeoutError, match="never_true"):
        fake_cluster.run_until(never_true, timeout=5)
    assert fake_cluster.now == 5.0
    with pytest.raises(TimeoutError, match="lambda"):
        fake_cluster.run_until(lambda c: False, timeout=1)


def test_events_filter_by_involved_object(fake_cluster: FakeCluster) -> None:
    c = fake_cluster
    c.apply(POD)
    pod = c.get("Pod", "web")
    queue = c.get("Queue", "default")
    recorder = c.recorder_for("tester")
    assert c.recorder_for("tester") is recorder
    recorder.event(pod, "Normal", "Hello", "first")
    recorder.event(pod, "Warning", "Oops", "second")
    recorder.event(queue, "Normal", "Hello", "queue")
    assert [e["reason"] for e in c.events("Pod", "web")] == ["Hello", "Oops"]
    assert [e["message"] for e in c.events("Queue")] == ["queue"]
    assert len(c.events()) == 3
    assert c.events("Pod", "other") == []
    assert [e["message"] for e in c.events(namespace="default", name="web")] == ["first", "second"]


def test_scheduler_conf_is_kept(tmp_path: Path) -> None:
    conf = 'actions: "enqueue, allocate"\n'
    assert FakeCluster(seed=1, scheduler_conf=conf).scheduler_conf == conf
