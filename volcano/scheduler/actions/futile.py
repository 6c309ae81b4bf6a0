"""Futile allocate visits, replayed: a gang that did not fit is not placed again on the same cluster.

Allocate visits every admitted job with pending tasks each cycle, as Volcano does;
a gang that cannot become ready (nor pipelined) has its tentative placements
discarded (``allocate_for_tasks``), and on a busy cluster the same gang is tried,
placed task by task and discarded again every cycle. What such a visit leaves is
small and observable: each placed task's last transaction (status and node,
which become its PodScheduled message), ``eviction_occurred`` cleared on the
pipelined ones, the fit errors of the tasks that found no node (in the order
recorded), and the job marked as moved (``JobInfo.moved``). Everything else it
did is undone exactly: the node table's integer columns, the job's counters,
and the allocation the plugins' event handlers keep (integer sums).

A visit is a deterministic function of what it reads, so ``FutileMemo`` keeps,
per job, the last discarded visit's outcome with what it read, and a later
visit that provably reads the same replays the outcome instead of placing again:

* the session's shape: the scheduler configuration (identity), the resource
  space's width and the node specs (identity, in node order);
* the job: its ``minAvailable`` and per-role minimums, each task's spec
  (identity), status and node in task order, and the tasks the visit takes in
  the order it takes them;
* the ALLOCATABLE answers, in the order asked (one per task taken). Of the
  plugins below only proportion can answer it (when its option enables the
  point; otherwise every answer is yes), from the queue's state, its
  deserved share and its allocation, which grows by each placed task's request
  as the visit places it. The answers are equal when the queue's state,
  deserved share and non-zero allocation are (the fast check); otherwise, when
  the tasks taken share one request, each answer is a count of placements
  below a cap worked out from the queue (``Quota.first_cap``), so the answers
  are the same when the cap lies in the range that gives them (``_span``);
  otherwise they are worked out again, with the same arithmetic in the same
  order as the visit's own event handler, from the current queue, and compared;
* the node table's accounting columns (used, idle, FutureIdle, releasing,
  pipelined, pod counts, allocatable, pod limits), kept as one matrix. Rows
  whose columns moved since are read only through their answers to the tasks:
  when each moved row fails the first task of every signature of the visit,
  before and after, in the same way (``select.row_failures``: first short
  column, predicate reason, unresolvable), no placement of either visit went to
  it (a row receives a task only where it passes: one that fails every
  signature at its recorded state, as it is before the visit places anything,
  never receives one) and the fit errors count it alike; every other row is as
  recorded. The outcome is then the recorded one, and the entry is kept with
  the current table and queue as its inputs.

The memo applies only where that list is everything the visit reads: with
``Session.reuse``; when every plugin of the session is one of the built-in
plugins whose allocate-time callbacks read only the above (priority, gang,
conformance, overcommit, drf without hierarchy, predicates, proportion,
nodeorder, binpack); when the job had no fit error before the visit; and when
each task the visit takes carries no pod affinity terms and no host ports and
is row-local (``Session.rows_local``): its predicates and scores then read only
node specs and accounting columns, and placing it changes no plugin's
affinity or port view. Entries live in the session's ``shared`` store (dropped
whenever a node changes) and are forgotten when their job leaves the session,
or when a visit of the job does not end discarded.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable, Iterable, Mapping, Sequence
from fractions import Fraction
from operator import attrgetter, is_
from typing import Any

import numpy as np
import numpy.typing as npt

from volcano.scheduler.framework.job import REPLAYS
from volcano.scheduler.framework.model import FitErrors, JobInfo, QueueInfo, TaskInfo, TaskSpec, TaskStatus
from volcano.scheduler.framework.node import NodeTable
from volcano.scheduler.framework.points import ALLOCATABLE
from volcano.scheduler.framework.quota import queue_allocatable
from volcano.scheduler.framework.select import row_failures
from volcano.scheduler.framework.session import Session
from volcano.scheduler.framework.state import StateKey
from volcano.scheduler.plugins.binpack import BinpackPlugin
from volcano.scheduler.plugins.conformance import ConformancePlugin
from volcano.scheduler.plugins.drf import DrfPlugin
from volcano.scheduler.plugins.gang import GangPlugin
from volcano.scheduler.plugins.nodeorder import NodeorderPlugin
from volcano.scheduler.plugins.overcommit import OvercommitPlugin
from volcano.scheduler.plugins.predicates import PredicatesPlugin
from volcano.scheduler.plugins.priority import PriorityPlugin
from volcano.scheduler.plugins.proportion import ProportionPlugin

__all__ = ["FUTILE_VISITS", "FutileMemo", "Outcome"]

S = TaskStatus

_KNOWN = (PriorityPlugin, GangPlugin, ConformancePlugin, OvercommitPlugin, DrfPlugin, PredicatesPlugin,
          ProportionPlugin, NodeorderPlugin, BinpackPlugin)
"""Plugins whose allocate-time reads the memo covers (see the module docstring)."""

_COLUMNS = ("alloc", "block", "max_pods")
"""The node table's accounting columns (``NodeTable.block``: the changing ones), in the order of
the memo's matrix."""

Placed = tuple[str, TaskStatus, str]
"""(task uid, status, node) of one tentative placement, in placement order."""


class Outcome:
    """What a discarded visit left: placements, fit errors (insertion order; copies of the visit's,
    which every replay sets on the job as they are), tasks taken."""

    __slots__ = ("errors", "placed", "taken")

    def __init__(self, placed: list[Placed], errors: list[tuple[str, FitErrors]], taken: int) -> None:
        self.placed = placed
        self.errors = errors
        self.taken = taken


class _Entry:
    """One job's last discarded visit: what it read (see the module docstring) and its outcome."""

    __slots__ = ("asked", "conf", "job_key", "nodes", "outcome", "queue_key", "reps", "span", "specs", "table",
                 "width")

    def __init__(self, conf: object, nodes: list[Any], specs: tuple[Any, ...], width: int,
                 table: npt.NDArray[np.int64], queue_key: Hashable, job_key: tuple[Hashable, ...],
                 asked: tuple[bool, ...], reps: tuple[int, ...], outcome: Outcome) -> None:
        self.conf = conf
        self.nodes = nodes
        self.specs = specs
        self.width = width
        self.table = table
        """The node table's accounting (``_COLUMNS`` side by side; shared, never written)."""
        self.queue_key = queue_key
        self.job_key = job_key
        self.asked = asked
        """The ALLOCATABLE answers of the visit, one per task taken, in order."""
        self.reps = reps
        """Positions of the first task of each signature among the tasks taken."""
        self.outcome = outcome
        self.span: _Span | None = None
        """The ALLOCATABLE answers as a range of caps (``_span``; None: compared one by one)."""


FUTILE_VISITS: StateKey[dict[str, _Entry]] = StateKey("allocate.futile-visits", dict)
"""Per job uid, its last discarded allocate visit (kept across sessions while the nodes are unchanged)."""

_QueueKey = tuple[str, dict[str, Any], Mapping[str, Any], dict[str, Any], Hashable]
"""A queue's state, a copy of its allocation, its deserved mapping (the object) and a copy of it,
and the key made from them (``FutileMemo._queue_key``)."""

FUTILE_QUEUES: StateKey[dict[str, _QueueKey]] = StateKey("allocate.futile-queues", dict)
"""Per queue name, its last ``FutileMemo._queue_key`` (kept across sessions with the entries)."""


def _same_parse(a: TaskSpec, b: TaskSpec) -> bool:
    """Whether ``b`` is ``a`` with only a new pod version from a bind or a status write (the
    cache's ``rebound``: every parsed slot copied, node, status and nominated node read again).
    ``sched_sig`` and ``requests`` are objects each parse makes anew, so sharing both means one
    parse; the slots read again are compared by value."""
    return a.sched_sig is b.sched_sig and a.requests is b.requests and a.uid == b.uid \
        and a.nominated_node == b.nominated_node and a.status == b.status and a.node_name == b.node_name


def _copy(fe: FitErrors) -> FitErrors:
    out = FitErrors(fe.err)
    out.n_nodes = fe.n_nodes
    out.reasons.update(fe.reasons)
    out.unresolvable = None if fe.unresolvable is None else fe.unresolvable.copy()
    return out


def _matrix(table: NodeTable) -> npt.NDArray[np.int64]:
    """The table's accounting columns side by side (a new array)."""
    return np.concatenate((table.alloc, table.block, table.max_pods[:, None]), axis=1)


def _write_rows(table: NodeTable, rows: npt.NDArray[np.intp], values: npt.NDArray[np.int64]) -> None:
    """Write ``values`` (rows of a ``_matrix``) into ``rows`` of the table's columns."""
    r, b = table.alloc.shape[1], table.block.shape[1]
    table.alloc[rows] = values[:, :r]
    table.block[rows] = values[:, r:r + b]
    table.max_pods[rows] = values[:, r + b]


class Quota:
    """ALLOCATABLE for the tasks of one visit of a job of ``queue``, as the built-in plugins answer
    it (only proportion can, when it registered the point: queue Open, and allocation plus request
    within the deserved share on the requested dimensions; ``proportion`` None: nobody did),
    where the visit's placements reach the plugins' event handlers only later (a quiet
    ``Statement``): ``placed`` adds a placed task's request to the allocation with the
    arithmetic, and in the order, of proportion's own handler.

    Consecutive placements of one request (``TaskSpec.sched_sig``'s requests part, compared by
    value) are counted and added to the allocation when another request comes (``_flush``): with
    exact numbers (int, ``Fraction``) ``c`` additions of ``v`` are ``c * v`` and the test
    ``allocated + c * v + v <= deserved`` is ``c < (deserved - allocated) // v`` on each requested
    dimension, worked out once per request (``_cap``). Any other number type takes the
    one-by-one path."""

    __slots__ = ("_cap", "_count", "_key", "allocated", "deserved", "fixed")

    def __init__(self, proportion: ProportionPlugin | None, queue: QueueInfo) -> None:
        attr = proportion.attrs.get(queue.name) if proportion is not None else None
        self.fixed: bool | None = True if proportion is None else (
            False if queue.state != "Open" or attr is None else None)
        self.allocated: dict[str, Any] = dict(attr.allocated) if attr is not None else {}
        self.deserved: Mapping[str, Any] = attr.quota.deserved if attr is not None else {}
        self._key: tuple[tuple[str, Any], ...] | None = None
        """The request being counted (its items, sorted), or None."""
        self._count = 0
        """Placements of ``_key`` not yet added to ``allocated``."""
        self._cap: float | int | None = None
        """``_key`` is allowed while ``_count < _cap`` (None: one by one)."""

    def _flush(self) -> None:
        """Add the counted placements to ``allocated`` (the request's items in its order) and
        stop counting."""
        key, count = self._key, self._count
        self._key, self._count, self._cap = None, 0, None
        if key is not None and count:
            allocated = self.allocated
            for name, value in key:
                allocated[name] = allocated.get(name, 0) + count * value

    def _cap_of(self, key: tuple[tuple[str, Any], ...]) -> float | int | None:
        """The cap of the request ``key`` (its items) from the allocation now: ``allocated + c * v + v
        <= deserved`` on every requested dimension exactly when ``c < cap``; None when a number is
        not exact (then answered one by one)."""
        allocated, deserved = self.allocated, self.deserved
        cap: float | int = float("inf")
        for name, value in key:
            if type(value) not in _EXACT or type(allocated.get(name, 0)) not in _EXACT:
                return None
            if name != _PODS and value > 0:
                room = deserved.get(name, 0)
                if type(room) not in _EXACT:
                    return None
                cap = min(cap, (room - allocated.get(name, 0)) // value)
        return cap

    def _counting(self, task: TaskInfo) -> bool:
        """Whether ``task``'s request is the one counted (after starting to count it when it can)."""
        key = task.spec.sched_sig[2]
        if key is self._key or (self._key is not None and key == self._key):
            return True
        self._flush()
        cap = self._cap_of(key)
        if cap is None:
            return False
        self._key, self._cap = key, cap
        return True

    def first_cap(self, key: tuple[tuple[str, Any], ...]) -> float | int | None:
        """Before anything is counted: the cap of a run of tasks of the request ``key`` (its items),
        each answered ``c < cap`` with ``c`` the run's tasks placed before it (``answers``; an
        ALLOCATABLE fixed for the queue is the cap infinity, yes, or 0, no); None when the answers
        are not worked out so."""
        if self.fixed is not None:
            return float("inf") if self.fixed else 0
        return self._cap_of(key)

    def allowed(self, task: TaskInfo) -> bool:
        """The ALLOCATABLE answer for ``task`` now."""
        if self.fixed is not None:
            return self.fixed
        if self._counting(task):
            assert self._cap is not None
            return self._count < self._cap
        return queue_allocatable(self.allocated, task.spec.requests, self.deserved)

    def placed(self, task: TaskInfo) -> None:
        """``task`` was placed (the allocation the next answers read grows by its request)."""
        if self.fixed is None:
            if self._counting(task):
                self._count += 1
                return
            allocated = self.allocated
            for name, value in task.spec.requests.items():
                allocated[name] = allocated.get(name, 0) + value

    def answers(self, tasks: Sequence[TaskInfo], placed: set[str]) -> tuple[bool, ...]:
        """``allowed`` for each of ``tasks`` in order, each task whose uid is in ``placed`` then
        ``placed``: the answers a visit taking ``tasks`` gets when it places those. While a task's
        request is the one counted (the same object) the answer is the count against the cap
        without a call."""
        if self.fixed is not None:
            return (self.fixed,) * len(tasks)
        out: list[bool] = []
        append = out.append
        for task in tasks:
            if task.spec.sched_sig[2] is self._key:  # counted: ``_counting`` is True, ``_cap`` set
                assert self._cap is not None
                append(self._count < self._cap)
                if task.uid in placed:
                    self._count += 1
            else:
                append(self.allowed(task))
                if task.uid in placed:
                    self.placed(task)
        return tuple(out)


_STATE = attrgetter("status", "node_name")
_UID = attrgetter("uid")
_SPEC = attrgetter("spec")

_INPUTS = object()
"""``JobInfo.memo`` key of the job's ``FutileMemo._inputs``."""

_UNKNOWN: Any = object()
"""A signature's ``before`` failures not worked out yet (``FutileMemo._same_table``)."""

_EXACT = (int, Fraction, bool)
"""Number types whose sums do not depend on their order (``Quota`` counts with them)."""
_PODS = "pods"
"""The dimension proportion's test ignores (``queue_allocatable``)."""

_Span = tuple[tuple[tuple[str, Any], ...], float | int, float | int]
"""A visit's ALLOCATABLE answers as caps (``_span``): the request, and the bounds ``lo < cap <= hi``."""


def _span(taken: Sequence[TaskInfo], asked: Sequence[bool], placed: Iterable[Placed]) -> _Span | None:
    """The caps that give a visit's ALLOCATABLE answers ``asked`` (one per task of ``taken`` asked,
    in order), when every task asked has one request (equal ``sched_sig`` request parts): the
    answer of task ``i`` is then ``c_i < cap`` (``Quota.answers``, ``first_cap``), ``c_i`` the
    tasks of ``placed`` among those before it, a count that never falls; so the answers are
    ``asked`` exactly when ``lo < cap <= hi``, ``lo`` the largest count of a yes (minus infinity:
    none; a cap may be negative) and ``hi`` the smallest of a no (infinity: none). None for
    several requests."""
    if not asked:
        return None
    request = taken[0].spec.sched_sig[2]
    uids = {uid for uid, _, _ in placed}
    lo: float | int = float("-inf")
    hi: float | int = float("inf")
    count = 0
    for task, yes in zip(taken, asked, strict=False):
        key = task.spec.sched_sig[2]
        if key is not request and key != request:
            return None
        if yes:
            lo = count
        elif count < hi:
            hi = count
        if task.uid in uids:
            count += 1
    return request, lo, hi


class FutileMemo:
    """The memo of one allocate action (see the module docstring)."""

    def __init__(self, ssn: Session) -> None:
        self.ssn = ssn
        self.enabled = ssn.reuse and all(
            type(p) in _KNOWN and (type(p) is not DrfPlugin or getattr(p, "tree", None) is None)
            for p in ssn.plugins.values())
        self.entries: dict[str, _Entry] = ssn.shared.get(FUTILE_VISITS) if self.enabled else {}
        self._table: tuple[int, npt.NDArray[np.int64]] = (-1, np.zeros((0, 0), dtype=np.int64))
        self._specs: list[Any] | None = None
        self._seen: dict[int, tuple[list[Any], bool]] = {}
        """Node spec lists compared with the session's in this action (``_same_nodes``)."""
        self._reps: tuple[int, ...] = ()
        self._moved_for: npt.NDArray[np.int64] | None = None
        """The table matrix the per-matrix caches below were worked out against (``_moved_rows``)."""
        self._moved: dict[int, tuple[npt.NDArray[np.int64], npt.NDArray[np.intp],
                                     dict[Hashable, tuple[Any, Any]]]] = {}
        """Per recorded matrix (by identity, held): the rows that moved between it and
        ``_moved_for``, and per task signature the rows' failures after and before (``_same_table``)."""
        # Of the plugins above only proportion can answer ALLOCATABLE (when its option enables it).
        self._proportion = next((p for p in ssn.plugins.values() if type(p) is ProportionPlugin), None) \
            if ssn.has(ALLOCATABLE) else None
        if ssn.has(ALLOCATABLE) and self._proportion is None:
            self.enabled = False
            self.entries = {}
        self.replayed = 0
        """Visits replayed in this action (a count for tests and profiles)."""
        self._queues: dict[str, _QueueKey] = ssn.shared.get(FUTILE_QUEUES) if self.enabled else {}
        """Per queue name, its last key and what it was made from (``_queue_key``)."""

    # -- what the visit reads -------------------------------------------------------------------
    def _matrix(self) -> npt.NDArray[np.int64]:
        """The table's accounting matrix now (one per state of the table in this action)."""
        table = self.ssn.table
        at = len(table.changes)
        if self._table[0] != at:
            now = _matrix(table)
            last = self._table[1]
            # A visit undone leaves the table as it was: keep the one matrix (entries share it).
            self._table = (at, last if np.array_equal(now, last) else now)
        return self._table[1]

    def _queue_key(self, queue: QueueInfo) -> Hashable:
        """The queue's state, its non-zero allocation and its deserved share (proportion's), as one
        value. Kept per queue with a copy of what it was made from (in the session's ``shared``
        store, ``FUTILE_QUEUES``), and the same object returned while those are equal: allocate's
        commits move a queue's allocation only now and then, most replays of a busy cycle read
        one queue state, and the entries recorded in earlier sessions hold the key of then, so
        that they compare by identity. The deserved mapping is compared by value once per
        mapping object (proportion computes it when it opens and never changes it after)."""
        attr = self._proportion.attrs.get(queue.name) if self._proportion is not None else None
        if attr is None:
            return (queue.name, queue.state, None)
        allocated, deserved = attr.allocated, attr.quota.deserved
        hit = self._queues.get(queue.name)
        if hit is not None and hit[0] == queue.state and hit[1] == allocated:
            if hit[2] is deserved:
                return hit[4]
            if hit[3] == deserved:
                self._queues[queue.name] = (hit[0], hit[1], deserved, hit[3], hit[4])
                return hit[4]
        key = (queue.name, queue.state, (tuple(sorted((k, v) for k, v in allocated.items() if v)),
                                         tuple(sorted(deserved.items()))))
        self._queues[queue.name] = (queue.state, dict(allocated), deserved, dict(deserved), key)
        return key

    def _answers(self, queue: QueueInfo, taken: tuple[TaskInfo, ...], placed: Iterable[Placed],
                 n: int) -> tuple[bool, ...]:
        """The ALLOCATABLE answers for the first ``n`` tasks of ``taken`` when ``placed`` are placed
        as they are asked, from the queue as it is now (proportion's test and its event handler's
        sums, in the same order)."""
        return self.quota(queue).answers(taken[:n], {uid for uid, _, _ in placed})

    def quota(self, queue: QueueInfo) -> Quota:
        """ALLOCATABLE for a quiet visit of a job of ``queue`` (only valid where the memo is
        enabled: the session's plugins are the built-in ones above)."""
        return Quota(self._proportion, queue)

    def _eligible(self, job: JobInfo, taken: Iterable[TaskInfo]) -> tuple[int, ...] | None:
        """Whether the visit can be recorded: the positions in ``taken`` of the first task of each
        signature (all row-local), or None."""
        if job.fit_errors or job.job_fit_errors:
            return None
        seen: set[Hashable] = set()
        reps: list[int] = []
        ssn = self.ssn
        last: Any = _UNKNOWN
        for i, task in enumerate(taken):
            spec = task.spec
            if spec.terms or spec.host_ports:
                return None
            sig = spec.sched_sig
            # The previous task's signature is in ``seen``: an equal one (a gang's tasks mostly
            # share theirs, equal parts often the same objects) needs no hash of the whole tuple.
            if sig is last or sig == last:
                continue
            last = sig
            if sig not in seen:
                if not ssn.rows_local(task):
                    return None
                seen.add(sig)
                reps.append(i)
        return tuple(reps)

    def _job_key(self, job: JobInfo, taken: tuple[TaskInfo, ...]) -> tuple[Hashable, ...]:
        states = tuple(map(_STATE, job.tasks.values()))  # (status, node_name) per task, in order
        return (job.uid, job.min_available, tuple(sorted(job.min_task_member.items())), states,
                tuple(map(_UID, taken)))

    def _inputs(self, job: JobInfo, taken: tuple[TaskInfo, ...]) -> tuple[tuple[Hashable, ...], tuple[Any, ...]]:
        """The visit's job key (``_job_key``) and task specs (the job's tasks', then the tasks
        taken, in order). Both are functions of the job's ``minAvailable``, per-role minimums,
        tasks (their specs, statuses and nodes) and ``taken``: for a job no task of which moved
        since it was built (``JobInfo.moved``: statuses and nodes as built; the job's memo lives
        while it is carried from the same inputs, ``framework.carry``) they are kept in its memo
        with the minimums and ``taken`` they were made for, and the same objects are returned
        while those are equal, so that an entry that took them (``replay``) is compared by
        identity."""
        memo = job.memo
        built = not job.moved
        if built and memo is not None:
            hit = memo.get(_INPUTS)
            if hit is not None and hit[0] == taken and hit[1] == job.min_available and hit[2] == job.min_task_member:
                return hit[3], hit[4]
        key = self._job_key(job, taken)
        specs = (*map(_SPEC, job.tasks.values()), *map(_SPEC, taken))
        if built and len(job.tasks) > 1:  # one-pod jobs cost as little to work out again
            if memo is None:
                job.memo = memo = {}
            memo[_INPUTS] = (taken, job.min_available, dict(job.min_task_member), key, specs)
        return key, specs

    def _same_shape(self, entry: _Entry, now: tuple[Any, ...]) -> bool:
        """The entry's node specs are these very objects, its task specs (``now``: the visit's,
        ``_inputs``) the same parses."""
        if entry.nodes is not self._node_specs():
            if not self._same_nodes(entry.nodes):
                return False
            entry.nodes = self._node_specs()
        specs = entry.specs
        if specs is now:
            return True
        if len(specs) != len(now):
            return False
        if all(map(is_, specs, now)):  # the common case: the very same parses
            entry.specs = now
            return True
        renewed = False
        for a, b in zip(specs, now, strict=True):
            if a is not b:
                if not _same_parse(a, b):
                    return False
                renewed = True
        if renewed:
            entry.specs = now
        return True

    def _same_queue(self, entry: _Entry, queue: QueueInfo, taken: tuple[TaskInfo, ...]) -> bool:
        """The visit would get the entry's ALLOCATABLE answers (then the entry takes the queue's key)."""
        key = self._queue_key(queue)
        if key is entry.queue_key:
            return True
        if key == entry.queue_key:
            entry.queue_key = key  # equal: the entry takes the object (``_queue_key``)
            return True
        span = entry.span
        cap = self.quota(queue).first_cap(span[0]) if span is not None else None
        if cap is not None:
            assert span is not None
            if not span[1] < cap <= span[2]:
                return False
        elif self._answers(queue, taken, entry.outcome.placed, len(entry.asked)) != entry.asked:
            return False
        entry.queue_key = key
        return True

    def _moved_rows(self, now: npt.NDArray[np.int64], then: npt.NDArray[np.int64]
                    ) -> tuple[npt.NDArray[np.intp], dict[Hashable, tuple[Any, Any]]]:
        """The rows where ``now`` and ``then`` (matrices of the same shape) differ, and the
        signature cache of that pair. Both are functions of the two matrices only, worked out once
        per pair in an action: entries recorded in one state share its matrix, and the table's
        matrix object stays the same while the table does (``_matrix``), so the many entries a
        busy cycle checks against one table state compare it with their matrix once."""
        if self._moved_for is not now:
            self._moved_for = now
            self._moved = {}
        hit = self._moved.get(id(then))
        if hit is not None and hit[0] is then:
            return hit[1], hit[2]
        rows = np.flatnonzero((now != then).any(axis=1))
        fails: dict[Hashable, tuple[Any, Any]] = {}
        self._moved[id(then)] = (then, rows, fails)
        return rows, fails

    def _same_table(self, entry: _Entry, taken: tuple[TaskInfo, ...]) -> bool:
        """Every row that moved since the entry fails every signature of the visit alike before and
        after (then the entry takes the table as it is).

        A row's failures for a row-local task are a function of the task's signature and the
        row's columns (``TaskSpec.sched_sig``, ``select.row_failures``), so they are kept per
        signature for the pair of matrices (``_moved_rows``): ``after`` on the table as it is,
        ``before`` with the moved rows set back to the entry's matrix; each is worked out the first
        time a signature asks, in the order the reference asks (every ``after``, then, when none
        passes, every ``before``)."""
        now = self._matrix()
        then = entry.table
        if now is then:
            return True
        if now.shape != then.shape:
            return False
        rows, fails = self._moved_rows(now, then)
        if len(rows):
            ssn = self.ssn
            sigs = [taken[i].spec.sched_sig for i in entry.reps]
            after: list[Any] = []
            for i, sig in zip(entry.reps, sigs, strict=True):
                known = fails.get(sig)
                if known is None:
                    known = fails[sig] = (row_failures(ssn, taken[i], rows), _UNKNOWN)
                after.append(known[0])
            if any(a is None for a in after):
                return False
            todo = [(i, sig) for i, sig in zip(entry.reps, sigs, strict=True) if fails[sig][1] is _UNKNOWN]
            if todo:
                _write_rows(ssn.table, rows, then[rows])
                try:
                    for i, sig in todo:
                        if fails[sig][1] is _UNKNOWN:
                            fails[sig] = (fails[sig][0], row_failures(ssn, taken[i], rows))
                finally:
                    _write_rows(ssn.table, rows, now[rows])
            if [fails[sig][1] for sig in sigs] != after:
                return False
        entry.table = now
        return True

    def _same_nodes(self, specs: list[Any]) -> bool:
        """Whether ``specs`` are the session's node specs, these very objects in node order (each
        list compared once per action: the entries hold their lists, never changed)."""
        seen = self._seen.get(id(specs))
        if seen is not None and seen[0] is specs:
            return seen[1]
        now = self._node_specs()
        same = len(specs) == len(now) and all(a is b for a, b in zip(specs, now, strict=True))
        self._seen[id(specs)] = (specs, same)
        return same

    def _node_specs(self) -> list[Any]:
        """The session's node specs in node order (one list per action)."""
        if self._specs is None:
            self._specs = [n.spec for n in self.ssn.table.nodes]
        return self._specs

    # -- replay and record ----------------------------------------------------------------------
    def replay(self, job: JobInfo, queue: QueueInfo, tasks: deque[TaskInfo]) -> bool:
        """Replay the job's last discarded visit when this one would read the same inputs; True
        when replayed (the visit is then over, discarded, as the recorded one was)."""
        entry = self.entries.get(job.uid) if self.enabled else None
        if entry is None:
            return False
        ssn = self.ssn
        if entry.conf is not ssn.conf or job.fit_errors or job.job_fit_errors or entry.width != len(ssn.space):
            return False
        taken = tuple(tasks)
        key, specs = self._inputs(job, taken)
        if entry.job_key is not key:
            if entry.job_key != key:
                return False
            entry.job_key = key  # equal: the entry takes the object (``_inputs``)
        if not self._same_shape(entry, specs):
            return False
        # The same parses as recorded (so no terms or host ports); row-locality is the session's.
        rows_local = ssn.rows_local
        for i in entry.reps:
            if not rows_local(taken[i]):
                return False
        # The table first: it moves more often, and a moved row that passes ends the check early.
        if not self._same_table(entry, taken) or not self._same_queue(entry, queue, taken):
            return False
        out = entry.outcome
        built = job._moves == 0  # the job as built (no fit error either, checked above)
        first: dict[tuple[str, TaskStatus], TaskInfo] = {}
        given: list[TaskInfo] = []
        for uid, status, node in out.placed:
            task = job.tasks[uid]
            given.append(task)
            task.last_txn = (status, node)
            if status == S.Pipelined:
                task.eviction_occurred = False
            first.setdefault((task.spec.role, status), task)
        # The visit moved these tasks and back: the job's counters are as they were, and it has moved.
        for (_, status), task in first.items():
            job.set_status(task, status)
            job.set_status(task, S.Pending)
        # The recorded objects themselves: a ``FitErrors`` is only read once it is set on a job (its
        # rendering is cached against the state it reads), and the entry's are copies of the visit's.
        job.fit_errors.update(out.errors)
        if built:  # the session close may reuse the job's last close (``JobInfo.touch``)
            job.replayed = (ssn.state.get(REPLAYS), out, job._moves, tuple(job.fit_errors.values()), tuple(given))
        if out.taken == len(tasks):
            tasks.clear()
        else:
            for _ in range(out.taken):
                tasks.popleft()
        self.replayed += 1
        return True

    def begin(self, job: JobInfo, tasks: deque[TaskInfo]) -> tuple[TaskInfo, ...] | None:
        """Before a visit: the tasks it may take (its input), or None when it cannot be recorded."""
        if not self.enabled:
            return None
        taken = tuple(tasks)
        reps = self._eligible(job, taken)
        if reps is None:
            return None
        self._reps = reps
        return taken

    def record(self, job: JobInfo, queue: QueueInfo, taken: tuple[TaskInfo, ...] | None,
               placed: list[Placed] | None, left: int, asked: list[bool] | None = None) -> None:
        """After a visit that began with ``taken``: keep its outcome when it was discarded
        (``placed``: its placements; None when it was not discarded); ``left``: tasks not taken;
        ``asked``: its ALLOCATABLE answers in order (one per task taken)."""
        if not self.enabled:
            return
        if taken is None or placed is None or asked is None or len(asked) != len(taken) - left:
            self.entries.pop(job.uid, None)
            return
        errors = list(job.fit_errors.items())
        key, specs = self._inputs(job, taken)
        entry = self.entries[job.uid] = _Entry(self.ssn.conf, self._node_specs(), specs, len(self.ssn.space),
                                               self._matrix(), self._queue_key(queue), key,
                                               tuple(asked), self._reps,
                                               Outcome(list(placed), [(u, _copy(fe)) for u, fe in errors],
                                                       len(taken) - left))
        entry.span = _span(taken, asked, placed)

    def retain(self, uids: Iterable[str]) -> None:
        """Forget the entries of jobs not among ``uids`` (jobs that left the session)."""
        if self.enabled and self.entries:
            keep = set(uids)
            for uid in [u for u in self.entries if u not in keep]:
                del self.entries[uid]
