"""Admission conformance: Volcano Job defaulting (upstream "Job Mutating E2E Test").

The job mutating webhook (CREATE only) fills ``queue``, ``schedulerName``, ``maxRetry``,
task ``minAvailable``/``maxRetry``, the job's ``minAvailable`` (sum of the tasks'), and adds the
``svc`` (and for mpi ``ssh``) plugins the distributed-training plugins need. Each case checks
the object the create returns and the stored object, since both are what clients read.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.test_admission import own_queue, plain, pod_template, queue_manifest, wait_queue_open

__all__: list[str] = []

Obj = dict[str, Any]
SUITE = "admission"


def _job(name: str, spec: Obj) -> Obj:
    return {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": name}, "spec": spec}


def _task(name: str, replicas: int, **extra: Any) -> Obj:
    return {"name": name, "replicas": replicas, "template": pod_template(), **extra}


def _one_task_job(name: str) -> Obj:
    """Upstream's minimal job: queue ``default``, minAvailable 1, one task ``task-1`` of one replica."""
    return _job(name, {"minAvailable": 1, "queue": "default", "tasks": [_task("task-1", 1)]})


def _create(cluster: Cluster, job: Obj) -> Obj:
    """Create ``job``; return its spec as created, after checking the store holds the same spec."""
    created = plain(cluster.apply(job)[0])
    stored = plain(cluster.get("Job", job["metadata"]["name"]))
    assert stored["spec"] == created["spec"], "the create response and the stored job differ"
    spec: Obj = created["spec"]
    return spec


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should add default queue when not specified")
def test_default_queue(cluster: Cluster) -> None:
    spec = _create(cluster, _job("default-queue-job", {"minAvailable": 1, "tasks": [_task("task-1", 1)]}))
    assert spec["queue"] == "default"


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should add default scheduler name when not specified")
def test_default_scheduler_name(cluster: Cluster) -> None:
    spec = _create(cluster, _one_task_job("default-scheduler-job"))
    # Upstream only checks "non-empty"; the default is the webhook's first scheduler name.
    assert spec["schedulerName"] == "volcano"


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should add default maxRetry when not specified")
def test_default_max_retry(cluster: Cluster) -> None:
    spec = _create(cluster, _one_task_job("default-max-retry-job"))
    assert spec["maxRetry"] == 3
    assert spec["tasks"][0]["maxRetry"] == 3


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should calculate and set default minAvailable when not specified")
def test_default_min_available_is_sum_of_replicas(cluster: Cluster) -> None:
    spec = _create(cluster, _job("default-min-available-job",
                                 {"queue": "default", "tasks": [_task("task-1", 2), _task("task-2", 3)]}))
    assert spec["minAvailable"] == 5
    assert [t["minAvailable"] for t in spec["tasks"]] == [2, 3]


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should calculate minAvailable considering task-level minAvailable when specified")
def test_default_min_available_uses_task_min_available(cluster: Cluster) -> None:
    spec = _create(cluster, _job("task-min-available-job",
                                 {"queue": "default",
                                  "tasks": [_task("task-1", 2, minAvailable=1), _task("task-2", 3)]}))
    assert spec["minAvailable"] == 4
    assert [t["minAvailable"] for t in spec["tasks"]] == [1, 3]


def _plugins_after_create(cluster: Cluster, name: str, plugins: dict[str, list[str]]) -> dict[str, list[str]]:
    spec = _create(cluster, _job(name, {"minAvailable": 1, "queue": "default", "plugins": plugins,
                                        "tasks": [_task("task-1", 1)]}))
    result: dict[str, list[str]] = spec["plugins"]
    return result


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should add svc plugin for tensorflow plugin")
def test_svc_plugin_added_for_tensorflow(cluster: Cluster) -> None:
    plugins = _plugins_after_create(cluster, "tensorflow-plugin-job", {"tensorflow": []})
    assert sorted(plugins) == ["svc", "tensorflow"]
    assert not plugins["svc"]


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should add svc plugin for mpi plugin")
def test_svc_plugin_added_for_mpi(cluster: Cluster) -> None:
    plugins = _plugins_after_create(cluster, "mpi-plugin-job", {"mpi": ["--master=task-1", "--worker=task-1"]})
    assert "svc" in plugins and "mpi" in plugins
    assert plugins["mpi"] == ["--master=task-1", "--worker=task-1"]
    assert not plugins["svc"]


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should add svc plugin for pytorch plugin")
def test_svc_plugin_added_for_pytorch(cluster: Cluster) -> None:
    plugins = _plugins_after_create(cluster, "pytorch-plugin-job", {"pytorch": []})
    assert sorted(plugins) == ["pytorch", "svc"]


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should add ssh plugin for mpi plugin")
def test_ssh_plugin_added_for_mpi(cluster: Cluster) -> None:
    plugins = _plugins_after_create(cluster, "mpi-ssh-plugin-job", {"mpi": ["--master=task-1", "--worker=task-1"]})
    assert sorted(plugins) == ["mpi", "ssh", "svc"]
    assert not plugins["ssh"]


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should not override existing plugins")
def test_existing_plugins_kept(cluster: Cluster) -> None:
    plugins = _plugins_after_create(cluster, "existing-plugins-job",
                                    {"tensorflow": [], "svc": ["--enable-networking"]})
    assert sorted(plugins) == ["svc", "tensorflow"]
    assert plugins["svc"] == ["--enable-networking"]


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should preserve existing field values when specified")
def test_explicit_job_fields_preserved(cluster: Cluster, request: pytest.FixtureRequest) -> None:
    own_queue(request, cluster, "custom-queue-job")
    cluster.apply(queue_manifest("custom-queue-job", {"weight": 1}, namespace=cluster.namespace))
    wait_queue_open(cluster, "custom-queue-job")
    spec = _create(cluster, _job("preserve-values-job", {
        "minAvailable": 2, "queue": "custom-queue-job", "schedulerName": "custom-sched", "maxRetry": 10,
        "tasks": [_task("custom-task", 3, minAvailable=2, maxRetry=5)]}))
    assert (spec["minAvailable"], spec["queue"], spec["schedulerName"], spec["maxRetry"]) == (
        2, "custom-queue-job", "custom-sched", 10)
    task = spec["tasks"][0]
    assert (task["name"], task["replicas"], task["minAvailable"], task["maxRetry"]) == ("custom-task", 3, 2, 5)


# ------------------------------------------------------------------------------------------------
# Task-level defaults. Upstream dropped these e2e cases (its MutatingAdmissionPolicy run cannot
# iterate over tasks), but the webhook still sets them and clients rely on them.


@pytest.mark.admission
def test_default_task_names(cluster: Cluster) -> None:
    spec = _create(cluster, _job("default-task-name-job", {
        "queue": "default",
        "tasks": [{"replicas": 1, "template": pod_template()}, {"replicas": 2, "template": pod_template()}]}))
    assert [t["name"] for t in spec["tasks"]] == ["default0", "default1"]
    assert spec["minAvailable"] == 3


@pytest.mark.admission
def test_host_network_task_gets_cluster_first_with_host_net(cluster: Cluster) -> None:
    template = pod_template()
    template["spec"]["hostNetwork"] = True
    spec = _create(cluster, _job("host-network-job", {"minAvailable": 1, "queue": "default",
                                                      "tasks": [_task("task-1", 1, template=template)]}))
    assert spec["tasks"][0]["template"]["spec"]["dnsPolicy"] == "ClusterFirstWithHostNet"


@pytest.mark.admission
def test_task_min_available_and_max_retry_defaults(cluster: Cluster) -> None:
    spec = _create(cluster, _job("task-defaults-job", {"minAvailable": 1, "queue": "default",
                                                       "tasks": [_task("task-1", 4), _task("task-2", 2, maxRetry=7)]}))
    assert [(t["minAvailable"], t["maxRetry"]) for t in spec["tasks"]] == [(4, 3), (2, 7)]
    assert spec["minAvailable"] == 1
