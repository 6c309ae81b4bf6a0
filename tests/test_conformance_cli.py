"""``volcano conformance``: the installed suite, in memory or against a kubeconfig's cluster."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from volcano.cli import build_parser, main
from volcano.cli.conformance import AREAS, pytest_arguments

ROOT = Path(__file__).resolve().parents[1]


def test_unknown_arguments_go_to_pytest() -> None:
    args = build_parser().parse_args(["conformance", "--kubeconfig", "kc", "-k", "gang", "-x", "--junitxml=j.xml"])
    assert args.kubeconfig == "kc"
    assert args.pytest_args == ["-k", "gang", "-x", "--junitxml=j.xml"]
    args = build_parser().parse_args(["conformance", "--", "-k", "gang"])
    assert pytest_arguments(args.kubeconfig, args.pytest_args) == [
        "--pyargs", "volcano.conformance", "-p", "no:cacheprovider", "-k", "gang"]
    assert pytest_arguments("kc", []) == ["--pyargs", "volcano.conformance", "-p", "no:cacheprovider",
                                          "--backend", "kubeconfig", "--kubeconfig", "kc"]


def test_other_commands_still_refuse_unknown_arguments() -> None:
    with pytest.raises(SystemExit) as err:
        build_parser().parse_args(["demo", "--nope"])
    assert err.value.code == 2


def test_the_area_markers_are_the_projects() -> None:
    markers = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["markers"]
    names = {m.split(":")[0] for m in markers} - {"wire"}  # wire marks the project's process tests, not an area
    assert set(AREAS) == names


def test_the_conformance_extra_brings_what_the_suite_imports() -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    names = {req.split(">")[0].split("=")[0].split("[")[0] for req in extras["conformance"]}
    assert {"pytest", "hypothesis", "kubernetes"} <= names


def test_a_missing_kubeconfig_is_one_error_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conformance", "--kubeconfig", str(tmp_path / "nope")]) == 1
    err = capsys.readouterr().err
    assert err == f"error: {tmp_path / 'nope'}: no such kubeconfig file\n"


def test_an_unreachable_cluster_is_one_error_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("kubernetes")
    kc = tmp_path / "kc"
    kc.write_text("apiVersion: v1\nkind: Config\ncurrent-context: x\ncontexts: [{name: x, context: {cluster: x}}]\n"
                  "clusters: [{name: x, cluster: {server: 'http://127.0.0.1:9'}}]\nusers: []\n")
    assert main(["conformance", "--kubeconfig", str(kc), "-k", "gang"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: {kc}: no reachable Kubernetes cluster") and err.count("\n") == 1


def test_runs_the_installed_suite_from_any_directory(tmp_path: Path) -> None:
    """From another directory, one case chosen by name, on the in-memory cluster."""
    done = subprocess.run([sys.executable, "-c", "import sys; from volcano.cli import main; sys.exit(main())",
                           "conformance", "-k", "test_equal_weights_split_the_cluster_evenly",
                           "-W", "error::pytest.PytestUnknownMarkWarning"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "1 passed" in done.stdout
