"""Client libraries against ``volcano serve``: the official ``kubernetes`` client (typed APIs,
DynamicClient, watch, SharedInformer) and ``lightkube``."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from volcano.serve import ServedCluster

kubernetes = pytest.importorskip("kubernetes", reason="the official client tests need the 'kubernetes' package")
from kubernetes import client, config, dynamic, watch  # noqa: E402
from kubernetes.client.exceptions import ApiException  # noqa: E402

pytestmark = pytest.mark.kube_api(speed=20, nodes=2)

GROUP, VERSION = "batch.volcano.sh", "v1alpha1"


def _api(served: ServedCluster) -> client.ApiClient:
    return config.new_client_from_config(config_file=str(served.kubeconfig))


def _job(name: str, duration: str = "5s") -> dict[str, Any]:
    return {"apiVersion": f"{GROUP}/{VERSION}", "kind": "Job", "metadata": {"name": name},
            "spec": {"minAvailable": 1, "schedulerName": "volcano", "queue": "default",
                     "tasks": [{"name": "t", "replicas": 1, "template": {
                         "metadata": {"annotations": {"sim.volcano.sh/duration": duration}},
                         "spec": {"restartPolicy": "Never", "containers": [{
                             "name": "c", "image": "busybox",
                             "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}}}]}}


def _wait(predicate: Any, timeout: float = 30.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def test_version_and_typed_core_api(kube_api: ServedCluster) -> None:
    api = _api(kube_api)
    assert client.VersionApi(api).get_code().minor == "32"
    v1 = client.CoreV1Api(api)
    assert sorted(n.metadata.name for n in v1.list_node().items) == ["node-0", "node-1"]
    pod = client.V1Pod(metadata=client.V1ObjectMeta(name="p1", labels={"app": "x"}),
                       spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="busybox")]))
    created = v1.create_namespaced_pod("default", pod)
    assert created.metadata.uid and created.status.phase == "Pending"
    _wait(lambda: v1.read_namespaced_pod("p1", "default").status.phase == "Running", what="pod Running")
    patched = v1.patch_namespaced_pod("p1", "default", {"metadata": {"labels": {"extra": "1"}}},
                                      _content_type="application/merge-patch+json")
    assert patched.metadata.labels == {"app": "x", "extra": "1"}
    assert [p.metadata.name for p in v1.list_namespaced_pod("default", label_selector="app=x").items] == ["p1"]
    deleted = v1.delete_namespaced_pod("p1", "default")  # a Pod, as the model requires
    assert deleted.metadata.name == "p1"
    with pytest.raises(ApiException) as err:
        v1.read_namespaced_pod("nope", "default")
    assert err.value.status == 404 and '"reason":"NotFound"' in err.value.body.replace(" ", "")


def _typed_patches(served: ServedCluster) -> bool:
    return served.app.handlers._typed_patch


def test_patch_types_the_client_sends(kube_api: ServedCluster) -> None:
    """A dict is a strategic merge patch for built-in kinds, a list a JSON patch (RFC 6902)."""
    if not _typed_patches(kube_api):
        pytest.skip("strategic merge and JSON patch need ApiServer.patch(patch_type=...)")
    v1 = client.CoreV1Api(_api(kube_api))
    v1.create_namespaced_pod("default", client.V1Pod(
        metadata=client.V1ObjectMeta(name="sp", labels={"a": "1"}),
        spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="busybox:1")])))
    smp = v1.patch_namespaced_pod("sp", "default", {"spec": {"containers": [{"name": "c", "image": "busybox:2"}]}})
    assert [(c.name, c.image) for c in smp.spec.containers] == [("c", "busybox:2")]
    jp = v1.patch_namespaced_pod("sp", "default", [{"op": "add", "path": "/metadata/labels/b", "value": "2"}])
    assert jp.metadata.labels == {"a": "1", "b": "2"}


def test_custom_objects_run_a_volcano_job_to_completion(kube_api: ServedCluster) -> None:
    co = client.CustomObjectsApi(_api(kube_api))
    created = co.create_namespaced_custom_object(GROUP, VERSION, "default", "jobs", _job("j1"))
    assert created["metadata"]["uid"]

    def phase() -> str:
        job = co.get_namespaced_custom_object(GROUP, VERSION, "default", "jobs", "j1")
        return str(job.get("status", {}).get("state", {}).get("phase"))

    _wait(lambda: phase() == "Completed", what="job Completed")
    with pytest.raises(ApiException) as err:
        co.create_namespaced_custom_object(GROUP, VERSION, "default", "jobs", _job("j1"))
    assert err.value.status == 409
    status = co.delete_namespaced_custom_object(GROUP, VERSION, "default", "jobs", "j1")
    assert status["status"] == "Success"


def test_binding_with_preload_off_and_eviction(kube_api: ServedCluster) -> None:
    v1 = client.CoreV1Api(_api(kube_api))
    pod = client.V1Pod(metadata=client.V1ObjectMeta(name="manual"),
                       spec=client.V1PodSpec(scheduler_name="nobody",
                                             containers=[client.V1Container(name="c", image="x")]))
    v1.create_namespaced_pod("default", pod)
    body = client.V1Binding(metadata=client.V1ObjectMeta(name="manual"),
                            target=client.V1ObjectReference(api_version="v1", kind="Node", name="node-1"))
    resp = v1.create_namespaced_pod_binding("manual", "default", body, _preload_content=False)
    assert resp.status == 201
    assert v1.read_namespaced_pod("manual", "default").spec.node_name == "node-1"


def test_dynamic_client_discovers_and_uses_volcano_kinds(kube_api: ServedCluster, tmp_path: Path) -> None:
    dc = dynamic.DynamicClient(_api(kube_api), cache_file=str(tmp_path / "discovery.json"))
    jobs = dc.resources.get(api_version=f"{GROUP}/{VERSION}", kind="Job")
    assert jobs.namespaced and "vcjob" in jobs.short_names
    jobs.create(body=_job("dyn"), namespace="default")
    assert jobs.get(name="dyn", namespace="default").metadata.name == "dyn"
    queues = dc.resources.get(api_version="scheduling.volcano.sh/v1beta1", kind="Queue")
    assert {q.metadata.name for q in queues.get().items} >= {"default", "root"}
    seen = [ev["type"] for ev in jobs.watch(namespace="default", timeout=1)]
    assert seen[:1] == ["ADDED"]


def test_watch_stream_with_timeout_and_resource_version(kube_api: ServedCluster) -> None:
    v1 = client.CoreV1Api(_api(kube_api))
    rv = v1.list_namespaced_pod("default").metadata.resource_version
    v1.create_namespaced_pod("default", client.V1Pod(
        metadata=client.V1ObjectMeta(name="w1"),
        spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="x")])))
    w = watch.Watch()
    events = []
    for ev in w.stream(v1.list_namespaced_pod, "default", resource_version=rv, timeout_seconds=2):
        events.append((ev["type"], ev["object"].metadata.name))
        if ev["object"].status.phase == "Running":
            w.stop()
    assert events[0] == ("ADDED", "w1") and ("MODIFIED", "w1") in events


def test_shared_informer_keeps_a_cache(kube_api: ServedCluster) -> None:
    from kubernetes.informer import SharedInformer

    v1 = client.CoreV1Api(_api(kube_api))
    # A resync period makes the informer's watch carry timeoutSeconds: stop() joins the watch thread,
    # which otherwise waits for the next event of a quiet stream.
    informer = SharedInformer(v1.list_namespaced_pod, namespace="default", resync_period=1)
    added = threading.Event()
    informer.add_event_handler("ADDED", lambda obj: added.set())
    informer.start()
    try:
        v1.create_namespaced_pod("default", client.V1Pod(
            metadata=client.V1ObjectMeta(name="inf"),
            spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="x")])))
        assert added.wait(10)
        _wait(lambda: any(getattr(o, "metadata", None) and o.metadata.name == "inf"
                          for o in informer.cache.list()), what="informer cache")
    finally:
        informer.stop()


def test_lightkube_generic_resources(kube_api: ServedCluster) -> None:
    lightkube = pytest.importorskip("lightkube", reason="the lightkube test needs the 'lightkube' package")
    from lightkube import KubeConfig
    from lightkube.generic_resource import create_namespaced_resource
    from lightkube.resources.core_v1 import Pod

    lk = lightkube.Client(config=KubeConfig.from_file(str(kube_api.kubeconfig)))
    VcJob = create_namespaced_resource(GROUP, VERSION, "Job", "jobs")
    lk.create(VcJob(_job("lk")), namespace="default")
    assert lk.get(VcJob, "lk", namespace="default").metadata.name == "lk"
    _wait(lambda: len(list(lk.list(Pod, namespace="default", labels={"volcano.sh/job-name": "lk"}))) == 1,
          what="the job's pod")
    names = []
    for op, obj in lk.watch(Pod, namespace="default", labels={"volcano.sh/job-name": "lk"}):
        names.append((op, obj.metadata.name))
        break
    assert names[0][1] == "lk-t-0"
    lk.delete(VcJob, "lk", namespace="default")
