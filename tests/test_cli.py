"""The ``volcano`` command: ``run`` explains what a manifest does on a fresh cluster."""

from __future__ import annotations

import io
from pathlib import Path

from volcano.cli import main
from volcano.cli.run import run_manifests

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def run(*paths: Path, **kw: object) -> tuple[int, str]:
    out = io.StringIO()
    args = {"nodes": 4, "cpu": "8", "memory": "32Gi", "gpu": 0, "seconds": 120.0, "scheduler_conf": None, "seed": 0}
    args.update(kw)
    rc = run_manifests([str(p) for p in paths], out=out, **args)  # type: ignore[arg-type]
    return rc, out.getvalue()


def test_run_shows_the_gang_running_and_the_scheduler_events() -> None:
    rc, text = run(FIXTURES / "mpi-job.yaml")
    assert rc == 0
    assert "default/lm-mpi-job  Running" in text
    assert text.count("  Running  node-") == 4  # master + 3 workers bound and running
    assert "Successfully assigned default/lm-mpi-job-mpimaster-0" in text


def test_run_explains_a_gang_that_does_not_fit() -> None:
    rc, text = run(FIXTURES / "mpi-job.yaml", nodes=1, cpu="2")  # the gang needs 3.5 CPUs
    assert rc == 0
    assert "default/lm-mpi-job  Pending" in text
    assert "Pods:" not in text  # not admitted, so the Job controller created no pod
    assert "resource in cluster is overused: overused cpu" in text


def test_run_reports_a_rejected_manifest_and_fails() -> None:
    rc, text = run(FIXTURES / "upstream-examples" / "invalid_jobs_duplicatedTaskName-webhook-deny.yaml")
    assert rc == 1
    assert 'admission webhook "validatejob.volcano.sh" denied the request: duplicated task name task-1' in text


def test_main_dispatches_run(capsys: object) -> None:
    assert main(["run", str(FIXTURES / "mpi-job.yaml"), "--seconds", "30"]) == 0
