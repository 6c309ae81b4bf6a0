"""Pod construction (reference §2.6) and the job plugins (reference §4)."""

from __future__ import annotations

import json
from typing import Any

from volcano.apiserver import ApiServer
from volcano.controllers.job.plugins import (
    EnvPlugin,
    MpiPlugin,
    PluginContext,
    PytorchPlugin,
    SshPlugin,
    SvcPlugin,
    TensorflowPlugin,
    UnknownPluginError,
    build_plugins,
    parse_flags,
)
from volcano.controllers.job.plugins.ssh import fake_key_pair, ssh_config
from volcano.controllers.job.plugins.svc import generate_hosts
from volcano.controllers.job.pods import build_pod
from volcano.sim import RandomStreams, SimClock


def ctx() -> PluginContext:
    streams = RandomStreams(1)
    server = ApiServer(SimClock(), streams)
    server.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns"}})
    return PluginContext(server, streams)


def mkjob(**spec: Any) -> dict[str, Any]:
    tasks = spec.pop("tasks", [{"name": "master", "replicas": 1, "template": {"spec": {"containers": [
        {"name": "c", "image": "i"}]}}}, {"name": "worker", "replicas": 2, "template": {"spec": {
            "containers": [{"name": "c", "image": "i"}], "initContainers": [{"name": "init", "image": "i"}]}}}])
    return {"metadata": {"name": "j", "namespace": "ns", "uid": "U",
                         "annotations": {"volcano.sh/preemptable": "true", "volcano.sh/jdb-max-unavailable": "1"}},
            "spec": {"queue": "q", "schedulerName": "volcano", "tasks": tasks, **spec},
            "status": {"version": 2, "retryCount": 1}}


def pod_for(job: dict[str, Any], task_index: int, i: int) -> dict[str, Any]:
    return build_pod(job, job["spec"]["tasks"][task_index], i)


def env_of(container: dict[str, Any]) -> dict[str, Any]:
    return {e["name"]: e.get("value", e.get("valueFrom")) for e in container.get("env", [])}


def test_build_pod_metadata() -> None:
    job = mkjob(priorityClassName="high")
    job["spec"]["tasks"][1]["topologyPolicy"] = "best-effort"
    pod = pod_for(job, 1, 1)
    assert pod["metadata"]["name"] == "j-worker-1"
    ann = pod["metadata"]["annotations"]
    assert ann["volcano.sh/job-version"] == "2" and ann["volcano.sh/job-retry-count"] == "1"
    assert ann["volcano.sh/numa-topology-policy"] == "best-effort"
    assert ann["volcano.sh/preemptable"] == "true" and ann["volcano.sh/jdb-max-unavailable"] == "1"
    assert ann["scheduling.k8s.io/group-name"] == "j-U"
    assert pod["spec"]["priorityClassName"] == "high" and pod["spec"]["schedulerName"] == "volcano"


def test_template_scheduler_name_wins() -> None:
    job = mkjob()
    job["spec"]["tasks"][0]["template"]["spec"]["schedulerName"] = "default-scheduler"
    assert pod_for(job, 0, 0)["spec"]["schedulerName"] == "default-scheduler"


def test_job_volumes_mounted_in_regular_containers_only() -> None:
    job = mkjob(volumes=[{"mountPath": "/data", "volumeClaimName": "pvc1"},
                         {"mountPath": "/again", "volumeClaimName": "pvc1"}])
    pod = build_pod(job, job["spec"]["tasks"][1], 0, random_suffix=lambda: "abcdefghijkl")
    assert pod["spec"]["volumes"] == [{"name": "j-abcdefghijkl", "persistentVolumeClaim": {"claimName": "pvc1"}}]
    assert pod["spec"]["containers"][0]["volumeMounts"] == [{"name": "j-abcdefghijkl", "mountPath": "/data"}]
    assert "volumeMounts" not in pod["spec"]["initContainers"][0]


def test_partition_label() -> None:
    job = mkjob()
    job["spec"]["tasks"][1]["partitionPolicy"] = {"partitionSize": 2, "totalPartitions": 1}
    assert pod_for(job, 1, 1)["metadata"]["labels"]["volcano.sh/partition-id"] == "0"


def test_parse_flags_go_style() -> None:
    defaults = {"port": 22, "name": "x", "flag": False}
    assert parse_flags(["--port=23", "-name", "y", "--flag"], defaults) == ({"port": 23, "name": "y", "flag": True},
                                                                            None)
    values, err = parse_flags(["--port=24", "--no-root", "--name=z"], defaults)
    assert values == {"port": 24, "name": "x", "flag": False}
    assert err == "flag provided but not defined: -no-root"
    values, err = parse_flags(["--flag=maybe"], defaults)
    assert err is not None and "maybe" in err


def test_env_plugin() -> None:
    job = mkjob()
    pod = pod_for(job, 1, 1)
    EnvPlugin([], ctx()).on_pod_create(pod, job)
    assert env_of(pod["spec"]["containers"][0]) == {"VK_TASK_INDEX": "1", "VC_TASK_INDEX": "1"}
    assert env_of(pod["spec"]["initContainers"][0]) == {"VK_TASK_INDEX": "1", "VC_TASK_INDEX": "1"}


def test_svc_hosts_with_dash_task_and_fixed_hostname() -> None:
    job = mkjob(tasks=[{"name": "my-task", "replicas": 2, "template": {"spec": {}}},
                       {"name": "fixed", "replicas": 3, "template": {"spec": {"hostname": "h", "subdomain": "s"}}}])
    assert generate_hosts(job) == {"my_task.host": "j-my-task-0.j\nj-my-task-1.j", "VC_MY_TASK_HOSTS":
                                   "j-my-task-0.j,j-my-task-1.j", "VC_MY_TASK_NUM": "2",
                                   "fixed.host": "h.s", "VC_FIXED_HOSTS": "h.s", "VC_FIXED_NUM": "1"}


def test_svc_flags_disable_network_policy_and_host_env() -> None:
    c = ctx()
    job = mkjob()
    plugin = SvcPlugin(["--disable-network-policy=true", "--inject-hosts-env=false"], c)
    plugin.on_job_add(job)
    assert job["status"]["controlledResources"]["plugin-svc"] == "svc"
    assert c.client.list("NetworkPolicy", "ns")["items"] == []
    assert [s["metadata"]["name"] for s in c.client.list("Service", "ns")["items"]] == ["j"]
    pod = pod_for(job, 0, 0)
    plugin.on_pod_create(pod, job)
    assert "env" not in pod["spec"]["containers"][0]
    assert pod["spec"]["containers"][0]["volumeMounts"] == [{"mountPath": "/etc/volcano", "name": "j-svc"}]
    plugin.on_job_delete(job)
    assert c.client.list("Service", "ns")["items"] == [] and c.client.list("ConfigMap", "ns")["items"] == []
    assert "plugin-svc" not in job["status"]["controlledResources"]


def test_ssh_plugin_secret_is_deterministic_and_not_regenerated() -> None:
    c = ctx()
    job = mkjob()
    plugin = SshPlugin(["--ssh-key-file-path=/home/u/.ssh", "--ssh-port=70000"], c)
    assert plugin.port == 22
    plugin.on_job_add(job)
    first = c.client.get("Secret", "j-ssh", "ns")["data"]
    job["status"]["controlledResources"].clear()
    SshPlugin([], c).on_job_add(job)  # config unchanged: keys kept
    assert c.client.get("Secret", "j-ssh", "ns")["data"] == first
    pod = pod_for(job, 0, 0)
    plugin.on_pod_create(pod, job)
    vol = pod["spec"]["volumes"][0]
    assert vol["secret"]["defaultMode"] == 0o644
    assert pod["spec"]["containers"][0]["volumeMounts"] == [{"mountPath": "/home/u/.ssh", "subPath": ".ssh",
                                                             "name": "j-ssh"}]


def test_fake_key_pair_shape() -> None:
    private, public = fake_key_pair(bytes(range(256)) * 6)
    assert private.splitlines()[0] == "-----BEGIN RSA PRIVATE KEY-----"
    assert all(len(line) <= 64 for line in private.splitlines())
    assert public.startswith("ssh-rsa AAAAB3NzaC1yc2E")  # base64 of the "ssh-rsa" wire-format prefix
    assert ssh_config(mkjob(), 2222).count("  Port 2222\n") == 3


def test_pytorch_plugin() -> None:
    job = mkjob()
    plugin = PytorchPlugin(["--port=1234", "--wait-master-enabled=true"], ctx())
    master, worker = pod_for(job, 0, 0), pod_for(job, 1, 1)
    plugin.on_pod_create(master, job)
    plugin.on_pod_create(worker, job)
    assert env_of(master["spec"]["containers"][0]) == {"MASTER_ADDR": "j-master-0.j", "MASTER_PORT": "1234",
                                                       "WORLD_SIZE": "3", "RANK": "0"}
    assert env_of(worker["spec"]["containers"][0])["RANK"] == "2"
    assert worker["spec"]["containers"][0]["ports"] == [{"name": "pytorchjob-port", "containerPort": 1234}]
    assert [c["name"] for c in worker["spec"]["initContainers"]] == ["init", "wait-for-master"]


def test_tensorflow_plugin() -> None:
    job = mkjob(tasks=[{"name": "ps", "replicas": 1, "template": {"spec": {"containers": [{"name": "c"}]}}},
                       {"name": "worker", "replicas": 2, "template": {"spec": {"containers": [{"name": "c"}]}}}])
    pod = pod_for(job, 1, 1)
    TensorflowPlugin([], ctx()).on_pod_create(pod, job)
    value = env_of(pod["spec"]["containers"][0])["TF_CONFIG"]
    assert json.loads(value) == {"cluster": {"ps": ["j-ps-0.j:2222"], "worker": ["j-worker-0.j:2222",
                                                                                 "j-worker-1.j:2222"]},
                                 "task": {"type": "worker", "index": 1}}
    assert value.startswith('{"cluster":{"ps":')
    single = mkjob(tasks=[{"name": "ps", "replicas": 1, "template": {"spec": {"containers": [{"name": "c"}]}}}])
    pod = pod_for(single, 0, 0)
    TensorflowPlugin([], ctx()).on_pod_create(pod, single)
    assert "env" not in pod["spec"]["containers"][0]


def test_mpi_plugin() -> None:
    job = mkjob()
    plugin = MpiPlugin([], ctx())
    master, worker = pod_for(job, 0, 0), pod_for(job, 1, 0)
    plugin.on_pod_create(master, job)
    plugin.on_pod_create(worker, job)
    assert env_of(master["spec"]["containers"][0]) == {"MPI_HOST": "j-worker-0.j,j-worker-1.j"}
    assert "env" not in worker["spec"]["containers"][0]
    assert worker["spec"]["initContainers"][0]["ports"] == [{"name": "mpijob-port", "containerPort": 22}]


def test_build_plugins_sorted_and_unknown() -> None:
    names = [p.name for p in build_plugins(mkjob(plugins={"svc": [], "env": [], "ssh": []}), ctx())]
    assert names == ["env", "ssh", "svc"]
    try:
        build_plugins(mkjob(plugins={"big_plugin": []}), ctx())
    except UnknownPluginError as exc:
        assert str(exc) == "failed to get plugin big_plugin"
    else:
        raise AssertionError("unknown plugin accepted")
