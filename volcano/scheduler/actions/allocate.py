"""allocate: place Pending tasks of admitted jobs, gang-atomically per visit.

Follows Volcano's ``allocate.go`` for jobs without network topology or
sub-groups: queues by queue order (skipping overused ones), one job per visit
in job order, tasks in task order; each task goes through Allocatable,
PrePredicate, the predicates and resource fit on FutureIdle, then node
prioritisation; it is Allocated when it fits Idle, else Pipelined. After the
visit the statement is committed when JobReady, kept (uncommitted) when only
JobPipelined, else discarded. A ready job is re-queued for one more task per
visit. Network-topology and sub-group paths are not implemented.
"""

from __future__ import annotations

from collections import deque

from volcano.scheduler.actions.base import PENDING_PHASES, Action, Agenda
from volcano.scheduler.actions.futile import FutileMemo, Placed, Quota
from volcano.scheduler.framework.model import FitErrors, JobInfo, QueueInfo, TaskInfo, TaskStatus
from volcano.scheduler.framework.points import JOB_READY, PRE_PREDICATE
from volcano.scheduler.framework.select import Lookahead, fits
from volcano.scheduler.framework.session import Session
from volcano.scheduler.framework.statement import Statement

__all__ = ["Allocate", "allocate_for_tasks"]


def allocate_for_tasks(ssn: Session, job: JobInfo, queue: QueueInfo, tasks: deque[TaskInfo],
                       look: Lookahead | None = None, memo: FutileMemo | None = None) -> Statement | None:
    """One visit of ``job``: allocate from ``tasks`` until ready or stuck; the
    statement to commit (ready), to keep (pipelined), or None (discarded).
    ``look`` is the action's node selection (kept across visits; a fresh one when None);
    ``memo`` replays a discarded visit on the same inputs and records this one (``futile``)."""
    return _serve(ssn, job, queue, tasks, look, memo)[0]


def _serve(ssn: Session, job: JobInfo, queue: QueueInfo, tasks: deque[TaskInfo], look: Lookahead | None,
           memo: FutileMemo | None) -> tuple[Statement | None, bool]:
    """``allocate_for_tasks``, and whether the visit was replayed or quiet (``_visit``'s ``quota``)
    and discarded: then it fired no allocation event handler, so every plugin's allocation (what the
    built-in plugins' queue order and overuse read) is as it was before the visit."""
    if memo is None:
        return _visit(ssn, job, queue, tasks, look), False
    if memo.replay(job, queue, tasks):
        return None, True
    taken = memo.begin(job, tasks)
    if taken is None:
        stmt = _visit(ssn, job, queue, tasks, look)
        memo.record(job, queue, None, None, len(tasks))
        return stmt, False
    placed: list[Placed] = []
    asked: list[bool] = []
    stmt = _visit(ssn, job, queue, tasks, look, placed, asked, memo.quota(queue))
    memo.record(job, queue, taken, placed if stmt is None else None, len(tasks), asked)
    return stmt, stmt is None


def _visit(ssn: Session, job: JobInfo, queue: QueueInfo, tasks: deque[TaskInfo], look: Lookahead | None,
           placed: list[Placed] | None = None, asked: list[bool] | None = None,
           quota: Quota | None = None) -> Statement | None:
    """``allocate_for_tasks`` itself; a discarded visit lists its placements in ``placed``;
    ``asked`` gets the ALLOCATABLE answers, one per task taken, in order. With ``quota`` (a visit
    the memo could record: built-in plugins, row-local tasks without terms or host ports) the
    placements are quiet (``Statement``): ``quota`` answers ALLOCATABLE meanwhile, a kept visit
    fires the held-back events at its end, a discarded one never does. Such a visit (without a
    PrePredicate, which might read the table) also defers its placements' node-table writes
    (``Statement``): the lookahead answers from the placements it was told of (``note``) and
    has them written before it reads the table otherwise; a discarded visit never writes them."""
    if look is None:
        look = Lookahead(ssn)
    pre = ssn.has(PRE_PREDICATE)  # no plugin: every answer is None (``all_ok``), left unasked
    stmt = Statement(ssn, quiet=quota is not None, deferred=quota is not None and not pre)
    if stmt.deferred:
        look.hold(stmt.write)
    try:
        return _places(ssn, job, queue, tasks, look, stmt, placed, asked, quota, pre)
    finally:
        if stmt.deferred:
            look.drop()  # what is still held was undone unwritten (a kept visit wrote it)
            look.hold(None)


def _places(ssn: Session, job: JobInfo, queue: QueueInfo, tasks: deque[TaskInfo], look: Lookahead,
            stmt: Statement, placed: list[Placed] | None, asked: list[bool] | None, quota: Quota | None,
            pre: bool) -> Statement | None:
    """The body of ``_visit`` with its statement made."""
    table = ssn.table
    # A recordable visit's plugins are the built-in ones (``futile``), of which only gang answers
    # JobReady, ``check_task_ready() and is_ready()`` (pure reads): while ``is_ready`` is False
    # the answer is False, left unasked.
    gang = quota is not None and ssn.has(JOB_READY)
    while tasks:
        task = tasks.popleft()
        allowed = ssn.allocatable(queue, task) if quota is None else quota.allowed(task)
        if asked is not None:
            asked.append(allowed)
        if not allowed:
            continue
        if task.spec.gated:
            continue
        if job.task_has_fit_errors(task):
            job.fit_errors[task.uid] = FitErrors(
                f"Task {task.name} with role spec {task.spec.role} has already predicated failed, skip")
            continue
        err = ssn.pre_predicate(task) if pre else None
        if err:
            fe = FitErrors()
            fe.add({err: len(table)}, len(table))
            job.fit_errors[task.uid] = fe
            if job.need_continue_allocating():
                continue
            break
        # A quiet visit's tasks are row-local: their signatures' were when it began (``memo.begin``),
        # and its placements (no terms, events held back) change no plugin's view.
        best, no_fit = look.select(task, quota is not None)
        if no_fit is not None:
            job.fit_errors[task.uid] = no_fit
            if job.need_continue_allocating():
                continue
            break
        if best is None:
            continue
        node = ssn.nodes[best]
        idle = look.fit_idle
        if idle if idle is not None else fits(task, table.idle[best]):
            stmt.allocate(task, node)
            if quota is not None:
                quota.placed(task)
        elif idle is not None or fits(task, table.fidle[best]):
            stmt.pipeline(task, node, False)
            if quota is not None:
                quota.placed(task)
        else:
            idle = None  # not placed
        if stmt.deferred:
            if idle is not None:
                look.note(task, best)  # the lookahead answered it (it wrote what it held before any other answer)
            else:
                stmt.write()
        if (not gang or job.is_ready()) and ssn.job_ready(job):
            break
    if ssn.job_ready(job) or ssn.job_pipelined(job):
        look.write()
        stmt.release()
        return stmt
    if placed is not None:
        placed.extend((op.task.uid, op.task.status, op.task.node_name) for op in stmt.ops)
    stmt.discard()
    return None


_PENDING = object()
"""``JobInfo.memo`` key of the job's ``_pending``."""


def _pending(ssn: Session, job: JobInfo) -> tuple[TaskInfo, ...]:
    """The job's Pending tasks allocate may place (not best-effort, not gated), in task order.
    A function of the tasks' specs and statuses and of the task order: with ``reuse``, for a job
    of more than one task no task of which moved since it was built (``JobInfo.moved``; its memo
    lives while it is carried from the same inputs, ``framework.carry``), it is kept in the job's
    memo with the configuration it was sorted under, when every task-order callback sorts by a
    key of the task's spec (``Session.sorts_by_spec``)."""
    keep = ssn.reuse and not job.moved and len(job.tasks) > 1 and ssn.sorts_by_spec()
    memo = job.memo
    if keep and memo is not None:
        hit = memo.get(_PENDING)
        if hit is not None and hit[0] is ssn.conf:
            return hit[1]
    pending = TaskStatus.Pending
    todo = [t for t in job.tasks.values() if t.status == pending and not t.best_effort and not t.spec.gated]
    out = tuple(ssn.sort_tasks(todo)) if todo else ()
    if keep:
        if memo is None:
            job.memo = memo = {}
        memo[_PENDING] = (ssn.conf, out)
    return out


class Allocate(Action):
    """The allocate action."""

    name = "allocate"

    def execute(self, ssn: Session) -> None:
        """Allocate pending tasks (see the module docstring)."""
        enqueue_on = "enqueue" in ssn.conf.actions
        agenda = Agenda(ssn, keyed=True, queues_keyed=True)
        sheets: dict[str, deque[TaskInfo]] = {}
        waiting: dict[str, tuple[QueueInfo, list[JobInfo]]] = {}
        """Per queue name: the queue and its jobs to serve, in session order (one heap build each)."""
        reuse = ssn.reuse
        pending = TaskStatus.Pending
        for job in ssn.jobs.values():
            if job.phase in PENDING_PHASES:  # ``is_pending``
                if enqueue_on:
                    continue
                job.phase = "Inqueue"
            if reuse and not job.status_counts.get(pending):
                continue  # nothing to place (below, ``todo`` would be empty): JobValid is pure, left unasked
            if ssn.job_valid(job) is not None:
                continue
            queue = ssn.queues.get(job.queue)
            if queue is None:
                continue
            todo = _pending(ssn, job)
            if not todo:
                continue
            sheets[job.uid] = deque(todo)
            group = waiting.get(queue.name)
            if group is None:
                waiting[queue.name] = (queue, [job])
            else:
                group[1].append(job)
        for queue, group_jobs in waiting.values():
            agenda.add_jobs(queue, group_jobs)
        look = Lookahead(ssn)
        memo = FutileMemo(ssn)
        # Where the memo applies, the session's plugins are built-in ones whose queue order and
        # overuse read only the queues' allocations, which their event handlers keep: after a
        # visit that fired none (``_serve``) the queue just served is still first in queue order
        # and not overused (its answer is the same), so it is served again without going through
        # the heap: the same queues and jobs, in the same order, as pushing it back and popping.
        stay = memo.enabled
        kept: QueueInfo | None = None
        while kept is not None or agenda:
            if kept is not None:
                queue, kept = kept, None
            else:
                queue = agenda.pop_queue()
                if ssn.overused(queue):
                    continue
            jobs = agenda.jobs(queue)
            if not jobs:
                continue
            job = jobs.pop()
            tasks = sheets[job.uid]
            stmt, still = _serve(ssn, job, queue, tasks, look, memo)
            if stmt is not None and ssn.job_ready(job):
                stmt.commit()
                if tasks:
                    jobs.push(job)
            if still and stay:
                kept = queue
            else:
                agenda.push_queue(queue)
        memo.retain(ssn.jobs)
