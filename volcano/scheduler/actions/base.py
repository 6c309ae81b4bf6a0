"""Action base class and helpers shared by actions (job filters, victim ordering)."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from volcano.scheduler.framework.model import JobInfo, TaskInfo, TaskStatus
from volcano.scheduler.framework.plugin import Arguments
from volcano.scheduler.framework.session import Session

__all__ = ["Action", "is_pending", "pending_tasks", "victim_less"]


class Action:
    """One step of a scheduling cycle; ``execute(ssn)`` runs it over a session.

    ``ARGUMENTS`` lists the ``configurations`` keys the action understands."""

    name: ClassVar[str] = ""
    ARGUMENTS: ClassVar[frozenset[str]] = frozenset({"predicateErrorCacheEnable"})

    def __init__(self, args: Arguments | None = None) -> None:
        self.args = args or Arguments()

    def execute(self, ssn: Session) -> None:
        """Run the action."""
        raise NotImplementedError


def is_pending(job: JobInfo) -> bool:
    """Volcano's ``IsPending``: PodGroup phase empty or Pending."""
    return job.phase in ("", "Pending")


def pending_tasks(job: JobInfo) -> list[TaskInfo]:
    """Pending, non-gated tasks of ``job`` (insertion order)."""
    return [t for t in job.tasks.values() if t.status == TaskStatus.Pending and not t.spec.gated]


def victim_less(ssn: Session, preemptor: TaskInfo) -> Callable[[TaskInfo, TaskInfo], bool]:
    """Volcano's victim heap order (first evicted first) for ``preemptor``."""
    pjob = ssn.job_of(preemptor)

    def less(left: TaskInfo, right: TaskInfo) -> bool:
        lj, rj = ssn.job_of(left), ssn.job_of(right)
        if lj is not None and lj is rj:
            return not ssn.task_less(left, right)
        if (lj is None) != (rj is None):
            return lj is None
        if lj is None or rj is None:
            return not ssn.task_less(left, right)
        if pjob is None or lj.queue == rj.queue:
            c = ssn.job_compare(lj, rj)
            if c > 0:
                return True
            if c < 0:
                return False
            return not ssn.task_less(left, right)
        return ssn.victim_queue_less(ssn.queues[lj.queue], ssn.queues[rj.queue], ssn.queues[pjob.queue])

    return less
