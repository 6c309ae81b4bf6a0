"""``vcctl`` against ``volcano serve`` on loopback: upstream's commands, flags, output and Commands."""

from __future__ import annotations

import io
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from volcano.serve import ServedCluster, ServeOptions
from volcano.vcctl.cli import build_parser, main
from volcano.vcctl.jobs import go_time, human_duration, parse_resources

pytest.importorskip("kubernetes")

JOB_HEADER = ("Name   Creation       Phase       JobType     Replicas    Min   Pending   Running   Succeeded   "
              "Failed    Unknown     RetryCount")
QUEUE_HEADER = "Name                     Weight  State   Parent  Inqueue Pending Running Unknown Completed"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServedCluster]:
    kc = tmp_path_factory.mktemp("vcctl") / "kc"
    cluster = ServedCluster(ServeOptions(nodes=2, cpu="4", memory="8Gi", speed=0, kubeconfig=kc))
    cluster.start_background()
    yield cluster
    cluster.close()


def vcctl(served: ServedCluster, *argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main([*argv, "--kubeconfig", str(served.kubeconfig)], out=out)
    return code, out.getvalue()


def wait_phase(served: ServedCluster, name: str, want: str) -> None:
    served.run_until(lambda c: ((c.get("Job", name).get("status") or {}).get("state") or {}).get("phase") == want,
                     timeout=300)


def test_version() -> None:
    out = io.StringIO()
    assert main(["version"], out=out) == 0
    lines = out.getvalue().splitlines()
    assert lines[0] == "API Version: v1alpha1" and lines[1].startswith("Version: ") and len(lines) == 6


def test_job_run_list_suspend_resume_view_delete(served: ServedCluster) -> None:
    code, out = vcctl(served, "job", "run", "-N", "demo", "-r", "2", "-m", "2", "-R", "cpu=500m,memory=64Mi")
    assert (code, out) == (0, "run job demo successfully\n")
    wait_phase(served, "demo", "Running")
    code, out = vcctl(served, "job", "list")
    header, row = out.splitlines()
    assert code == 0 and header.rstrip() == JOB_HEADER
    assert row.split() == ["demo", row.split()[1], "Running", "Batch", "2", "2", "0", "2", "0", "0", "0", "0"]
    assert row.startswith("demo   ") and row[7:17] == row.split()[1] and len(row.split()[1]) == 10

    assert vcctl(served, "job", "suspend", "-N", "demo") == (0, "")
    commands = served.call(lambda: served.server.list("Command", "default")["items"])
    job_uid = served.call(lambda: served.server.get("Job", "demo", "default")["metadata"]["uid"])
    if commands:  # not consumed yet: check it is shaped as upstream's
        (command,) = commands
        assert command["action"] == "AbortJob" and command["metadata"]["name"].startswith("demo-abortjob-")
        ref = {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "name": "demo", "uid": job_uid,
               "controller": True, "blockOwnerDeletion": True}
        assert command["target"] == ref and command["metadata"]["ownerReferences"] == [ref]
    wait_phase(served, "demo", "Aborted")
    assert vcctl(served, "job", "resume", "-N", "demo") == (0, "")
    wait_phase(served, "demo", "Running")

    code, out = vcctl(served, "job", "view", "-N", "demo")
    assert code == 0
    assert "Name:       \tdemo\n" in out and "  Min Available:     \t2\n" in out and "    Phase:\tRunning\n" in out
    assert "            Cpu:   \t500m\n" in out
    assert "CommandIssued" in out and "Start to execute action ResumeJob" in out

    assert vcctl(served, "job", "delete", "-N", "demo") == (0, "delete job demo successfully\n")
    assert vcctl(served, "job", "list") == (0, "No resources found\n")


def test_job_list_filters_and_all_namespaces(served: ServedCluster, tmp_path: Path) -> None:
    manifest = tmp_path / "job.yaml"
    manifest.write_text(yaml.safe_dump({"metadata": {"name": "from-file-with-a-long-name"}, "spec": {
        "minAvailable": 1, "queue": "default", "tasks": [{"replicas": 1, "template": {"spec": {
            "containers": [{"name": "c", "image": "busybox"}]}}}]}}))
    assert vcctl(served, "job", "run", "-f", str(manifest))[0] == 0
    code, out = vcctl(served, "job", "list", "--all-namespaces", "--selector", "long")
    lines = out.splitlines()
    name_width = len("from-file-with-a-long-name") + 3  # the longest name plus three, as upstream
    assert code == 0 and lines[0].startswith("Namespace   " + "Name".ljust(name_width) + "Creation       Phase")
    assert lines[1].startswith("default     " + "from-file-with-a-long-name".ljust(name_width) + "20")
    assert vcctl(served, "job", "list", "-q", "other")[1] == "No resources found\n"
    assert vcctl(served, "job", "list", "-S", "default-scheduler")[1] == "No resources found\n"
    assert vcctl(served, "job", "delete", "-N", "from-file-with-a-long-name")[0] == 0


@pytest.mark.parametrize("argv, message", [
    (["job", "view"], "Failed to view job: job name (specified by --name or -N) is mandatory to view a particular job"),
    (["job", "suspend"], "Failed to suspend job: job name is mandatory to suspend a particular job"),
    (["job", "run"], "Failed to run job: job name cannot be left blank"),
    (["job", "run", "-N", "x", "-R", "cpu"], "Failed to run job: invalid argument syntax cpu, expected "
                                             "<resource>=<value>"),
    (["job", "run", "-f", "job.json"], "Failed to run job: only support yaml file"),
    (["job", "view", "-N", "nope"], 'Failed to view job: jobs.batch.volcano.sh "nope" not found'),
    (["queue", "get"], "Failed to get queue: name is mandatory to get the particular queue details"),
    (["queue", "delete"], "Failed to delete queue: queue name must be specified"),
    (["queue", "operate", "-n", "default"], "Failed to operate queue: action can not be null"),
    (["queue", "operate", "-n", "default", "-a", "bad"],
     "Failed to operate queue: action bad invalid, valid actions are open, close and update"),
    (["queue", "operate", "-n", "default", "-a", "update"],
     "Failed to operate queue: when update queue default, weight must be specified, the value must be greater "
     "than 0"),
    (["queue", "delete", "-n", "default"], 'Failed to delete queue: admission webhook "validatequeue.volcano.sh" '
                                           "denied the request: `default` queue can not be deleted"),
])
def test_errors_are_upstreams(served: ServedCluster, argv: list[str], message: str) -> None:
    code, out = vcctl(served, *argv)
    assert code == 255
    assert out.rstrip("\n").endswith(message.split(": ", 1)[1]) and out.startswith(message.split(":")[0]), out


def test_queue_create_list_get_operate_delete(served: ServedCluster) -> None:
    assert vcctl(served, "queue", "create", "-n", "q1", "-w", "3") == (0, "")
    served.run_until(lambda c: (c.get("Queue", "q1").get("status") or {}).get("state") == "Open", timeout=60)
    code, out = vcctl(served, "queue", "list")
    assert code == 0 and out.splitlines()[0] == QUEUE_HEADER
    row = "q1".ljust(25) + "".join(c.ljust(8) for c in ("3", "Open", "root", "0", "0", "0", "0", "0"))
    assert row in out.splitlines()
    assert vcctl(served, "queue", "operate", "-n", "q1", "-a", "close") == (0, "")
    served.run_until(lambda c: (c.get("Queue", "q1").get("status") or {}).get("state") == "Closed", timeout=60)
    assert vcctl(served, "queue", "get", "-n", "q1")[1].splitlines()[1].split()[:3] == ["q1", "3", "Closed"]
    assert vcctl(served, "queue", "operate", "-n", "q1", "-a", "open") == (0, "")
    assert vcctl(served, "queue", "operate", "-n", "q1", "-a", "update", "-w", "7") == (0, "")
    served.run_until(lambda c: (c.get("Queue", "q1").get("status") or {}).get("state") == "Open", timeout=60)
    assert vcctl(served, "queue", "get", "-n", "q1")[1].splitlines()[1].split()[:3] == ["q1", "7", "Open"]
    assert vcctl(served, "queue", "delete", "-n", "q1") == (0, "")
    assert vcctl(served, "queue", "get", "-n", "q1")[1] == 'Failed to get queue: queues.scheduling.volcano.sh "q1" ' \
                                                           "not found\n"


def test_flags_are_upstreams() -> None:
    args = build_parser().parse_args(["job", "run", "-N", "a", "-n", "ns", "-i", "img", "-m", "2", "-r", "3",
                                      "-L", "cpu=1", "-S", "s", "-s", "https://x", "-k", "kc"])
    assert (args.name, args.namespace, args.image, args.min, args.replicas, args.limits, args.scheduler,
            args.master, args.kubeconfig) == ("a", "ns", "img", 2, 3, "cpu=1", "s", "https://x", "kc")
    assert args.requests == "cpu=1000m,memory=100Mi"
    args = build_parser().parse_args(["queue", "create"])
    assert (args.name, args.weight, args.state) == ("test", 1, "Open")


def test_helpers() -> None:
    assert [human_duration(s) for s in (-5, -0.5, 59, 150, 3600 * 5 + 60 * 3, 3600 * 30, 86400 * 3 + 3600 * 2,
                                        86400 * 400, 86400 * 365 * 2)] == [
        "<invalid>", "0s", "59s", "2m30s", "5h3m", "30h", "3d2h", "400d", "2y"]  # whole years: no "0d"
    assert go_time("2024-01-01T00:00:00Z") == "2024-01-01 00:00:00 +0000 UTC" and go_time(None).startswith("0001")
    assert parse_resources("cpu=1,memory=1Gi") == {"cpu": "1", "memory": "1Gi"} and parse_resources("") == {}


def test_console_script_runs() -> None:
    proc = subprocess.run([sys.executable, "-c", "import sys; from volcano.vcctl.cli import main; sys.exit(main())",
                           "version"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.startswith("API Version: v1alpha1\n")


