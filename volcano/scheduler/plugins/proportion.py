"""The proportion plugin: queue fair share by weight (Volcano ``proportion.go``).

Every queue that has jobs in the session gets a *deserved* amount of each
resource by water-filling the cluster's total over the queues in proportion to
``spec.weight``, bounded above by each queue's request and real capability and
below by its guarantee (``framework.quota.compute_deserved``). Allocation,
reclaim, overuse and enqueue decisions compare a queue's allocation with that
deserved amount (allocate, reclaim) or with its real capability (enqueue); the
arithmetic and its tolerance rule live in ``volcano.scheduler.framework.quota``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from volcano.scheduler.framework import quota_state as qs
from volcano.scheduler.framework.plugin import Plugin
from volcano.scheduler.framework.points import (
    OVERUSED,
    PERMIT,
    REJECT,
)
from volcano.scheduler.framework.quota import (
    Num,
    QueueQuota,
    Vec,
    add,
    compare_shares,
    compute_deserved,
    overused,
    queue_allocatable,
    resource_names,
    share,
    vector_le_tolerant,
)
from volcano.scheduler.framework.state import StateKey

if TYPE_CHECKING:
    from volcano.scheduler.framework.model import JobInfo, QueueInfo, TaskInfo
    from volcano.scheduler.framework.session import Session

__all__ = ["ProportionPlugin"]


def _typed(vec: Mapping[str, Num]) -> tuple[tuple[str, type, Num], ...]:
    """``vec``'s entries in order, with each value's type (a key telling apart every input
    ``compute_deserved`` could tell apart: 1 and 1.0, or the same entries in another order)."""
    return tuple((name, type(value), value) for name, value in vec.items())


_Deserved = tuple[object, list[tuple[dict[str, Num], dict[str, Num]]]]
_DESERVED: StateKey[_Deserved | None] = StateKey("proportion.deserved", lambda: None)
"""The last session's ``compute_deserved`` inputs (as a ``_typed`` key) and each queue's result."""


_NAMES: StateKey[dict[tuple[tuple[str, Num], ...], list[str]]] = StateKey("proportion.names", dict)
"""``resource_names`` of the deserved amounts seen, by their entries (in ``Session.shared``)."""


def _deserved(ssn: Session, total: Vec, quotas: list[QueueQuota], total_guarantee: Vec) -> None:
    """``compute_deserved(total, quotas, total_guarantee)``, taken from the last session when
    every input is the same (it is a pure function of them: queue names, weights, requests,
    guarantees and capabilities in order, the total and Σ guarantees). Between sessions
    where no job arrives or leaves, the requests, and so the deserved amounts, stay put."""
    key = (_typed(total), _typed(total_guarantee), tuple(
        (q.name, type(q.weight), q.weight, _typed(q.request), _typed(q.guarantee),
         None if q.capability is None else _typed(q.capability)) for q in quotas))
    hit = ssn.shared.get(_DESERVED)
    if hit is not None and hit[0] == key:
        for quota, (real, deserved) in zip(quotas, hit[1], strict=True):
            quota.real, quota.deserved = dict(real), dict(deserved)
        return
    compute_deserved(total, quotas, total_guarantee)
    ssn.shared.set(_DESERVED, (key, [(dict(q.real), dict(q.deserved)) for q in quotas]))


class ProportionPlugin(Plugin):
    """Weighted fair share between queues (see the module docstring)."""

    name = "proportion"

    def open(self, ssn: Session) -> None:
        """Build queue attributes, compute deserved, register callbacks and event handlers."""
        self._ssn = ssn
        self._stale: set[str] = set()
        """Queues whose allocation moved since their share was worked out (``share_of``)."""
        self._names: dict[int, tuple[Mapping[str, Num], list[str]]] = {}
        """Per queue attribute (by identity; alive for the session): its deserved and the names in it."""
        self._overused: dict[str, tuple[Mapping[str, Num], dict[str, Num], bool]] = {}
        """Per queue name: the deserved mapping and the allocation ``overused`` last read, and its answer."""
        self.attrs, self.total, total_guarantee = qs.build_queue_attrs(ssn)
        ordered = [self.attrs[name] for name in sorted(self.attrs)]
        quotas = [a.quota for a in ordered]
        if ssn.reuse:
            _deserved(ssn, self.total, quotas, total_guarantee)
        else:
            compute_deserved(self.total, quotas, total_guarantee)
        for attr in ordered:
            self._update_share(attr)
        qs.register_quota_plugin(ssn, self, self.queue_key)
        ssn.add_fn(OVERUSED, self.overused)

    def _update_share(self, attr: qs.QueueAttr) -> None:
        deserved = attr.quota.deserved
        # deserved is fixed once open has computed it: its resource names are worked out once
        # per deserved mapping, not on every allocation event.
        hit = self._names.get(id(attr))
        if hit is None or hit[0] is not deserved:
            hit = self._names[id(attr)] = (deserved, self._resource_names(deserved))
        attr.share = max((share(attr.allocated.get(n, 0), deserved[n]) for n in hit[1]), default=0.0)

    def _resource_names(self, deserved: Mapping[str, Num]) -> list[str]:
        """``resource_names(deserved)``; with ``reuse``, kept across sessions by ``deserved``'s
        entries (``_NAMES``: a function of the names and values alone, and the deserved amounts
        mostly stay put from one session to the next)."""
        if not self._ssn.reuse:
            return resource_names(deserved)
        known = self._ssn.shared.get(_NAMES)
        key = tuple(deserved.items())
        names = known.get(key)
        if names is None:
            if len(known) >= 256:
                known.clear()
            names = known[key] = resource_names(deserved)
        return names

    def share_of(self, queue: str) -> float:
        """The queue's current share (0.0 for a queue without jobs). Allocation events only mark
        the share stale; it is worked out here, from the same allocation, when read."""
        attr = self.attrs.get(queue)
        if attr is None:
            return 0.0
        if queue in self._stale:
            self._stale.discard(queue)
            self._update_share(attr)
        return attr.share

    def queue_order(self, left: QueueInfo, right: QueueInfo) -> int:
        """Higher ``spec.priority`` first, then the smaller share; equal shares abstain."""
        if left.priority != right.priority:
            return right.priority - left.priority
        return compare_shares(self.share_of(left.name), self.share_of(right.name))

    def queue_key(self, queue: QueueInfo) -> tuple[int, float]:
        """``queue_order``'s key (``Session.add_fn``): higher priority first, then the smaller
        share; equal keys exactly when ``queue_order`` abstains (shares are never NaN). The share
        moves only with the allocation of the queue's own jobs."""
        return (-queue.priority, self.share_of(queue.name))

    def reclaimable(self, reclaimer: TaskInfo, reclaimees: list[TaskInfo]) -> tuple[list[TaskInfo], int]:
        """Victims from queues whose allocation (less victims chosen so far) exceeds their deserved."""
        return qs.walk_victims(self._ssn, self.attrs, reclaimees,
                            lambda attr, allocated, _: not vector_le_tolerant(allocated, attr.quota.deserved)), PERMIT

    def overused(self, queue: QueueInfo) -> bool:
        """Deserved reached on every dimension (a queue without jobs counts as overused). With
        ``reuse`` the answer is kept per queue with the deserved mapping it read (the object: worked
        out at ``open``, never changed after) and a copy of the allocation, and given again while
        both are the same (allocate asks once per job visit; its commits move an allocation only now
        and then)."""
        attr = self.attrs.get(queue.name)
        if attr is None:
            return True
        deserved, allocated = attr.quota.deserved, attr.allocated
        if not self._ssn.reuse:
            return overused(deserved, allocated)
        hit = self._overused.get(queue.name)
        if hit is not None and hit[0] is deserved and hit[1] == allocated:
            return hit[2]
        answer = overused(deserved, allocated)
        self._overused[queue.name] = (deserved, dict(allocated), answer)
        return answer

    def _allocatable(self, queue: QueueInfo, request: Vec) -> bool:
        attr = self.attrs.get(queue.name)
        if queue.state != "Open" or attr is None:
            return False
        return queue_allocatable(attr.allocated, request, attr.quota.deserved)

    def allocatable(self, queue: QueueInfo, task: TaskInfo) -> bool:
        """Queue Open and ``allocated + request <= deserved`` on the task's requested dimensions."""
        return self._allocatable(queue, task.spec.requests)

    def preemptive(self, queue: QueueInfo, tasks: list[TaskInfo]) -> bool:
        """As ``allocatable`` with the tasks' summed request."""
        total: dict[str, Num] = {}
        for task in tasks:
            total = add(total, task.spec.requests)
        return self._allocatable(queue, total)

    def job_enqueueable(self, job: JobInfo) -> int:
        """Reject when the queue is not Open or the job's minResources would exceed the real capability."""
        attr = self.attrs.get(job.queue)
        if attr is None:
            return REJECT if self._ssn.queues[job.queue].state != "Open" else PERMIT
        return qs.enqueue_verdict(self._ssn, job, attr)

    def job_enqueued(self, job: JobInfo) -> None:
        """Reserve the admitted job's minResources (less gated tasks) in its queue's ``inqueue``."""
        attr = self.attrs.get(job.queue)
        if job.min_resources is not None and attr is not None:
            attr.inqueue = add(attr.inqueue, qs.deduct_gated(job.min_resources, job))

    def _event(self, task: TaskInfo, sign: int) -> None:
        job = task.job
        attr = self.attrs.get(job.queue) if job is not None else None
        if attr is None:
            return
        # In place: the attribute owns its allocation dict (build_queue_attrs made it; readers
        # copy it), and the same loop as add()/sub() gives the same keys, order and values.
        allocated = attr.allocated
        if sign > 0:
            for name, value in task.spec.requests.items():
                allocated[name] = allocated.get(name, 0) + value
        else:
            for name, value in task.spec.requests.items():
                allocated[name] = allocated.get(name, 0) - value
        self._stale.add(attr.quota.name)  # see share_of

    def on_allocate(self, task: TaskInfo) -> None:
        """The task's queue's allocation grows by its request."""
        self._event(task, 1)

    def on_deallocate(self, task: TaskInfo) -> None:
        """The task's queue's allocation shrinks by its request."""
        self._event(task, -1)
