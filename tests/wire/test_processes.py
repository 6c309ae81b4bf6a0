"""The wire path end to end: ``volcano serve --api-only``, ``volcano nodes``, ``volcano controllers`` and
``volcano scheduler`` as separate processes on loopback schedule a gang job, seen through the official
client and kubectl (when installed); each process stops cleanly on SIGTERM.

Bounded: every wait has a deadline and the whole test takes well under two minutes."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("kubernetes", reason="the over-the-wire test needs the 'kubernetes' package")

from kubernetes import client, config

from tests.wire.conftest import wait_for
from volcano.conformance.backends.wire import WireProcesses

pytestmark = pytest.mark.wire

GANG_JOB = {
    "apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
    "metadata": {"name": "tf-small", "namespace": "default"},
    "spec": {"minAvailable": 3, "schedulerName": "volcano", "policies": [{"event": "PodEvicted",
                                                                           "action": "RestartJob"}],
             "tasks": [
                 {"name": "ps", "replicas": 1, "template": {
                     "metadata": {"annotations": {"sim.volcano.sh/duration": "10m"}},
                     "spec": {"restartPolicy": "OnFailure", "terminationGracePeriodSeconds": 1, "containers": [
                         {"name": "tensorflow", "image": "volcanosh/example-tf:0.0.1",
                          "resources": {"requests": {"cpu": "1", "memory": "2Gi"}}}]}}},
                 {"name": "worker", "replicas": 2, "template": {
                     "metadata": {"annotations": {"sim.volcano.sh/duration": "10m"}},
                     "spec": {"restartPolicy": "OnFailure", "terminationGracePeriodSeconds": 1, "containers": [
                         {"name": "tensorflow", "image": "volcanosh/example-tf:0.0.1",
                          "resources": {"requests": {"cpu": "2", "memory": "2Gi"}}}]}}}]},
}
"""The shape of fixtures/tensorflow-benchmark-job.yaml (1 ps + 2 workers, minAvailable 3), smaller."""


@pytest.fixture(scope="module")
def processes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WireProcesses]:
    procs = WireProcesses(tmp_path_factory.mktemp("wire-processes"))
    try:
        procs.start_serve()
        lease = ("--leader-elect-resource-namespace", "kube-system")
        nodes = ["--count", "3", "--cpu", "2", "--memory", "4Gi", "--prefix", "wire-node-"]
        procs.start_components(nodes=nodes, controllers=lease, scheduler=lease)
        yield procs
    finally:
        procs.stop()


def _api(procs: WireProcesses) -> Any:
    return config.new_client_from_config(config_file=str(procs.kubeconfig))


def _vcjob(custom: Any) -> Any:
    return custom.get_namespaced_custom_object("batch.volcano.sh", "v1alpha1", "default", "jobs", "tf-small")


def test_a_gang_job_is_scheduled_onto_simulated_nodes_and_runs(processes: WireProcesses) -> None:
    api = _api(processes)
    core, custom = client.CoreV1Api(api), client.CustomObjectsApi(api)
    coordination = client.CoordinationV1Api(api)
    # the nodes registered, with Lease heartbeats; both components hold their Lease
    wait_for(lambda: len(core.list_node().items) == 3, 30, "three nodes")
    nodes = {n.metadata.name: n for n in core.list_node().items}
    assert sorted(nodes) == ["wire-node-0", "wire-node-1", "wire-node-2"]
    assert all(c.status == "True" for n in nodes.values() for c in n.status.conditions if c.type == "Ready")
    assert sorted(lease.metadata.name for lease in coordination.list_namespaced_lease("kube-node-lease").items) == \
        sorted(nodes)
    wait_for(lambda: {lease.metadata.name: lease.spec.holder_identity
                      for lease in coordination.list_namespaced_lease("kube-system").items}.keys()
             >= {"vc-scheduler", "vc-controller-manager"}, 30, "the components' Leases")
    # the scheduler created the default queue and the queue controller opened it
    wait_for(lambda: (custom.get_cluster_custom_object("scheduling.volcano.sh", "v1beta1", "queues", "default")
                      .get("status") or {}).get("state") == "Open", 30, "queue default Open")
    custom.create_namespaced_custom_object("batch.volcano.sh", "v1alpha1", "default", "jobs", GANG_JOB)
    wait_for(lambda: ((_vcjob(custom).get("status") or {}).get("state") or {}).get("phase") == "Running", 60,
             "the job Running")
    pods = core.list_namespaced_pod("default").items
    assert sorted(p.metadata.name for p in pods) == ["tf-small-ps-0", "tf-small-worker-0", "tf-small-worker-1"]
    assert all(p.status.phase == "Running" and p.spec.node_name in nodes for p in pods)
    # 2 cpus per node: the ps (1 cpu) and each worker (2 cpus) cannot share, so the gang spans all three nodes
    assert len({p.spec.node_name for p in pods}) == 3
    def groups() -> list[tuple[str, int]]:
        items = custom.list_namespaced_custom_object("scheduling.volcano.sh", "v1beta1", "default",
                                                     "podgroups")["items"]
        return [(g["status"]["phase"], g["status"].get("running")) for g in items]

    wait_for(lambda: groups() == [("Running", 3)], 30, "the PodGroup to count three running pods")
    events = core.list_namespaced_event("default").items
    assert any(e.reason == "Scheduled" and e.source.component == "volcano" for e in events)
    api.close()


def test_kubectl_shows_the_gang_job_scheduled(processes: WireProcesses) -> None:
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl is not installed")
    env = {**os.environ, "KUBECONFIG": str(processes.kubeconfig)}

    def run(*args: str) -> str:
        done = subprocess.run([kubectl, *args], env=env, capture_output=True, text=True, timeout=60,
                              cwd=Path(processes.workdir))
        assert done.returncode == 0, done.stderr
        return done.stdout

    wait_for(lambda: "Running" in run("get", "vcjob", "tf-small", "-o", "jsonpath={.status.state.phase}"), 60,
             "kubectl to see the job Running")
    wide = run("get", "pods", "-o", "wide")
    rows = [line.split() for line in wide.splitlines()[1:]]
    assert sorted((r[0], r[2]) for r in rows) == [("tf-small-ps-0", "Running"), ("tf-small-worker-0", "Running"),
                                                  ("tf-small-worker-1", "Running")]
    assert {r[6] for r in rows} == {"wire-node-0", "wire-node-1", "wire-node-2"}
    assert "Running" in run("get", "podgroups")


def test_deleting_the_job_ends_its_pods_through_the_simulated_kubelet(processes: WireProcesses) -> None:
    api = _api(processes)
    core, custom = client.CoreV1Api(api), client.CustomObjectsApi(api)
    custom.delete_namespaced_custom_object("batch.volcano.sh", "v1alpha1", "default", "jobs", "tf-small")
    # graceful deletion: the kubelet stops the containers after the 1 s grace period, then removes the pods
    wait_for(lambda: not core.list_namespaced_pod("default").items, 30, "the pods to be gone")
    wait_for(lambda: not custom.list_namespaced_custom_object("scheduling.volcano.sh", "v1beta1", "default",
                                                              "podgroups")["items"], 30, "the PodGroup to be gone")
    api.close()


def test_every_process_stops_cleanly_on_sigterm(processes: WireProcesses) -> None:
    started = time.monotonic()
    codes = processes.stop()
    assert codes == {"scheduler": 0, "controllers": 0, "nodes": 0, "serve": 0}
    assert time.monotonic() - started < 20
    for name in ("scheduler", "controllers", "nodes"):
        assert f"volcano {name}: stopped" in processes.log(name)


def test_sigterm_stops_a_process_blocked_on_an_unreachable_api_server(tmp_path: Path) -> None:
    procs = WireProcesses(tmp_path)
    try:
        procs.start_serve()
        procs.start("nodes", "--count", "1", "--lease-renew-interval", "1s")
        serve = procs.procs.pop("serve")  # the API server goes away; the nodes' heartbeats now retry
        serve.terminate()
        assert serve.wait(20) == 0
        # a heartbeat now retries on the owner thread (backoff up to 30 s between attempts)
        wait_for(lambda: "retrying PATCH" in procs.log("nodes"), 20, "a heartbeat retrying")
        started = time.monotonic()
        codes = procs.stop(timeout=15)
        assert codes == {"nodes": 0}
        assert time.monotonic() - started < 10
        assert "volcano nodes: stopped" in procs.log("nodes")
    finally:
        procs.stop()
