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
    """Volcano's victim heap order (first evicted first) for ``preemptor``: ``Session.victim_less``."""
    return ssn.victim_less(preemptor)
