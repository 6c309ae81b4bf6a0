"""enqueue: admit Pending PodGroups (phase -> Inqueue) when JobEnqueueable allows.

Queues in queue order, each visit examines one job of the queue in job order
(every pending job once); a job without ``minResources`` is always admitted.
Rejected jobs stay Pending and are retried next cycle (Volcano ``enqueue.go``).
"""

from __future__ import annotations

from volcano.scheduler.actions.base import Action, Agenda, is_pending
from volcano.scheduler.framework.session import Session

__all__ = ["Enqueue"]


class Enqueue(Action):
    """The enqueue action."""

    name = "enqueue"

    def execute(self, ssn: Session) -> None:
        """Admit what the queues and plugins allow."""
        agenda = Agenda(ssn, keyed=True)
        for job in ssn.jobs.values():
            queue = ssn.queues.get(job.queue)
            if queue is None:
                continue
            agenda.add_queue(queue)
            if is_pending(job):
                agenda.add_job(queue, job)
        while agenda:
            queue = agenda.pop_queue()
            jobs = agenda.jobs(queue)
            if not jobs:
                continue
            job = jobs.pop()
            if job.min_resources is None or ssn.job_enqueueable(job):
                ssn.job_enqueued(job)
                job.phase = "Inqueue"
                ssn.record("Enqueue", job.uid, queue.name)
            agenda.push_queue(queue)
