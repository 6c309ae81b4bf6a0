"""Queue-quota arithmetic: resource vectors as name -> amount maps, upstream's comparisons,
the weighted water-filling of *deserved*, and the pure functions the quota plugins
(proportion, capacity, overcommit) build on; ``quota_state`` holds what they keep per
session.

Amounts are integer milli-units (``volcano.api.resources``) or, for computed shares
such as *deserved*, exact ``Fraction`` values, so a result never depends on the
order of a float sum. The functions are pure, so they are tested against the
upstream numbers without a session.

**The tolerance rule, decided here once.** Volcano compares resources in float64
with a 0.1-unit tolerance in its own units (``minResource``, reference §9.1): cpu
and other scalars in milli-units, memory in bytes, pods in whole pods. Every
comparison upstream makes tolerantly is made tolerantly here (``le_tolerant``,
``vector_le_tolerant``, ``resource_names``, ``is_empty``), with the tolerance
expressed in this project's milli-units (``tolerance``: 100 for memory and pods,
1/10 for cpu and other scalars), and every comparison upstream makes strictly
stays strict (``fits_on_requested``). The tolerance decides observable outcomes
only where an operand is fractional: a *deserved* share of 1/3 of the memory,
for example, is not "reached" by an allocation 0.33 bytes below it. Node fit
(``framework.select``) compares integer requests with integer idle amounts,
where a tolerance below one unit cannot change an answer; it compares exactly.

Other deliberate differences from upstream, for determinism:

* Upstream computes deserved in IEEE doubles; here the water-filling runs in
  exact rational arithmetic, so its two termination tests ("deserved
  unchanged", "remaining unchanged") are exact and order-free.
* Upstream iterates resource names in Go map order where it only affects log
  lines or the order of names in a message; here names are ordered cpu,
  memory, then the rest sorted.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

__all__ = [
    "INFINITE",
    "Num",
    "QueueQuota",
    "Vec",
    "add",
    "compare_shares",
    "compute_deserved",
    "dominant_share",
    "exceeded_part",
    "fits_on_requested",
    "format_resource_names",
    "inqueue_reserve",
    "is_empty",
    "is_scalar_resource_name",
    "le_tolerant",
    "ordered_names",
    "overused",
    "queue_allocatable",
    "real_capability",
    "resource_names",
    "share",
    "sub",
    "tolerance",
    "vector_le_tolerant",
]

Num = int | Fraction
"""An amount in milli-units: an integer, or an exact fraction for computed shares."""

Vec = Mapping[str, Num]
"""A resource vector: resource name -> amount in milli-units (absent = 0 unless a function says otherwise)."""

INFINITE = Fraction(2**63)
"""Stands for "unbounded" (upstream's MaxFloat64) in capabilities whose cpu/memory is unset or <= 0."""

_CPU = "cpu"
_MEMORY = "memory"
_PODS = "pods"
_TENTH = Fraction(1, 10)


_HUNDRED = Fraction(100)


def tolerance(name: str) -> Fraction:
    """Upstream's 0.1-unit tolerance for ``name`` expressed in milli-units.

    Upstream stores memory in bytes and pods in whole pods (so 0.1 of those
    is 100 milli-units here) and cpu and other scalars in milli-units (so
    0.1 of those is 1/10 of a milli-unit here).
    """
    return _HUNDRED if name in (_MEMORY, _PODS) else _TENTH


def ordered_names(names: Iterable[str]) -> list[str]:
    """Resource names in upstream's fixed order: cpu, memory, then the rest sorted."""
    unique = set(names)
    head = [n for n in (_CPU, _MEMORY) if n in unique]
    return head + sorted(unique - {_CPU, _MEMORY})


def resource_names(vec: Vec) -> list[str]:
    """Dimensions whose amount is at least the tolerance (upstream ``ResourceNames``); includes pods."""
    return ordered_names(name for name, value in vec.items() if value >= tolerance(name))


def is_empty(vec: Vec) -> bool:
    """Upstream ``IsEmpty``: every dimension below the tolerance, ignoring ``pods``."""
    return all(value < tolerance(name) for name, value in vec.items() if name != _PODS)


def is_scalar_resource_name(name: str) -> bool:
    """Whether Kubernetes counts ``name`` as a scalar resource (extended, hugepages, attachable volumes).

    Extended resources are domain-prefixed names outside ``kubernetes.io/``;
    prefixed native resources (``*.kubernetes.io/...``) count too. Quota
    names (``requests.*``, ``count/*``) never do.
    """
    if name.startswith(("requests.", "count/")):
        return False
    if name.startswith(("hugepages-", "attachable-volumes-")):
        return True
    return "/" in name


def le_tolerant(left: Num, right: Num, name: str) -> bool:
    """``left <= right`` within upstream's tolerance for resource ``name``: ``left - right`` below
    ``tolerance(name)``.

    Worked out in integers for ``int`` and ``Fraction`` operands (exact, so the same answer as the
    rational difference): two integers differ by less than 1/10 exactly when their difference is
    below 1, and ``a/b - c/d < p/q`` is ``(a*d - c*b) * q < p * b * d`` for positive denominators.
    Any other number type compares as ``left < right or left - right < tolerance(name)``."""
    tl, tr = type(left), type(right)
    if tl is int and tr is int:
        return left - right < (100 if name in (_MEMORY, _PODS) else 1)
    if (tl is int or tl is Fraction) and (tr is int or tr is Fraction):
        ln, ld = left.numerator, left.denominator
        rn, rd = right.numerator, right.denominator
        if name in (_MEMORY, _PODS):
            return ln * rd - rn * ld < 100 * ld * rd
        return (ln * rd - rn * ld) * 10 < ld * rd
    return left < right or left - right < tolerance(name)  # left >= right here, so the gap is left - right


def vector_le_tolerant(left: Vec, right: Vec) -> bool:
    """Upstream ``LessEqual(right, Zero)``: cpu, memory and every dimension of ``left`` (absent in right = 0).
    A pure conjunction: the dimensions are tested in ``left``'s order, then cpu and memory when
    ``left`` lacks them, stopping at the first that fails."""
    get = right.get
    for name, value in left.items():
        if not le_tolerant(value, get(name, 0), name):
            return False
    return (_CPU in left or le_tolerant(0, get(_CPU, 0), _CPU)) and (
        _MEMORY in left or le_tolerant(0, get(_MEMORY, 0), _MEMORY))


def add(left: Vec, right: Vec) -> dict[str, Num]:
    """Element-wise sum over the union of dimensions."""
    out: dict[str, Num] = dict(left)
    for name, value in right.items():
        out[name] = out.get(name, 0) + value
    return out


def sub(left: Vec, right: Vec) -> dict[str, Num]:
    """Element-wise difference over the union of dimensions (may go negative, like upstream's Sub)."""
    out: dict[str, Num] = dict(left)
    for name, value in right.items():
        out[name] = out.get(name, 0) - value
    return out


def exceeded_part(left: Vec, right: Vec) -> dict[str, Num]:
    """Upstream ``ExceededPart``: per dimension ``max(0, left - right)``, keeping only positive entries."""
    out: dict[str, Num] = {}
    for name in set(left) | set(right):
        diff = left.get(name, 0) - right.get(name, 0)
        if diff > 0:
            out[name] = diff
    return out


def share(left: Num, right: Num) -> float:
    """Upstream ``helpers.Share``: ``left / right``; 0 when both are 0, 1 when only ``right`` is 0."""
    if right == 0:
        return 0.0 if left == 0 else 1.0
    if isinstance(left, int) and isinstance(right, int):
        return left / right  # correctly rounded, as upstream's float division of the same values
    # The exact quotient as one integer division (correctly rounded, as float(Fraction) is).
    ln, ld = left.as_integer_ratio()
    rn, rd = right.as_integer_ratio()
    return (ln * rd) / (ld * rn)


def compare_shares(left: float, right: float) -> int:
    """An order callback's verdict on two shares: the smaller first (-1 or 1), equal ones abstain (0)."""
    if left == right:
        return 0
    return -1 if left < right else 1


def dominant_share(allocated: Vec, total: Vec) -> tuple[str, float]:
    """The largest ``share(allocated[r], total[r])`` over ``resource_names(total)``, and its resource.

    Ties keep the first name in cpu, memory, sorted-scalars order; an empty
    total gives ``("", 0.0)``.
    """
    best = 0.0
    dominant = ""
    for name in resource_names(total):
        value = share(allocated.get(name, 0), total[name])
        if value > best:
            best, dominant = value, name
    return dominant, best


def fits_on_requested(used: Vec, limit: Vec, request: Vec) -> tuple[bool, list[str]]:
    """Upstream ``LessEqualWithDimensionAndResourcesName``: ``used <= limit`` on dimensions ``request`` asks for.

    Only dimensions where ``request > 0`` are compared, ``pods`` is skipped,
    the comparison is strict (no tolerance), and a dimension absent from
    ``limit`` counts as 0. Returns whether it fits and the failing names.
    """
    failing = [name for name in ordered_names(request)
               if name != _PODS and request[name] > 0 and used.get(name, 0) > limit.get(name, 0)]
    return not failing, failing


def format_resource_names(prefix: str, verb: str, names: Sequence[str]) -> str:
    """Upstream ``FormatResourceNames``: ``"prefix: verb a, verb b"``, or just ``prefix`` when no names."""
    if not names:
        return prefix
    return f"{prefix}: " + ", ".join(f"{verb} {name}" for name in names)


def real_capability(total: Vec, total_guarantee: Vec, guarantee: Vec,
                    capability: Vec | None) -> dict[str, Num]:
    """A queue's real capability: ``max(0, total - Σguarantees) + guarantee``, capped by ``capability``.

    ``capability`` is the queue's ``spec.capability`` with explicit zeros kept
    (``None`` when unset); its cpu or memory being absent or <= 0 means
    unbounded there, and a dimension absent from it leaves that dimension
    uncapped. The result always has cpu and memory; a scalar absent from the
    result is uncapped for :func:`compute_deserved` and counts as 0 for
    :func:`fits_on_requested` (both as upstream).
    """
    real: dict[str, Num] = {_CPU: 0, _MEMORY: 0}
    real.update(add(exceeded_part(total, total_guarantee), guarantee))
    if capability is None:
        return real
    cap: dict[str, Num] = dict(capability)
    for name in (_CPU, _MEMORY):
        if cap.get(name, 0) <= 0:
            cap[name] = INFINITE
    for name, value in real.items():
        if name in cap and cap[name] < value:
            real[name] = cap[name]
    return real


def inqueue_reserve(min_resources: Mapping[str, int], job_allocated: Vec) -> dict[str, Num]:
    """Upstream ``GetInqueueResource``: what a job still reserves, ``max(0, min - allocated)`` per min dimension.

    Only cpu, memory, pods and scalar resource names of ``min_resources``
    count (e.g. ``ephemeral-storage`` does not).
    """
    out: dict[str, Num] = {}
    for name, amount in min_resources.items():
        if name not in (_CPU, _MEMORY, _PODS) and not is_scalar_resource_name(name):
            continue
        reserved = amount - job_allocated.get(name, 0)
        if reserved > 0:
            out[name] = reserved
    return out


@dataclass
class QueueQuota:
    """One queue's inputs to the deserved computation, and its result.

    ``capability`` is ``spec.capability`` (explicit zeros kept, ``None`` when
    unset), ``guarantee`` is ``spec.guarantee.resource``, ``request`` the sum
    of the queue's allocated and pending task requests. ``deserved`` is
    filled by :func:`compute_deserved`; ``real`` by :func:`real_capability`.
    """

    name: str
    weight: int
    request: Vec
    guarantee: Vec = field(default_factory=dict)
    capability: Vec | None = None
    real: dict[str, Num] = field(default_factory=dict)
    deserved: dict[str, Num] = field(default_factory=dict)


def _min_dims(vec: dict[str, Num], bound: Vec, *, missing_unbounded: bool) -> dict[str, Num]:
    """Upstream ``MinDimensionResource``: cap each dimension of ``vec`` by ``bound``.

    cpu and memory are always capped (absent = 0); another dimension absent
    from ``bound`` is left alone when ``missing_unbounded`` else set to 0.
    """
    out: dict[str, Num] = {}
    for name, value in vec.items():
        if name in bound or name in (_CPU, _MEMORY):
            limit = bound.get(name, 0)
            out[name] = limit if limit < value else value
        else:
            out[name] = value if missing_unbounded else 0
    return out


def _max_with_guarantee(vec: dict[str, Num], guarantee: Vec) -> dict[str, Num]:
    """Upstream ``helpers.Max``: per-dimension maximum, dropping negative scalars."""
    out: dict[str, Num] = {}
    for name, value in vec.items():
        if name in (_CPU, _MEMORY) or value >= 0:
            out[name] = value
    for name, value in guarantee.items():
        if name in (_CPU, _MEMORY) or value >= 0:
            current = out.get(name, 0)
            out[name] = value if value > current else current
    return out


def compute_deserved(total: Vec, queues: Sequence[QueueQuota], total_guarantee: Vec) -> None:
    """Fill ``real`` and ``deserved`` of every queue by upstream's weighted water-filling.

    Each round splits what remains of ``total`` among the queues not yet
    satisfied, in proportion to their weight; a queue's deserved is capped by
    its real capability and its request and raised to its guarantee. A queue
    is satisfied once its request fits (tolerantly) in its deserved, or when
    its deserved stopped growing (capped). The loop ends when no weight is
    left, when nothing remains (ignoring pods), or when a round changed
    nothing. Exact arithmetic makes the result independent of queue order.

    Upstream's float64 loop also ends once a dimension shrinking by halves (a
    queue capped on it shares the rest with one still growing) reaches zero by
    underflow; exact fractions never do, so the loop also ends when every
    dimension the round changed has less than its tolerance left (``_settled``):
    what later rounds could still hand out is below the tolerance every
    comparison of deserved applies.
    """
    for queue in queues:
        queue.real = real_capability(total, total_guarantee, queue.guarantee, queue.capability)
        queue.deserved = {}
    remaining: dict[str, Num] = {_CPU: 0, _MEMORY: 0}
    remaining.update(total)
    met: set[str] = set()
    while True:
        total_weight = sum(q.weight for q in queues if q.name not in met)
        if total_weight == 0:
            break
        old_remaining = dict(remaining)
        increased: dict[str, Num] = {}
        decreased: dict[str, Num] = {}
        for queue in queues:
            if queue.name in met:
                continue
            old = queue.deserved
            ratio = Fraction(queue.weight, total_weight)
            grown = add({_CPU: 0, _MEMORY: 0, **old}, {n: v * ratio for n, v in remaining.items()})
            grown = _min_dims(grown, queue.real, missing_unbounded=True)
            grown = _min_dims(grown, queue.request, missing_unbounded=False)
            deserved = _max_with_guarantee(grown, queue.guarantee)
            queue.deserved = deserved
            if vector_le_tolerant(queue.request, deserved) or _same(deserved, old):
                met.add(queue.name)
            for name in set(deserved) | set(old):
                delta = deserved.get(name, 0) - old.get(name, 0)
                if delta > 0:
                    increased[name] = increased.get(name, 0) + delta
                else:
                    decreased[name] = decreased.get(name, 0) - delta
        remaining = exceeded_part(add(remaining, decreased), increased)
        remaining.setdefault(_CPU, 0)
        remaining.setdefault(_MEMORY, 0)
        if is_empty(remaining) or _same(remaining, old_remaining) or _settled(remaining, old_remaining):
            break


def _settled(remaining: Vec, old_remaining: Vec) -> bool:
    """Whether every dimension that changed in the round has less than its tolerance left."""
    return all(remaining.get(n, 0) < tolerance(n) for n in set(remaining) | set(old_remaining)
               if n != _PODS and remaining.get(n, 0) != old_remaining.get(n, 0))


def _same(left: Vec, right: Vec) -> bool:
    """Exact equality treating absent and zero alike for cpu/memory (upstream's semantic deep-equal)."""
    names = set(left) | set(right)
    return all(left.get(n, 0) == right.get(n, 0) for n in names) and (
        {n for n in left if n not in (_CPU, _MEMORY)} == {n for n in right if n not in (_CPU, _MEMORY)})


def overused(deserved: Vec, allocated: Vec) -> bool:
    """Upstream proportion ``Overused``: ``deserved <= allocated`` (tolerant) on cpu, memory and deserved's dims.

    A queue whose deserved is all zero therefore counts as overused.
    """
    return vector_le_tolerant(deserved, allocated)


def queue_allocatable(allocated: Vec, request: Vec, deserved: Vec) -> bool:
    """Upstream proportion ``Allocatable``/``Preemptive`` test (queue state checked by the caller).

    ``allocated + request <= deserved`` on the dimensions the request asks
    for (pods ignored, strict).
    """
    # fits_on_requested(add(allocated, request), deserved, request) without building the sum:
    # only the requested (> 0, not pods) dimensions are compared.
    for name, value in request.items():
        if name != _PODS and value > 0 and allocated.get(name, 0) + value > deserved.get(name, 0):
            return False
    return True
