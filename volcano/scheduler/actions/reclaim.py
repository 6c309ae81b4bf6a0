"""reclaim: take resources back across queues for starving jobs of queues
below their share (Volcano ``reclaim.go``).

Queues in queue order (overused ones skipped); a popped queue serves all of
its starving jobs in job order before the next queue is popped (Overused is
checked once per pop, as upstream). Per starving job, its pending tasks (not
``preemptionPolicy: Never``, queue Preemptive, PrePredicate ok); per candidate
node (node order): Running, preemptable tasks of other, reclaimable queues
(a node without any is skipped, even when its FutureIdle alone would fit);
victims from Reclaimable; evict from the victim heap until the task fits the
node's FutureIdle plus what was evicted, then pipeline. Commit when the job is
pipelined, else discard.

Victims come from the first tier whose Reclaimable plugins decide (tier
intersection). With gang and conformance in a tier above proportion (the
upstream CI configuration), proportion's "victim queue above its deserved"
filter is never consulted, so a queue can be reclaimed below its deserved
share; upstream behaves the same way.
"""

from __future__ import annotations

from volcano.scheduler.actions.base import Action, Agenda, pending_tasks, schedulable_jobs
from volcano.scheduler.actions.preempt import candidate_rows, fits_with_victims
from volcano.scheduler.framework.model import JobInfo, QueueInfo, TaskInfo, TaskStatus
from volcano.scheduler.framework.select import fits
from volcano.scheduler.framework.session import Session
from volcano.scheduler.framework.statement import Statement
from volcano.scheduler.framework.util import PriorityQueue

__all__ = ["Reclaim", "reclaim_for_task"]


def reclaim_for_task(ssn: Session, stmt: Statement, task: TaskInfo, job: JobInfo) -> bool:
    """Try to reclaim room for ``task``; True when it was pipelined."""
    table = ssn.table
    for row in candidate_rows(ssn, task).tolist():
        node = ssn.nodes[row]
        reclaimees = []
        for t in node.tasks.values():
            if t.status != TaskStatus.Running or not t.spec.preemptable:
                continue
            vj = ssn.job_of(t)
            if vj is None or vj.queue == job.queue:
                continue
            vq = ssn.queues.get(vj.queue)
            if vq is None or not vq.reclaimable:
                continue
            reclaimees.append(t)
        if not reclaimees:
            continue
        victims = ssn.reclaimable(task, reclaimees)
        if not fits_with_victims(ssn, task, row, victims):
            continue
        heap: PriorityQueue[TaskInfo] = PriorityQueue(ssn.victim_less(task), victims)
        available = table.fidle[row].copy()
        node_stmt = Statement(ssn)
        evicted = False
        while heap and not fits(task, available):
            v = heap.pop()
            node_stmt.evict(v, "reclaim")
            available += v.vec
            evicted = True
        if not fits(task, available):
            node_stmt.discard()
            continue
        node_stmt.pipeline(task, node, evicted)
        stmt.merge(node_stmt)
        return True
    return False


class Reclaim(Action):
    """The reclaim action."""

    name = "reclaim"

    def execute(self, ssn: Session) -> None:
        """Reclaim across queues (see the module docstring)."""
        agenda = Agenda(ssn)
        task_lists: dict[str, list[TaskInfo]] = {}
        for job, queue in schedulable_jobs(ssn):
            agenda.add_queue(queue)
            if ssn.job_starving(job):
                agenda.add_job(queue, job)
                task_lists[job.uid] = ssn.sort_tasks(pending_tasks(job))
        while agenda:
            queue = agenda.pop_queue()
            if ssn.overused(queue):
                continue
            jobs = agenda.jobs(queue)
            while jobs:  # upstream also re-pushes the queue here; popped again it has no jobs left
                self._serve(ssn, queue, jobs.pop(), task_lists)

    def _serve(self, ssn: Session, queue: QueueInfo, job: JobInfo, task_lists: dict[str, list[TaskInfo]]) -> None:
        """Reclaim for one starving job; commit when it is pipelined, else discard."""
        stmt = Statement(ssn)
        todo = list(task_lists[job.uid])
        while ssn.job_starving(job) and todo:
            t = todo.pop(0)
            if t.spec.preemption_never or not ssn.preemptive(queue, [t]) or ssn.pre_predicate(t):
                continue
            reclaim_for_task(ssn, stmt, t, job)
        stmt.settle(ssn.job_pipelined(job), action=self.name)
