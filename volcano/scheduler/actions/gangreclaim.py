"""gangreclaim: gang-aware reclaim across queues (Volcano ``actions/gangreclaim``).

Queues in queue order, overused ones skipped; per starving job its pending tasks
must pass Preemptive for the queue. Victims are Running, preemptable tasks of jobs
in *other* queues whose ``spec.reclaimable`` is not false and whose PodGroup allows
preemption. They are bundled per victim job, filtered by UnifiedEvictable (kind
``gangreclaim``), sorted safe-first, then by VictimQueueOrderFn relative to the
reclaiming queue, then by return on investment; whole bundles only with
``allowWholeBundle``. Eviction reason ``gangreclaim``.
"""

from __future__ import annotations

from volcano.scheduler.actions.gang_evict import (
    Bundle,
    GangEvictAction,
    sort_for_reclaim,
)
from volcano.scheduler.framework.model import JobInfo, QueueInfo, TaskInfo, TaskStatus
from volcano.scheduler.framework.points import GANG_RECLAIM, EvictionContext
from volcano.scheduler.framework.resources import Vec
from volcano.scheduler.framework.session import Session

__all__ = ["GangReclaim"]


class GangReclaim(GangEvictAction):
    """The gangreclaim action (see the module docstring)."""

    name = "gangreclaim"
    reason = GANG_RECLAIM
    skip_overused = True

    def admits(self, ssn: Session, queue: QueueInfo, pending: list[TaskInfo]) -> bool:
        """The reclaiming queue must be Preemptive for all the pending tasks."""
        return ssn.preemptive(queue, pending)

    def select_domain_bundles(self, ssn: Session, job: JobInfo, pending: list[TaskInfo],
                              need: Vec, domain: str) -> list[Bundle]:
        """Cross-queue victim bundles for ``job``, in eviction order."""
        if not pending:
            return []

        def keep(task: TaskInfo, victim_job: JobInfo) -> bool:
            if task.status != TaskStatus.Running or victim_job.queue == job.queue:
                return False
            vq = ssn.queues.get(victim_job.queue)
            return vq is not None and vq.reclaimable

        bundles = self._bundles(ssn, self._candidates(ssn, keep))
        if not bundles:
            return []
        own = ssn.queues.get(job.queue)

        def queue_less(left: QueueInfo, right: QueueInfo) -> bool:
            if own is None:
                return ssn.queue_less(left, right)
            return ssn.victim_queue_less(left, right, own)

        def resort(items: list[Bundle]) -> None:
            sort_for_reclaim(items, need, queue_less, ssn.queues)

        resort(bundles)
        return self._filter(ssn, EvictionContext(GANG_RECLAIM, job, domain), bundles, resort)
