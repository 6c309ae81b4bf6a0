"""Upstream e2e ``jobseq`` cases (catalogue §3.4) that the Job controller alone decides.

Each test names its catalogue number. The scheduler is played by the test (PodGroup
phases) and so is the kubelet (pod phases); the phase sequences are the ones upstream
waits for (``WaitJobPhases``: an ordered subsequence of the phases the job goes through).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.controllers.job.conftest import Cluster, job, task


def two_tasks(name: str, policies: list[dict[str, Any]] | None = None, *, second: str = "fail",
              task_policies: list[dict[str, Any]] | None = None, reps: int = 2) -> dict[str, Any]:
    return job(name, [task("success", reps), task(second, reps, policies=task_policies)], policies=policies)


def subsequence(expected: list[str], actual: list[str]) -> bool:
    it = iter(actual)
    return all(any(p == a for a in it) for p in expected)


def restart_to_running(c: Cluster, name: str) -> None:
    """After a whole-job restart: the scheduler admits the recreated PodGroup, pods run again."""
    c.set_pg_phase(name, "Inqueue")
    c.set_pods(name, "Running")


@pytest.mark.parametrize(("case", "action", "expected"), [
    (1, "RestartJob", ["Pending", "Running", "Restarting"]),
    (2, "TerminateJob", ["Pending", "Running", "Terminating", "Terminated"]),
    (3, "AbortJob", ["Pending", "Running", "Aborting", "Aborted"]),
])
def test_job_level_pod_failed(cluster: Cluster, case: int, action: str, expected: list[str]) -> None:
    name = f"jobseq-{case}"
    cluster.start(two_tasks(name, [{"event": "PodFailed", "action": action}]))
    cluster.set_pod(f"{name}-fail-0", "Failed", exit_code=127)
    assert subsequence(expected, cluster.phases(name)), cluster.phases(name)
    assert cluster.phase(name) == expected[-1]


def test_case_4_restart_pod_then_running_and_evicted_timeout_not_fired(cluster: Cluster) -> None:
    name = "jobseq-4"
    cluster.start(job(name, [task("success", 2), task("fail", 1)],
                      policies=[{"event": "PodFailed", "action": "RestartPod"},
                                {"event": "PodEvicted", "action": "TerminateJob", "timeout": "5m"}]))
    cluster.set_pod(f"{name}-fail-0", "Failed", exit_code=127)
    assert cluster.phase(name) in ("Restarting", "Pending")
    assert cluster.podgroup(name) is not None  # a targeted restart keeps the PodGroup
    assert cluster.pods(name)[f"{name}-fail-0"]["status"]["phase"] == "Pending"  # recreated
    cluster.set_pod(f"{name}-fail-0", "Running")
    assert subsequence(["Pending", "Running", "Restarting", "Running"], cluster.phases(name))
    cluster.run(6 * 60_000)
    assert cluster.phase(name) == "Running"
    assert cluster.status(name)["retryCount"] == 1


@pytest.mark.parametrize(("case", "policy"), [
    (5, {"event": "PodEvicted", "action": "RestartJob"}),
    (8, {"event": "*", "action": "RestartJob"}),
])
def test_evicted_restart_job(cluster: Cluster, case: int, policy: dict[str, Any]) -> None:
    name = f"jobseq-{case}"
    cluster.start(two_tasks(name, [policy], second="delete"))
    version = cluster.status(name).get("version", 0)
    cluster.delete_pod(f"{name}-delete-0")
    assert cluster.phase(name) == "Restarting"
    assert cluster.status(name)["version"] == version + 1
    assert cluster.pods(name) == {}
    restart_to_running(cluster, name)
    assert subsequence(["Restarting", "Pending", "Running"], cluster.phases(name))
    assert cluster.phase(name) == "Running"
    pod = cluster.pods(name)[f"{name}-delete-0"]
    assert pod["metadata"]["annotations"]["volcano.sh/job-version"] == str(version + 1)
    assert pod["metadata"]["annotations"]["volcano.sh/job-retry-count"] == "1"


@pytest.mark.parametrize(("case", "policy", "expected"), [
    (6, {"event": "PodEvicted", "action": "TerminateJob"}, ["Terminating", "Terminated"]),
    (7, {"event": "PodEvicted", "action": "AbortJob"}, ["Aborting", "Aborted"]),
    (14, {"events": ["PodEvicted", "PodFailed", "PodEvicted"], "action": "TerminateJob"},
     ["Terminating", "Terminated"]),
])
def test_evicted_terminate_or_abort(cluster: Cluster, case: int, policy: dict[str, Any],
                                    expected: list[str]) -> None:
    name = f"jobseq-{case}"
    cluster.start(two_tasks(name, [policy], second="delete"))
    cluster.delete_pod(f"{name}-delete-0")
    assert subsequence(expected, cluster.phases(name)), cluster.phases(name)
    assert cluster.phase(name) == expected[-1]
    assert cluster.pods(name) == {}  # running pods were killed, nothing recreated
    st = cluster.status(name)
    assert st.get("pending", 0) == st.get("running", 0) == st.get("terminating", 0) == 0


@pytest.mark.parametrize(("case", "action", "expected"), [
    (9, "RestartJob", ["Restarting", "Pending", "Running"]),
    (10, "AbortJob", ["Aborting", "Aborted"]),
])
def test_podgroup_unknown(cluster: Cluster, case: int, action: str, expected: list[str]) -> None:
    name = f"jobseq-{case}"
    cluster.start(job(name, [task("test", 3)], policies=[{"event": "Unknown", "action": action}]))
    cluster.set_pg_phase(name, "Unknown")
    if action == "RestartJob":
        restart_to_running(cluster, name)
    assert subsequence(expected, cluster.phases(name)), cluster.phases(name)
    assert cluster.phase(name) == expected[-1]


@pytest.mark.parametrize(("case", "level"), [(11, "job"), (18, "task")])
def test_task_completed_complete_job(cluster: Cluster, case: int, level: str) -> None:
    name = f"jobseq-{case}"
    policy = [{"event": "TaskCompleted", "action": "CompleteJob"}]
    tasks = [task("completed-task", 2, policies=policy if level == "task" else None), task("terminating-task", 2)]
    cluster.start(job(name, tasks, policies=policy if level == "job" else None))
    cluster.set_pod(f"{name}-completed-task-0", "Succeeded")
    assert cluster.phase(name) == "Running"  # one of two replicas done: not the whole task yet
    cluster.set_pod(f"{name}-completed-task-1", "Succeeded")
    assert subsequence(["Pending", "Completing", "Completed"], cluster.phases(name)), cluster.phases(name)
    pods = cluster.pods(name)
    assert sorted(pods) == [f"{name}-completed-task-0", f"{name}-completed-task-1"]


def test_case_12_task_failed_terminates(cluster: Cluster) -> None:
    name = "jobseq-12"
    cluster.start(job(name, [task("success", 2), task("failed", 2, max_retry=3)],
                      policies=[{"event": "TaskFailed", "action": "TerminateJob"}]))
    cluster.set_pod(f"{name}-failed-0", "Running", restarts=4)
    assert subsequence(["Terminating", "Terminated"], cluster.phases(name)), cluster.phases(name)


def test_case_13_exit_code_restart(cluster: Cluster) -> None:
    name = "jobseq-13"
    cluster.start(job(name, [task("success", 1), task("fail", 1)],
                      policies=[{"exitCode": 3, "action": "RestartJob"}]))
    cluster.set_pod(f"{name}-fail-0", "Failed", exit_code=3)
    assert subsequence(["Pending", "Running", "Restarting"], cluster.phases(name))


def test_exit_code_mismatch_does_nothing(cluster: Cluster) -> None:
    name = "exit-other"
    cluster.start(job(name, [task("success", 1), task("fail", 1)],
                      policies=[{"exitCode": 3, "action": "RestartJob"}]))
    cluster.set_pod(f"{name}-fail-0", "Failed", exit_code=127)
    assert "Restarting" not in cluster.phases(name)


def test_case_15_task_level_pod_failed_restart(cluster: Cluster) -> None:
    name = "jobseq-15"
    cluster.start(two_tasks(name, task_policies=[{"event": "PodFailed", "action": "RestartJob"}]))
    cluster.set_pod(f"{name}-fail-0", "Failed", exit_code=127)
    assert subsequence(["Pending", "Running", "Restarting"], cluster.phases(name))


def test_case_16_task_level_evicted_restart(cluster: Cluster) -> None:
    name = "jobseq-16"
    cluster.start(two_tasks(name, second="delete", task_policies=[{"event": "PodEvicted", "action": "RestartJob"}]))
    cluster.delete_pod(f"{name}-delete-0")
    restart_to_running(cluster, name)
    assert subsequence(["Restarting", "Pending", "Running"], cluster.phases(name))


def test_case_16b_task_policy_only_applies_to_its_task(cluster: Cluster) -> None:
    name = "jobseq-16b"
    cluster.start(two_tasks(name, second="delete", task_policies=[{"event": "PodEvicted", "action": "RestartJob"}]))
    cluster.delete_pod(f"{name}-success-0")
    assert "Restarting" not in cluster.phases(name)
    assert f"{name}-success-0" in cluster.pods(name)  # just recreated


def test_case_17_task_level_evicted_terminate(cluster: Cluster) -> None:
    name = "jobseq-17"
    cluster.start(two_tasks(name, second="delete",
                            task_policies=[{"event": "PodEvicted", "action": "TerminateJob"}]))
    cluster.delete_pod(f"{name}-delete-0")
    assert subsequence(["Terminating", "Terminated"], cluster.phases(name))


def test_case_19_task_restart_beats_job_abort(cluster: Cluster) -> None:
    name = "jobseq-19"
    cluster.start(two_tasks(name, [{"event": "PodFailed", "action": "AbortJob"}],
                            task_policies=[{"event": "PodFailed", "action": "RestartJob"}]))
    cluster.set_pod(f"{name}-fail-0", "Failed", exit_code=127)
    phases = cluster.phases(name)
    assert subsequence(["Pending", "Running", "Restarting"], phases)
    assert "Aborting" not in phases


@pytest.mark.parametrize(("case", "plugins", "master_env"), [
    (26, {"ssh": [], "env": [], "svc": []}, False),
    (27, {"mpi": ["--master=mpimaster", "--worker=mpiworker", "--port=22"], "ssh": [], "svc": []}, True),
])
def test_mpi_runs_to_completed(cluster: Cluster, case: int, plugins: dict[str, list[str]],
                               master_env: bool) -> None:
    name = f"mpi-{case}"
    manifest = job(name, [task("mpimaster", 1, cpu="1"), task("mpiworker", 2, cpu="1")],
                   policies=[{"event": "TaskCompleted", "action": "CompleteJob"}], plugins=plugins)
    if case == 27:
        manifest["spec"]["minAvailable"] = 1
    cluster.start(manifest)
    master = cluster.pods(name)[f"{name}-mpimaster-0"]
    env = {e["name"]: e.get("value") for e in master["spec"]["containers"][0].get("env", [])}
    if master_env:
        assert env["MPI_HOST"] == f"{name}-mpiworker-0.{name},{name}-mpiworker-1.{name}"
    else:
        assert env["VK_TASK_INDEX"] == "0"
    cluster.set_pod(f"{name}-mpimaster-0", "Succeeded")
    assert subsequence(["Pending", "Running", "Completing", "Completed"], cluster.phases(name)), \
        cluster.phases(name)
    assert sorted(cluster.pods(name)) == [f"{name}-mpimaster-0"]
