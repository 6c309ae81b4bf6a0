"""Helpers every action shares: job filters and the queue/job agenda.

Volcano's actions each build the same two structures: a heap of queues in
queue order, and per queue a heap of its jobs in job order; they pop a queue,
serve one (or every) job of it, and push the queue back. ``Agenda`` is that
pair, built once here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from volcano.scheduler.framework.action import Action
from volcano.scheduler.framework.job import JobInfo
from volcano.scheduler.framework.queue import QueueInfo
from volcano.scheduler.framework.session import Session
from volcano.scheduler.framework.task import TaskInfo, TaskStatus
from volcano.scheduler.framework.util import PriorityQueue

__all__ = ["PENDING_PHASES", "Action", "Agenda", "is_pending", "pending_tasks", "schedulable_jobs"]

PENDING_PHASES = ("", "Pending")
"""The PodGroup phases of a job not yet enqueued (``is_pending``)."""


def is_pending(job: JobInfo) -> bool:
    """Volcano's ``IsPending``: PodGroup phase empty or Pending."""
    return job.phase in PENDING_PHASES


def pending_tasks(job: JobInfo) -> list[TaskInfo]:
    """Pending, non-gated tasks of ``job`` (insertion order)."""
    return [t for t in job.tasks.values() if t.status == TaskStatus.Pending and not t.spec.gated]


def schedulable_jobs(ssn: Session, wanted: Callable[[JobInfo], bool] | None = None
                     ) -> Iterator[tuple[JobInfo, QueueInfo]]:
    """Jobs past enqueue (not Pending), valid (JobValid), in a queue of the session,
    with their queue, in session order: what preempt, reclaim, backfill and the gang
    actions consider. With ``wanted``, jobs it refuses are left out before their validity
    is asked (the caller would ignore them: JobValid is a pure predicate, so asking it
    fewer times changes nothing else)."""
    for job in ssn.jobs.values():
        if is_pending(job) or (wanted is not None and not wanted(job)) or ssn.job_valid(job) is not None:
            continue
        queue = ssn.queues.get(job.queue)
        if queue is not None:
            yield job, queue


class Agenda:
    """Queues in queue order, each with its jobs in job order (see the module docstring).

    ``keyed``: the caller promises that no task of a job waiting on the agenda moves
    until the job is popped (allocate, enqueue and backfill move only the popped
    job's tasks); the job heaps then order by ``Session.job_key`` when the session
    offers one, with the same pop order as comparing by ``job_less``.

    ``queues_keyed``: the caller promises moreover that no task of a job of a queue
    waiting on the agenda moves until the queue is popped (allocate moves only the
    tasks of the popped queue's popped job, and pushes the queue back after); the
    queue heap then orders by ``Session.queue_key`` when the session offers one, with
    the same pop order as comparing by ``queue_less``."""

    def __init__(self, ssn: Session, *, keyed: bool = False, queues_keyed: bool = False) -> None:
        self._ssn = ssn
        self._queues: PriorityQueue[QueueInfo] = PriorityQueue(
            ssn.queue_less, key=ssn.queue_key() if queues_keyed else None)
        self._seen: set[str] = set()
        self._jobs: dict[str, PriorityQueue[JobInfo]] = {}
        self._key = ssn.job_key() if keyed else None

    def add_queue(self, queue: QueueInfo) -> None:
        """Put ``queue`` on the agenda (once; later calls do nothing)."""
        if queue.name not in self._seen:
            self._seen.add(queue.name)
            self._queues.push(queue)

    def add_job(self, queue: QueueInfo, job: JobInfo) -> None:
        """Put ``job`` on ``queue``'s heap (and the queue on the agenda)."""
        self.add_queue(queue)
        heap = self._jobs.get(queue.name)
        if heap is None:
            heap = self._jobs[queue.name] = PriorityQueue(self._ssn.job_less, key=self._key)
        heap.push(job)

    def add_jobs(self, queue: QueueInfo, jobs: list[JobInfo]) -> None:
        """``add_job`` for each of ``jobs`` (one heap build: ``PriorityQueue.extend``)."""
        self.add_queue(queue)
        self.jobs(queue).extend(jobs)

    def __bool__(self) -> bool:
        return bool(self._queues)

    def pop_queue(self) -> QueueInfo:
        """The first queue in queue order (IndexError when none is left)."""
        return self._queues.pop()

    def push_queue(self, queue: QueueInfo) -> None:
        """Put a popped queue back (to serve its next job later)."""
        self._queues.push(queue)

    def jobs(self, queue: QueueInfo) -> PriorityQueue[JobInfo]:
        """The heap of ``queue``'s jobs (empty when none was added)."""
        heap = self._jobs.get(queue.name)
        if heap is None:
            heap = self._jobs[queue.name] = PriorityQueue(self._ssn.job_less, key=self._key)
        return heap
