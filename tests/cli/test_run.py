"""``volcano run``: what a manifest does on a fresh cluster, and an exit status fit for CI."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
import yaml

from tests.cli.helpers import FIXTURES, QUEUE, Writer, volcano_job
from volcano.cli import main

MPI = str(FIXTURES / "mpi-job.yaml")

FLAKY = volcano_job("flaky", replicas=1, duration="10s", exit_code=1, max_retry=3).replace(
    "  tasks:", "  policies:\n    - event: PodFailed\n      action: RestartJob\n  tasks:")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str]]:
    """Exit status and stdout lines of ``volcano run ARGV``; stderr must stay empty."""
    rc = main(["run", *argv])
    out, err = capsys.readouterr()
    assert err == ""
    return rc, out.splitlines()


def section(lines: list[str], title: str) -> list[str]:
    """The rows of a report section (without its title and header)."""
    start = lines.index(f"{title}:")
    end = lines.index("", start)
    return lines[start + 2:end]


def test_a_gang_runs_on_four_nodes_and_events_carry_simulated_times(capsys: pytest.CaptureFixture[str]) -> None:
    rc, lines = run(capsys, MPI, "--expect", "Running")
    assert rc == 0
    assert lines[-1] == "every Volcano Job reached Running (1 of 1) by t=3.000s"
    [job] = section(lines, "Jobs")
    assert job.split()[:9] == ["default/lm-mpi-job", "Running", "4", "0", "4", "0", "0", "0", "Pending"]
    assert job.endswith("Pending 0.000s, Running 3.000s")
    pods = section(lines, "Pods")
    assert sorted(p.split()[2] for p in pods) == ["node-0", "node-1", "node-2", "node-3"]
    assert ("2.000s  Normal   Scheduled      Pod/default/lm-mpi-job-mpimaster-0"
            in "\n".join(section(lines, "Events")))


def test_a_job_that_keeps_running_fails_at_the_time_limit(capsys: pytest.CaptureFixture[str]) -> None:
    rc, lines = run(capsys, MPI, "--seconds", "30")
    assert rc == 1
    assert lines[0] == "simulated time: 30.000s (limit 30s)"
    assert lines[-1] == ("time limit of 30 simulated seconds reached: 1 of 1 Volcano Jobs not Completed: "
                         "default/lm-mpi-job (Running)")
    assert not any("lambda" in line or "TimeoutError" in line for line in lines)


def test_a_gang_that_does_not_fit_stays_pending_and_says_why(capsys: pytest.CaptureFixture[str]) -> None:
    rc, lines = run(capsys, MPI, "--nodes", "1", "--cpu", "2", "--expect", "Running", "--seconds", "60")
    assert rc == 1  # the gang needs 3.5 CPUs
    assert section(lines, "Jobs")[0].split()[:2] == ["default/lm-mpi-job", "Pending"]
    assert "Pods:" not in lines  # not admitted, so the Job controller created no pod
    assert lines[-1].startswith("time limit of 60 simulated seconds reached: 1 of 1 Volcano Jobs not Running")
    # The scheduler repeats two messages on the PodGroup every second: two Events, whose counts stop
    # where client-go's spam filter stops them (25 events per object, then one per 5 minutes).
    events = section(lines, "Events")
    assert len(events) == 2
    assert events[0].startswith("  1.000s  Normal   Unschedulable  PodGroup/default/lm-mpi-job-")
    assert events[0].endswith("resource in cluster is overused: overused cpu (x13, last at 13.000s)")
    assert events[1].endswith("(x12, last at 12.000s)")


def test_a_queue_and_a_job_in_one_file_complete(write: Writer, capsys: pytest.CaptureFixture[str]) -> None:
    path = write("team.yaml", QUEUE + "---\n" + volcano_job("short", queue="team-a"))
    rc, lines = run(capsys, path)
    assert rc == 0
    assert lines[-1] == "every Volcano Job reached Completed (1 of 1) by t=33.000s"
    assert section(lines, "Jobs")[0].split()[:2] == ["default/short", "Completed"]


def test_stdin_is_read_for_dash(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(volcano_job("from-stdin", duration="5s")))
    rc, lines = run(capsys, "-")
    assert rc == 0
    assert lines[-1] == "every Volcano Job reached Completed (1 of 1) by t=8.000s"


def test_a_failed_job_ends_the_run_early_with_its_retries_and_each_restart_timed(
        write: Writer, capsys: pytest.CaptureFixture[str]) -> None:
    rc, lines = run(capsys, write("flaky.yaml", FLAKY), "--seconds", "300")
    assert rc == 1
    assert lines[-1] == "1 of 1 Volcano Jobs ended without reaching Completed: default/flaky (Failed)"
    assert lines[0] == "simulated time: 37.000s (limit 300s)"  # stopped when the Job failed, not at 300s
    [job] = section(lines, "Jobs")
    assert job.split()[:8] == ["default/flaky", "Failed", "1", "0", "0", "0", "0", "3"]  # 3 retries
    restarts = [line.split()[0] for line in section(lines, "Events") if "RestartJob" in line]
    assert restarts == ["13.000s", "25.000s", "37.000s"]


def test_expect_takes_repeated_and_comma_separated_phases(write: Writer, capsys: pytest.CaptureFixture[str]) -> None:
    rc, lines = run(capsys, write("flaky.yaml", FLAKY), "--expect", "running", "--expect", "Completed,Failed")
    assert rc == 0
    assert lines[-1] == "every Volcano Job reached Running or Completed or Failed (1 of 1) by t=3.000s"


def test_jobs_in_several_files_and_folders_in_order(write: Writer, capsys: pytest.CaptureFixture[str]) -> None:
    write("more/a.yaml", volcano_job("a", duration="10s"))
    write("more/b.yml", volcano_job("b", duration="20s"))
    write("more/ignored.txt", "not a manifest")
    write("more/c-empty.yaml", "# a placeholder\n")  # skipped, as kubectl skips it
    rc, lines = run(capsys, write("q.yaml", QUEUE), str(Path(write("x.yaml", "")).parent / "more"))
    assert rc == 0
    assert [row.split()[:2] for row in section(lines, "Jobs")] == [["default/a", "Completed"],
                                                                   ["default/b", "Completed"]]


def test_without_a_volcano_job_it_runs_the_whole_time_and_succeeds(write: Writer,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    rc, lines = run(capsys, write("q.yaml", QUEUE), "--seconds", "50")
    assert rc == 0
    assert lines[0] == "simulated time: 50.000s (limit 50s)"
    assert lines[-1] == "no Volcano Job to wait for: ran 50 simulated seconds"


def test_json_report_for_machines(write: Writer, capsys: pytest.CaptureFixture[str]) -> None:
    rc, lines = run(capsys, write("flaky.yaml", FLAKY), "-o", "json", "--seconds", "300")
    doc = json.loads("\n".join(lines))
    assert rc == 1
    assert set(doc) == {"simulatedSeconds", "limitSeconds", "expect", "exit", "jobs", "podgroups", "pods", "events"}
    assert doc["simulatedSeconds"] == 37.0 and doc["limitSeconds"] == 300 and doc["expect"] == ["Completed"]
    assert doc["exit"] == {"code": 1, "reason": "ended", "missing": ["default/flaky"],
                           "message": "1 of 1 Volcano Jobs ended without reaching Completed: default/flaky (Failed)"}
    [job] = doc["jobs"]
    assert {k: job[k] for k in ("name", "phase", "minAvailable", "retries", "failed")} == {
        "name": "flaky", "phase": "Failed", "minAvailable": 1, "retries": 3, "failed": 0}
    assert [p["phase"] for p in job["phases"]][:3] == ["Pending", "Running", "Restarting"]
    assert doc["pods"] == [{"namespace": "default", "name": "flaky-work-0", "phase": "Failed", "node": "node-0"}]
    times = [e["time"] for e in doc["events"]]
    assert times == sorted(times) and times[-1] == 37.0
    assert {"time", "type", "reason", "kind", "namespace", "name", "message", "source", "count",
            "lastTime"} == set(doc["events"][0])


def test_json_time_limit_reason(capsys: pytest.CaptureFixture[str]) -> None:
    rc, lines = run(capsys, MPI, "-o", "json", "--seconds", "10")
    doc = json.loads("\n".join(lines))
    assert rc == 1 and doc["exit"]["reason"] == "time-limit" and doc["exit"]["missing"] == ["default/lm-mpi-job"]
    [group] = doc["podgroups"]
    assert group["minMember"] == 4 and group["phase"] == "Running" and group["queue"] == "default"


def test_the_same_seed_gives_the_same_report(write: Writer, capsys: pytest.CaptureFixture[str]) -> None:
    path = write("flaky.yaml", FLAKY)
    first = run(capsys, path, "-o", "json", "--seed", "7")
    assert run(capsys, path, "-o", "json", "--seed", "7") == first


def test_a_json_manifest_indented_with_tabs(write: Writer, capsys: pytest.CaptureFixture[str]) -> None:
    doc = yaml.safe_load(volcano_job("from-json", duration="5s"))
    rc, lines = run(capsys, write("job.json", json.dumps(doc, indent="\t")), "--seconds", "60")
    assert rc == 0
    assert lines[-1] == "every Volcano Job reached Completed (1 of 1) by t=8.000s"


def test_the_scheduler_configuration_decides(write: Writer, capsys: pytest.CaptureFixture[str]) -> None:
    job = write("job.yaml", volcano_job("short", duration="5s"))
    no_allocate = write("enqueue-only.yaml", 'actions: "enqueue"\ntiers:\n- plugins:\n  - name: gang\n')
    rc, lines = run(capsys, job, "--scheduler-conf", no_allocate, "--seconds", "30")
    assert rc == 1
    assert lines[-1] == ("time limit of 30 simulated seconds reached: 1 of 1 Volcano Jobs not Completed: "
                         "default/short (Pending)")
    configmap = write("configmap.yaml", """\
apiVersion: v1
kind: ConfigMap
metadata: {name: volcano-scheduler-configmap, namespace: volcano-system}
data:
  volcano-scheduler.conf: |
    actions: "enqueue, allocate"
    tiers:
    - plugins:
      - name: gang
      - name: predicates
      - name: proportion
""")
    rc, lines = run(capsys, job, "--scheduler-conf", configmap, "--seconds", "30")
    assert (rc, lines[-1]) == (0, "every Volcano Job reached Completed (1 of 1) by t=8.000s")


def test_a_job_deleted_when_it_finishes_is_still_reported(write: Writer, capsys: pytest.CaptureFixture[str]) -> None:
    ttl = volcano_job("ttl", duration="5s").replace("  minAvailable:", "  ttlSecondsAfterFinished: 0\n  minAvailable:")
    rc, lines = run(capsys, write("ttl.yaml", ttl), "--seconds", "120")
    assert rc == 0
    assert lines[-1] == "every Volcano Job reached Completed (1 of 1) by t=8.000s"
    assert section(lines, "Jobs")[0].split()[:3] == ["default/ttl", "Completed", "(deleted)"]
