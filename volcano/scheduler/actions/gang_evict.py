"""Shared machinery of the gang-aware eviction actions ``gangpreempt`` and ``gangreclaim``.

Volcano's ``actions/utils`` (bundle, simulate, util), reference §4.8 and catalogue §4.6.
A starving job asks for the sum of its pending requests at once. Victim candidates
are grouped per victim job into *bundles*: a **safe** bundle holds tasks whose
eviction keeps that job gang-ready (job ``minAvailable`` and per-role
``minTaskMember``), a **whole** bundle holds the rest (evicting it breaks the victim
job). Bundles are filtered through UnifiedEvictable, sorted (safe before whole, then
victim job or queue order, then "return on investment" against the demand), and
added one by one until the domain's idle + releasing resources plus the chosen
victims cover the demand; then a placement plan (evict the victims, pipeline every
pending task) is dry-run and kept only when the job becomes pipelined.

Deviations, documented: there are no hyper-nodes here, so the only eviction domain
is the whole cluster (Volcano's cluster-top fallback for jobs without hard
topology) and sub-group slack does not apply. UnifiedEvictable is the
``unified_evictable`` extension point (tier intersection, no enable flag).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import IntEnum
from functools import cmp_to_key
from typing import ClassVar

import numpy as np

from volcano.api import accessors
from volcano.api.well_known import PREEMPTABLE
from volcano.scheduler.actions.base import Action, Agenda, schedulable_jobs
from volcano.scheduler.actions.preempt import candidate_rows
from volcano.scheduler.framework.model import (
    ALLOCATED_STATUSES,
    JobInfo,
    QueueInfo,
    TaskInfo,
    TaskStatus,
)
from volcano.scheduler.framework.plugin import Arguments
from volcano.scheduler.framework.points import CLUSTER_DOMAIN, UNIFIED_EVICTABLE, EvictionContext
from volcano.scheduler.framework.resources import Vec
from volcano.scheduler.framework.select import fits, prioritize
from volcano.scheduler.framework.session import Session
from volcano.scheduler.framework.statement import Statement

__all__ = [
    "Bundle",
    "BundleType",
    "GangEvictAction",
    "apply_allowed",
    "build_plan",
    "bundle_roi",
    "collect_pending",
    "create_job_bundles",
    "flatten",
    "is_job_preemptable",
    "pick_domains",
    "select_bundles",
    "sort_for_preempt",
    "sort_for_reclaim",
    "unified_evictable",
    "vec_le",
]

DEFAULT_MAX_DOMAINS = 8
_BASE = np.array([0, 1, 2], dtype=np.intp)


class BundleType(IntEnum):
    """Safe bundles (the victim job stays gang-ready) sort before whole ones."""

    SAFE = 0
    WHOLE = 1


@dataclass
class Bundle:
    """Victim tasks of one job, evicted together: ``local`` sums their requests;
    ``global_`` is what breaking the job costs (every task of a whole bundle's
    job; zero for a safe bundle)."""

    type: BundleType
    job: JobInfo
    tasks: list[TaskInfo]
    local: Vec
    global_: Vec | None = None


def _sum(tasks: Iterable[TaskInfo], width: int) -> Vec:
    out = np.zeros(width, dtype=np.int64)
    for t in tasks:
        out[: t.vec.shape[0]] += t.vec
    return out


def vec_le(need: Vec, available: Vec) -> bool:
    """Volcano's ``LessEqual(rr, Zero)`` on integer vectors: cpu, memory, pods and
    every dimension ``need`` uses must be within ``available``."""
    dims = np.union1d(_BASE, np.flatnonzero(need)).astype(np.intp)
    return bool(np.all(need[dims] <= available[dims]))


def is_job_preemptable(job: JobInfo) -> bool:
    """Volcano's ``IsJobPreemptableForGangEviction``: a PodGroup without the
    ``volcano.sh/preemptable`` annotation or label may lose tasks; with it, its value decides."""
    if PREEMPTABLE in accessors.annotations(job.podgroup) or PREEMPTABLE in accessors.labels(job.podgroup):
        return job.preemptable
    return True


def pick_domains(gradients: Sequence[Sequence[str | None]] | None, max_domains: int, fallback: str) -> list[str]:
    """Flatten hyper-node gradients into distinct domain names (first seen first),
    at most ``max_domains`` (<= 0: no cap); ``[fallback]`` when none (and a fallback)."""
    seen: set[str] = set()
    out: list[str] = []
    for row in gradients or ():
        for name in row:
            if name is None or name in seen:
                continue
            seen.add(name)
            out.append(name)
            if 0 < max_domains <= len(out):
                return out
    if not out and fallback:
        out.append(fallback)
    return out


def _ready_for_role(task: TaskInfo) -> bool:
    return task.status in ALLOCATED_STATUSES or task.status == TaskStatus.Succeeded or (
        task.status == TaskStatus.Pending and task.best_effort)


def create_job_bundles(job: JobInfo, local: list[TaskInfo], width: int) -> list[Bundle]:
    """Split ``job``'s candidate tasks into a safe and a whole bundle.

    Tasks are taken lowest priority first (ties: uid). A task is safe while the
    job keeps more ready tasks than ``minAvailable`` and its role (when the role
    has a ``minTaskMember`` and the job's minimum covers the role minimums) keeps
    more than its minimum; each safe task spends one unit of both surpluses. A job
    already below ``minAvailable`` has nothing to lose: every task is safe."""
    if not local:
        return []
    tasks = sorted(local, key=lambda t: (t.priority, t.uid))
    surplus = job.ready_task_num() - job.min_available
    if surplus < 0:
        return [Bundle(BundleType.SAFE, job, tasks, _sum(tasks, width), np.zeros(width, dtype=np.int64))]
    enforce_roles = job.min_available >= sum(job.min_task_member.values())
    role_surplus: dict[str, int] = {}
    if enforce_roles:
        ready: dict[str, int] = {}
        for t in job.tasks.values():
            if _ready_for_role(t):
                ready[t.spec.role] = ready.get(t.spec.role, 0) + 1
        role_surplus = {role: ready.get(role, 0) - minimum for role, minimum in job.min_task_member.items()}
    safe: list[TaskInfo] = []
    whole: list[TaskInfo] = []
    for t in tasks:
        has_min = enforce_roles and t.spec.role in job.min_task_member
        role_safe = role_surplus[t.spec.role] > 0 if has_min else True
        if surplus > 0 and role_safe:
            safe.append(t)
            surplus -= 1
            if has_min:
                role_surplus[t.spec.role] -= 1
        else:
            whole.append(t)
    out: list[Bundle] = []
    if safe:
        out.append(Bundle(BundleType.SAFE, job, safe, _sum(safe, width), np.zeros(width, dtype=np.int64)))
    if whole:
        out.append(Bundle(BundleType.WHOLE, job, whole, _sum(whole, width), _sum(job.tasks.values(), width)))
    return out


def flatten(bundles: Iterable[Bundle]) -> list[TaskInfo]:
    """Every bundle's tasks, bundle by bundle."""
    return [t for b in bundles for t in b.tasks]


def apply_allowed(bundles: Iterable[Bundle], allowed: set[str]) -> list[Bundle]:
    """Keep what UnifiedEvictable allowed (task uids): a whole bundle survives only
    when every task is allowed; a safe bundle shrinks to its allowed tasks."""
    out: list[Bundle] = []
    for b in bundles:
        if not b.tasks:
            continue
        ok = [t for t in b.tasks if t.uid in allowed]
        if b.type == BundleType.WHOLE:
            if len(ok) == len(b.tasks):
                out.append(b)
        elif ok:
            out.append(Bundle(b.type, b.job, ok, _sum(ok, b.local.shape[0]), b.global_))
    return out


def select_bundles(bundles: Iterable[Bundle], need: Vec, allow_whole: bool) -> list[Bundle]:
    """Bundles in order (whole ones only when allowed) until their requests cover ``need``."""
    out: list[Bundle] = []
    freed = np.zeros_like(need)
    for b in bundles:
        if b.type == BundleType.WHOLE and not allow_whole:
            continue
        out.append(b)
        freed = freed + b.local[: need.shape[0]]
        if vec_le(need, freed):
            break
    return out


def _score(res: Vec | None, need: Vec, cap: bool) -> float:
    if res is None:
        return 0.0
    total = 0.0
    for i in np.flatnonzero(need > 0).tolist():
        v = int(res[i]) if i < res.shape[0] else 0
        n = int(need[i])
        total += (min(v, n) if cap else v) / n
    return total


def bundle_roi(bundle: Bundle, need: Vec) -> float:
    """What the bundle frees towards ``need`` (capped per dimension) over what
    breaking its job costs; infinite for a safe bundle (no cost)."""
    local = _score(bundle.local, need, True)
    cost = _score(bundle.global_, need, False)
    return math.inf if cost == 0 else local / cost


def _stable_less(left: Bundle, right: Bundle) -> int:
    if left.job.uid != right.job.uid:
        return -1 if left.job.uid < right.job.uid else 1
    lf = left.tasks[0].uid if left.tasks else ""
    rf = right.tasks[0].uid if right.tasks else ""
    if lf != rf:
        return -1 if lf < rf else 1
    return (len(left.tasks) > len(right.tasks)) - (len(left.tasks) < len(right.tasks))


def _sort(bundles: list[Bundle], need: Vec, middle: Callable[[Bundle, Bundle], int]) -> None:
    def cmp(left: Bundle, right: Bundle) -> int:
        if left.type != right.type:
            return -1 if left.type < right.type else 1
        c = middle(left, right)
        if c:
            return c
        lr, rr = bundle_roi(left, need), bundle_roi(right, need)
        if lr != rr:
            return -1 if lr > rr else 1
        return _stable_less(left, right)

    bundles.sort(key=cmp_to_key(cmp))


def sort_for_preempt(bundles: list[Bundle], need: Vec, victim_job_less: Callable[[JobInfo, JobInfo], bool]) -> None:
    """Sort in place: safe first, then ``victim_job_less`` (the job to victimise
    first), then higher ROI, then job uid / first task uid / fewer tasks."""
    def middle(left: Bundle, right: Bundle) -> int:
        if left.job.uid == right.job.uid:
            return 0
        lr, rl = victim_job_less(left.job, right.job), victim_job_less(right.job, left.job)
        return 0 if lr == rl else (-1 if lr else 1)

    _sort(bundles, need, middle)


def sort_for_reclaim(bundles: list[Bundle], need: Vec, queue_less: Callable[[QueueInfo, QueueInfo], bool],
                     queues: Mapping[str, QueueInfo]) -> None:
    """Sort in place: safe first, then the victim queues by ``queue_less``, then ROI, then stable keys."""
    def middle(left: Bundle, right: Bundle) -> int:
        lq, rq = queues.get(left.job.queue), queues.get(right.job.queue)
        if lq is None or rq is None or lq.uid == rq.uid:
            return 0
        lr, rl = queue_less(lq, rq), queue_less(rq, lq)
        return 0 if lr == rl else (-1 if lr else 1)

    _sort(bundles, need, middle)


def unified_evictable(ssn: Session, ctx: EvictionContext, candidates: list[TaskInfo]) -> list[TaskInfo]:
    """Victims UnifiedEvictable allows among ``candidates`` (the ``unified_evictable``
    point's tier intersection; [] when no tier decides)."""
    return ssn.call(UNIFIED_EVICTABLE, ctx, candidates) or []


def collect_pending(ssn: Session, job: JobInfo) -> list[TaskInfo]:
    """The job's pending tasks that need a place: not gated, not best-effort, in task order."""
    return ssn.sort_tasks(t for t in job.tasks.values()
                          if t.status == TaskStatus.Pending and not t.spec.gated and not t.best_effort)


def build_plan(ssn: Session, queue: QueueInfo, job: JobInfo, victims: list[TaskInfo], reason: str) -> Statement | None:
    """Dry-run: evict ``victims``, then pipeline every pending task of ``job`` on the
    best node (Allocatable, PrePredicate, predicates where only unresolvable failures
    count, FutureIdle fit; idle nodes before future-idle ones). Returns the statement
    with its operations applied when the job ends up pipelined (or ready), else
    discards everything and returns None."""
    stmt = Statement(ssn)
    for v in victims:
        stmt.evict(v, reason)
    was_ready = ssn.job_ready(job)
    placed = 0
    for task in collect_pending(ssn, job):
        if not ssn.allocatable(queue, task) or ssn.pre_predicate(task):
            stmt.discard()
            return None
        rows = candidate_rows(ssn, task)
        rows = rows[[fits(task, ssn.table.fidle[r]) for r in rows.tolist()]] if len(rows) else rows
        best = prioritize(ssn, task, rows) if len(rows) else None
        if best is None:
            stmt.discard()
            return None
        stmt.pipeline(task, ssn.nodes[best], bool(victims))
        placed += 1
    if placed == 0 or not (was_ready or ssn.job_ready(job) or ssn.job_pipelined(job)):
        stmt.discard()
        return None
    return stmt


class GangEvictAction(Action):
    """The loop both gang actions share (Volcano ``gangpreempt.go`` / ``gangreclaim.go``).

    Queues in queue order; per queue its starving jobs in job order; per job one
    statement: pending tasks, their summed demand, then per domain the bundles
    ``select_domain_bundles`` offers, accumulated until the domain's idle and
    releasing resources plus the victims cover the demand and a placement plan
    succeeds. The statement is committed when the job is pipelined, else discarded.
    Arguments: ``maxDomains`` (default 8; <= 0 means the default),
    ``allowWholeBundle`` (default true)."""

    reason: ClassVar[str] = ""
    skip_overused: ClassVar[bool] = False
    ARGUMENTS: ClassVar[frozenset[str]] = frozenset({"maxDomains", "allowWholeBundle"})

    def __init__(self, args: Arguments | None = None) -> None:
        super().__init__(args)
        max_domains = self.args.get_int("maxDomains", DEFAULT_MAX_DOMAINS)
        self.max_domains = max_domains if max_domains > 0 else DEFAULT_MAX_DOMAINS
        self.allow_whole_bundle = self.args.get_bool("allowWholeBundle", True)

    def select_domain_bundles(self, ssn: Session, job: JobInfo, pending: list[TaskInfo],
                              need: Vec, domain: str) -> list[Bundle]:
        """The bundles this action may evict for ``job`` in ``domain``, in eviction order."""
        raise NotImplementedError

    def admits(self, ssn: Session, queue: QueueInfo, pending: list[TaskInfo]) -> bool:
        """Whether ``queue`` may evict for these pending tasks at all (reclaim: Preemptive)."""
        return True

    def domains(self, ssn: Session, job: JobInfo) -> list[str]:
        """Candidate domains (no hyper-nodes here: the whole cluster)."""
        return pick_domains(None, self.max_domains, CLUSTER_DOMAIN)

    def execute(self, ssn: Session) -> None:
        """Run the action over the session (see the class docstring)."""
        agenda = Agenda(ssn)
        for job, queue in schedulable_jobs(ssn):
            agenda.add_queue(queue)
            if ssn.job_starving(job):
                agenda.add_job(queue, job)
        while agenda:
            queue = agenda.pop_queue()
            if self.skip_overused and ssn.overused(queue):
                continue
            jobs = agenda.jobs(queue)
            while jobs:
                job = jobs.pop()
                stmt = Statement(ssn)
                self._evict_for_job(ssn, stmt, queue, job)
                stmt.settle(ssn.job_pipelined(job), action=self.name)

    def _evict_for_job(self, ssn: Session, stmt: Statement, queue: QueueInfo, job: JobInfo) -> None:
        pending = collect_pending(ssn, job)
        if not pending or not self.admits(ssn, queue, pending):
            return
        width = len(ssn.space)
        need = _sum(pending, width)
        rows = np.arange(len(ssn.table), dtype=np.intp)
        for domain in self.domains(ssn, job):
            bundles = self.select_domain_bundles(ssn, job, pending, need, domain)
            if not bundles:
                continue
            idle = (ssn.table.idle[rows] + ssn.table.releasing[rows]).sum(axis=0)
            chosen: list[TaskInfo] = []
            for bundle in bundles:
                chosen.extend(bundle.tasks)
                if not vec_le(need, idle + _sum(chosen, idle.shape[0])):
                    continue
                plan = build_plan(ssn, queue, job, list(chosen), self.reason)
                if plan is None:
                    continue
                stmt.merge(plan)
                ssn.record(self.reason.capitalize(), job.uid, f"{len(chosen)} victims")
                return

    def _candidates(self, ssn: Session, keep: Callable[[TaskInfo, JobInfo], bool]) -> dict[str, list[TaskInfo]]:
        """Tasks on the domain's nodes that ``keep`` accepts, grouped by victim job uid."""
        out: dict[str, list[TaskInfo]] = {}
        for node in ssn.nodes:
            for t in node.tasks.values():
                if not t.spec.preemptable:
                    continue
                vj = ssn.job_of(t)
                if vj is None or not is_job_preemptable(vj) or not keep(t, vj):
                    continue
                out.setdefault(vj.uid, []).append(t)
        return out

    def _bundles(self, ssn: Session, by_job: dict[str, list[TaskInfo]]) -> list[Bundle]:
        width = len(ssn.space)
        out: list[Bundle] = []
        for uid in sorted(by_job):
            out.extend(create_job_bundles(ssn.jobs[uid], by_job[uid], width))
        return out

    def _filter(self, ssn: Session, ctx: EvictionContext, bundles: list[Bundle],
                resort: Callable[[list[Bundle]], None]) -> list[Bundle]:
        allowed = unified_evictable(ssn, ctx, flatten(bundles))
        if not allowed:
            return []
        valid = apply_allowed(bundles, {t.uid for t in allowed})
        resort(valid)
        return [b for b in valid if b.type == BundleType.SAFE or self.allow_whole_bundle]
