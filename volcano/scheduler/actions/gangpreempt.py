"""gangpreempt: gang-aware preemption inside a queue (Volcano ``actions/gangpreempt``).

For each starving job (queues in queue order, jobs in job order) the victims are
Bound or Running, preemptable tasks of *other* jobs of the same queue whose job
priority is strictly lower and whose PodGroup allows preemption (unset: allowed).
They are bundled per victim job (``gang_evict.create_job_bundles``), filtered by
UnifiedEvictable (kind ``gangpreempt``), sorted safe-first, then the victim job
ordered last by JobOrderFn first, then by return on investment; whole bundles are
used only with ``allowWholeBundle``. Eviction reason ``gangpreempt``.
"""

from __future__ import annotations

from volcano.scheduler.actions.gang_evict import (
    Bundle,
    GangEvictAction,
    sort_for_preempt,
)
from volcano.scheduler.framework.model import PREEMPTABLE_STATUSES, JobInfo, TaskInfo
from volcano.scheduler.framework.points import GANG_PREEMPT, EvictionContext
from volcano.scheduler.framework.resources import Vec
from volcano.scheduler.framework.session import Session

__all__ = ["GangPreempt"]


class GangPreempt(GangEvictAction):
    """The gangpreempt action (see the module docstring)."""

    name = "gangpreempt"
    reason = GANG_PREEMPT

    def select_domain_bundles(self, ssn: Session, job: JobInfo, pending: list[TaskInfo],
                              need: Vec, domain: str) -> list[Bundle]:
        """Same-queue, lower-priority victim bundles for ``job``, in eviction order."""
        if not pending:
            return []

        def keep(task: TaskInfo, victim_job: JobInfo) -> bool:
            return (task.status in PREEMPTABLE_STATUSES and victim_job.queue == job.queue
                    and victim_job is not job and victim_job.priority < job.priority)

        bundles = self._bundles(ssn, self._candidates(ssn, keep))
        if not bundles:
            return []

        def resort(items: list[Bundle]) -> None:
            sort_for_preempt(items, need, lambda left, right: not ssn.job_less(left, right))

        resort(bundles)
        return self._filter(ssn, EvictionContext(GANG_PREEMPT, job, domain), bundles, resort)
