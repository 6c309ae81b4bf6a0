"""Volcano's admission over the wire end to end: ``volcano serve --api-only --no-builtin-admission``,
``volcano webhooks``, ``volcano nodes``, ``volcano controllers`` and ``volcano scheduler`` as processes
on loopback. Every write of Volcano objects (the user's Job, the scheduler's queues, the controllers'
PodGroups and pods) passes through the HTTPS webhooks; a gang job is defaulted by them, scheduled and
run, and an invalid one is denied with the in-process admission's message.

Bounded: every wait has a deadline; the module takes about a minute of wall time on a loaded machine."""

from __future__ import annotations

import copy
import json
import signal
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("kubernetes", reason="the over-the-wire test needs the 'kubernetes' package")

from kubernetes import client, config

from tests.wire.conftest import wait_for
from volcano.conformance.backends.wire import WireProcesses

from .helpers import VOLCANO, Lines

pytestmark = pytest.mark.wire

JOB = {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": "gang"},
       "spec": {"minAvailable": 3, "tasks": [{"replicas": 3, "template": {
           "metadata": {"annotations": {"sim.volcano.sh/duration": "10m"}},
           "spec": {"containers": [{"name": "c", "image": "busybox",
                                    "resources": {"requests": {"cpu": "1"}}}]}}}]}}
"""No queue, no task name, no maxRetry: what mutatejob.volcano.sh fills in."""


@pytest.fixture(scope="module")
def processes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WireProcesses]:
    procs = WireProcesses(tmp_path_factory.mktemp("wire-webhooks"), speed=5)
    webhooks: subprocess.Popen[str] | None = None
    try:
        procs.start_serve("--no-builtin-admission", "--nodes", "0")
        webhooks = subprocess.Popen([*VOLCANO, "webhooks", "--kubeconfig", str(procs.kubeconfig), "--port", "0"],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        Lines(webhooks).until("volcano webhooks:")
        lease = ("--leader-elect-resource-namespace", "kube-system")
        nodes = ["--count", "3", "--cpu", "2", "--memory", "4Gi"]
        procs.start_components(nodes=nodes, controllers=lease, scheduler=lease)
        yield procs
    finally:
        codes = procs.stop()
        if webhooks is not None:
            webhooks.send_signal(signal.SIGTERM)
            webhooks.communicate(timeout=30)
        assert webhooks is None or webhooks.returncode == 0
        assert all(code == 0 for code in codes.values()), codes


def _create(custom: Any, job: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    try:
        return 201, custom.create_namespaced_custom_object("batch.volcano.sh", "v1alpha1", "default", "jobs",
                                                           copy.deepcopy(job))
    except client.exceptions.ApiException as exc:
        return int(exc.status), json.loads(exc.body)


def _wait_default_queue_open(custom: Any) -> None:
    """Wait until the scheduler has made the ``default`` queue and the queue controller opened it."""
    def state() -> str | None:
        try:
            queue = custom.get_cluster_custom_object("scheduling.volcano.sh", "v1beta1", "queues", "default")
        except client.exceptions.ApiException as exc:
            if exc.status == 404:
                return None
            raise
        return (queue.get("status") or {}).get("state")
    wait_for(lambda: state() == "Open", 90, "queue default Open")


def test_a_gang_job_admitted_by_the_webhooks_is_scheduled_and_runs(processes: WireProcesses) -> None:
    api = config.new_client_from_config(config_file=str(processes.kubeconfig))
    core, custom = client.CoreV1Api(api), client.CustomObjectsApi(api)
    # the scheduler's queues passed /queues/mutate and /queues/validate; the queue controller opened default
    _wait_default_queue_open(custom)
    code, created = _create(custom, JOB)
    assert code == 201, created
    spec = created["spec"]  # defaulted by mutatejob.volcano.sh: the server's own admission is off
    assert (spec["queue"], spec["maxRetry"], spec["tasks"][0]["name"]) == ("default", 3, "default0")

    def phase() -> str:
        job = custom.get_namespaced_custom_object("batch.volcano.sh", "v1alpha1", "default", "jobs", "gang")
        return str(((job.get("status") or {}).get("state") or {}).get("phase"))
    wait_for(lambda: phase() == "Running", 60, "the job Running")
    pods = core.list_namespaced_pod("default").items
    assert sorted(p.metadata.name for p in pods) == ["gang-default0-0", "gang-default0-1", "gang-default0-2"]
    assert all(p.status.phase == "Running" and p.spec.node_name.startswith("sim-node-") for p in pods)
    api.close()


def test_an_invalid_job_is_denied_by_the_webhook(processes: WireProcesses) -> None:
    api = config.new_client_from_config(config_file=str(processes.kubeconfig))
    custom = client.CustomObjectsApi(api)
    bad = copy.deepcopy(JOB)
    bad["metadata"]["name"] = "too-big"
    bad["spec"]["minAvailable"] = 5
    _wait_default_queue_open(custom)  # else validatejob also names the queue's state
    code, status = _create(custom, bad)
    assert code == 403
    assert status["message"] == ('jobs.batch.volcano.sh "too-big" is forbidden: admission webhook '
                                 '"validatejob.volcano.sh" denied the request: job \'minAvailable\' should not be '
                                 "greater than total replicas in tasks;")
    api.close()
