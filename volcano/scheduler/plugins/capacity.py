"""The capacity plugin: queue quotas from user-declared ``spec.deserved`` (flat queues).

An alternative to proportion: instead of a weighted water-filling, each queue
deserves ``max(min(spec.deserved, realCapability), guarantee)``, where the
real capability is computed exactly as in proportion. A queue may allocate up
to its real capability; it may reclaim (take resources back from other
queues) while its future use stays within its deserved on some requested
dimension; and a task of another queue is a reclaim victim when taking it
keeps that queue at or above its guarantee and the queue exceeds its
deserved on a dimension the task uses (or the task uses nothing the queue is
entitled to). A queue without deserved is best-effort: its share is 1 and it
sorts after queues with a deserved of equal share.

With ``enableHierarchy: true`` the queues form a tree (``capacity_hierarchy``):
only leaf queues take jobs and tasks, a task must fit the real capability of its
queue and of every ancestor, admission checks every ancestor too, allocations
roll up, queue order compares leaves by the shares of their highest differing
ancestors, and victim queues closer to the reclaimer's queue go first.

``ancestorReclaimLevel`` = L (hierarchy only, default 0) lets a queue reclaim
when an ancestor up to L levels above it is still within its deserved, and
gates each victim on the victim queue's ancestors up to L levels (those not
shared with the reclaimer at the same level): each must exceed its deserved on
a dimension the victim uses (``AncestorScope``, ``reclaim_victims``).

Not implemented: the queue-allocation scheduling gate reservation cache and DRA quotas.
Reclaimees are considered in the session's victim order, as upstream pops them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from volcano.scheduler.framework.plugin import Plugin
from volcano.scheduler.framework.points import (
    GANG_RECLAIM,
    PERMIT,
    REJECT,
    UNIFIED_EVICTABLE,
    VICTIM_QUEUE_ORDER,
    EvictionContext,
    Victims,
)
from volcano.scheduler.framework.quota import (
    Num,
    Vec,
    add,
    fits_on_requested,
    format_resource_names,
    is_empty,
    le_tolerant,
    resource_names,
    share,
    sub,
    tolerance,
    vector_le_tolerant,
)
from volcano.scheduler.framework.quota_state import (
    QueueAttr,
    build_queue_attrs,
    deduct_gated,
    enqueue_verdict,
    register_quota_plugin,
    walk_victims,
)
from volcano.scheduler.plugins.capacity_hierarchy import ROOT, QueueTree, build_queue_tree

if TYPE_CHECKING:
    from volcano.scheduler.framework.model import JobInfo, QueueInfo, TaskInfo
    from volcano.scheduler.framework.session import Session

__all__ = [
    "AncestorScope",
    "CapacityPlugin",
    "capacity_deserved",
    "capacity_share",
    "compare_queue_shares",
    "greater_on_relevant_dims",
    "preemptive_on_some_dim",
    "reclaim_victims",
]

_CPU, _MEMORY, _PODS = "cpu", "memory", "pods"


def capacity_deserved(spec_deserved: Vec, real: Vec, guarantee: Vec) -> dict[str, Num]:
    """``max(min(spec.deserved, real capability), guarantee)``; a dimension absent from ``real`` is uncapped."""
    out: dict[str, Num] = {_CPU: 0, _MEMORY: 0}
    out.update(spec_deserved)
    for name, value in list(out.items()):
        if name in real or name in (_CPU, _MEMORY):
            limit = real.get(name, 0)
            out[name] = limit if limit < value else value
    for name, value in guarantee.items():
        if value >= 0 and value > out.get(name, 0):
            out[name] = value
    return out


def capacity_share(allocated: Vec, deserved: Vec) -> float:
    """Max of ``allocated / deserved`` over deserved's dimensions; 1.0 for a best-effort (empty) deserved."""
    if is_empty(deserved):
        return 1.0
    return max((share(allocated.get(n, 0), deserved[n]) for n in resource_names(deserved)), default=0.0)


def compare_queue_shares(lshare: float, ldeserved_empty: bool, rshare: float, rdeserved_empty: bool) -> int:
    """Smaller share first; equal shares put the queue with a deserved first; else 0."""
    if lshare == rshare:
        if ldeserved_empty == rdeserved_empty:
            return 0
        return 1 if ldeserved_empty else -1
    return -1 if lshare < rshare else 1


def preemptive_on_some_dim(future_used: Vec, deserved: Vec, request: Vec) -> bool:
    """Upstream ``LessEqualPartlyWithDimensionZeroFiltered``: some requested dimension (> 0, pods skipped,
    not zero on both sides) has ``future_used <= deserved`` (tolerant)."""
    for name, amount in request.items():
        if name == _PODS or amount <= 0:
            continue
        used, limit = future_used.get(name, 0), deserved.get(name, 0)
        tol = tolerance(name)
        if used < tol and limit < tol:
            continue
        if le_tolerant(used, limit, name):
            return True
    return False


def greater_on_relevant_dims(allocated: Vec, deserved: Vec, request: Vec) -> bool:
    """Upstream ``GreaterPartlyWithRelevantDimensions``: some dimension the request uses (> 0, pods
    skipped) that ``deserved`` has (cpu/memory: at least the tolerance; scalars: present) with
    ``allocated > deserved`` strictly."""
    for name, amount in request.items():
        if name == _PODS or amount <= 0:
            continue
        if name in (_CPU, _MEMORY):
            if deserved.get(name, 0) < tolerance(name):
                continue
        elif name not in deserved:
            continue
        if allocated.get(name, 0) > deserved.get(name, 0):
            return True
    return False


def _names_without_pods(vec: Vec) -> set[str]:
    return {n for n in resource_names(vec) if n != _PODS}


@dataclass(frozen=True)
class AncestorScope:
    """What ``ancestorReclaimLevel`` needs to know about the queue tree for one reclaimer.

    ``level`` is the configured level (> 0); ``ancestors`` maps every queue to its
    ancestors, nearest parent first (``root`` last); ``reclaimer_queue`` is the
    reclaimer's leaf queue and ``reclaimer_deserved`` that queue's deserved.
    """

    level: int
    ancestors: Mapping[str, list[str]]
    reclaimer_queue: str
    reclaimer_deserved: Vec

    def ancestor_at(self, queue: str, depth: int) -> str | None:
        """The ancestor ``depth`` levels above ``queue`` (1 = parent), or None when the tree is shallower."""
        chain = self.ancestors.get(queue, [])
        return chain[depth - 1] if 0 < depth <= len(chain) else None

    def within(self, queue: str) -> set[str]:
        """``queue``'s non-root ancestors up to ``level`` levels above it."""
        return {a for d in range(1, self.level + 1) if (a := self.ancestor_at(queue, d)) not in (None, ROOT)}

    def targets(self, queue: str) -> list[str]:
        """The reclaimee queue's ancestors to check, level 1 up to ``level``: those that are
        not ``root`` and not the reclaimer's own ancestor at the same level."""
        out: list[str] = []
        for depth in range(1, self.level + 1):
            mine = self.ancestor_at(queue, depth)
            if mine is None or mine == ROOT or self.ancestor_at(self.reclaimer_queue, depth) == mine:
                continue
            out.append(mine)
        return out


def _uses_deserved(request: Vec, deserved: Vec) -> bool:
    return bool(set(resource_names(request)) & set(resource_names(deserved)))


def reclaim_victims(reclaimer_request: Vec, reclaimees: list[tuple[str, Vec]],
                    attrs: Mapping[str, tuple[Vec, Vec, Vec]], scope: AncestorScope | None = None) -> list[int]:
    """Indices of ``reclaimees`` (``(queue, request)``) capacity allows as victims.

    ``attrs`` maps a queue to ``(allocated, deserved, guarantee)``. A
    reclaimee is skipped when it shares no resource (pods aside) with the
    reclaimer, or when taking it would drop its queue below the guarantee; it
    is a victim when it uses nothing its queue deserves, or when the queue's
    allocation (less victims already chosen) exceeds its deserved on a
    relevant dimension.

    With a ``scope`` (hierarchy and ``ancestorReclaimLevel`` > 0) two more
    rules apply. A reclaimee that uses nothing its queue deserves is still
    skipped when its queue shares a non-root ancestor within the level with
    the reclaimer's queue and the reclaimer uses nothing its own queue
    deserves (no real contention). And every ancestor of the reclaimee's
    queue that ``scope.targets`` names must either not be entitled to what
    the reclaimee uses or exceed its deserved on a relevant dimension (its
    allocation, too, less victims already chosen).
    """
    reclaimer_names = _names_without_pods(reclaimer_request)
    working: dict[str, dict[str, Num]] = {}
    victims: list[int] = []
    for i, (queue, request) in enumerate(reclaimees):
        if queue not in attrs or not (_names_without_pods(request) & reclaimer_names):
            continue
        base, deserved, guarantee = attrs[queue]
        allocated = working.setdefault(queue, dict(base))
        if not vector_le_tolerant(guarantee, sub(allocated, request)):
            continue
        if not _uses_deserved(request, deserved):
            if (scope is not None and scope.within(scope.reclaimer_queue) & scope.within(queue)
                    and not _uses_deserved(reclaimer_request, scope.reclaimer_deserved)):
                continue
        elif not greater_on_relevant_dims(allocated, deserved, request):
            continue
        checked: list[str] = []
        eligible = True
        for ancestor in scope.targets(queue) if scope is not None else []:
            if ancestor not in attrs:
                eligible = False
                break
            a_alloc = working.setdefault(ancestor, dict(attrs[ancestor][0]))
            checked.append(ancestor)
            a_deserved = attrs[ancestor][1]
            if _uses_deserved(request, a_deserved) and not greater_on_relevant_dims(a_alloc, a_deserved, request):
                eligible = False
                break
        if not eligible:
            continue
        for name in (queue, *checked):
            working[name] = sub(working[name], request)
        victims.append(i)
    return victims


class CapacityPlugin(Plugin):
    """Registers queue order, reclaimable, preemptive, allocatable and enqueue callbacks (flat queues)."""

    name = "capacity"
    ARGUMENTS = frozenset({"ancestorReclaimLevel", "capacity.DynamicResourceAllocationEnable",
                           "capacity.DRAConsumableCapacityEnable"})

    def open(self, ssn: Session) -> None:
        """Build queue attributes and deserved, and register the callbacks."""
        self._ssn = ssn
        self.tree: QueueTree | None = None
        self.ancestor_reclaim_level = max(0, self.args.get_int("ancestorReclaimLevel", 0))
        """Volcano's ``ancestorReclaimLevel`` (negative values fall back to 0, as upstream)."""
        hierarchy = any(opt.name == self.name and opt.enabled("enableHierarchy")
                        for tier in ssn.conf.tiers for opt in tier.plugins)
        if hierarchy:
            self.tree = build_queue_tree(ssn)
            self.attrs = self.tree.attrs
            for attr in self.attrs.values():
                attr.share = capacity_share(attr.allocated, attr.quota.deserved)
            ssn.add_fn(VICTIM_QUEUE_ORDER, self.victim_queue_order)
        else:
            self.attrs, _, _ = build_queue_attrs(ssn)
            for name in sorted(self.attrs):
                attr = self.attrs[name]
                spec: Vec = ssn.queues[name].deserved or {}
                attr.quota.deserved = capacity_deserved(spec, attr.quota.real, attr.quota.guarantee)
                attr.share = capacity_share(attr.allocated, attr.quota.deserved)
        register_quota_plugin(ssn, self)
        ssn.add_fn(UNIFIED_EVICTABLE, self.unified_evictable)

    def queue_order(self, left: QueueInfo, right: QueueInfo) -> int:
        """Higher ``spec.priority`` first, then ``compare_queue_shares``."""
        if left.priority != right.priority:
            return right.priority - left.priority
        tree = self.tree
        if tree is not None and tree.valid:
            lleaf, rleaf = tree.is_leaf(left.name), tree.is_leaf(right.name)
            if lleaf != rleaf:
                return -1 if lleaf else 1
            if lleaf:
                lp, rp = tree.path(left.name), tree.path(right.name)
                i = 0
                while i < min(len(lp), len(rp)) - 1 and lp[i] == rp[i]:
                    i += 1
                left_name, right_name = lp[i], rp[i]
            else:
                left_name, right_name = left.name, right.name
            lh, rh = self.attrs[left_name], self.attrs[right_name]
            return compare_queue_shares(lh.share, is_empty(lh.quota.deserved), rh.share,
                                        is_empty(rh.quota.deserved))
        la, ra = self.attrs.get(left.name), self.attrs.get(right.name)
        if la is None or ra is None:
            return 0
        return compare_queue_shares(la.share, is_empty(la.quota.deserved), ra.share, is_empty(ra.quota.deserved))

    def reclaimable(self, reclaimer: TaskInfo, reclaimees: list[TaskInfo]) -> tuple[list[TaskInfo], int]:
        """Victims by ``reclaim_victims``, walking the reclaimees in the session's victim
        order (reference §5.5: upstream pops them from ``BuildVictimsPriorityQueue``), so
        the running allocation copy drops in the order the evictions would happen."""
        attrs = {q: (a.allocated, a.quota.deserved, a.quota.guarantee) for q, a in self.attrs.items()}
        reclaimees = self._ssn.victim_order(reclaimer, reclaimees)
        pairs: list[tuple[str, Vec]] = []
        for task in reclaimees:
            job = self._ssn.job_of(task)
            pairs.append((job.queue if job is not None else "", task.spec.requests))
        chosen = reclaim_victims(reclaimer.spec.requests, pairs, attrs, self._scope(reclaimer))
        return [reclaimees[i] for i in chosen], PERMIT

    def _scope(self, reclaimer: TaskInfo) -> AncestorScope | None:
        """The ancestor scope for ``reclaimer`` when hierarchy and ``ancestorReclaimLevel`` apply."""
        tree = self.tree
        job = self._ssn.job_of(reclaimer)
        if tree is None or self.ancestor_reclaim_level <= 0 or job is None or job.queue not in self.attrs:
            return None
        return AncestorScope(self.ancestor_reclaim_level, tree.ancestors, job.queue,
                             self.attrs[job.queue].quota.deserved)

    def unified_evictable(self, ctx: EvictionContext, candidates: list[TaskInfo]) -> Victims:
        """UnifiedEvictable for the gang actions: every candidate for ``gangpreempt``; for
        ``gangreclaim`` the candidates (in the order given) whose queue keeps its guarantee
        and either is not entitled to what they use or exceeds its deserved on a dimension
        they use (Volcano skips the resource-intersection test here)."""
        if ctx.kind != GANG_RECLAIM:
            return list(candidates), PERMIT

        def is_victim(attr: QueueAttr, allocated: Vec, task: TaskInfo) -> bool:
            request = task.spec.requests
            if not vector_le_tolerant(attr.quota.guarantee, sub(allocated, request)):
                return False
            immediate = not (set(resource_names(request)) & set(resource_names(attr.quota.deserved)))
            return immediate or greater_on_relevant_dims(allocated, attr.quota.deserved, request)

        return walk_victims(self._ssn, self.attrs, candidates, is_victim), PERMIT

    def preemptive(self, queue: QueueInfo, tasks: list[TaskInfo]) -> bool:
        """Open, within real capability after the tasks, and within deserved on some requested
        dimension; with hierarchy and ``ancestorReclaimLevel`` = L, failing that, some non-root
        ancestor up to L levels above the queue whose allocation plus the tasks stays within its
        deserved on some requested dimension also lets the queue reclaim."""
        attr = self.attrs.get(queue.name)
        if queue.state != "Open" or attr is None:
            return False
        request: dict[str, Num] = {}
        for task in tasks:
            request = add(request, task.spec.requests)
        future = add(attr.allocated, request)
        if not fits_on_requested(future, attr.quota.real, request)[0]:
            return False
        if preemptive_on_some_dim(future, attr.quota.deserved, request):
            return True
        if self.tree is None or self.ancestor_reclaim_level <= 0:
            return False
        chain = self.tree.ancestors.get(queue.name, [])
        for ancestor in chain[:self.ancestor_reclaim_level]:
            if ancestor == ROOT:
                continue
            a = self.attrs[ancestor]
            if preemptive_on_some_dim(add(a.allocated, request), a.quota.deserved, request):
                return True
        return False

    def allocatable(self, queue: QueueInfo, task: TaskInfo) -> bool:
        """Open and ``allocated + request <= realCapability`` on the task's requested dimensions."""
        attr = self.attrs.get(queue.name)
        if queue.state != "Open" or attr is None:
            return False
        request = task.spec.requests
        if self.tree is not None:
            if not self.tree.valid or not self.tree.is_leaf(queue.name):
                return False
            return all(fits_on_requested(add(self.attrs[q].allocated, request), self.attrs[q].quota.real, request)[0]
                       for q in self.tree.chain(queue.name))
        return fits_on_requested(add(attr.allocated, request), attr.quota.real, request)[0]

    def victim_queue_order(self, left: QueueInfo, right: QueueInfo, preemptor: QueueInfo) -> int:
        """Hierarchy only: the queue sharing more ancestors with the preemptor's queue goes first."""
        tree = self.tree
        if tree is None or not tree.valid:
            return 0
        pp = tree.path(preemptor.name)

        def common(name: str) -> int:
            path = tree.path(name)
            n = 0
            while n < min(len(path), len(pp)) and path[n] == pp[n]:
                n += 1
            return n

        lc, rc = common(left.name), common(right.name)
        return 0 if lc == rc else (-1 if lc > rc else 1)

    def job_enqueueable(self, job: JobInfo) -> int:
        """As proportion: queue Open, and minResources within the real capability."""
        attr: QueueAttr | None = self.attrs.get(job.queue)
        tree = self.tree
        if tree is not None and (not tree.valid or not tree.is_leaf(job.queue)):
            return -1
        if attr is None:
            return PERMIT if self._ssn.queues[job.queue].state == "Open" else -1
        verdict = enqueue_verdict(self._ssn, job, attr)
        if verdict != PERMIT or tree is None or job.min_resources is None:
            return verdict
        minimum: Vec = job.min_resources
        for name in tree.ancestors.get(job.queue, []):
            a = self.attrs[name]
            needed = sub(add(add(minimum, a.allocated), a.inqueue), a.elastic)
            ok, failing = fits_on_requested(needed, a.quota.real, minimum)
            if not ok:
                self._ssn.podgroup_event(job, "Normal", "Unschedulable", format_resource_names(
                    "queue resource quota insufficient", "insufficient", failing))
                return REJECT
        return PERMIT

    def job_enqueued(self, job: JobInfo) -> None:
        """Reserve the admitted job's minResources (less gated tasks) in its queue."""
        if job.min_resources is None or job.queue not in self.attrs:
            return
        reserved = deduct_gated(job.min_resources, job)
        for name in self._chain(job.queue):
            self.attrs[name].inqueue = add(self.attrs[name].inqueue, reserved)

    def _chain(self, queue: str) -> list[str]:
        return self.tree.chain(queue) if self.tree is not None else [queue]

    def _event(self, task: TaskInfo, sign: int) -> None:
        job = task.job
        if job is None or job.queue not in self.attrs:
            return
        req = task.spec.requests
        for name in self._chain(job.queue):
            attr = self.attrs[name]
            attr.allocated = add(attr.allocated, req) if sign > 0 else sub(attr.allocated, req)
            attr.share = capacity_share(attr.allocated, attr.quota.deserved)

    def on_allocate(self, task: TaskInfo) -> None:
        """The task's queue (and its ancestors) grow by its request."""
        self._event(task, 1)

    def on_deallocate(self, task: TaskInfo) -> None:
        """The task's queue (and its ancestors) shrink by its request."""
        self._event(task, -1)
