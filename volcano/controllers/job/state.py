"""The Job state machine: for the job's phase and the resolved action, which
operation runs and how it rewrites the status (Volcano's ``pkg/controllers/job/state``).

``transition(phase, action)`` returns a ``Transition``: the operation
(``SYNC`` = create/count pods, ``KILL_JOB`` = kill the whole job and bump its
version, ``KILL_TARGET`` = kill one task or pod), the pod phases a job kill
retains, and the status update function. An update function edits the fresh
status dict in place (``state.phase``, ``retryCount``) given the job, and
returns True when it set the phase (the caller then stamps
``lastTransitionTime`` and appends a condition).

Empty or unknown phases behave as ``Pending``. The rules (Restarting's
retry limit, Running's Completed-vs-Failed decision, Aborting/Completing/
Terminating waiting for live pods to be gone) are documented on each function.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from volcano.controllers.job.constants import (
    ACTION_ABORT_JOB,
    ACTION_COMPLETE_JOB,
    ACTION_RESTART_JOB,
    ACTION_RESTART_PARTITION,
    ACTION_RESTART_POD,
    ACTION_RESTART_TASK,
    ACTION_RESUME_JOB,
    ACTION_SYNC_JOB,
    ACTION_TERMINATE_JOB,
    FINISHED_PHASES,
    PHASE_ABORTED,
    PHASE_ABORTING,
    PHASE_COMPLETED,
    PHASE_COMPLETING,
    PHASE_FAILED,
    PHASE_PENDING,
    PHASE_RESTARTING,
    PHASE_RUNNING,
    PHASE_TERMINATED,
    PHASE_TERMINATING,
)

__all__ = [
    "KILL_JOB",
    "KILL_TARGET",
    "RETAIN_NONE",
    "RETAIN_SOFT",
    "SYNC",
    "Transition",
    "UpdateFn",
    "pending_rule",
    "restart_rule",
    "running_rule",
    "total_replicas",
    "total_task_min_available",
    "transition",
]

SYNC = "Sync"
KILL_JOB = "KillJob"
KILL_TARGET = "KillTarget"

RETAIN_NONE: frozenset[str] = frozenset()
"""Kill every pod."""
RETAIN_SOFT: frozenset[str] = frozenset({"Succeeded", "Failed"})
"""Keep finished pods, kill the rest."""

UpdateFn = Callable[[Mapping[str, Any], dict[str, Any]], bool]
"""``fn(job, status) -> phase_changed``; edits ``status`` in place."""

_RESTART_TARGETED = frozenset({ACTION_RESTART_TASK, ACTION_RESTART_POD, ACTION_RESTART_PARTITION})


@dataclass(frozen=True, slots=True)
class Transition:
    """What one (phase, action) pair does."""

    operation: str
    update: UpdateFn | None
    retain: frozenset[str] = RETAIN_NONE
    name: str = ""

    def __repr__(self) -> str:
        return f"Transition({self.operation}, {self.name or '-'})"


def total_replicas(job: Mapping[str, Any]) -> int:
    """Sum of ``spec.tasks[*].replicas``."""
    return sum(int(t.get("replicas") or 0) for t in (job.get("spec") or {}).get("tasks") or [])


def total_task_min_available(job: Mapping[str, Any]) -> int:
    """Sum over tasks of ``minAvailable`` (``replicas`` when unset)."""
    total = 0
    for t in (job.get("spec") or {}).get("tasks") or []:
        m = t.get("minAvailable")
        total += int(t.get("replicas") or 0) if m is None else int(m)
    return total


def _phase(status: dict[str, Any], phase: str) -> None:
    status.setdefault("state", {})["phase"] = phase


def _to(phase: str, *, retry: bool = False) -> UpdateFn:
    def update(job: Mapping[str, Any], status: dict[str, Any]) -> bool:
        _phase(status, phase)
        if retry:
            status["retryCount"] = int(status.get("retryCount") or 0) + 1
        return True
    update.__name__ = f"to_{phase}{'_retry' if retry else ''}"
    return update


def _n(status: Mapping[str, Any], key: str) -> int:
    return int(status.get(key) or 0)


def pending_rule(job: Mapping[str, Any], status: dict[str, Any]) -> bool:
    """Pending -> Running once ``spec.minAvailable <= running + succeeded + failed``."""
    min_available = int((job.get("spec") or {}).get("minAvailable") or 0)
    if min_available <= _n(status, "running") + _n(status, "succeeded") + _n(status, "failed"):
        _phase(status, PHASE_RUNNING)
        return True
    return False


def running_rule(job: Mapping[str, Any], status: dict[str, Any]) -> bool:
    """Running: Completed when minSuccess pods succeeded; when every pod finished,
    Failed if a task with minAvailable has fewer successes (only when the job's
    minAvailable covers every task's), else by minSuccess / minAvailable; back to
    Pending when more pods are pending than the gang can spare; else unchanged."""
    spec = job.get("spec") or {}
    replicas = total_replicas(job)
    if replicas == 0:
        return False
    succeeded, failed = _n(status, "succeeded"), _n(status, "failed")
    min_success = spec.get("minSuccess")
    min_available = int(spec.get("minAvailable") or 0)
    if min_success is not None and succeeded >= int(min_success):
        _phase(status, PHASE_COMPLETED)
        return True
    if succeeded + failed == replicas:
        if min_available >= total_task_min_available(job):
            counts = status.get("taskStatusCount") or {}
            for task in spec.get("tasks") or []:
                task_min = task.get("minAvailable")
                if task_min is None or task.get("name") not in counts:
                    continue
                done = int(((counts[task["name"]] or {}).get("phase") or {}).get("Succeeded") or 0)
                if done < int(task_min):
                    _phase(status, PHASE_FAILED)
                    return True
        if min_success is not None and succeeded < int(min_success):
            _phase(status, PHASE_FAILED)
        elif succeeded >= min_available:
            _phase(status, PHASE_COMPLETED)
        else:
            _phase(status, PHASE_FAILED)
        return True
    if _n(status, "pending") > replicas - min_available:
        _phase(status, PHASE_PENDING)
        return True
    return False


def restart_rule(job: Mapping[str, Any], status: dict[str, Any]) -> bool:
    """Restarting: Failed once ``retryCount >= maxRetry``; Pending once
    ``replicas - terminating >= status.minAvailable``; else unchanged."""
    spec = job.get("spec") or {}
    if _n(status, "retryCount") >= int(spec.get("maxRetry") or 0):
        _phase(status, PHASE_FAILED)
        return True
    if total_replicas(job) - _n(status, "terminating") >= _n(status, "minAvailable"):
        _phase(status, PHASE_PENDING)
        return True
    return False


def _when_drained(phase: str) -> UpdateFn:
    def update(job: Mapping[str, Any], status: dict[str, Any]) -> bool:
        if _n(status, "terminating") or _n(status, "pending") or _n(status, "running"):
            return False
        _phase(status, phase)
        return True
    update.__name__ = f"drained_to_{phase}"
    return update


def _pending_or_running(action: str, running: bool) -> Transition:
    if action == ACTION_RESTART_JOB:
        return Transition(KILL_JOB, _to(PHASE_RESTARTING, retry=True), RETAIN_NONE, "-> Restarting, retry+1")
    if action in _RESTART_TARGETED:
        return Transition(KILL_TARGET, _to(PHASE_RESTARTING, retry=True), RETAIN_NONE, "-> Restarting, retry+1")
    if action == ACTION_ABORT_JOB:
        return Transition(KILL_JOB, _to(PHASE_ABORTING), RETAIN_SOFT, "-> Aborting")
    if action == ACTION_COMPLETE_JOB:
        return Transition(KILL_JOB, _to(PHASE_COMPLETING), RETAIN_SOFT, "-> Completing")
    if action == ACTION_TERMINATE_JOB:
        return Transition(KILL_JOB, _to(PHASE_TERMINATING), RETAIN_SOFT, "-> Terminating")
    if running:
        return Transition(SYNC, running_rule, RETAIN_NONE, "running rule")
    return Transition(SYNC, pending_rule, RETAIN_NONE, "pending rule")


def transition(phase: str, action: str) -> Transition:
    """The operation and status update for ``action`` on a job in ``phase``."""
    if phase == PHASE_RUNNING:
        return _pending_or_running(action, running=True)
    if phase == PHASE_RESTARTING:
        if action == ACTION_SYNC_JOB:
            return Transition(SYNC, restart_rule, RETAIN_NONE, "restart rule")
        if action in _RESTART_TARGETED:
            return Transition(KILL_TARGET, restart_rule, RETAIN_NONE, "restart rule")
        return Transition(KILL_JOB, restart_rule, RETAIN_NONE, "restart rule")
    if phase in (PHASE_ABORTING, PHASE_ABORTED):
        if action == ACTION_RESUME_JOB:
            return Transition(KILL_JOB, _to(PHASE_RESTARTING, retry=True), RETAIN_SOFT, "-> Restarting, retry+1")
        if phase == PHASE_ABORTING:
            return Transition(KILL_JOB, _when_drained(PHASE_ABORTED), RETAIN_SOFT, "-> Aborted when drained")
        return Transition(KILL_JOB, None, RETAIN_SOFT, "no change")
    if phase == PHASE_COMPLETING:
        return Transition(KILL_JOB, _when_drained(PHASE_COMPLETED), RETAIN_SOFT, "-> Completed when drained")
    if phase == PHASE_TERMINATING:
        return Transition(KILL_JOB, _when_drained(PHASE_TERMINATED), RETAIN_SOFT, "-> Terminated when drained")
    if phase in FINISHED_PHASES:
        return Transition(KILL_JOB, None, RETAIN_SOFT, "no change")
    return _pending_or_running(action, running=False)

