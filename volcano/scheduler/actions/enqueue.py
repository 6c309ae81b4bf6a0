"""enqueue: admit Pending PodGroups (phase -> Inqueue) when JobEnqueueable allows.

Queues in queue order, each visit examines one job of the queue in job order
(every pending job once); a job without ``minResources`` is always admitted.
Rejected jobs stay Pending and are retried next cycle (Volcano ``enqueue.go``).
"""

from __future__ import annotations

from volcano.scheduler.actions.base import Action, is_pending
from volcano.scheduler.framework.model import JobInfo, QueueInfo
from volcano.scheduler.framework.session import Session
from volcano.scheduler.framework.util import PriorityQueue

__all__ = ["Enqueue"]


class Enqueue(Action):
    """The enqueue action."""

    name = "enqueue"

    def execute(self, ssn: Session) -> None:
        """Admit what the queues and plugins allow."""
        queues: PriorityQueue[QueueInfo] = PriorityQueue(ssn.queue_less)
        seen: set[str] = set()
        by_queue: dict[str, PriorityQueue[JobInfo]] = {}
        for job in ssn.jobs.values():
            queue = ssn.queues.get(job.queue)
            if queue is None:
                continue
            if queue.name not in seen:
                seen.add(queue.name)
                queues.push(queue)
            if is_pending(job):
                by_queue.setdefault(queue.name, PriorityQueue(ssn.job_less)).push(job)
        while queues:
            queue = queues.pop()
            jobs = by_queue.get(queue.name)
            if not jobs:
                continue
            job = jobs.pop()
            if job.min_resources is None or ssn.job_enqueueable(job):
                ssn.job_enqueued(job)
                job.phase = "Inqueue"
                ssn.record("Enqueue", job.uid, queue.name)
            queues.push(queue)
