"""backfill: place BestEffort tasks (no requests) that allocate skips.

Pipelined best-effort tasks are un-pipelined first. Order: queue order, job
order, task order. No resource check beyond the predicates (which include the
pod-count limit); placement is a direct ``Session.allocate``, which binds every
Allocated task of the job as soon as the job is ready (Volcano ``backfill.go``).
"""

from __future__ import annotations

import numpy as np

from volcano.scheduler.actions.base import Action, Agenda, schedulable_jobs
from volcano.scheduler.framework.model import FitErrors, JobInfo, TaskInfo, TaskStatus
from volcano.scheduler.framework.select import feasible
from volcano.scheduler.framework.session import Session

__all__ = ["Backfill", "pick_up_pending_tasks"]


def _has_best_effort(job: JobInfo) -> bool:
    return job.best_effort_tasks > 0


def pick_up_pending_tasks(ssn: Session) -> list[TaskInfo]:
    """Best-effort tasks to backfill, in queue, job, task order (un-pipelining pipelined ones)."""
    agenda = Agenda(ssn, keyed=True)
    tasks: dict[str, list[TaskInfo]] = {}
    # A job without best-effort tasks has nothing to backfill (with reuse it is skipped unread).
    for job, queue in schedulable_jobs(ssn, _has_best_effort if ssn.reuse else None):
        cands: list[TaskInfo] = []
        for t in list(job.tasks.values()):
            if not t.best_effort:
                continue
            if t.status == TaskStatus.Pending and not t.spec.gated:
                cands.append(t)
            elif t.status == TaskStatus.Pipelined:
                ssn.undo_pipeline(t)
                cands.append(t)
        if not cands:
            continue
        tasks[job.uid] = ssn.sort_tasks(cands)
        agenda.add_job(queue, job)
    out: list[TaskInfo] = []
    while agenda:
        jobs = agenda.jobs(agenda.pop_queue())
        while jobs:
            out.extend(tasks[jobs.pop().uid])
    return out


class Backfill(Action):
    """The backfill action."""

    name = "backfill"

    def execute(self, ssn: Session) -> None:
        """Backfill best-effort tasks."""
        n = len(ssn.table)
        for task in pick_up_pending_tasks(ssn):
            job = task.job
            assert job is not None
            err = ssn.pre_predicate(task)
            if err:
                fe = FitErrors()
                fe.add({err: n}, n)
                job.fit_errors[task.uid] = fe
                continue
            rows, fe = feasible(ssn, task, resources=False)
            if len(rows) == 0:
                job.fit_errors[task.uid] = fe
                continue
            if len(rows) == 1:
                best = int(rows[0])
            else:
                scores = ssn.node_scores(task, rows)
                chosen = ssn.best_node(task, rows, scores)
                best = int(chosen) if chosen is not None else int(rows[int(np.argmax(scores))])
            ssn.allocate(task, ssn.nodes[best])
