"""scripts/e2e-kind.sh's logic, with stub ``docker``, ``kind``, ``helm``, ``kubectl`` and Python on PATH.

Each stub records its arguments (one line per call, in one log shared by all stubs) and succeeds;
``helm pull`` unpacks a chart holding two CRDs, the Python stub writes a JUnit file where the suite
would and runs the report script for real. PATH holds only the stubs and the few tools the script
uses, so the machine's own docker, kind or kubectl never run.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "e2e-kind.sh"
TOOLS = ("bash", "env", "dirname", "mktemp", "rm", "mkdir", "find", "sort", "seq", "sleep", "cat")

STUB = """#!/bin/bash
echo "{name} $*" >> "$E2E_LOG"
{extra}
exit 0
"""

HELM_EXTRA = """if [[ "$1" == pull ]]; then
  while [[ $# -gt 0 ]]; do if [[ "$1" == --untardir ]]; then dir=$2; fi; shift; done
  mkdir -p "$dir/volcano/crd/bases"
  echo "kind: CustomResourceDefinition" > "$dir/volcano/crd/bases/batch.volcano.sh_jobs.yaml"
  echo "kind: CustomResourceDefinition" > "$dir/volcano/crd/bases/scheduling.volcano.sh_queues.yaml"
  mkdir -p "$dir/volcano/crd/v1beta1"
  echo "apiVersion: apiextensions.k8s.io/v1beta1" > "$dir/volcano/crd/v1beta1/batch.volcano.sh_jobs.yaml"
fi"""

DOCKER_DOWN = """if [[ "$1" == info ]]; then exit 1; fi"""

PYTHON_EXTRA = """if [[ "$2" == pytest ]]; then
  for arg in "$@"; do case "$arg" in --junitxml=*) junit=${{arg#--junitxml=}};; esac; done
  mkdir -p "$(dirname "$junit")"
  printf '<testsuite><testcase classname="volcano.conformance.test_gang" name="test_a"/>\\n' > "$junit"
  printf '<testcase classname="volcano.conformance.test_gang" name="test_b"><failure/></testcase></testsuite>\\n' \\
    >> "$junit"
  exit "${{E2E_SUITE_STATUS:-0}}"
fi
if [[ "$1" == scripts/e2e_report.py ]]; then exec {python} "$@"; fi"""


def make_path(tmp: Path, *, stubs: tuple[str, ...] = ("docker", "kind", "helm", "kubectl"),
              docker_down: bool = False) -> tuple[dict[str, str], Path]:
    bin_dir = tmp / "bin"
    bin_dir.mkdir()
    for tool in TOOLS:
        found = shutil.which(tool)
        assert found, tool
        (bin_dir / tool).symlink_to(found)
    extras = {"helm": HELM_EXTRA, "docker": DOCKER_DOWN if docker_down else ""}
    for name in (*stubs, "python-stub"):
        extra = PYTHON_EXTRA.format(python=sys.executable) if name == "python-stub" else extras.get(name, "")
        path = bin_dir / name
        path.write_text(STUB.format(name=name, extra=extra))
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
    log = tmp / "calls.log"
    env = {"PATH": str(bin_dir), "E2E_LOG": str(log), "E2E_PYTHON": str(bin_dir / "python-stub"),
           "HOME": str(tmp)}
    return env, log


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A copy of the parts of the repository the script reads (it writes out/ beside them)."""
    copy = tmp_path / "repo"
    (copy / "scripts").mkdir(parents=True)
    shutil.copy(SCRIPT, copy / "scripts" / SCRIPT.name)
    shutil.copy(ROOT / "scripts" / "e2e_report.py", copy / "scripts")
    shutil.copy(ROOT / "kind-config.yaml", copy)
    shutil.copytree(ROOT / "deploy", copy / "deploy")
    return copy


def run(repo: Path, env: dict[str, str], **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(repo / "scripts" / SCRIPT.name)], env={**env, **extra},
                          capture_output=True, text=True, timeout=120, cwd=repo)


def calls(log: Path) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []


@pytest.mark.parametrize("present, named", [
    ((), "docker kind kubectl helm"),
    (("docker", "kubectl"), "kind helm"),
    (("docker", "kind", "kubectl"), "helm"),
])
def test_skips_naming_what_is_missing(repo: Path, tmp_path: Path, present: tuple[str, ...], named: str) -> None:
    env, log = make_path(tmp_path, stubs=present)
    proc = run(repo, env, IMPL="this")
    assert proc.returncode == 0, proc.stderr
    assert f"e2e: SKIPPED (IMPL=this) - the kind harness needs: {named}." in proc.stdout
    assert [c for c in calls(log) if not c.startswith("docker info")] == []


def test_skips_when_the_docker_engine_is_down(repo: Path, tmp_path: Path) -> None:
    env, log = make_path(tmp_path, docker_down=True)
    proc = run(repo, env)
    assert proc.returncode == 0 and "needs: a running Docker engine." in proc.stdout
    assert calls(log) == ["docker info"]


def test_upstream_installs_the_chart_and_runs_the_suite(repo: Path, tmp_path: Path) -> None:
    env, log = make_path(tmp_path)
    proc = run(repo, env, IMPL="upstream", VOLCANO_CHART_VERSION="1.12.1")
    assert proc.returncode == 0, proc.stderr
    made = calls(log)
    assert made[0] == "docker info"
    assert made[1].startswith("kind create cluster --name volcano-conformance --config kind-config.yaml --kubeconfig ")
    assert "helm install volcano volcano-sh/volcano --version 1.12.1 -n volcano-system --create-namespace --wait" \
        in made
    assert not any(c.startswith(("docker build", "kind load", "kubectl apply -k")) for c in made)
    suite = [c for c in made if c.startswith("python-stub -m pytest volcano/conformance")]
    assert len(suite) == 1 and "--junitxml=out/e2e/upstream/junit.xml" in suite[0]
    assert "--backend=kubeconfig" in suite[0]
    assert made[-1] == "kind delete cluster --name volcano-conformance"
    side = (repo / "out" / "e2e" / "side-by-side.md").read_text()
    assert "| case | upstream |" in side and "| `test_gang::test_b` | FAIL |" in side


def test_this_builds_loads_and_deploys_the_project(repo: Path, tmp_path: Path) -> None:
    env, log = make_path(tmp_path)
    proc = run(repo, env, IMPL="this", KEEP_CLUSTER="1")
    assert proc.returncode == 0, proc.stderr
    made = calls(log)
    order = [next(i for i, c in enumerate(made) if c.startswith(prefix)) for prefix in (
        "kind create cluster", "docker build -t volcano-py:e2e .", "kind load docker-image volcano-py:e2e "
        "--name volcano-conformance", "helm pull volcano-sh/volcano --untar --untardir ",
        "kubectl apply --server-side --force-conflicts -f ", "kubectl wait --for=condition=Established crd --all",
        "kubectl apply -k deploy/", "kubectl -n volcano-system rollout status deployment/volcano-admission",
        "kubectl -n volcano-system rollout status deployment/volcano-scheduler",
        "kubectl get validatingwebhookconfiguration volcano-admission-service-jobs-validate",
        "python-stub -m pytest volcano/conformance")]
    assert order == sorted(order), made
    crds = [c for c in made if c.startswith("kubectl apply --server-side")]
    assert [c.rsplit("/", 1)[1] for c in crds] == ["batch.volcano.sh_jobs.yaml", "scheduling.volcano.sh_queues.yaml"]
    assert not any(c.startswith("helm install") for c in made)
    assert not any(c.startswith("kind delete") for c in made)  # KEEP_CLUSTER=1
    assert (repo / "out" / "e2e" / "this" / "junit.xml").exists()


def test_bench_mode_adds_simulated_nodes_and_runs_the_benchmark(repo: Path, tmp_path: Path) -> None:
    env, log = make_path(tmp_path)
    proc = run(repo, env, IMPL="upstream", E2E_MODE="bench", E2E_NODES="7", E2E_BENCH_JOBS="3")
    assert proc.returncode == 0, proc.stderr
    made = calls(log)
    assert "docker build -t volcano-py:e2e ." in made  # the nodes need this project's image, on upstream too
    assert any(c.startswith("helm install volcano") for c in made)
    assert "kubectl -n volcano-system create configmap volcano-nodes --from-literal=count=7 --dry-run=client -o yaml" \
        in made
    assert "kubectl apply -k deploy/nodes/" in made
    bench = [c for c in made if c.startswith("python-stub scripts/e2e_bench.py")]
    assert len(bench) == 1 and "--impl upstream --jobs 3 --replicas 10 --nodes 7" in bench[0]
    assert not any("pytest" in c for c in made)


def test_a_failing_suite_fails_the_run_after_the_report(repo: Path, tmp_path: Path) -> None:
    env, log = make_path(tmp_path)
    proc = run(repo, env, IMPL="this", E2E_SUITE_STATUS="1")
    assert proc.returncode == 1
    assert (repo / "out" / "e2e" / "side-by-side.md").exists()
    assert calls(log)[-1] == "kind delete cluster --name volcano-conformance"


@pytest.mark.parametrize("extra, word", [({"IMPL": "both"}, "IMPL must be"), ({"E2E_MODE": "fast"}, "E2E_MODE"),
                                         ({"E2E_NODES": "many"}, "E2E_NODES")])
def test_bad_settings_are_refused(repo: Path, tmp_path: Path, extra: dict[str, str], word: str) -> None:
    env, log = make_path(tmp_path)
    proc = run(repo, env, **extra)
    assert proc.returncode == 2 and word in proc.stderr and calls(log) == []


def test_make_passes_impl() -> None:
    makefile = (ROOT / "Makefile").read_text()
    assert "IMPL ?= upstream" in makefile and "IMPL=$(IMPL) scripts/e2e-kind.sh" in makefile


def test_script_is_executable() -> None:
    assert os.access(SCRIPT, os.X_OK)
