"""priority plugin: task, job and sub-job order by priority; priority-based
preemption victims (task-level and, for ``gangpreempt``, through UnifiedEvictable);
the "job wants more" starving rule (Volcano ``priority.go``)."""

from __future__ import annotations

from volcano.scheduler.framework.model import JobInfo, TaskInfo
from volcano.scheduler.framework.plugin import Plugin
from volcano.scheduler.framework.points import (
    GANG_PREEMPT,
    JOB_ORDER,
    JOB_STARVING,
    PERMIT,
    PREEMPTABLE,
    TASK_ORDER,
    UNIFIED_EVICTABLE,
    EvictionContext,
    Victims,
)
from volcano.scheduler.framework.session import Session

__all__ = ["PriorityPlugin"]

def _desc(left: int, right: int) -> int:
    return -1 if left > right else (1 if left < right else 0)


class PriorityPlugin(Plugin):
    """Higher priority first; victims must have strictly lower (job or task) priority."""

    name = "priority"

    def open(self, ssn: Session) -> None:
        """Register task/job order, preemptable, unified-evictable and starving callbacks."""
        ssn.add_fn(TASK_ORDER, lambda a, b: _desc(a.priority, b.priority), key=lambda spec: -spec.priority)
        ssn.add_fn(JOB_ORDER, lambda a, b: _desc(a.priority, b.priority), key=lambda job: -job.priority)

        def preemptable(preemptor: TaskInfo, preemptees: list[TaskInfo]) -> tuple[list[TaskInfo], int]:
            pjob = ssn.job_of(preemptor)
            if pjob is None:
                return [], PERMIT
            victims = []
            for t in preemptees:
                vjob = ssn.job_of(t)
                if vjob is None:
                    continue
                if vjob is not pjob:
                    if vjob.priority < pjob.priority:
                        victims.append(t)
                elif t.priority < preemptor.priority:
                    victims.append(t)
            return victims, PERMIT

        ssn.add_fn(PREEMPTABLE, preemptable)

        def unified(ctx: EvictionContext, candidates: list[TaskInfo]) -> Victims:
            # gangpreempt: only jobs of strictly lower priority than the starving job;
            # every other kind (gangreclaim) lets all candidates through.
            if ctx.kind != GANG_PREEMPT:
                return list(candidates), PERMIT
            pjob = ctx.job
            out = []
            for t in candidates:
                vjob = ssn.job_of(t)
                if vjob is not None and vjob.priority < pjob.priority:
                    out.append(t)
            return out, PERMIT

        ssn.add_fn(UNIFIED_EVICTABLE, unified)

        def starving(job: JobInfo) -> bool:
            return job.ready_task_num() + job.waiting_task_num() < len(job.tasks)

        ssn.add_fn(JOB_STARVING, starving)
