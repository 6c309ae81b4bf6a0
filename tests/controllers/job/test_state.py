"""The state x action table (reference §3.2), row by row, and the status rules (§3.4, §3.5)."""

from __future__ import annotations

from typing import Any

import pytest

from volcano.controllers.job.state import (
    KILL_JOB,
    KILL_TARGET,
    RETAIN_NONE,
    RETAIN_SOFT,
    SYNC,
    restart_rule,
    running_rule,
    transition,
)

ALL_ACTIONS = ["AbortJob", "RestartJob", "RestartTask", "RestartPod", "RestartPartition", "TerminateJob",
               "CompleteJob", "ResumeJob", "SyncJob", "EnqueueJob"]


def make_job(replicas: int = 2, min_available: int = 2, max_retry: int = 3, **spec: Any) -> dict[str, Any]:
    return {"metadata": {"name": "j"}, "spec": {"minAvailable": min_available, "maxRetry": max_retry,
                                                "tasks": [{"name": "t", "replicas": replicas}], **spec}}


def apply(phase: str, action: str, **status: Any) -> tuple[str, str, frozenset[str], bool, dict[str, Any]]:
    t = transition(phase, action)
    st: dict[str, Any] = {"state": {"phase": phase}, "minAvailable": 2, **status}
    changed = t.update(make_job(), st) if t.update else False
    return t.operation, st["state"]["phase"], t.retain, changed, st


# (phase, action, operation, retain (for KillJob), resulting phase, retryCount after) with an idle status
# (no pods counted, nothing terminating).
ROWS = [
    ("Pending", "RestartJob", KILL_JOB, RETAIN_NONE, "Restarting", 1),
    ("Pending", "RestartTask", KILL_TARGET, RETAIN_NONE, "Restarting", 1),
    ("Pending", "RestartPod", KILL_TARGET, RETAIN_NONE, "Restarting", 1),
    ("Pending", "RestartPartition", KILL_TARGET, RETAIN_NONE, "Restarting", 1),
    ("Pending", "AbortJob", KILL_JOB, RETAIN_SOFT, "Aborting", 0),
    ("Pending", "CompleteJob", KILL_JOB, RETAIN_SOFT, "Completing", 0),
    ("Pending", "TerminateJob", KILL_JOB, RETAIN_SOFT, "Terminating", 0),
    ("Pending", "SyncJob", SYNC, RETAIN_NONE, "Pending", 0),
    ("Pending", "EnqueueJob", SYNC, RETAIN_NONE, "Pending", 0),
    ("Pending", "ResumeJob", SYNC, RETAIN_NONE, "Pending", 0),
    ("", "RestartJob", KILL_JOB, RETAIN_NONE, "Restarting", 1),
    ("NoSuchPhase", "AbortJob", KILL_JOB, RETAIN_SOFT, "Aborting", 0),
    ("Running", "RestartJob", KILL_JOB, RETAIN_NONE, "Restarting", 1),
    ("Running", "RestartTask", KILL_TARGET, RETAIN_NONE, "Restarting", 1),
    ("Running", "RestartPod", KILL_TARGET, RETAIN_NONE, "Restarting", 1),
    ("Running", "RestartPartition", KILL_TARGET, RETAIN_NONE, "Restarting", 1),
    ("Running", "AbortJob", KILL_JOB, RETAIN_SOFT, "Aborting", 0),
    ("Running", "TerminateJob", KILL_JOB, RETAIN_SOFT, "Terminating", 0),
    ("Running", "CompleteJob", KILL_JOB, RETAIN_SOFT, "Completing", 0),
    ("Running", "SyncJob", SYNC, RETAIN_NONE, "Running", 0),
    ("Running", "ResumeJob", SYNC, RETAIN_NONE, "Running", 0),
    # Restarting: every non-sync, non-targeted action is a full kill; restart rule decides (2 - 0 >= 2 -> Pending).
    ("Restarting", "SyncJob", SYNC, RETAIN_NONE, "Pending", 0),
    ("Restarting", "RestartTask", KILL_TARGET, RETAIN_NONE, "Pending", 0),
    ("Restarting", "RestartPod", KILL_TARGET, RETAIN_NONE, "Pending", 0),
    ("Restarting", "RestartPartition", KILL_TARGET, RETAIN_NONE, "Pending", 0),
    ("Restarting", "AbortJob", KILL_JOB, RETAIN_NONE, "Pending", 0),
    ("Restarting", "TerminateJob", KILL_JOB, RETAIN_NONE, "Pending", 0),
    ("Restarting", "RestartJob", KILL_JOB, RETAIN_NONE, "Pending", 0),
    ("Restarting", "ResumeJob", KILL_JOB, RETAIN_NONE, "Pending", 0),
    ("Restarting", "CompleteJob", KILL_JOB, RETAIN_NONE, "Pending", 0),
    ("Aborting", "ResumeJob", KILL_JOB, RETAIN_SOFT, "Restarting", 1),
    ("Aborting", "SyncJob", KILL_JOB, RETAIN_SOFT, "Aborted", 0),
    ("Aborting", "AbortJob", KILL_JOB, RETAIN_SOFT, "Aborted", 0),
    ("Aborted", "ResumeJob", KILL_JOB, RETAIN_SOFT, "Restarting", 1),
    ("Aborted", "SyncJob", KILL_JOB, RETAIN_SOFT, "Aborted", 0),
    ("Aborted", "RestartJob", KILL_JOB, RETAIN_SOFT, "Aborted", 0),
]
ROWS += [("Completing", a, KILL_JOB, RETAIN_SOFT, "Completed", 0) for a in ALL_ACTIONS]
ROWS += [("Terminating", a, KILL_JOB, RETAIN_SOFT, "Terminated", 0) for a in ALL_ACTIONS]
ROWS += [(p, a, KILL_JOB, RETAIN_SOFT, p, 0) for p in ("Completed", "Failed", "Terminated") for a in ALL_ACTIONS]


@pytest.mark.parametrize(("phase", "action", "operation", "retain", "result", "retry"), ROWS,
                         ids=[f"{r[0] or 'empty'}-{r[1]}" for r in ROWS])
def test_transition_table(phase: str, action: str, operation: str, retain: frozenset[str], result: str,
                          retry: int) -> None:
    op, new_phase, kept, _, st = apply(phase, action)
    assert op == operation
    if op == KILL_JOB:
        assert kept == retain
    assert new_phase == result
    assert st.get("retryCount", 0) == retry


@pytest.mark.parametrize("phase", ["Aborting", "Completing", "Terminating"])
@pytest.mark.parametrize("alive", ["terminating", "pending", "running"])
def test_draining_phases_wait_for_live_pods(phase: str, alive: str) -> None:
    _, new_phase, _, changed, _ = apply(phase, "SyncJob", **{alive: 1})
    assert new_phase == phase and not changed


def test_pending_goes_running_when_min_available_pods_started() -> None:
    _, phase, _, changed, _ = apply("Pending", "SyncJob", running=1, succeeded=1)
    assert phase == "Running" and changed
    _, phase, _, changed, _ = apply("Pending", "SyncJob", running=1, pending=1)
    assert phase == "Pending" and not changed


def test_restart_rule() -> None:
    job = make_job(replicas=2, min_available=2, max_retry=3)
    st: dict[str, Any] = {"state": {"phase": "Restarting"}, "retryCount": 3, "minAvailable": 2}
    assert restart_rule(job, st) and st["state"]["phase"] == "Failed"
    st = {"state": {"phase": "Restarting"}, "retryCount": 1, "minAvailable": 2, "terminating": 1}
    assert not restart_rule(job, st) and st["state"]["phase"] == "Restarting"
    st = {"state": {"phase": "Restarting"}, "retryCount": 1, "minAvailable": 2}
    assert restart_rule(job, st) and st["state"]["phase"] == "Pending"


@pytest.mark.parametrize(("spec", "status", "expected"), [
    ({}, {"succeeded": 2}, "Completed"),
    ({}, {"succeeded": 1, "failed": 1}, "Failed"),
    ({"minAvailable": 1}, {"succeeded": 1, "failed": 1}, "Completed"),
    ({"minSuccess": 1}, {"succeeded": 1, "running": 1}, "Completed"),
    ({"minSuccess": 2, "minAvailable": 1}, {"succeeded": 1, "failed": 1}, "Failed"),
    ({}, {"pending": 1, "running": 1}, "Pending"),
    ({}, {"running": 2}, "Running"),
    ({"minAvailable": 1}, {"pending": 1, "running": 1}, "Running"),
])
def test_running_rule(spec: dict[str, Any], status: dict[str, Any], expected: str) -> None:
    job = make_job()
    job["spec"].update(spec)
    st: dict[str, Any] = {"state": {"phase": "Running"}, **status}
    running_rule(job, st)
    assert st["state"]["phase"] == expected


def test_running_rule_task_min_available_failures() -> None:
    job = {"metadata": {"name": "j"}, "spec": {"minAvailable": 3, "tasks": [
        {"name": "a", "replicas": 2, "minAvailable": 2}, {"name": "b", "replicas": 1, "minAvailable": 1}]}}
    st: dict[str, Any] = {"state": {"phase": "Running"}, "succeeded": 2, "failed": 1,
                          "taskStatusCount": {"a": {"phase": {"Succeeded": 1, "Failed": 1}},
                                              "b": {"phase": {"Succeeded": 1}}}}
    assert running_rule(job, st) and st["state"]["phase"] == "Failed"


def test_running_rule_scaled_to_zero_keeps_phase() -> None:
    job = make_job(replicas=0, min_available=0)
    st: dict[str, Any] = {"state": {"phase": "Running"}}
    assert not running_rule(job, st) and st["state"]["phase"] == "Running"
