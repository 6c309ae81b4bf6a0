"""The product's seed manifests (TensorFlow and MPI jobs): PodGroup shape as observed on a
real cluster, plugin objects, and completion through TaskCompleted -> CompleteJob."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.controllers.job.conftest import Cluster, webhook_defaults
from tests.controllers.job.test_jobseq_cases import subsequence
from volcano.api.quantity import parse_quantity

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"


def load(name: str) -> dict[str, Any]:
    return webhook_defaults(yaml.safe_load((FIXTURES / name).read_text()))


def test_mpi_podgroup_matches_observed_shape(cluster: Cluster) -> None:
    observed = yaml.safe_load((FIXTURES / "mpi-job-podgroup-observed.yaml").read_text())
    cluster.submit(load("mpi-job.yaml"))
    pg = cluster.podgroup("lm-mpi-job")
    assert pg is not None
    job = cluster.job("lm-mpi-job")
    uid = job["metadata"]["uid"]
    assert pg["metadata"]["name"] == f"lm-mpi-job-{uid}"
    want_ref = dict(observed["metadata"]["ownerReferences"][0], uid=uid)
    assert pg["metadata"]["ownerReferences"] == [want_ref]
    assert pg["metadata"]["labels"] == observed["metadata"]["labels"]
    assert pg["metadata"]["annotations"] == observed["metadata"]["annotations"]
    spec = pg["spec"]
    assert spec["minMember"] == observed["spec"]["minMember"] == 4
    assert spec["minTaskMember"] == observed["spec"]["minTaskMember"]
    assert spec["queue"] == observed["spec"]["queue"]
    assert spec["minResources"] == observed["spec"]["minResources"]  # same keys and the same canonical strings
    assert {k: parse_quantity(v) for k, v in spec["minResources"].items()} == \
        {k: parse_quantity(v) for k, v in observed["spec"]["minResources"].items()}


def test_tensorflow_podgroup_min_resources(cluster: Cluster) -> None:
    cluster.submit(load("tensorflow-benchmark-job.yaml"))
    pg = cluster.podgroup("tensorflow-benchmark")
    assert pg is not None
    assert pg["spec"]["minMember"] == 3
    assert pg["spec"]["minTaskMember"] == {"ps": 1, "worker": 2}
    got = {k: parse_quantity(v) for k, v in pg["spec"]["minResources"].items()}
    gi = 1024 ** 3
    assert got == {"count/pods": 3, "pods": 3, "cpu": 5, "requests.cpu": 5, "limits.cpu": 5,
                   "memory": 6 * gi, "requests.memory": 6 * gi, "limits.memory": 10 * gi}
    assert pg["spec"]["minResources"]["memory"] == "6Gi"


def test_tensorflow_plugins_env_hosts_configmap_service(cluster: Cluster) -> None:
    cluster.submit(load("tensorflow-benchmark-job.yaml"))
    cm = cluster.server.get("ConfigMap", "tensorflow-benchmark-svc", "default")
    assert cm["data"] == {
        "ps.host": "tensorflow-benchmark-ps-0.tensorflow-benchmark",
        "VC_PS_HOSTS": "tensorflow-benchmark-ps-0.tensorflow-benchmark", "VC_PS_NUM": "1",
        "worker.host": "tensorflow-benchmark-worker-0.tensorflow-benchmark\n"
                       "tensorflow-benchmark-worker-1.tensorflow-benchmark",
        "VC_WORKER_HOSTS": "tensorflow-benchmark-worker-0.tensorflow-benchmark,"
                           "tensorflow-benchmark-worker-1.tensorflow-benchmark",
        "VC_WORKER_NUM": "2"}
    svc = cluster.server.get("Service", "tensorflow-benchmark", "default")
    assert svc["spec"]["clusterIP"] == "None"
    assert svc["spec"]["selector"] == {"volcano.sh/job-name": "tensorflow-benchmark",
                                       "volcano.sh/job-namespace": "default"}
    assert svc["metadata"]["ownerReferences"][0]["name"] == "tensorflow-benchmark"
    netpol = cluster.server.get("NetworkPolicy", "tensorflow-benchmark", "default")
    assert netpol["spec"]["policyTypes"] == ["Ingress"]
    cluster.set_pg_phase("tensorflow-benchmark")
    pod = cluster.pods("tensorflow-benchmark")["tensorflow-benchmark-worker-1"]
    assert pod["spec"]["hostname"] == "tensorflow-benchmark-worker-1"
    assert pod["spec"]["subdomain"] == "tensorflow-benchmark"
    container = pod["spec"]["containers"][0]
    env = {e["name"]: e for e in container["env"]}
    assert env["VK_TASK_INDEX"]["value"] == env["VC_TASK_INDEX"]["value"] == "1"
    assert env["VC_PS_HOSTS"]["valueFrom"] == {"configMapKeyRef": {"name": "tensorflow-benchmark-svc",
                                                                    "key": "VC_PS_HOSTS"}}
    assert {"mountPath": "/etc/volcano", "name": "tensorflow-benchmark-svc"} in container["volumeMounts"]
    assert {"name": "tensorflow-benchmark-svc", "configMap": {"name": "tensorflow-benchmark-svc"}} \
        in pod["spec"]["volumes"]
    status = cluster.status("tensorflow-benchmark")
    assert status["controlledResources"] == {"plugin-env": "env", "plugin-svc": "svc"}


@pytest.mark.parametrize(("fixture", "name", "finisher"), [
    ("tensorflow-benchmark-job.yaml", "tensorflow-benchmark", "worker"),
    ("mpi-job.yaml", "lm-mpi-job", "mpimaster"),
])
def test_seed_job_completes_through_task_completed(cluster: Cluster, fixture: str, name: str,
                                                   finisher: str) -> None:
    cluster.start(load(fixture))
    assert cluster.phase(name) == "Running"
    cluster.set_pods(name, "Succeeded", task=finisher)
    assert subsequence(["Pending", "Running", "Completing", "Completed"], cluster.phases(name)), cluster.phases(name)
    assert any("CompleteJob" in e["message"] for e in cluster.events("ExecuteAction"))
    # Plugin objects and the PodGroup are gone; finished pods stay.
    snap = cluster.snapshot()
    assert snap["PodGroup"] == [] and snap["ConfigMap"] == [] and snap["Service"] == [] and snap["Secret"] == []
    assert all(p["metadata"]["labels"]["volcano.sh/task-spec"] == finisher for p in cluster.pods(name).values())


def test_mpi_ssh_secret_and_mounts(cluster: Cluster) -> None:
    cluster.submit(load("mpi-job.yaml"))
    secret = cluster.server.get("Secret", "lm-mpi-job-ssh", "default")
    data = {k: base64.b64decode(v).decode() for k, v in secret["data"].items()}
    assert data["id_rsa"].startswith("-----BEGIN RSA PRIVATE KEY-----\n")
    assert data["id_rsa"].endswith("-----END RSA PRIVATE KEY-----\n")
    assert data["id_rsa.pub"].startswith("ssh-rsa ") and data["authorized_keys"] == data["id_rsa.pub"]
    assert data["config"].startswith("StrictHostKeyChecking no\nUserKnownHostsFile /dev/null\n")
    assert "Host lm-mpi-job-mpiworker-2\n  HostName lm-mpi-job-mpiworker-2.lm-mpi-job\n  Port 22\n" in data["config"]
    cluster.set_pg_phase("lm-mpi-job")
    pod = cluster.pods("lm-mpi-job")["lm-mpi-job-mpimaster-0"]
    vol = next(v for v in pod["spec"]["volumes"] if v["name"] == "lm-mpi-job-ssh")
    assert vol["secret"]["defaultMode"] == 0o600
    assert [i["path"] for i in vol["secret"]["items"]] == [".ssh/id_rsa", ".ssh/id_rsa.pub", ".ssh/authorized_keys",
                                                          ".ssh/config"]
    assert {"mountPath": "/root/.ssh", "subPath": ".ssh", "name": "lm-mpi-job-ssh"} in \
        pod["spec"]["containers"][0]["volumeMounts"]
