"""conformance plugin: never evict critical or kube-system pods (Volcano ``conformance.go``)."""

from __future__ import annotations

from volcano.scheduler.framework.model import TaskInfo
from volcano.scheduler.framework.plugin import Plugin
from volcano.scheduler.framework.points import PERMIT, PREEMPTABLE, RECLAIMABLE, UNIFIED_EVICTABLE, Victims
from volcano.scheduler.framework.session import Session

__all__ = ["ConformancePlugin"]

_CRITICAL = frozenset({"system-cluster-critical", "system-node-critical"})


def evictable(task: TaskInfo) -> bool:
    """False for system-critical priority classes and the kube-system namespace."""
    return task.spec.priority_class not in _CRITICAL and task.namespace != "kube-system"


class ConformancePlugin(Plugin):
    """Filters preemption, reclaim and gang-eviction candidates (drops critical pods)."""

    name = "conformance"

    def open(self, ssn: Session) -> None:
        """Register the preemptable, reclaimable and unified-evictable filters."""
        def keep(_: object, cands: list[TaskInfo]) -> Victims:
            return [t for t in cands if evictable(t)], PERMIT

        ssn.add_fn(PREEMPTABLE, keep)
        ssn.add_fn(RECLAIMABLE, keep)
        ssn.add_fn(UNIFIED_EVICTABLE, keep)
