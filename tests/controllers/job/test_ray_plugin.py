"""The ``ray`` job plugin (reference §4.8): head/worker commands, head ports, the head Service."""

from __future__ import annotations

from typing import Any

import pytest

from tests.controllers.job.conftest import NS, Cluster, job, task
from volcano.apiserver import ApiServer
from volcano.controllers.job.plugins import PLUGINS, PluginContext, PluginError, RayPlugin, build_plugins
from volcano.controllers.job.pods import build_pod
from volcano.sim import RandomStreams, SimClock


def _ctx() -> PluginContext:
    streams = RandomStreams(1)
    server = ApiServer(SimClock(), streams)
    server.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns"}})
    return PluginContext(server, streams)


def _task(name: str, container: str, **pod_spec: Any) -> dict[str, Any]:
    return {"name": name, "replicas": 1, "template": {"spec": {
        "containers": [{"name": container, "image": "ray", "ports": [{"name": "x", "containerPort": 8265}]},
                       {"name": "sidecar", "image": "s"}], **pod_spec}}}


def _job(tasks: list[dict[str, Any]]) -> dict[str, Any]:
    return {"metadata": {"name": "rc", "namespace": "ns", "uid": "U"},
            "spec": {"queue": "default", "tasks": tasks}, "status": {}}


def test_registered_under_its_name() -> None:
    assert PLUGINS["ray"] is RayPlugin


def test_head_pod_gets_missing_ports_and_head_command() -> None:
    job = _job([_task("head", "ray"), _task("worker", "ray")])
    plugin = RayPlugin(["--port=2345", "--headContainer=ray", "--workerContainer=ray"], _ctx())
    pod = build_pod(job, job["spec"]["tasks"][0], 0)
    plugin.on_pod_create(pod, job)
    ray, sidecar = pod["spec"]["containers"]
    assert ray["ports"] == [{"name": "x", "containerPort": 8265}, {"name": "gcs", "containerPort": 2345},
                            {"name": "client-server", "containerPort": 10001}]
    assert ray["command"] == ["sh", "-c", "ray start --head --block --dashboard-host=0.0.0.0 --port=2345 "
                              "--dashboard-port=8265 --ray-client-server-port=10001"]
    assert "command" not in sidecar and "ports" not in sidecar


def test_worker_command_points_at_the_head_host() -> None:
    job = _job([_task("boss", "h", hostname="leader", subdomain="net"), _task("w", "c")])
    plugin = RayPlugin(["--head=boss", "--headContainer=h", "--worker=w", "--workerContainer=c"], _ctx())
    pod = build_pod(job, job["spec"]["tasks"][1], 0)
    plugin.on_pod_create(pod, job)
    assert pod["spec"]["containers"][0]["command"] == ["sh", "-c", "ray start --block --address=leader.net:6379"]
    assert pod["spec"]["containers"][0]["ports"] == [{"name": "x", "containerPort": 8265}]
    default = _job([_task("head", "head"), _task("worker", "worker")])
    pod = build_pod(default, default["spec"]["tasks"][1], 0)
    RayPlugin([], _ctx()).on_pod_create(pod, default)
    assert pod["spec"]["containers"][0]["command"][-1] == "ray start --block --address=rc-head-0.rc:6379"


def test_missing_head_task_is_an_error() -> None:
    job = _job([_task("worker", "worker")])
    with pytest.raises(PluginError, match="job rc doesn't have head task head"):
        RayPlugin([], _ctx()).on_pod_create(build_pod(job, job["spec"]["tasks"][0], 0), job)


def test_head_service_created_once_and_deleted_with_the_key() -> None:
    ctx = _ctx()
    job = _job([_task("head", "head"), _task("worker", "worker")])
    (plugin,) = build_plugins({"spec": {"plugins": {"ray": ["--dashboardPort=9000"]}}}, ctx)
    plugin.on_job_add(job)
    svc = ctx.client.get("Service", "rc-head-svc", "ns")
    assert svc["spec"]["selector"] == {"volcano.sh/job-name": "rc", "volcano.sh/job-namespace": "ns",
                                       "volcano.sh/task-spec": "head"}
    assert [(p["name"], p["port"], p["targetPort"], p["protocol"]) for p in svc["spec"]["ports"]] == [
        ("gcs", 6379, "gcs", "TCP"), ("dashboard", 9000, "dashboard", "TCP"),
        ("client-server", 10001, "client-server", "TCP")]
    assert svc["metadata"]["ownerReferences"][0]["kind"] == "Job"
    assert job["status"]["controlledResources"] == {"plugin-ray": "ray"}
    plugin.on_job_delete(job)
    assert ctx.client.list("Service", "ns")["items"] == []
    assert job["status"]["controlledResources"] == {}


def test_job_without_head_task_never_gets_pods(cluster: Cluster) -> None:
    """The plugin error fails every sync: no pod is created (the request is retried)."""
    cluster.submit(job("noray", [task("worker", 1)], plugins={"ray": []}))
    cluster.set_pg_phase("noray", "Inqueue")
    assert cluster.pods("noray") == {}
    assert any(r.detail.endswith("doesn't have head task head")
               for r in cluster.trace.records(component="job-controller", event="Requeue", obj=f"{NS}/noray"))
