"""The extension-point catalogue: every point declared once, typed, with its combiner.

Volcano's ``session_plugins.go`` repeats one tier loop per point; here each
point is a typed constant, ``Point[Args, Answer, Result]``: a plugin registers a
``Callable[Args, Answer]`` with ``Session.add_fn(POINT, fn)`` and the framework
dispatches with ``Session.call(POINT, *args) -> Result``, both checked by mypy.
Callbacks are grouped by tier (``Tiers``: only participating plugins, enable
flag on and callback registered), and one combiner folds them.

Combiners and the Volcano quirks they encode (reference §3.2/§3.3):

- ``first_nonzero``   orderings: the first non-zero answer decides; 0 if none.
- ``all_ok``          pre-predicates: the first error (a string) wins; None = pass.
- ``verdicts``        predicates (vectorised): per node, the first failing plugin's reason.
- ``score_sum``       node order: per-node sum of every plugin's scores.
- ``first_result``    best node / target job / job valid: the first non-None answer.
- ``tier_intersect``  preemptable / reclaimable / unified evictable (the gang actions'
                      victim filter, no enable flag): intersect per tier; an abstain
                      (vote 0) is skipped; an empty answer from a voter makes the tier
                      undecided (fall through to the next tier); an empty running
                      intersection restarts from the next plugin's answer; a Reject
                      vote counts like Permit.
- ``tier_union``      victim tasks: union per tier, first non-empty tier wins.
- ``any_true``        overused: OR (no plugin: False).
- ``all_true``        allocatable / preemptive / job ready: AND (no plugin: True).
- ``tier_vote``       job pipelined / enqueueable: a Reject in a tier => False at once;
                      a Permit seen in a tier => True at the tier's end; else default True.
- ``call_all``        job enqueued: call every callback.
- ``first_tier_all``  job starving: AND over the first tier that has a callback; none => False.

Each point's ``contract`` says what a callback answers and what the framework
does with the answer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar

import numpy as np
import numpy.typing as npt

from volcano.scheduler.framework.job import JobInfo
from volcano.scheduler.framework.queue import QueueInfo
from volcano.scheduler.framework.task import TaskInfo

__all__ = [
    "ABSTAIN",
    "ALLOCATABLE",
    "BEST_NODE",
    "CATALOGUE",
    "CLUSTER_DOMAIN",
    "GANG_PREEMPT",
    "GANG_RECLAIM",
    "JOB_ENQUEUEABLE",
    "JOB_ENQUEUED",
    "JOB_ORDER",
    "JOB_PIPELINED",
    "JOB_READY",
    "JOB_STARVING",
    "JOB_VALID",
    "NODE_ORDER",
    "OVERUSED",
    "PERMIT",
    "PREDICATE",
    "PREEMPTABLE",
    "PREEMPTIVE",
    "PRE_PREDICATE",
    "QUEUE_ORDER",
    "RECLAIMABLE",
    "REJECT",
    "TARGET_JOB",
    "TASK_ORDER",
    "UNIFIED_EVICTABLE",
    "VICTIM_QUEUE_ORDER",
    "VICTIM_TASKS",
    "EvictionContext",
    "FloatArray",
    "IntArray",
    "JobInvalid",
    "Point",
    "Tiers",
    "Verdict",
    "Victims",
    "all_ok",
    "all_true",
    "any_true",
    "call_all",
    "catalogue",
    "first_nonzero",
    "first_result",
    "first_tier_all",
    "score_sum",
    "tier_intersect",
    "tier_union",
    "tier_vote",
    "verdicts",
]

PERMIT = 1
ABSTAIN = 0
REJECT = -1

P = ParamSpec("P")
A = TypeVar("A")
R = TypeVar("R")
T = TypeVar("T")
I = TypeVar("I")  # noqa: E741 - the initiator of a victim selection
C = TypeVar("C")

Tiers = Sequence[Sequence[Callable[P, A]]]
"""Participating callbacks of one point, grouped by tier, in configuration order."""

IntArray = npt.NDArray[np.intp]
"""Node rows (indexes into the session's node table)."""
FloatArray = npt.NDArray[np.float64]
"""One score per node row."""
Victims = tuple[list[TaskInfo], int]
"""A victim filter's answer: the victims it allows and its vote (PERMIT, ABSTAIN, REJECT)."""
JobInvalid = tuple[str, str]
"""Why a job is invalid: (reason, message)."""

GANG_PREEMPT = "gangpreempt"
"""Eviction kind (and eviction reason) of the gangpreempt action."""
GANG_RECLAIM = "gangreclaim"
"""Eviction kind (and eviction reason) of the gangreclaim action."""
CLUSTER_DOMAIN = "<cluster-top-hypernode>"
"""The one eviction domain here: every node of the session."""


@dataclass(frozen=True)
class EvictionContext:
    """Who asks UnifiedEvictable: the action kind (``GANG_PREEMPT``/``GANG_RECLAIM``),
    the starving job, the domain."""

    kind: str
    job: JobInfo
    domain: str = CLUSTER_DOMAIN


class Verdict:
    """A vectorised predicate answer over all node rows.

    ``codes[row]`` is 0 when the node passes, else ``k`` meaning
    ``reasons[k-1]``; ``unresolvable[k-1]`` says whether eviction cannot fix it
    (Kubernetes' UnschedulableAndUnresolvable)."""

    __slots__ = ("codes", "reasons", "unresolvable")

    def __init__(self, n: int) -> None:
        self.codes: npt.NDArray[np.int16] = np.zeros(n, dtype=np.int16)
        self.reasons: list[str] = []
        self.unresolvable: list[bool] = []

    def code_for(self, reason: str, unresolvable: bool) -> int:
        """The code of ``reason`` (added on first use)."""
        for i, (r, u) in enumerate(zip(self.reasons, self.unresolvable, strict=True)):
            if r == reason and u == unresolvable:
                return i + 1
        self.reasons.append(reason)
        self.unresolvable.append(unresolvable)
        return len(self.reasons)

    def fail(self, mask: npt.NDArray[np.bool_], reason: str, unresolvable: bool = True) -> None:
        """Fail the still-passing rows of ``mask`` with ``reason``."""
        mask = mask & (self.codes == 0)
        if mask.any():
            self.codes[mask] = self.code_for(reason, unresolvable)

    def merge(self, other: Verdict) -> None:
        """Take ``other``'s reasons for rows that still pass here (first failure wins)."""
        for k, (reason, unres) in enumerate(zip(other.reasons, other.unresolvable, strict=True), start=1):
            self.fail(other.codes == k, reason, unres)

    @property
    def ok(self) -> npt.NDArray[np.bool_]:
        """Rows that pass."""
        passing: npt.NDArray[np.bool_] = self.codes == 0
        return passing

    def unresolvable_mask(self) -> npt.NDArray[np.bool_]:
        """Rows failing for an unresolvable reason."""
        bad = np.zeros(len(self.codes), dtype=np.bool_)
        for k, u in enumerate(self.unresolvable, start=1):
            if u:
                bad |= self.codes == k
        return bad


def first_nonzero(tiers: Tiers[P, int], /, *args: P.args, **kwargs: P.kwargs) -> int:
    """Orderings: the first non-zero answer in tier walk order (0 if none)."""
    for tier in tiers:
        for fn in tier:
            j = fn(*args, **kwargs)
            if j != 0:
                return int(j)
    return 0


def all_ok(tiers: Tiers[P, str | None], /, *args: P.args, **kwargs: P.kwargs) -> str | None:
    """The first error message in walk order, or None."""
    for tier in tiers:
        for fn in tier:
            err = fn(*args, **kwargs)
            if err:
                return str(err)
    return None


def verdicts(tiers: Tiers[P, Verdict | None], /, *args: P.args, **kwargs: P.kwargs) -> Verdict | None:
    """Per-node first failure over every plugin's ``Verdict``; None when no plugin answered
    (every node passes). The plugins' verdicts are never changed."""
    out: Verdict | None = None
    for tier in tiers:
        for fn in tier:
            v = fn(*args, **kwargs)
            if v is not None:
                if out is None:
                    out = Verdict(len(v.codes))
                out.merge(v)
    return out


def score_sum(tiers: Tiers[[T, IntArray], FloatArray], /, task: T, rows: IntArray) -> FloatArray:
    """Per-row sum of every plugin's scores for ``rows``."""
    total = np.zeros(len(rows), dtype=np.float64)
    for tier in tiers:
        for fn in tier:
            total += fn(task, rows)
    return total


def first_result(tiers: Tiers[P, T | None], /, *args: P.args, **kwargs: P.kwargs) -> T | None:
    """The first non-None answer."""
    for tier in tiers:
        for fn in tier:
            res = fn(*args, **kwargs)
            if res is not None:
                return res
    return None


def tier_intersect(tiers: Tiers[[I, list[C]], tuple[list[C], int]], /, initiator: I,
                   candidates: list[C]) -> list[C] | None:
    """Victim selection (Volcano's tier-intersection rule, quirks included)."""
    for tier in tiers:
        victims: list[C] | None = None
        for fn in tier:
            got, vote = fn(initiator, candidates)
            if vote == ABSTAIN:
                continue
            if not got:
                victims = None
                break
            if victims is None:
                victims = list(got)
            else:
                keep = {id(c) for c in got}
                victims = [v for v in victims if id(v) in keep] or None
        if victims is not None:
            return victims
    return None


def tier_union(tiers: Tiers[P, Iterable[T] | None], /, *args: P.args, **kwargs: P.kwargs) -> list[T]:
    """Union within a tier (deduplicated, first-seen order); the first non-empty tier wins."""
    for tier in tiers:
        seen: dict[int, T] = {}
        for fn in tier:
            for t in fn(*args, **kwargs) or []:
                seen.setdefault(id(t), t)
        if seen:
            return list(seen.values())
    return []


def any_true(tiers: Tiers[P, bool], /, *args: P.args, **kwargs: P.kwargs) -> bool:
    """OR over every callback (False when none)."""
    return any(fn(*args, **kwargs) for tier in tiers for fn in tier)


def all_true(tiers: Tiers[P, bool], /, *args: P.args, **kwargs: P.kwargs) -> bool:
    """AND over every callback (True when none)."""
    return all(fn(*args, **kwargs) for tier in tiers for fn in tier)


def tier_vote(tiers: Tiers[P, int], /, *args: P.args, **kwargs: P.kwargs) -> bool:
    """Votes: a Reject ends with False; a tier with a Permit ends with True; default True."""
    for tier in tiers:
        permit = False
        for fn in tier:
            vote = fn(*args, **kwargs)
            if vote < 0:
                return False
            if vote > 0:
                permit = True
        if permit:
            return True
    return True


def call_all(tiers: Tiers[P, None], /, *args: P.args, **kwargs: P.kwargs) -> None:
    """Call every callback."""
    for tier in tiers:
        for fn in tier:
            fn(*args, **kwargs)


def first_tier_all(tiers: Tiers[P, bool], /, *args: P.args, **kwargs: P.kwargs) -> bool:
    """AND over the first tier with a callback; False when no tier has one."""
    for tier in tiers:
        if tier:
            return all(fn(*args, **kwargs) for fn in tier)
    return False


@dataclass(frozen=True, eq=False)
class Point(Generic[P, A, R]):
    """One extension point: callbacks ``Callable[P, A]`` folded into a ``R``.

    ``name`` is the point's key, ``flag`` the plugin-entry enable flag gating it
    (None = always on), ``fold`` its combiner and ``contract`` what a callback
    answers and what the framework does with the answer. Points compare by
    identity: declare each one once, here."""

    name: str
    flag: str | None
    fold: Callable[Concatenate[Tiers[P, A], P], R]
    contract: str


def catalogue(*points: Point[..., Any, Any]) -> Mapping[str, Point[..., Any, Any]]:
    """The points by name; ValueError when two share a name."""
    out: dict[str, Point[..., Any, Any]] = {}
    for p in points:
        if p.name in out:
            raise ValueError(f"extension point {p.name!r} is declared twice")
        out[p.name] = p
    return out


JOB_ORDER: Point[[JobInfo, JobInfo], int, int] = Point(
    "job_order", "enableJobOrder", first_nonzero,
    "(l, r) -> <0 when l goes first, >0 when r does, 0 to abstain. The first non-zero answer orders "
    "the job heaps of every action; all abstain: creation time, then uid.")
QUEUE_ORDER: Point[[QueueInfo, QueueInfo], int, int] = Point(
    "queue_order", "enableQueueOrder", first_nonzero,
    "(l, r) -> int as JOB_ORDER. Orders the queue heaps; all abstain: creation time, then name.")
TASK_ORDER: Point[[TaskInfo, TaskInfo], int, int] = Point(
    "task_order", "enableTaskOrder", first_nonzero,
    "(l, r) -> int as JOB_ORDER. Orders a job's tasks; all abstain: Volcano's default task order.")
VICTIM_QUEUE_ORDER: Point[[QueueInfo, QueueInfo, QueueInfo], int, int] = Point(
    "victim_queue_order", None, first_nonzero,
    "(l, r, preemptor's queue) -> int as JOB_ORDER. Orders victims of different queues; all abstain: "
    "the queue scheduled later loses first.")
PRE_PREDICATE: Point[[TaskInfo], str | None, str | None] = Point(
    "pre_predicate", "enablePredicate", all_ok,
    "(task) -> an error message, or None to pass. The first error fails the task on every node "
    "(allocate records it as the task's fit error; preempt and reclaim skip the task).")
PREDICATE: Point[[TaskInfo, IntArray | None], Verdict | None, Verdict | None] = Point(
    "predicate", "enablePredicate", verdicts,
    "(task, rows or None for every row) -> a Verdict over those rows, or None when all pass. A node "
    "fails with the first failing plugin's reason; unresolvable reasons exclude it from eviction.")
NODE_ORDER: Point[[TaskInfo, IntArray], FloatArray, FloatArray] = Point(
    "node_order", "enableNodeOrder", score_sum,
    "(task, rows) -> one score per row. Scores are summed; the highest sum wins (ties: node order).")
BEST_NODE: Point[[TaskInfo, IntArray, FloatArray], int | None, int | None] = Point(
    "best_node", "enableBestNode", first_result,
    "(task, rows, scores) -> the chosen row, or None to abstain. The first answer overrides the "
    "highest score.")
PREEMPTABLE: Point[[TaskInfo, list[TaskInfo]], Victims, list[TaskInfo] | None] = Point(
    "preemptable", "enablePreemptable", tier_intersect,
    "(preemptor, candidates) -> (victims, vote). Tier intersection decides who preempt may evict; "
    "no tier deciding means no victim.")
RECLAIMABLE: Point[[TaskInfo, list[TaskInfo]], Victims, list[TaskInfo] | None] = Point(
    "reclaimable", "enableReclaimable", tier_intersect,
    "(reclaimer, candidates) -> (victims, vote). As PREEMPTABLE, for reclaim across queues.")
UNIFIED_EVICTABLE: Point[[EvictionContext, list[TaskInfo]], Victims, list[TaskInfo] | None] = Point(
    "unified_evictable", None, tier_intersect,
    "(context, candidates) -> (victims, vote). As PREEMPTABLE, for gangpreempt and gangreclaim.")
VICTIM_TASKS: Point[[list[TaskInfo]], list[TaskInfo] | None, list[TaskInfo]] = Point(
    "victim_tasks", "enabledVictim", tier_union,
    "(tasks) -> tasks to evict. The first tier with any answer gives the union of its answers.")
OVERUSED: Point[[QueueInfo], bool, bool] = Point(
    "overused", "enabledOverused", any_true,
    "(queue) -> True when the queue holds at least its share. Any True skips the queue in allocate, "
    "reclaim and gangreclaim.")
ALLOCATABLE: Point[[QueueInfo, TaskInfo], bool, bool] = Point(
    "allocatable", "enabledAllocatable", all_true,
    "(queue, task) -> whether the queue may take the task. Any False skips the task (allocate) or "
    "the node (preempt).")
PREEMPTIVE: Point[[QueueInfo, list[TaskInfo]], bool, bool] = Point(
    "preemptive", "enablePreemptive", all_true,
    "(queue, tasks) -> whether the queue may reclaim for the tasks. Any False skips them.")
JOB_READY: Point[[JobInfo], bool, bool] = Point(
    "job_ready", "enableJobReady", all_true,
    "(job) -> bool. All True (or no callback) makes allocate commit the job's statement and "
    "backfill dispatch the job's allocated tasks.")
JOB_VALID: Point[[JobInfo], JobInvalid | None, JobInvalid | None] = Point(
    "job_valid", None, first_result,
    "(job) -> (reason, message) when invalid, else None. The first failure keeps the job out of "
    "every action this session.")
JOB_PIPELINED: Point[[JobInfo], int, bool] = Point(
    "job_pipelined", "enableJobPipelined", tier_vote,
    "(job) -> vote. False (a Reject) discards the job's statement in allocate, preempt and reclaim.")
JOB_ENQUEUEABLE: Point[[JobInfo], int, bool] = Point(
    "job_enqueueable", "enableJobEnqueued", tier_vote,
    "(job) -> vote. False (a Reject) keeps the PodGroup Pending this cycle.")
JOB_ENQUEUED: Point[[JobInfo], None, None] = Point(
    "job_enqueued", "enableJobEnqueued", call_all,
    "(job) -> None. Told of every admitted job (plugins reserve its minResources).")
JOB_STARVING: Point[[JobInfo], bool, bool] = Point(
    "job_starving", "enableJobStarving", first_tier_all,
    "(job) -> bool. The first tier with a callback decides (AND); only starving jobs preempt or reclaim.")
TARGET_JOB: Point[[list[JobInfo]], JobInfo | None, JobInfo | None] = Point(
    "target_job", "enableTargetJob", first_result,
    "(jobs) -> the job to serve first, or None to abstain.")

CATALOGUE: Mapping[str, Point[..., Any, Any]] = catalogue(
    JOB_ORDER, QUEUE_ORDER, TASK_ORDER, VICTIM_QUEUE_ORDER, PRE_PREDICATE, PREDICATE, NODE_ORDER, BEST_NODE,
    PREEMPTABLE, RECLAIMABLE, UNIFIED_EVICTABLE, VICTIM_TASKS, OVERUSED, ALLOCATABLE, PREEMPTIVE, JOB_READY,
    JOB_VALID, JOB_PIPELINED, JOB_ENQUEUEABLE, JOB_ENQUEUED, JOB_STARVING, TARGET_JOB)
"""Every extension point, by name (declared once each)."""
