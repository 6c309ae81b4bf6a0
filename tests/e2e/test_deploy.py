"""deploy/ (the manifests ``make e2e IMPL=this`` applies), the Dockerfile, the report and the benchmark."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from volcano.cli import build_parser
from volcano.serve import ServedCluster, ServeOptions

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import e2e_bench  # noqa: E402
import e2e_report  # noqa: E402


def docs(path: Path) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def all_objects() -> list[dict[str, Any]]:
    objects: list[dict[str, Any]] = []
    for kustomization in (ROOT / "deploy" / "kustomization.yaml", ROOT / "deploy" / "nodes" / "kustomization.yaml"):
        for resource in yaml.safe_load(kustomization.read_text())["resources"]:
            objects += docs(kustomization.parent / resource)
    return objects


def test_every_component_runs_a_volcano_command_with_its_account() -> None:
    objects = all_objects()
    accounts = {o["metadata"]["name"] for o in objects if o["kind"] == "ServiceAccount"}
    bound = {s["name"] for o in objects if o["kind"] == "ClusterRoleBinding" for s in o["subjects"]}
    roles = {o["metadata"]["name"] for o in objects if o["kind"] == "ClusterRole"}
    deployments = {o["metadata"]["name"]: o for o in objects if o["kind"] == "Deployment"}
    assert sorted(deployments) == ["volcano-admission", "volcano-controllers", "volcano-nodes", "volcano-scheduler"]
    commands = {}
    for name, dep in deployments.items():
        pod = dep["spec"]["template"]["spec"]
        assert pod["serviceAccountName"] in accounts & bound, name
        (container,) = pod["containers"]
        assert container["image"] == "volcano-py" and container["imagePullPolicy"] == "IfNotPresent"
        commands[name] = container["args"][0]
    assert commands == {"volcano-admission": "webhooks", "volcano-controllers": "controllers",
                        "volcano-nodes": "nodes", "volcano-scheduler": "scheduler"}
    assert all(o["roleRef"]["name"] in roles for o in objects if o["kind"] == "ClusterRoleBinding")


def test_the_webhook_deployment_parses_with_volcano_webhooks_flags() -> None:
    (dep,) = [o for o in all_objects() if o["metadata"]["name"] == "volcano-admission" and o["kind"] == "Deployment"]
    args = build_parser().parse_args(dep["spec"]["template"]["spec"]["containers"][0]["args"])
    (service,) = [o for o in all_objects() if o["kind"] == "Service"]
    assert args.webhook_service_name == service["metadata"]["name"] and args.webhook_namespace == "volcano-system"
    assert service["spec"]["ports"][0] == {"port": 443, "targetPort": args.port, "protocol": "TCP"}


def test_the_admission_role_covers_what_volcano_webhooks_does() -> None:
    (role,) = [o for o in all_objects()
               if o["kind"] == "ClusterRole" and o["metadata"]["name"] == "volcano-py-admission"]
    granted = {(g, r, v) for rule in role["rules"] for g in rule["apiGroups"] for r in rule["resources"]
               for v in rule["verbs"]}
    for kind in ("mutatingwebhookconfigurations", "validatingwebhookconfigurations"):
        for verb in ("get", "create", "update"):
            assert ("admissionregistration.k8s.io", kind, verb) in granted
    assert {("scheduling.volcano.sh", "queues", "get"), ("scheduling.volcano.sh", "queues", "list"),
            ("", "namespaces", "get"), ("scheduling.k8s.io", "priorityclasses", "list")} <= granted


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not installed")
def test_kustomize_builds_with_the_image_tag() -> None:
    built = subprocess.run(["kubectl", "kustomize", str(ROOT / "deploy")], capture_output=True, text=True,
                           timeout=60, check=True).stdout
    objects = [d for d in yaml.safe_load_all(built) if d]
    images = {c["image"] for o in objects if o["kind"] == "Deployment"
              for c in o["spec"]["template"]["spec"]["containers"]}
    assert images == {"volcano-py:e2e"}
    assert {o["metadata"].get("namespace") for o in objects if o["kind"] in ("Deployment", "Service")} == \
        {"volcano-system"}


def test_dockerfile_installs_the_package_with_the_kube_client() -> None:
    text = (ROOT / "Dockerfile").read_text()
    assert "pip install --no-cache-dir '.[kube]'" in text and 'ENTRYPOINT ["volcano"]' in text
    assert ".venv" in (ROOT / ".dockerignore").read_text()


def _junit(path: Path, cases: dict[str, str]) -> Path:
    body = "".join(f'<testcase classname="volcano.conformance.test_x" name="{n}">'
                   + {"pass": "", "fail": "<failure/>", "skip": "<skipped/>"}[o] + "</testcase>"
                   for n, o in cases.items())
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"<testsuites><testsuite>{body}</testsuite></testsuites>")
    return path


def test_side_by_side_report(tmp_path: Path) -> None:
    memory = _junit(tmp_path / "mem.xml", {"a": "pass", "b": "pass", "c": "skip"})
    _junit(tmp_path / "e2e" / "upstream" / "junit.xml", {"a": "pass", "b": "fail"})
    (tmp_path / "e2e" / "this" / "bench.json").parent.mkdir(parents=True)
    (tmp_path / "e2e" / "this" / "bench.json").write_text(json.dumps(
        {"jobs": 2, "replicas": 3, "nodes": 5, "bound": 6, "pods": 6, "seconds": 2.0, "pods_per_second": 3.0}))
    text = e2e_report.report(tmp_path / "e2e", {"memory": memory, "wire": tmp_path / "absent.xml"})
    assert "| case | memory | upstream |" in text
    assert "| `test_x::b` | pass | FAIL |" in text and "| `test_x::c` | skip | - |" in text
    assert "| **passed** | 2 of 3 | 1 of 2 |" in text and "2 of 3 cases differ" in text
    assert "| this | 2 gang jobs x 3 pods | 5 | 6 of 6 | 2.0 | 3.0 |" in text
    assert "No results yet" in e2e_report.report(tmp_path / "none")
    out = tmp_path / "side.md"
    assert e2e_report.main([str(tmp_path / "e2e"), "--column", f"memory={memory}", "--out", str(out)]) == 0
    assert out.read_text() == text


def test_bench_binds_every_pod_on_volcano_serve(tmp_path: Path) -> None:
    kubernetes = pytest.importorskip("kubernetes")
    kc = tmp_path / "kc"
    served = ServedCluster(ServeOptions(nodes=3, cpu="2", memory="4Gi", speed=30, kubeconfig=kc))
    served.start_background()
    try:
        api = kubernetes.config.new_client_from_config(config_file=str(kc))
        result = e2e_bench.run(api, impl="memory-served", jobs=3, replicas=4, nodes=0, timeout=120,
                               namespace="bench", poll=0.2)
    finally:
        served.close()
    assert result["bound"] == result["pods"] == 12 and not result["timed_out"]
    assert result["pods_per_second"] > 0 and result["jobs"] == 3 and result["replicas"] == 4


def test_the_scheduler_configuration_loads() -> None:
    from volcano.scheduler.config import load_scheduler_conf

    (cm,) = [o for o in all_objects() if o["kind"] == "ConfigMap"]
    conf = load_scheduler_conf(yaml.safe_load(cm["data"]["volcano-scheduler.conf"]))
    assert conf is not None


def _triples(role: dict[str, Any]) -> set[tuple[str, str, str]]:
    return {(g, r, v) for rule in role.get("rules") or [] for g in rule["apiGroups"] for r in rule["resources"]
            for v in rule["verbs"]}


def test_each_role_grants_what_docs_components_says_the_component_needs() -> None:
    """docs/components.md lists each component's permissions; deploy/ grants at least those (the rules
    needed only with --builtin-controllers left out: kind has kube-controller-manager)."""
    import re

    text = (ROOT / "docs" / "components.md").read_text()
    needed = {}
    for block in re.findall(r"```yaml\n(.*?)```", text, flags=re.S):
        role = yaml.safe_load(block.split("# only with --builtin-controllers")[0])
        if isinstance(role, dict) and role.get("kind") == "ClusterRole":
            needed[role["metadata"]["name"]] = _triples(role)
    assert sorted(needed) == ["volcano-controllers", "volcano-nodes", "volcano-scheduler"]
    ours = {o["metadata"]["name"]: _triples(o) for o in all_objects() if o["kind"] == "ClusterRole"}
    for name, triples in needed.items():
        missing = sorted(triples - ours[name.replace("volcano-", "volcano-py-")])
        assert not missing, f"{name}: deploy/ does not grant {missing}"


def test_every_deployment_parses_with_its_volcano_command() -> None:
    for dep in (o for o in all_objects() if o["kind"] == "Deployment"):
        args = [a.replace("$(NODE_COUNT)", "3") for a in dep["spec"]["template"]["spec"]["containers"][0]["args"]]
        parsed = build_parser().parse_args(args)
        assert parsed.command == args[0]


def test_bench_jobs_go_to_simulated_nodes_when_there_are_some() -> None:
    plain, placed = e2e_bench.job("j", 2), e2e_bench.job("j", 2, e2e_bench.SIMULATED)
    assert "nodeSelector" not in plain["spec"]["tasks"][0]["template"]["spec"]
    assert placed["spec"]["tasks"][0]["template"]["spec"]["nodeSelector"] == {"type": "simulated"}
    assert placed["spec"]["minAvailable"] == placed["spec"]["tasks"][0]["replicas"] == 2
