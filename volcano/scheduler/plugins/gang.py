"""gang plugin: all-or-nothing scheduling by ``minMember`` / ``minTaskMember``,
gang-protecting victims, and the PodGroup conditions written at session close
(Volcano ``gang.go``)."""

from __future__ import annotations

from typing import Any

from volcano.scheduler.framework.job import REPLAYS
from volcano.scheduler.framework.model import (
    ALLOCATED_STATUSES,
    SCHEDULED_STATUSES,
    JobInfo,
    TaskInfo,
    TaskStatus,
)
from volcano.scheduler.framework.plugin import Plugin
from volcano.scheduler.framework.points import (
    JOB_ORDER,
    JOB_PIPELINED,
    JOB_READY,
    JOB_STARVING,
    JOB_VALID,
    PERMIT,
    PREEMPTABLE,
    RECLAIMABLE,
    REJECT,
    UNIFIED_EVICTABLE,
)
from volcano.scheduler.framework.session import Session
from volcano.scheduler.framework.status import FIT_MESSAGES, close_memos, origin_order

__all__ = ["GangPlugin", "set_condition", "should_skip_unschedulable_for_releasing"]

S = TaskStatus


def should_skip_unschedulable_for_releasing(job: JobInfo) -> bool:
    """True while members terminate but the gang still holds minAvailable (no
    Pending or Pipelined tasks, ≥1 releasing task with a node)."""
    releasing = sum(1 for t in job.tasks.values() if t.status == S.Releasing and t.node_name) \
        if job.status_counts[S.Releasing] else 0
    if releasing == 0 or job.status_counts[S.Pending] or job.status_counts[S.Pipelined]:
        return False
    return job.count(SCHEDULED_STATUSES) + releasing >= job.min_available


def set_condition(job: JobInfo, cond: dict[str, Any]) -> None:
    """Replace the condition of the same type in place, else append."""
    for i, c in enumerate(job.conditions):
        if c.get("type") == cond["type"]:
            job.conditions[i] = cond
            return
    job.conditions.append(cond)


class GangPlugin(Plugin):
    """Gang scheduling: a job is valid, ready and pipelined only with ``minMember``
    (and per-role ``minTaskMember``) tasks; victims never break a ready gang; at
    close every job gets a Scheduled or Unschedulable condition."""

    name = "gang"

    def open(self, ssn: Session) -> None:
        """Register validity, readiness, pipelining, starving, order and victim callbacks."""
        def valid(job: JobInfo) -> tuple[str, str] | None:
            if not job.check_task_valid():
                return ("NotEnoughPodsOfTask", "Not enough valid pods of each task for gang-scheduling")
            vtn = job.valid_task_num()
            if vtn < job.min_available:
                return ("NotEnoughTasks",
                        f"Not enough valid tasks for gang-scheduling, valid: {vtn}, min: {job.min_available}")
            return None

        def victims(_: TaskInfo, cands: list[TaskInfo]) -> tuple[list[TaskInfo], int]:
            left: dict[str, int] = {}
            out = []
            for t in cands:
                job = ssn.job_of(t)
                if job is None:
                    continue
                n = left.setdefault(job.uid, job.ready_task_num())
                if n > job.min_available:
                    out.append(t)
                    left[job.uid] = n - 1
            return out, PERMIT

        def order(left: JobInfo, right: JobInfo) -> int:
            lr, rr = left.is_ready(), right.is_ready()
            if lr == rr:
                return 0
            return 1 if lr else -1

        ssn.add_fn(JOB_VALID, valid)
        ssn.add_fn(PREEMPTABLE, victims)
        ssn.add_fn(RECLAIMABLE, victims)
        # The gang actions protect gangs with safe/whole bundles, so the unified
        # victim filter lets every candidate through.
        ssn.add_fn(UNIFIED_EVICTABLE, lambda _ctx, cands: (list(cands), PERMIT))
        ssn.add_fn(JOB_ORDER, order, key=lambda job: job.is_ready())  # not ready (False) first
        ssn.add_fn(JOB_READY, lambda job: job.check_task_ready() and job.is_ready())
        ssn.add_fn(JOB_PIPELINED,
                   lambda job: PERMIT if job.check_task_pipelined() and job.is_pipelined() else REJECT)
        ssn.add_fn(JOB_STARVING, lambda job: job.is_starving())

    close_keeps_memo = True
    """This ``close`` keeps each job's ``CloseMemo`` (its ``gang`` part) true (``status``)."""

    def close(self, ssn: Session) -> None:
        """Write Unschedulable/Scheduled conditions (in-session; the scheduler persists them)
        and report the unschedulable task and job counts and the retries to ``ssn.metrics``.
        A job left untouched by the session (``JobInfo.untouched``), or touched only by the
        replay of a futile allocate visit (``JobInfo.touch``), whose memo from the last session
        was derived under the same configuration and phase, and after the same touch (nothing,
        or the replay of the very same recorded outcome), gets the memo's condition again (at
        this session's time and uid): its verdict reads only the job as built and what the
        replay wrote (each placed task's last transaction and ``eviction_occurred``, the fit
        errors in their order, the counters back where they were), the same both times."""
        not_ready_jobs = 0
        now = ssn.timestamp()
        memos = close_memos(ssn)
        conf, uid = ssn.conf, ssn.uid
        metrics = ssn.metrics
        set_tasks = metrics.set_unschedulable_tasks
        # One condition dict per verdict (jobs of one verdict share it: nothing writes into a
        # job's condition, it is replaced in the list or copied).
        made: dict[tuple[str, int, str], dict[str, Any]] = {}
        token = ssn.state.get(REPLAYS) if memos is not None else None
        for job in ssn.jobs.values():
            if not job.tasks:
                continue
            memo = job.closed if memos is not None else None
            touch = job.touch(token) if memos is not None else None
            if memo is not None and memo.conf is conf and memo.phase == job.phase and touch is not None \
                    and memo.touch is touch:
                verdict = memo.gang
            else:
                verdict = _verdict(ssn, job)
                job.closed = memos.keep(conf, job.phase, verdict, touch=touch) \
                    if memos is not None and touch is not None else None
            if verdict is None:
                continue
            kind, unready, msg = verdict
            cond = made.get(verdict)
            if cond is None:
                if kind == "Unschedulable":
                    cond = {"type": "Unschedulable", "status": "True", "transitionID": uid,
                            "lastTransitionTime": now, "reason": "NotEnoughResources", "message": msg}
                else:
                    cond = {"type": "Scheduled", "status": "True", "transitionID": uid, "lastTransitionTime": now,
                            "reason": "tasks in gang are ready to be scheduled", "message": ""}
                made[verdict] = cond
            if kind == "Unschedulable":
                not_ready_jobs += 1
                metrics.count_job_retry(job.name)
            conditions = job.conditions  # ``set_condition``, inlined: this loop runs over every job
            for i, c in enumerate(conditions):
                if c.get("type") == kind:
                    conditions[i] = cond
                    break
            else:
                conditions.append(cond)
            set_tasks(job.name, unready)
        ssn.metrics.set_unschedulable_jobs(not_ready_jobs)


def _verdict(ssn: Session, job: JobInfo) -> tuple[str, int, str] | None:
    """The condition gang sets on ``job`` at close: (type, unschedulable tasks, message), or None
    while members release and the gang still holds (``should_skip_unschedulable_for_releasing``)."""
    if job.is_ready():
        return ("Scheduled", 0, "")
    if should_skip_unschedulable_for_releasing(job):
        return None
    schedulable = job.ready_task_num()
    pending = S.Pending  # read once: an enum member read off its class is slow, and this runs per task
    for t in job.tasks.values():  # a Pending task whose last transaction allocated it counts
        if t.status == pending:
            txn = t.last_txn  # without one its status, Pending, is not an allocated one
            if txn is not None and txn[0] in ALLOCATED_STATUSES:
                schedulable += 1
    unready = job.min_available - schedulable
    fit = job.fit_error(origin_order(ssn, job))
    if ssn.reuse:  # the status close writes the same message in the job's event (``status.fit_messages``)
        ssn.state.get(FIT_MESSAGES)[job.uid] = fit
    return ("Unschedulable", unready, f"{unready}/{len(job.tasks)} tasks in gang unschedulable: {fit}")
