"""The extension-point catalogue: every point declared once, with its combiner.

Volcano's ``session_plugins.go`` repeats one tier loop per point; here each
point is a row of ``CATALOGUE`` (name, enable flag, combiner, contract) and a
single dispatcher folds the registered callbacks. Callbacks are grouped by
tier (``list[list[fn]]``, only participating plugins: enable flag on and
callback registered), and every combiner receives ``(tiers, *args)``.

Combiners and the Volcano quirks they encode (reference §3.2/§3.3):

- ``first_nonzero``   orderings: the first non-zero answer decides; 0 if none.
- ``all_ok``          pre-predicates: the first error (a string) wins; None = pass.
- ``verdicts``        predicates (vectorised): per node, the first failing plugin's reason.
- ``score_sum``       node order: per-node sum of every plugin's scores.
- ``first_result``    best node / target job: the first non-None answer.
- ``tier_intersect``  preemptable / reclaimable / unified evictable (the gang actions'
                      victim filter, no enable flag): intersect per tier; an abstain
                      (vote 0) is skipped; an empty answer from a voter makes the tier
                      undecided (fall through to the next tier); an empty running
                      intersection restarts from the next plugin's answer; a Reject
                      vote counts like Permit.
- ``tier_union``      victim tasks: union per tier, first non-empty tier wins.
- ``any_true``        overused: OR (no plugin: False).
- ``all_true``        allocatable / preemptive / job ready: AND (no plugin: True).
- ``first_failure``   job valid: the first failing result.
- ``tier_vote``       job pipelined / enqueueable: a Reject in a tier => False at once;
                      a Permit seen in a tier => True at the tier's end; else default True.
- ``call_all``        job enqueued: call every callback.
- ``first_tier_all``  job starving: AND over the first tier that has a callback; none => False.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = [
    "ABSTAIN",
    "CATALOGUE",
    "PERMIT",
    "REJECT",
    "Point",
    "Tiers",
    "Verdict",
    "all_ok",
    "all_true",
    "any_true",
    "call_all",
    "first_failure",
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

Tiers = Sequence[Sequence[Callable[..., Any]]]
"""Participating callbacks of one point, grouped by tier, in configuration order."""


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
        return self.codes == 0

    def unresolvable_mask(self) -> npt.NDArray[np.bool_]:
        """Rows failing for an unresolvable reason."""
        bad = np.zeros(len(self.codes), dtype=np.bool_)
        for k, u in enumerate(self.unresolvable, start=1):
            if u:
                bad |= self.codes == k
        return bad


def first_nonzero(tiers: Tiers, *args: Any) -> int:
    """Orderings: the first non-zero answer in tier walk order (0 if none)."""
    for tier in tiers:
        for fn in tier:
            j = fn(*args)
            if j != 0:
                return int(j)
    return 0


def all_ok(tiers: Tiers, *args: Any) -> str | None:
    """The first error message in walk order, or None."""
    for tier in tiers:
        for fn in tier:
            err = fn(*args)
            if err:
                return str(err)
    return None


def verdicts(tiers: Tiers, n: int, *args: Any) -> Verdict:
    """Per-node first failure over every plugin's ``Verdict`` (None = all pass)."""
    out = Verdict(n)
    for tier in tiers:
        for fn in tier:
            v = fn(*args)
            if v is not None:
                out.merge(v)
    return out


def score_sum(tiers: Tiers, rows: npt.NDArray[np.intp], *args: Any) -> npt.NDArray[np.float64]:
    """Per-row sum of every plugin's scores for ``rows``."""
    total = np.zeros(len(rows), dtype=np.float64)
    for tier in tiers:
        for fn in tier:
            total += fn(*args, rows)
    return total


def first_result(tiers: Tiers, *args: Any) -> Any:
    """The first non-None answer."""
    for tier in tiers:
        for fn in tier:
            res = fn(*args)
            if res is not None:
                return res
    return None


def tier_intersect(tiers: Tiers, initiator: Any, candidates: list[Any]) -> list[Any] | None:
    """Victim selection (Volcano's tier-intersection rule, quirks included)."""
    for tier in tiers:
        victims: list[Any] | None = None
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


def tier_union(tiers: Tiers, *args: Any) -> list[Any]:
    """Union within a tier (deduplicated, first-seen order); the first non-empty tier wins."""
    for tier in tiers:
        seen: dict[int, Any] = {}
        for fn in tier:
            for t in fn(*args) or []:
                seen.setdefault(id(t), t)
        if seen:
            return list(seen.values())
    return []


def any_true(tiers: Tiers, *args: Any) -> bool:
    """OR over every callback (False when none)."""
    return any(fn(*args) for tier in tiers for fn in tier)


def all_true(tiers: Tiers, *args: Any) -> bool:
    """AND over every callback (True when none)."""
    return all(fn(*args) for tier in tiers for fn in tier)


def first_failure(tiers: Tiers, *args: Any) -> Any:
    """The first result that is not None (a failure description), else None."""
    return first_result(tiers, *args)


def tier_vote(tiers: Tiers, *args: Any) -> bool:
    """Votes: a Reject ends with False; a tier with a Permit ends with True; default True."""
    for tier in tiers:
        permit = False
        for fn in tier:
            vote = fn(*args)
            if vote < 0:
                return False
            if vote > 0:
                permit = True
        if permit:
            return True
    return True


def call_all(tiers: Tiers, *args: Any) -> None:
    """Call every callback."""
    for tier in tiers:
        for fn in tier:
            fn(*args)


def first_tier_all(tiers: Tiers, *args: Any) -> bool:
    """AND over the first tier with a callback; False when no tier has one."""
    for tier in tiers:
        if tier:
            return all(fn(*args) for fn in tier)
    return False


@dataclass(frozen=True)
class Point:
    """One extension point: its name, the enable flag gating it (None = always on),
    its combiner and its callback contract."""

    name: str
    flag: str | None
    combiner: Callable[..., Any]
    contract: str


_POINTS = [
    Point("job_order", "enableJobOrder", first_nonzero, "(l: JobInfo, r: JobInfo) -> int (<0: l first)"),
    Point("queue_order", "enableQueueOrder", first_nonzero, "(l: QueueInfo, r: QueueInfo) -> int"),
    Point("task_order", "enableTaskOrder", first_nonzero, "(l: TaskInfo, r: TaskInfo) -> int"),
    Point("victim_queue_order", None, first_nonzero, "(l, r, preemptor_queue: QueueInfo) -> int"),
    Point("pre_predicate", "enablePredicate", all_ok, "(task) -> error message or None"),
    Point("predicate", "enablePredicate", verdicts, "(task) -> Verdict over all node rows, or None"),
    Point("node_order", "enableNodeOrder", score_sum, "(task, rows: int array) -> float array of scores"),
    Point("best_node", "enableBestNode", first_result, "(task, rows, scores) -> row or None"),
    Point("preemptable", "enablePreemptable", tier_intersect, "(preemptor, preemptees) -> (victims, vote)"),
    Point("reclaimable", "enableReclaimable", tier_intersect, "(reclaimer, reclaimees) -> (victims, vote)"),
    Point("unified_evictable", None, tier_intersect,
          "(ctx: EvictionContext, candidates) -> (victims, vote); gangpreempt/gangreclaim only"),
    Point("victim_tasks", "enabledVictim", tier_union, "(tasks) -> tasks to evict"),
    Point("overused", "enabledOverused", any_true, "(queue) -> bool"),
    Point("allocatable", "enabledAllocatable", all_true, "(queue, task) -> bool"),
    Point("preemptive", "enablePreemptive", all_true, "(queue, tasks) -> bool"),
    Point("job_ready", "enableJobReady", all_true, "(job) -> bool"),
    Point("job_valid", None, first_failure, "(job) -> (reason, message) if invalid, else None"),
    Point("job_pipelined", "enableJobPipelined", tier_vote, "(job) -> vote"),
    Point("job_enqueueable", "enableJobEnqueued", tier_vote, "(job) -> vote"),
    Point("job_enqueued", "enableJobEnqueued", call_all, "(job) -> None"),
    Point("job_starving", "enableJobStarving", first_tier_all, "(job) -> bool"),
    Point("target_job", "enableTargetJob", first_result, "(jobs) -> job or None"),
]

CATALOGUE: dict[str, Point] = {p.name: p for p in _POINTS}
"""Every extension point, by name."""
