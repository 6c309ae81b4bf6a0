"""What the queue-quota plugins (proportion, capacity, overcommit) keep and do per session.

``build_queue_attrs`` gives every queue with a job in the session its allocation, request,
in-queue reservation and elastic part (``QueueAttr``); ``register_quota_plugin`` registers
the points every quota plugin answers; ``walk_victims`` and ``enqueue_verdict`` are the
reclaim walk and the enqueue check they share. The arithmetic is ``quota``'s.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from volcano.scheduler.framework.job import JobInfo, parse_podgroup
from volcano.scheduler.framework.points import (
    ALLOCATABLE,
    JOB_ENQUEUEABLE,
    JOB_ENQUEUED,
    PERMIT,
    PREEMPTIVE,
    QUEUE_ORDER,
    RECLAIMABLE,
    REJECT,
    Victims,
)
from volcano.scheduler.framework.quota import (
    Num,
    QueueQuota,
    Vec,
    add,
    exceeded_part,
    fits_on_requested,
    format_resource_names,
    inqueue_reserve,
    is_empty,
    real_capability,
    sub,
)
from volcano.scheduler.framework.state import StateKey
from volcano.scheduler.framework.task import ALLOCATED_STATUSES, TaskInfo, TaskStatus

if TYPE_CHECKING:
    from volcano.scheduler.framework.carry import Kept
    from volcano.scheduler.framework.queue import QueueInfo
    from volcano.scheduler.framework.session import Session

__all__ = [
    "QueueAttr",
    "QuotaPlugin",
    "build_queue_attrs",
    "deduct_gated",
    "enqueue_verdict",
    "job_gated_request",
    "job_reserved",
    "register_quota_plugin",
    "vec_to_dict",
    "walk_victims",
]

_CPU = "cpu"
_MEMORY = "memory"


def vec_to_dict(names: Sequence[str], vec: Iterable[int]) -> dict[str, Num]:
    """A session resource vector (numpy row over ``names``) as a name -> amount dict (zeros dropped)."""
    return {names[i]: int(v) for i, v in enumerate(vec) if v}


def job_gated_request(job: JobInfo) -> dict[str, Num]:
    """The summed requests of a job's scheduling-gated tasks (upstream ``GetSchGatedPodResources``)."""
    out: dict[str, Num] = {}
    for task in job.tasks.values():
        if task.spec.gated:
            out = add(out, task.spec.requests)
    return out


def deduct_gated(res: Vec, job: JobInfo) -> dict[str, Num]:
    """Upstream ``DeductSchGatedResources``: ``res`` minus gated tasks' requests, clamped at 0 per dimension."""
    gated = job_gated_request(job)
    if is_empty(gated):
        return dict(res)
    out = dict(res)
    for name, value in res.items():
        if name in (_CPU, _MEMORY) or name in gated:
            out[name] = max(value - gated.get(name, 0), 0)
    return out


def job_reserved(job: JobInfo, names: Sequence[str]) -> dict[str, Num]:
    """What a job holds back in its queue's ``inqueue`` at session open (proportion/capacity rule).

    Inqueue jobs with ``minResources``, and Running ones with ``minResources``
    whose allocated-status task count reached ``minMember``, reserve
    ``max(0, minResources - allocated)`` (less gated tasks); others nothing.
    """
    if job.min_resources is None:
        return {}
    if job.phase == "Inqueue" or (job.phase == "Running" and job.count(ALLOCATED_STATUSES) >= job.min_available):
        return deduct_gated(inqueue_reserve(job.min_resources, vec_to_dict(names, job.allocated.tolist())), job)
    return {}


@dataclass
class QueueAttr:
    """A queue's per-session quota state (proportion and capacity)."""

    quota: QueueQuota
    allocated: dict[str, Num] = field(default_factory=dict)
    request: dict[str, Num] = field(default_factory=dict)
    inqueue: dict[str, Num] = field(default_factory=dict)
    elastic: dict[str, Num] = field(default_factory=dict)
    share: float = 0.0


_Parts = tuple[dict[str, Num], dict[str, Num], dict[str, Num], dict[str, Num]]
_PARTS = object()
"""``JobInfo.memo`` key of the job's ``_job_parts``."""


def _job_parts(ssn: Session, job: JobInfo, names: Sequence[str]) -> _Parts:
    """What ``job`` adds to its queue's attributes: its allocation, its Pending tasks' summed
    requests (in task order: the same values as adding each), its in-queue reservation and
    its elastic part. A function of the job as built: with ``reuse`` it is kept in the memo
    of a job of more than one task (with the phase and space width it was worked out for;
    one-pod jobs cost as little to derive again, and a cluster may hold tens of thousands
    of them) and read again while no task of the job has moved."""
    key = (job.phase, len(names))
    keep = ssn.reuse and not job.moved and len(job.tasks) > 1
    if keep and job.memo is not None:
        hit = job.memo.get(_PARTS)
        if hit is not None and hit[0] == key:
            return hit[1]  # type: ignore[no-any-return]
    job_alloc = vec_to_dict(names, ssn.space.fit(job.allocated).tolist())
    pending = _pending_requests(job) if job.status_counts[TaskStatus.Pending] else {}
    parts = (job_alloc, pending, job_reserved(job, names), exceeded_part(job_alloc, job.min_resources or {}))
    if keep:
        if job.memo is None:
            job.memo = {}
        job.memo[_PARTS] = (key, parts)
    return parts


def _pending_requests(job: JobInfo) -> dict[str, Num]:
    """The summed requests of ``job``'s Pending tasks, keys in the order adding them task by task
    puts them. The tasks of a job mostly share one requests object (their pods' parses made alike):
    each distinct object (by identity, in the order of its first task) is added once, its amounts
    times its task count: sums of ints do not depend on their order (with an amount of another
    type, the tasks are added one by one)."""
    counts: dict[int, list[Any]] = {}
    pending_status = TaskStatus.Pending
    for task in job.tasks.values():
        if task.status == pending_status:
            req = task.spec.requests
            hit = counts.get(id(req))
            if hit is None:
                counts[id(req)] = [req, 1]
            else:
                hit[1] += 1
    pending: dict[str, Num] = {}
    for req, n in counts.values():
        for name, value in req.items():
            if type(value) is not int:
                return _pending_one_by_one(job)
            pending[name] = pending.get(name, 0) + value * n
    return pending


def _pending_one_by_one(job: JobInfo) -> dict[str, Num]:
    """The summed requests of ``job``'s Pending tasks, added task by task in task order."""
    pending: dict[str, Num] = {}
    for task in job.tasks.values():
        if task.status == TaskStatus.Pending:
            for name, value in task.spec.requests.items():
                pending[name] = pending.get(name, 0) + value
    return pending


_ROUTES = ((0, 0), (1, 0), (1, 1), (2, 2), (3, 3))
"""(sum, part): a queue's allocation sums the jobs' allocations; its request their allocations
and Pending requests; its in-queue reservation and elastic part the jobs' ones."""


class _NotInt(Exception):
    """A part holds an amount that is not an int: its sums are worked out from scratch."""


class _QueueSums:
    """Across sessions: the per-queue sums of the parts of the carried jobs (``_carried_sums``)."""

    __slots__ = ("counts", "jobs", "session", "sums", "width")

    def __init__(self, session: int, width: int) -> None:
        self.session = session
        """The carry's session (``JobCarry.sessions``) whose jobs are summed."""
        self.width = width
        self.sums: dict[str, list[dict[str, Num]]] = {}
        """Per queue: the allocation, request, in-queue and elastic sums (key order not kept)."""
        self.counts: dict[str, list[dict[str, int]]] = {}
        """Per queue and sum: how many parts hold each key (a key leaves the sum with its last part)."""
        self.jobs: dict[str, int] = {}
        """Per queue with a job: how many jobs' parts are summed."""

    def apply(self, queue: str, parts: _Parts, sign: int) -> None:
        """Add (``sign`` 1) or take out (-1) one job's parts in ``queue``'s sums."""
        sums = self.sums.get(queue)
        if sums is None:
            sums = self.sums[queue] = [{}, {}, {}, {}]
            self.counts[queue] = [{}, {}, {}, {}]
        counts = self.counts[queue]
        jobs = self.jobs.get(queue, 0) + sign
        if jobs:
            self.jobs[queue] = jobs
        else:
            del self.jobs[queue]
        for acc, at in _ROUTES:
            total, count = sums[acc], counts[acc]
            for name, value in parts[at].items():
                if type(value) is not int:
                    raise _NotInt(name)
                if sign > 0:
                    total[name] = total.get(name, 0) + value
                    count[name] = count.get(name, 0) + 1
                elif count[name] == 1:
                    del count[name], total[name]
                else:
                    count[name] -= 1
                    total[name] -= value


_SUMS: StateKey[_QueueSums | None] = StateKey("quota.queue-sums", lambda: None)
"""The carried jobs' queue sums (in ``JobCarry.state``)."""


def _built_parts(ssn: Session, kept: Kept, names: Sequence[str]) -> tuple[str, _Parts]:
    """The queue and parts of a job of the last session as it was built there: the parts kept
    in its memo (a job of more than one task), else worked out from a job built again from the
    same inputs."""
    parsed = parse_podgroup(kept.podgroup, kept.default_queue)
    memo = kept.job.memo
    hit = memo.get(_PARTS) if memo is not None else None
    if hit is not None and hit[0] == (parsed.phase, len(names)):
        return parsed.queue, hit[1]
    space = ssn.space
    job = JobInfo(kept.podgroup, kept.default_queue, kept.priority, space, parsed)
    for spec in kept.specs:
        over = kept.overrides.get(spec.uid)
        job.add_task(TaskInfo(spec, space.fit(spec.vec(space)), *(over or (None, None))))
    return parsed.queue, _job_parts(ssn, job, names)


def _carried_sums(ssn: Session, names: Sequence[str]) -> dict[str, list[dict[str, Num]]] | None:
    """Each queue's allocation, request, in-queue and elastic sums, in the queues' and the keys'
    order of summing the session's jobs one by one (``build_queue_attrs``): the last session's
    sums updated by the jobs the carry built afresh (the old job's parts out, the new one's in)
    or dropped; a carried job is the same as built, so its parts are. None without a carry
    (or without ``reuse``), or when an amount is not an int (sums of ints do not depend on their
    order; others might)."""
    carry = ssn.carry
    if carry is None or not ssn.reuse or not carry.taken:
        return None
    state = carry.state.get(_SUMS)
    try:
        if state is None or state.width != len(names) or state.session < carry.sessions - 1:
            state = _QueueSums(carry.sessions, len(names))
            for job in ssn.jobs.values():
                state.apply(job.queue, _job_parts(ssn, job, names), 1)
        elif state.session == carry.sessions - 1:
            for old, new in carry.replaced:
                if old is not None:
                    state.apply(*_built_parts(ssn, old, names), -1)
                state.apply(new.job.queue, _job_parts(ssn, new.job, names), 1)
            for old in carry.dropped:
                state.apply(*_built_parts(ssn, old, names), -1)
            state.session = carry.sessions
    except _NotInt:
        carry.state.set(_SUMS, None)
        return None
    carry.state.set(_SUMS, state)
    return _ordered(ssn, state, names)


def _ordered(ssn: Session, state: _QueueSums, names: Sequence[str]) -> dict[str, list[dict[str, Num]]]:
    """Copies of each queue's sums in ``state``, the queues in the order of their first job and the
    keys in the order summing their jobs' parts one by one puts them (each key where a part first
    holds it). The session's jobs are scanned in order until every queue that has a job (``state``
    counts them) was seen and every key of its sums placed: usually the first few jobs."""
    sums = state.sums
    out: dict[str, list[dict[str, Num]]] = {}
    left: dict[str, int] = {}
    unseen = len(state.jobs)
    unplaced = 0
    for job in ssn.jobs.values():
        queue = job.queue
        mine = out.get(queue)
        if mine is None:
            mine = out[queue] = [{}, {}, {}, {}]
            left[queue] = n = sum(len(total) for total in sums[queue])
            unplaced += n
            unseen -= 1
        if left[queue]:
            parts = _job_parts(ssn, job, names)
            placed = 0
            for acc, at in _ROUTES:
                into, total = mine[acc], sums[queue][acc]
                for name in parts[at]:
                    if name not in into:
                        into[name] = total[name]
                        placed += 1
            left[queue] -= placed
            unplaced -= placed
        if unseen <= 0 and not unplaced:
            break
    return out


def build_queue_attrs(ssn: Session) -> tuple[dict[str, QueueAttr], dict[str, Num], dict[str, Num]]:
    """Per-queue attributes for every queue with a job in the session, the cluster total and Σ guarantees.

    With a carry (``Session.carry``) the sums are the carried ones updated by what changed
    (``_carried_sums``): the same keys, order and values as summing every job."""
    names = ssn.space.names
    total = vec_to_dict(names, ssn.space.fit(ssn.total).tolist())
    total_guarantee: dict[str, Num] = {}
    for queue in ssn.queues.values():
        if queue.guarantee:
            total_guarantee = add(total_guarantee, queue.guarantee)
    attrs: dict[str, QueueAttr] = {}
    carried = _carried_sums(ssn, names)
    if carried is not None:
        for name, (allocated, request, inqueue, elastic) in carried.items():
            attrs[name] = QueueAttr(_quota(ssn, name), allocated, request, inqueue, elastic)
    else:
        for job in ssn.jobs.values():
            attr = attrs.get(job.queue)
            if attr is None:
                attr = attrs[job.queue] = QueueAttr(_quota(ssn, job.queue))
            # Each sum is accumulated in place in the attribute's own dict (made here): the same
            # keys, order and values as replacing it by add(sum, part) for every job.
            job_alloc, pending, reserved, elastic = _job_parts(ssn, job, names)
            for acc, part in ((attr.allocated, job_alloc), (attr.request, job_alloc), (attr.request, pending),
                              (attr.inqueue, reserved), (attr.elastic, elastic)):
                for name, value in part.items():
                    acc[name] = acc.get(name, 0) + value
    for attr in attrs.values():
        attr.quota.request = attr.request
        attr.quota.real = real_capability(total, total_guarantee, attr.quota.guarantee, attr.quota.capability)
    return attrs, total, total_guarantee


def _quota(ssn: Session, name: str) -> QueueQuota:
    """A fresh ``QueueQuota`` of the session's queue ``name`` (request and real set later)."""
    queue = ssn.queues[name]
    return QueueQuota(queue.name, queue.weight, {}, dict(queue.guarantee or {}),
                      dict(queue.capability) if queue.capability is not None else None)


def walk_victims(ssn: Session, attrs: Mapping[str, QueueAttr], candidates: Iterable[TaskInfo],
                 is_victim: Callable[[QueueAttr, Vec, TaskInfo], bool]) -> list[TaskInfo]:
    """The victims among ``candidates``, walked in order with a running copy of each victim
    queue's allocation: a candidate is a victim when ``is_victim(queue attributes, allocation
    so far, task)``, and its request then leaves the copy. Candidates outside the quota
    queues are skipped (proportion's reclaimable, capacity's gang-reclaim filter)."""
    working: dict[str, dict[str, Num]] = {}
    victims: list[TaskInfo] = []
    for task in candidates:
        job = ssn.job_of(task)
        attr = attrs.get(job.queue) if job is not None else None
        if job is None or attr is None:
            continue
        allocated = working.setdefault(job.queue, dict(attr.allocated))
        if is_victim(attr, allocated, task):
            working[job.queue] = sub(allocated, task.spec.requests)
            victims.append(task)
    return victims


def enqueue_verdict(ssn: Session, job: JobInfo, attr: QueueAttr) -> int:
    """The proportion/capacity ``job_enqueueable`` vote for one queue (events on rejection)."""
    queue = ssn.queues[job.queue]
    if queue.state != "Open":
        return REJECT
    if job.min_resources is None:
        return PERMIT
    minimum: Vec = job.min_resources
    needed = sub(add(add(minimum, attr.allocated), attr.inqueue), attr.elastic)
    ok, failing = fits_on_requested(needed, attr.quota.real, minimum)
    if ok:
        return PERMIT
    ssn.podgroup_event(job, "Normal", "Unschedulable",
                       format_resource_names("queue resource quota insufficient", "insufficient", failing))
    return REJECT


class QuotaPlugin(Protocol):
    """What a queue-quota plugin (proportion, capacity) answers, and hears about placements."""

    def queue_order(self, left: QueueInfo, right: QueueInfo) -> int:
        """QUEUE_ORDER."""

    def reclaimable(self, reclaimer: TaskInfo, reclaimees: list[TaskInfo]) -> Victims:
        """RECLAIMABLE."""

    def allocatable(self, queue: QueueInfo, task: TaskInfo) -> bool:
        """ALLOCATABLE."""

    def preemptive(self, queue: QueueInfo, tasks: list[TaskInfo]) -> bool:
        """PREEMPTIVE."""

    def job_enqueueable(self, job: JobInfo) -> int:
        """JOB_ENQUEUEABLE."""

    def job_enqueued(self, job: JobInfo) -> None:
        """JOB_ENQUEUED."""

    def on_allocate(self, task: TaskInfo) -> None:
        """A task was placed: its queue's allocation grows."""

    def on_deallocate(self, task: TaskInfo) -> None:
        """A task left its node: its queue's allocation shrinks."""


def register_quota_plugin(ssn: Session, plugin: QuotaPlugin,
                          queue_key: Callable[[QueueInfo], Any] | None = None) -> None:
    """Register the points every quota plugin answers (queue order, with ``queue_key`` when the
    plugin has one, see ``Session.add_fn``; reclaimable, allocatable, preemptive, job
    enqueueable and enqueued) and its allocation event handlers."""
    ssn.add_fn(QUEUE_ORDER, plugin.queue_order, key=queue_key)
    ssn.add_fn(RECLAIMABLE, plugin.reclaimable)
    ssn.add_fn(ALLOCATABLE, plugin.allocatable)
    ssn.add_fn(PREEMPTIVE, plugin.preemptive)
    ssn.add_fn(JOB_ENQUEUEABLE, plugin.job_enqueueable)
    ssn.add_fn(JOB_ENQUEUED, plugin.job_enqueued)
    ssn.add_event_handler(allocate=plugin.on_allocate, deallocate=plugin.on_deallocate)
