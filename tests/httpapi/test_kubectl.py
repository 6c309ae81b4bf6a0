"""kubectl 1.32 against ``volcano serve``: the commands people type, end to end.

Skipped, with the reason, where kubectl is not installed. Each call gets its own
``--cache-dir``: kubectl caches discovery per host:port for hours.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from itertools import count
from pathlib import Path

import pytest
import yaml

from volcano.serve import ServedCluster

KUBECTL = shutil.which("kubectl")
pytestmark = [pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed; the kubectl tests need it"),
              pytest.mark.kube_api(speed=20, nodes=4, gpu=1)]

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
TF_JOB = FIXTURES / "tensorflow-benchmark-job.yaml"


class Kubectl:
    """Runs kubectl against one server, each call with a fresh discovery cache."""

    def __init__(self, served: ServedCluster, tmp: Path) -> None:
        self.kubeconfig = str(served.kubeconfig)
        self.tmp = tmp
        self._n = count()

    def run(self, *args: str, ok: bool = True, stdin: str | None = None,
            timeout: float = 60) -> subprocess.CompletedProcess[str]:
        """Run ``kubectl ARGS``; unless ``ok`` is False, a failure fails the test with kubectl's output."""
        cache = self.tmp / f"kubectl-cache-{next(self._n)}"
        cmd = [str(KUBECTL), f"--kubeconfig={self.kubeconfig}", f"--cache-dir={cache}", *args]
        proc = subprocess.run(cmd, capture_output=True, text=True, input=stdin, timeout=timeout)
        if ok and proc.returncode != 0:
            raise AssertionError(f"{' '.join(args)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
        return proc

    def json(self, *args: str) -> dict[str, object]:
        """``kubectl ARGS -o json``, decoded."""
        out: dict[str, object] = json.loads(self.run(*args, "-o", "json").stdout)
        return out


@pytest.fixture
def kubectl(kube_api: ServedCluster, tmp_path: Path) -> Kubectl:
    return Kubectl(kube_api, tmp_path)


def _rows(text: str) -> list[list[str]]:
    return [line.split() for line in text.strip().splitlines()]


def test_version_picks_1_32_and_api_resources_show_short_names(kubectl: Kubectl) -> None:
    assert "Server Version: v1.32.0" in kubectl.run("version").stdout
    out = kubectl.run("api-resources").stdout
    rows = {r[0]: r for r in _rows(out)[1:]}
    assert rows["podgroups"][1] == "pg,podgroup-v1beta1" and rows["queues"][1] == "q,queue-v1beta1"
    assert "vcjob,vj" in out


def test_the_tensorflow_walkthrough(kubectl: Kubectl) -> None:
    """apply, get vcjob,pg,pods, wait, logs, describe, delete: what the README shows."""
    assert "job.batch.volcano.sh/tensorflow-benchmark created" in kubectl.run("apply", "-f", str(TF_JOB)).stdout
    kubectl.run("wait", "--for=jsonpath={.status.state.phase}=Running", "vcjob/tensorflow-benchmark",
                "--timeout=60s")
    out = kubectl.run("get", "vcjob,pg,pods").stdout
    assert "job.batch.volcano.sh/tensorflow-benchmark   Running   3" in out
    assert "podgroup.scheduling.volcano.sh/tensorflow-benchmark-" in out
    pods = [r for r in _rows(out) if r and r[0].startswith("pod/")]
    assert len(pods) == 3 and all(r[1:3] == ["1/1", "Running"] for r in pods)
    assert _rows(out)[0] == ["NAME", "STATUS", "MINAVAILABLE", "RUNNINGS", "AGE"]
    logs = kubectl.run("logs", "tensorflow-benchmark-ps-0").stdout
    assert "container tensorflow (docker.m.daocloud.io/volcanosh/example-tf:0.0.1) started on node" in logs
    described = kubectl.run("describe", "vcjob", "tensorflow-benchmark").stdout
    assert "Min Available:" in described and "Phase:                 Running" in described
    assert 'job.batch.volcano.sh "tensorflow-benchmark" deleted' in kubectl.run("delete", "-f", str(TF_JOB)).stdout
    assert kubectl.run("get", "vcjob", "tensorflow-benchmark", ok=False).returncode == 1


PG = """apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata:
  name: pg1
spec:
  minMember: {n}
"""


def test_client_side_apply_create_unchanged_and_changed(kubectl: Kubectl) -> None:
    assert "podgroup.scheduling.volcano.sh/pg1 created" in kubectl.run("apply", "-f", "-", stdin=PG.format(n=1)).stdout
    rv = kubectl.json("get", "pg", "pg1")["metadata"]["resourceVersion"]  # type: ignore[index]
    assert "unchanged" in kubectl.run("apply", "-f", "-", stdin=PG.format(n=1)).stdout
    assert kubectl.json("get", "pg", "pg1")["metadata"]["resourceVersion"] == rv  # type: ignore[index]
    assert "configured" in kubectl.run("apply", "-f", "-", stdin=PG.format(n=2)).stdout
    kubectl.run("wait", "--for=jsonpath={.spec.minMember}=2", "pg/pg1", "--timeout=10s")


def test_server_side_apply_creates_then_updates(kubectl: Kubectl, kube_api: ServedCluster) -> None:
    if not kube_api.app.handlers._typed_patch:
        pytest.skip("server-side apply needs ApiServer.patch(patch_type=...)")
    out = kubectl.run("apply", "--server-side", "-f", "-", stdin=PG.format(n=1)).stdout
    assert "podgroup.scheduling.volcano.sh/pg1 serverside-applied" in out
    kubectl.run("apply", "--server-side", "-f", "-", stdin=PG.format(n=3))
    pg = kubectl.json("get", "pg", "pg1", "--show-managed-fields")
    assert pg["spec"]["minMember"] == 3  # type: ignore[index]
    assert any(m["manager"] == "kubectl" for m in pg["metadata"]["managedFields"])  # type: ignore[index]


def test_patch_types(kubectl: Kubectl, kube_api: ServedCluster) -> None:
    if not kube_api.app.handlers._typed_patch:
        pytest.skip("strategic merge and JSON patch need ApiServer.patch(patch_type=...)")
    kubectl.run("run", "p1", "--image=busybox:1")
    kubectl.run("patch", "pod", "p1", "-p", '{"spec":{"containers":[{"name":"p1","image":"busybox:2"}]}}')
    kubectl.run("patch", "pod", "p1", "--type=json", "-p", '[{"op":"add","path":"/metadata/labels/j","value":"2"}]')
    pod = kubectl.json("get", "pod", "p1")
    assert pod["spec"]["containers"][0]["image"] == "busybox:2"  # type: ignore[index]
    assert pod["metadata"]["labels"]["j"] == "2"  # type: ignore[index]


def test_get_output_formats_and_selectors(kubectl: Kubectl) -> None:
    kubectl.run("run", "web", "--image=nginx", "--labels=app=web")
    kubectl.run("run", "db", "--image=postgres", "--labels=app=db")
    assert kubectl.run("get", "pods", "-l", "app=web", "-o", "name").stdout.split() == ["pod/web"]
    assert kubectl.run("get", "pod", "web", "-o", "jsonpath={.spec.containers[0].image}").stdout == "nginx"
    doc = yaml.safe_load(kubectl.run("get", "pod", "db", "-o", "yaml").stdout)
    assert doc["kind"] == "Pod" and doc["metadata"]["labels"] == {"app": "db"}
    items = kubectl.json("get", "pods")["items"]
    assert sorted(p["metadata"]["name"] for p in items) == ["db", "web"]  # type: ignore[index, union-attr]
    wide = kubectl.run("get", "pods", "-A", "--show-labels").stdout
    assert _rows(wide)[0][0] == "NAMESPACE" and "app=web" in wide and "default" in wide


def test_label_annotate_patch_and_replace(kubectl: Kubectl) -> None:
    kubectl.run("run", "p1", "--image=busybox")
    kubectl.run("label", "pod", "p1", "tier=front")
    kubectl.run("annotate", "pod", "p1", "note=hello")
    kubectl.run("patch", "pod", "p1", "--type=merge", "-p", '{"metadata":{"labels":{"m":"1"}}}')
    kubectl.run("patch", "pod", "p1", "--type=json", "-p",
                '[{"op":"add","path":"/metadata/labels/j","value":"2"}]', ok=False)
    pod = kubectl.json("get", "pod", "p1")
    meta = pod["metadata"]
    assert meta["labels"]["tier"] == "front" and meta["labels"]["m"] == "1"  # type: ignore[index]
    assert meta["annotations"]["note"] == "hello"  # type: ignore[index]


def test_get_watch_streams_changes(kubectl: Kubectl, kube_api: ServedCluster) -> None:
    kubectl.run("run", "w1", "--image=busybox")
    proc = kubectl.run("get", "pods", "-w", "--request-timeout=3s", ok=False, timeout=30)
    rows = _rows(proc.stdout)
    assert rows[0][:3] == ["NAME", "READY", "STATUS"] and any(r[0] == "w1" for r in rows[1:])


DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: {ns}
spec:
  replicas: 1
  selector:
    matchLabels: {{app: web}}
  template:
    metadata:
      labels: {{app: web}}
    spec:
      containers: [{{name: web, image: nginx}}]
"""


def test_scale_a_deployment(kubectl: Kubectl) -> None:
    kubectl.run("apply", "-f", "-", stdin=DEPLOYMENT.format(ns="default"))
    assert "deployment.apps/web scaled" in kubectl.run("scale", "deployment", "web", "--replicas=3").stdout
    kubectl.run("wait", "--for=jsonpath={.status.readyReplicas}=3", "deployment/web", "--timeout=60s")
    assert len(kubectl.json("get", "pods", "-l", "app=web")["items"]) == 3  # type: ignore[arg-type]


def test_delete_cascades_and_namespaces_take_their_contents(kubectl: Kubectl) -> None:
    kubectl.run("apply", "-f", "-", stdin="apiVersion: v1\nkind: Namespace\nmetadata: {name: team}\n")
    kubectl.run("apply", "-f", "-", stdin=DEPLOYMENT.format(ns="team"))
    kubectl.run("wait", "--for=jsonpath={.status.readyReplicas}=1", "deployment/web", "-n", "team",
                "--timeout=60s")
    kubectl.run("delete", "deployment", "web", "-n", "team", "--cascade=foreground", "--timeout=120s")
    assert kubectl.json("get", "replicasets", "-n", "team")["items"] == []
    kubectl.run("apply", "-f", "-", stdin="apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg, namespace: team}\n")
    assert 'namespace "team" deleted' in kubectl.run("delete", "namespace", "team", "--timeout=120s").stdout
    assert kubectl.run("get", "namespace", "team", ok=False).returncode == 1


def test_typed_create_in_protobuf_gets_a_clear_415(kubectl: Kubectl) -> None:
    proc = kubectl.run("create", "configmap", "cfg", "--from-literal=a=b", ok=False)
    assert proc.returncode == 1 and "does not decode protobuf" in proc.stderr


def test_errors_read_as_on_a_real_cluster(kubectl: Kubectl) -> None:
    missing = kubectl.run("get", "pg", "nope", ok=False)
    assert missing.returncode == 1
    assert 'Error from server (NotFound): podgroups.scheduling.volcano.sh "nope" not found' in missing.stderr
    kubectl.run("run", "dup", "--image=busybox")
    again = kubectl.run("run", "dup", "--image=busybox", ok=False)
    assert 'Error from server (AlreadyExists): pods "dup" already exists' in again.stderr
    unknown = kubectl.run("get", "widgets", ok=False)
    assert 'the server doesn\'t have a resource type "widgets"' in unknown.stderr
