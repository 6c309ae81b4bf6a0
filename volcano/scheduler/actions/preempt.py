"""preempt: evict lower-priority tasks of the same queue for starving jobs.

Volcano ``preempt.go`` (normal, non-topology-aware algorithm): phase A between
jobs of one queue (commit when the preemptor job is pipelined), phase B
between tasks of one job (commit per task, stop at the first failure). Per
candidate node (highest score first): preemptees that pass the filter, victims
from Preemptable, a victim heap, evictions in a per-node statement until
Allocatable, FutureIdle fit and the predicates hold; then the preemptor is
pipelined there. Topology-aware preemption is not implemented.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import numpy as np

from volcano.scheduler.actions.base import Action, is_pending, pending_tasks, victim_less
from volcano.scheduler.framework.model import PREEMPTABLE_STATUSES, JobInfo, QueueInfo, TaskInfo
from volcano.scheduler.framework.select import feasible, fits
from volcano.scheduler.framework.session import Session
from volcano.scheduler.framework.statement import Statement
from volcano.scheduler.framework.util import PriorityQueue

__all__ = ["Preempt", "candidate_rows", "preempt_task"]


def candidate_rows(ssn: Session, task: TaskInfo) -> np.ndarray:
    """Nodes where eviction could help: predicates failing only resolvably, minus
    nodes this task's allocate-time fit errors marked unresolvable."""
    rows, _ = feasible(ssn, task, resources=False, preempt=True)
    job = task.job
    fe = job.fit_errors.get(task.uid) if job is not None else None
    if fe is not None and fe.unresolvable is not None and len(fe.unresolvable) == len(ssn.table):
        rows = rows[~fe.unresolvable[rows]]
    return rows


def _eligible(ssn: Session, task: TaskInfo) -> bool:
    if task.spec.preemption_never:
        return False
    nominated = ssn.table.by_name.get(task.spec.nominated_node) if task.spec.nominated_node else None
    if nominated is not None:
        verdict = ssn.predicate(task)
        if verdict.codes[nominated.row] == 0 and fits(task, ssn.table.fidle[nominated.row]):
            return False
    return True


def preempt_task(ssn: Session, stmt: Statement, preemptor: TaskInfo,
                 keep: Callable[[TaskInfo], bool], metrics: dict[str, int] | None = None) -> bool:
    """Try to make room for ``preemptor``; True when it was pipelined somewhere."""
    if not _eligible(ssn, preemptor) or ssn.pre_predicate(preemptor):
        return False
    job = preemptor.job
    assert job is not None
    queue = ssn.queues[job.queue]
    rows = candidate_rows(ssn, preemptor)
    if len(rows) == 0:
        return False
    scores = ssn.node_scores(preemptor, rows)
    order = rows[np.argsort(-scores, kind="stable")]
    table = ssn.table
    for row in order.tolist():
        node = ssn.nodes[row]
        if metrics is not None:
            metrics["attempts"] = metrics.get("attempts", 0) + 1
        preemptees = [t for t in node.tasks.values() if keep(t)]
        victims = ssn.preemptable(preemptor, preemptees)
        if metrics is not None:
            metrics["victims"] = len(victims)
        room = table.fidle[row].copy()
        for v in victims:
            room += v.vec
        if not fits(preemptor, room):
            continue
        heap: PriorityQueue[TaskInfo] = PriorityQueue(victim_less(ssn, preemptor), victims)
        node_stmt = Statement(ssn)

        def fit_now(row: int = row) -> bool:
            return (ssn.allocatable(queue, preemptor) and fits(preemptor, table.fidle[row])
                    and bool(ssn.predicate(preemptor).codes[row] == 0))

        evicted = False
        while not fit_now():
            if not heap:
                break
            node_stmt.evict(heap.pop(), "preempt")
            evicted = True
        if fit_now():
            node_stmt.pipeline(preemptor, node, evicted)
            stmt.merge(node_stmt)
            return True
        node_stmt.discard()
    return False


class Preempt(Action):
    """The preempt action."""

    name = "preempt"
    ARGUMENTS: ClassVar[frozenset[str]] = frozenset({
        "predicateErrorCacheEnable", "enableTopologyAwarePreemption", "topologyAwarePreemptWorkerNum",
        "minCandidateNodesPercentage", "minCandidateNodesAbsolute", "maxCandidateNodesAbsolute"})

    def __init__(self, args: object = None) -> None:
        super().__init__(args)  # type: ignore[arg-type]
        self.metrics: dict[str, int] = {}

    def execute(self, ssn: Session) -> None:
        """Preempt within queues (phase A across jobs, phase B within jobs)."""
        queues: PriorityQueue[QueueInfo] = PriorityQueue(ssn.queue_less)
        seen: set[str] = set()
        by_queue: dict[str, PriorityQueue[JobInfo]] = {}
        starving: dict[str, list[JobInfo]] = {}
        task_lists: dict[str, list[TaskInfo]] = {}
        for job in ssn.jobs.values():
            if is_pending(job) or ssn.job_valid(job) is not None or job.queue not in ssn.queues:
                continue
            if not ssn.job_starving(job):
                continue
            if job.queue not in seen:
                seen.add(job.queue)
                queues.push(ssn.queues[job.queue])
            by_queue.setdefault(job.queue, PriorityQueue(ssn.job_less)).push(job)
            starving.setdefault(job.queue, []).append(job)
            task_lists[job.uid] = ssn.sort_tasks(pending_tasks(job))
        while queues:
            queue = queues.pop()
            jobs = by_queue[queue.name]
            while jobs:
                job = jobs.pop()
                stmt = Statement(ssn)
                todo = list(task_lists[job.uid])
                while ssn.job_starving(job) and todo:
                    p = todo.pop(0)
                    preempt_task(ssn, stmt, p, self._other_job_filter(ssn, p), self.metrics)
                if ssn.job_pipelined(job):
                    self._commit(stmt)
                else:
                    stmt.discard()
            for job in starving[queue.name]:
                for p in ssn.sort_tasks(pending_tasks(job)):
                    stmt = Statement(ssn)
                    if not preempt_task(ssn, stmt, p, self._same_job_filter(p), self.metrics):
                        stmt.discard()
                        break
                    self._commit(stmt)

    def _commit(self, stmt: Statement) -> None:
        if stmt.evicts:
            self.metrics["eviction_transactions"] = self.metrics.get("eviction_transactions", 0) + 1
        stmt.commit()

    @staticmethod
    def _other_job_filter(ssn: Session, p: TaskInfo) -> Callable[[TaskInfo], bool]:
        pjob = p.job
        assert pjob is not None

        def keep(v: TaskInfo) -> bool:
            vj = ssn.job_of(v)
            return (v.status in PREEMPTABLE_STATUSES and not (p.best_effort and not v.best_effort)
                    and v.spec.preemptable and vj is not None and vj.queue == pjob.queue and vj is not pjob)
        return keep

    @staticmethod
    def _same_job_filter(p: TaskInfo) -> Callable[[TaskInfo], bool]:
        def keep(v: TaskInfo) -> bool:
            return (v.status in PREEMPTABLE_STATUSES and not (p.best_effort and not v.best_effort)
                    and v.spec.preemptable and v.job is p.job)
        return keep
