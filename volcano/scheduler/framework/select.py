"""Vectorised node selection: Volcano's PredicateNodes + prioritizeNodes over the node table.

``feasible`` evaluates every node at once (resource fit as one comparison over
the FutureIdle matrix, predicates as per-plugin ``Verdict`` vectors) and
returns the passing rows plus the fit errors. Deviations from Volcano, all for
determinism: every node is examined (Volcano samples a rotating subset of
large clusters in parallel), nodes stay in node order, and equal best scores
go to the first node in node order (Volcano picks at random). A node records
one reason (the first failing check), where Volcano may list several.

``select_node`` is the allocate path: when every predicate and score is
row-local for the task (``Session.rows_local``), it keeps, per task signature
(``TaskSpec.sched_sig``), which rows pass, which fit Idle, and their scores,
and re-evaluates only rows the node table changed since (``NodeTable.changes``);
the choice is the same as ``feasible`` + ``prioritize`` would make.

``Lookahead`` is ``select_node`` for one allocate action: for a run of tasks of
one signature (across jobs) it also keeps what each row would answer after more
such tasks, so a placement costs no re-evaluation of the row it used.
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Callable
from operator import is_

import numpy as np
import numpy.typing as npt

from volcano.scheduler.framework.job import FitErrors
from volcano.scheduler.framework.node import NodeTable
from volcano.scheduler.framework.points import PREDICATE
from volcano.scheduler.framework.session import Session
from volcano.scheduler.framework.state import StateKey
from volcano.scheduler.framework.task import TaskInfo, TaskStatus

__all__ = ["SELECT_STATES", "Lookahead", "RowFailure", "feasible", "fits", "prioritize", "row_failures", "select_node"]


def fits(task: TaskInfo, available: npt.NDArray[np.int64]) -> bool:
    """``task`` request <= ``available`` on every compared column."""
    d = task.spec.dims()
    return bool((task.vec[d] <= available[d]).all())


def feasible(ssn: Session, task: TaskInfo, *, resources: bool = True,
             preempt: bool = False) -> tuple[npt.NDArray[np.intp], FitErrors]:
    """Rows passing the resource check (FutureIdle, when ``resources``) and the
    predicates. With ``preempt`` only unresolvable predicate failures count.
    Returns the rows (node order) and the fit errors of the failing nodes."""
    table = ssn.table
    n = len(table)
    fe = FitErrors()
    if n == 0:
        return np.zeros(0, dtype=np.intp), fe
    verdict = ssn.predicate(task)
    unres = verdict.unresolvable_mask()
    fe.unresolvable = unres
    if preempt:
        ok = ~unres
    else:
        ok = verdict.ok
    reasons: Counter[str] = Counter()
    if resources:
        d = task.spec.dims()
        short = table.fidle[:, d] < task.vec[d]
        bad_res = short.any(axis=1)
        if bad_res.any():
            first = np.argmax(short[bad_res], axis=1)
            names = ssn.space.names
            for col, count in zip(*np.unique(first, return_counts=True), strict=True):
                reasons[f"Insufficient {names[int(d[col])]}"] += int(count)
        ok_pred = ok
        ok = ok & ~bad_res
        failed_pred = ~ok_pred & ~bad_res
    else:
        failed_pred = ~ok
    if failed_pred.any():
        codes = verdict.codes[failed_pred]
        for code, count in zip(*np.unique(codes, return_counts=True), strict=True):
            if code > 0:
                reasons[verdict.reasons[int(code) - 1]] += int(count)
    rows = np.flatnonzero(ok)
    fe.add(reasons, int(n - len(rows)))
    return rows, fe


RowFailure = tuple[int, str | None, bool]
"""How one row fails a task in ``feasible``: (first short column, else -1; its predicate reason,
else None; whether that predicate failure is unresolvable)."""


def row_failures(ssn: Session, task: TaskInfo, rows: npt.NDArray[np.intp]) -> list[RowFailure] | None:
    """How each of ``rows`` fails ``task`` (``RowFailure``, in the order of ``rows``), or None when
    one of them passes (resources on FutureIdle and every predicate). Only valid when
    ``ssn.rows_local(task)``: the predicates then read only the rows themselves, so each row's
    answer here is the one ``feasible`` counts for it (reason, fit error histogram entry and
    unresolvable mark), and that ``select_node`` reads (it passes or not)."""
    table = ssn.table
    d = task.spec.dims()
    short = table.fidle[np.ix_(rows, d)] < task.vec[d]
    bad = short.any(axis=1)
    first = np.where(bad, np.argmax(short, axis=1), -1)
    verdict = ssn.call(PREDICATE, task, rows)
    codes = np.zeros(len(rows), dtype=np.int16) if verdict is None else verdict.codes
    if not (bad | (codes > 0)).all():
        return None
    out: list[RowFailure] = []
    for col, code in zip(first.tolist(), codes.tolist(), strict=True):
        if code > 0:
            assert verdict is not None
            out.append((int(d[col]) if col >= 0 else -1, verdict.reasons[code - 1], verdict.unresolvable[code - 1]))
        else:
            out.append((int(d[col]) if col >= 0 else -1, None, False))
    return out


def prioritize(ssn: Session, task: TaskInfo, rows: npt.NDArray[np.intp]) -> int | None:
    """The best row among ``rows``: nodes where the task fits Idle first, else
    FutureIdle; a single candidate is taken unscored; else BestNodeFn, else the
    highest summed score (ties: first in node order)."""
    if len(rows) == 0:
        return None
    table = ssn.table
    d = task.spec.dims()
    in_idle = np.all(table.idle[rows][:, d] >= task.vec[d], axis=1)
    grad = rows[in_idle]
    if len(grad) == 0:
        in_future = np.all(table.fidle[rows][:, d] >= task.vec[d], axis=1)
        grad = rows[in_future]
        if len(grad) == 0:
            return None
    if len(grad) == 1:
        return int(grad[0])
    scores = ssn.node_scores(task, grad)
    best = ssn.best_node(task, grad, scores)
    if best is not None:
        return int(best)
    return int(grad[int(np.argmax(scores))])


_FULL_RESYNC = 4
"""Re-evaluate every row when more than 1/_FULL_RESYNC of them changed."""


class _SigState:
    """Row-local results for one task signature, synced up to ``pos`` in ``NodeTable.changes``."""

    __slots__ = ("idle", "ok", "pos", "scores")

    def __init__(self, n: int) -> None:
        self.pos = 0
        self.ok = np.zeros(n, dtype=np.bool_)
        self.idle = np.zeros(n, dtype=np.bool_)
        self.scores = np.zeros(n, dtype=np.float64)


SELECT_STATES: StateKey[dict[object, _SigState]] = StateKey("select.states", dict)
"""Per task signature, the row-local results ``select_node`` keeps for this session."""


class _Carried:
    """One signature's row-local results as a session worked them out, with what they read: the
    scheduler configuration (identity), the node specs (identity, in row order) and the rows'
    accounting (``NodeTable.block``: the node specs fix the other columns, allocatable and pod
    limits, for a given resource space width, which the block's shape tells)."""

    __slots__ = ("block", "conf", "idle", "ok", "scores", "specs")

    def __init__(self, conf: object, specs: list[object], block: npt.NDArray[np.int64], st: _SigState) -> None:
        self.conf = conf
        self.specs = specs
        self.block = block
        self.ok, self.idle, self.scores = st.ok.copy(), st.idle.copy(), st.scores.copy()


SELECT_CARRIED: StateKey[dict[object, _Carried]] = StateKey("select.carried", dict)
"""Per task signature, the last row-local results worked out (``Session.shared``: across
sessions while the nodes are unchanged; ``_CARRIED_MAX`` of them, the least recently refreshed
dropped first)."""

_CARRIED_MAX = 64
"""How many signatures' results ``SELECT_CARRIED`` keeps."""


class _Carrying:
    """What one session needs to take and leave carried results: whether it may (``Session.reuse``
    and only built-in plugins, whose row-local callbacks read nothing but the row's node, its
    accounting, the task's signature and the configuration), its node specs in row order, and the
    table's accounting copied once per table state."""

    __slots__ = ("at", "block", "enabled", "same", "specs")

    def __init__(self, ssn: Session) -> None:
        self.enabled = ssn.reuse and all(type(p).__module__.startswith(_BUILTIN) for p in ssn.plugins.values())
        self.specs: list[object] = [node.spec for node in ssn.table.nodes] if self.enabled else []
        self.same: dict[int, tuple[list[object], bool]] = {}
        """Node spec lists compared with ``specs`` (by identity, held)."""
        self.at = -1
        self.block: npt.NDArray[np.int64] = np.zeros((0, 0), dtype=np.int64)

    def same_specs(self, specs: list[object]) -> bool:
        """``specs`` are this session's node specs, the very objects in row order."""
        if specs is self.specs:
            return True
        hit = self.same.get(id(specs))
        if hit is None or hit[0] is not specs:
            mine = self.specs
            hit = self.same[id(specs)] = (specs, len(specs) == len(mine) and all(map(is_, specs, mine)))
        return hit[1]

    def snapshot(self, table: NodeTable) -> npt.NDArray[np.int64]:
        """A copy of the table's ``block`` now (one per table state: ``changes`` only grows)."""
        if self.at != len(table.changes):
            self.at = len(table.changes)
            self.block = table.block.copy()
        return self.block


_CARRYING: StateKey[_Carrying | None] = StateKey("select.carrying", lambda: None)
"""The session's ``_Carrying`` (made at the first signature it syncs)."""


def _carried_rows(ssn: Session, task: TaskInfo, st: _SigState) -> npt.NDArray[np.intp]:
    """The rows a new per-signature state must work out: every row, or, when a session since the
    nodes last changed left results for the signature under the same configuration and node
    specs (``SELECT_CARRIED``), only the rows whose accounting differs from theirs (``st`` then
    takes the carried results). Exact because the results are row-local: a function of the
    row's node and accounting and of the signature (``Session.add_fn``), the plugins' callbacks
    and their arguments (the configuration) being the same; a task with host ports is left out
    (a port conflict reads the tasks on the row, not its accounting)."""
    n = len(ssn.table)
    carrying = ssn.state.get(_CARRYING)
    if carrying is None:
        carrying = _Carrying(ssn)
        ssn.state.set(_CARRYING, carrying)
    if not carrying.enabled or task.spec.host_ports:
        return np.arange(n, dtype=np.intp)
    entry = ssn.shared.get(SELECT_CARRIED).get(task.spec.sched_sig)
    block = ssn.table.block
    if entry is None or entry.conf is not ssn.conf or entry.block.shape != block.shape \
            or not carrying.same_specs(entry.specs):
        return np.arange(n, dtype=np.intp)
    st.ok[:], st.idle[:], st.scores[:] = entry.ok, entry.idle, entry.scores
    return np.flatnonzero((block != entry.block).any(axis=1))


def _leave(ssn: Session, task: TaskInfo, st: _SigState) -> None:
    """Keep ``st`` (just synced with the whole table) for the sessions to come (``_carried_rows``)."""
    carrying = ssn.state.peek(_CARRYING)
    if carrying is None or not carrying.enabled or task.spec.host_ports:
        return
    kept = ssn.shared.get(SELECT_CARRIED)
    sig = task.spec.sched_sig
    kept.pop(sig, None)  # re-inserted last: the least recently refreshed go first
    kept[sig] = _Carried(ssn.conf, carrying.specs, carrying.snapshot(ssn.table), st)
    while len(kept) > _CARRIED_MAX:
        del kept[next(iter(kept))]


def _synced(ssn: Session, task: TaskInfo) -> _SigState:
    """The signature's row-local results, brought up to date with the rows changed since they
    were last synced (``NodeTable.changes``); a signature new to the session starts from the
    results an earlier session left (``_carried_rows``), else from every row."""
    table = ssn.table
    n = len(table)
    states = ssn.state.get(SELECT_STATES)
    changes = table.changes
    st = states.get(task.spec.sched_sig)
    new = st is None
    if st is None:
        st = states[task.spec.sched_sig] = _SigState(n)
        rows = _carried_rows(ssn, task, st) if ssn.reuse else np.arange(n, dtype=np.intp)
    else:
        todo = len(changes) - st.pos
        if todo == 0:
            return st
        if todo == 1:
            rows = np.array(changes[st.pos:], dtype=np.intp)
        elif todo * _FULL_RESYNC > n:
            rows = np.arange(n, dtype=np.intp)
        else:
            rows = np.array(sorted(set(changes[st.pos:])), dtype=np.intp)
    st.pos = len(changes)
    if len(rows):
        d = task.spec.dims()
        need = task.vec[d]
        cells = np.ix_(rows, d)
        st.ok[rows] = ssn.predicate_rows(task, rows) & (table.fidle[cells] >= need).all(axis=1)
        st.idle[rows] = (table.idle[cells] >= need).all(axis=1)
        st.scores[rows] = ssn.node_scores(task, rows)
    if new and ssn.reuse:
        _leave(ssn, task, st)
    return st


def select_node(ssn: Session, task: TaskInfo) -> tuple[int | None, FitErrors | None]:
    """The row allocate places ``task`` on, or (None, fit errors) when no node passes.

    The task's nominated node wins when it passes; otherwise ``prioritize`` over
    the passing rows. (None, None) means passing rows exist but none fits."""
    table = ssn.table
    nominated = table.by_name.get(task.spec.nominated_node) if task.spec.nominated_node else None
    if len(table) == 0 or not ssn.rows_local(task):
        rows, fe = feasible(ssn, task)
        if len(rows) == 0:
            return None, fe
        if nominated is not None and nominated.row in rows:
            return nominated.row, None
        return prioritize(ssn, task, rows), None
    st = _synced(ssn, task)
    ok = st.ok
    if nominated is not None and ok[nominated.row]:
        return nominated.row, None
    cand = ok & st.idle
    if not cand.any():
        if not ok.any():
            return None, feasible(ssn, task)[1]
        cand = ok
    best = int(np.argmax(np.where(cand, st.scores, -np.inf)))
    if not cand[best]:  # every candidate scored -inf: the first candidate, as prioritize picks
        best = int(np.argmax(cand))
    return best, None


class Lookahead:
    """``select_node`` for the tasks of one allocate action, without re-scoring the row just used.

    Allocate places task after task (of one job per visit, visit after visit); when they share a signature
    (``TaskSpec.sched_sig``, same request vector) and every predicate and score
    is row-local, a row's verdict and score after ``j`` more placements of that
    signature depend only on the row and on ``j``. ``select`` therefore keeps,
    per level ``j``, the rows' verdicts and scores as if each had received ``j``
    such tasks (the first ones Allocated while they fit Idle, the rest
    Pipelined, as allocate places them), computed once per level for every row
    that can reach it by the ordinary row-local callbacks over a temporarily
    shifted node table; after a placement on row ``r`` only ``r``'s entry moves
    up one level. The choice then is ``select_node``'s: the nominated node is
    not handled here, candidates that fit Idle first, highest score, ties to the
    first row; from the run's second task on it is the top of two heaps keyed
    (-score, row), one over the rows that pass and fit Idle, one over the rows
    that pass, with entries of rows that moved on dropped as they surface.

    It checks its own premises on every call and otherwise starts over from
    ``select_node``'s state: since the last answer the node table may have
    changed only on the answer's row (``NodeTable.changes``), and that row's
    accounting must be either what it was when answered (the placement was
    undone, or the task moved from Allocated to Binding and back to the same
    columns) or that plus exactly the placement of the answer (Allocated when
    it fitted Idle, else Pipelined; a commit moving the task to Binding leaves
    the columns so); the task must have the same signature and vector, no
    nominated node and no host ports (port conflicts read the node's tasks,
    not its accounting), and every plugin must be one of the built-in ones
    (whose row-local callbacks read only the node and its accounting columns).

    A caller may also place the answered task without writing it to the table yet
    (``hold``: a quiet statement's deferred placements, ``Statement``) and say so
    (``note``): the row moves up one level as if the table held the placement, and
    the level computations and the fit errors of a task that fits nowhere shift the
    rows by what the table does not hold. Before the lookahead reads the table
    otherwise (a new run, ``select_node``'s path) it has the held placements written
    (``write``); ``drop`` forgets them when they are undone unwritten."""

    def __init__(self, ssn: Session) -> None:
        self.ssn = ssn
        self.enabled = ssn.reuse and all(type(p).__module__.startswith(_BUILTIN) for p in ssn.plugins.values())
        self._sig: object = None
        self._vec = b""
        self._pos = -1
        self._last = -1
        self._level: npt.NDArray[np.intp] = np.zeros(0, dtype=np.intp)
        """Per row: placements of the signature so far in this run (its level)."""
        self._allocated: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)
        """Per row: how many of those were Allocated (the rest Pipelined)."""
        self._levels: list[tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_], npt.NDArray[np.float64],
                                 npt.NDArray[np.int64]]] = []
        self._ok = self._idle = np.zeros(0, dtype=np.bool_)
        self._scores = np.zeros(0, dtype=np.float64)
        self._heaps: tuple[list[tuple[float, int, int]], list[tuple[float, int, int]]] | None = None
        """Built at the run's second task (a single-task run keeps the vector choice)."""
        self._snap = self._placed = b""
        """The answered row's accounting (``_row_state``) when answered, and after its placement."""
        nothing = np.zeros(0, dtype=np.int64)
        self._deltas: tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]] = (nothing, nothing)
        """What one placement of the run's vector adds to ``_row_state``: (Allocated, Pipelined)."""
        self.fit_idle: bool | None = None
        """Whether the last task answered fits its row's Idle (None: not known here; see ``select``)."""
        self._writer: Callable[[], None] | None = None
        """Writes the held placements to the table (``hold``; None: placements are written as made)."""
        self._held: dict[int, list[int]] = {}
        """Per row: placements of the run noted but not in the table (``note``): [count, Allocated among them]."""
        self._noted = -1
        """The row of the placement noted last, until it moves up a level (``_advance``; -1: none)."""
        self._no_fits: dict[tuple[object, bytes, int, tuple[tuple[int, int, int], ...]], FitErrors] = {}
        """``_no_fit``'s answers by what they read (signature, vector, table state, held placements)."""

    def _applies(self, task: TaskInfo, local: bool) -> bool:
        spec = task.spec
        return (self.enabled and not spec.host_ports and not spec.nominated_node and len(self.ssn.table) > 0
                and (local or self.ssn.rows_local(task)))

    def hold(self, writer: Callable[[], None] | None) -> None:
        """From now on the caller may place answered tasks without writing them to the table and
        ``note`` them; ``writer`` writes every such placement to the table, in order (None: back to
        placements written as made, which requires none held)."""
        assert writer is not None or not self._held
        self._writer = writer

    def note(self, task: TaskInfo, row: int) -> None:
        """``task``, just answered ``row``, was placed there (Allocated when ``fit_idle``, else
        Pipelined) and the table does not hold it yet (``hold``). The row moves up a level at
        the next answer of the run (``_advance``), as a written placement does."""
        assert self._writer is not None and row == self._last and self._noted < 0
        held = self._held.get(row)
        if held is None:
            held = self._held[row] = [0, 0]
        held[0] += 1
        held[1] += bool(self._levels[int(self._level[row])][1][row])
        self._noted = row
        self._last = -1  # nothing in the table to check against the answer

    def write(self) -> None:
        """Have the held placements written to the table (the caller's ``hold`` writer) and take
        them as the table's: the run goes on when the table then moved by exactly them."""
        if not self._held:
            return
        assert self._writer is not None
        changes = self.ssn.table.changes
        start = len(changes)
        self._writer()
        wrote = Counter(changes[start:])
        if len(changes) - start != sum(n for n, _ in self._held.values()) \
                or any(wrote[row] != n for row, (n, _) in self._held.items()):
            self._sig = None  # the table moved otherwise: start over
        self._held = {}
        self._pos = len(changes) if self._pos == start else -1
        if self._pos < 0:
            self._sig = None

    def drop(self) -> None:
        """The held placements were undone without being written: the run starts over."""
        if self._held:
            self._held = {}
            self._noted = -1
            self._sig = None

    def _start(self, task: TaskInfo) -> None:
        """Level 0 from ``select_node``'s synced per-signature state (copied)."""
        self.write()
        self._noted = -1
        st = _synced(self.ssn, task)
        self._sig, self._vec = task.spec.sched_sig, task.vec.tobytes()
        self._ok, self._idle, self._scores = st.ok.copy(), st.idle.copy(), st.scores.copy()
        self._level = np.zeros(len(self._ok), dtype=np.intp)
        self._allocated = np.zeros(len(self._ok), dtype=np.int64)
        self._levels = [(self._ok.copy(), self._idle.copy(), self._scores.copy(),
                         np.zeros(len(self._ok), dtype=np.int64))]
        self._pos = len(self.ssn.table.changes)
        self._last = -1
        self._heaps = None
        table = self.ssn.table
        self._deltas = (table.delta(task.vec, TaskStatus.Allocated), table.delta(task.vec, TaskStatus.Pipelined))

    def _row_state(self, row: int) -> npt.NDArray[np.int64]:
        """``row``'s accounting: used, idle, FutureIdle, pipelined, releasing and pods, in one vector
        (a view of ``NodeTable.block``)."""
        state: npt.NDArray[np.int64] = self.ssn.table.block[row]
        return state

    def _level_values(self, task: TaskInfo, j: int) -> None:
        """Compute level ``j`` (from level ``j - 1``) for every row that passes at ``j - 1``."""
        ok_prev, idle_prev, _, alloc_prev = self._levels[j - 1]
        allocated = alloc_prev + idle_prev  # a placement is Allocated exactly when the task fits Idle
        rows = np.flatnonzero(ok_prev)
        table = self.ssn.table
        # The table holds each row's placements so far (its current level) but the held ones: shift by the rest.
        in_level, in_alloc = self._level, self._allocated
        if self._held:
            in_level, in_alloc = in_level.copy(), in_alloc.copy()
            for row, (count, alloc) in self._held.items():
                in_level[row] -= count
                in_alloc[row] -= alloc
        more = allocated[rows] - in_alloc[rows]
        shift = more[:, None] * self._deltas[0] + ((j - in_level[rows]) - more)[:, None] * self._deltas[1]
        ok = np.zeros(len(ok_prev), dtype=np.bool_)
        idle = np.zeros(len(ok_prev), dtype=np.bool_)
        scores = np.full(len(ok_prev), -np.inf, dtype=np.float64)
        table.block[rows] += shift
        try:
            d = task.spec.dims()
            need = task.vec[d]
            cells = np.ix_(rows, d)
            ok[rows] = self.ssn.predicate_rows(task, rows) & (table.fidle[cells] >= need).all(axis=1)
            idle[rows] = (table.idle[cells] >= need).all(axis=1)
            scores[rows] = self.ssn.node_scores(task, rows)
        finally:
            table.block[rows] -= shift
        self._levels.append((ok, idle, scores, allocated))

    def _advance(self, task: TaskInfo) -> bool:
        """Account for the placement since the last answer (held, ``note``, or in the table);
        False when the table moved otherwise."""
        if self._noted >= 0:
            row, self._noted = self._noted, -1
            self._up(task, row)
        changes = self.ssn.table.changes
        end = len(changes)
        if end == self._pos:
            return True
        row = self._last
        if row < 0 or (changes[self._pos] != row if end - self._pos == 1
                       else any(changes[i] != row for i in range(self._pos, end))):
            return False
        state = self._row_state(row).tobytes()
        if state == self._snap:  # undone (or moved within the same columns): still its level
            self._pos = end
            self._last = -1
            return True
        if state != self._placed:
            return False
        self._pos = end
        self._up(task, row)
        return True

    def _up(self, task: TaskInfo, row: int) -> None:
        """``row`` received one more task of the run (in the table, or held): up one level."""
        j = int(self._level[row]) + 1
        # The row is at level j before level j is computed (the shift accounts for what it holds).
        self._allocated[row] += self._levels[j - 1][1][row]
        self._level[row] = j
        if j == len(self._levels):
            self._level_values(task, j)
        ok, idle, scores, _ = self._levels[j]
        self._ok[row], self._idle[row], self._scores[row] = ok[row], idle[row], scores[row]
        if self._heaps is None:
            self._heaps = self._build_heaps()
        elif ok[row]:
            key = (-float(scores[row]), row, j)
            heapq.heappush(self._heaps[1], key)
            if idle[row]:
                heapq.heappush(self._heaps[0], key)

    def _build_heaps(self) -> tuple[list[tuple[float, int, int]], list[tuple[float, int, int]]] | None:
        """Heaps of (-score, row, level) over the rows that pass and fit Idle, and over the rows
        that pass: their tops are ``select_node``'s choice (highest score, then first row).
        None when a score is NaN (no order to keep)."""
        if np.isnan(self._scores).any():
            return None
        heaps: tuple[list[tuple[float, int, int]], list[tuple[float, int, int]]] = ([], [])
        for heap, mask in zip(heaps, (self._ok & self._idle, self._ok), strict=True):
            rows = np.flatnonzero(mask)
            heap.extend(zip((-self._scores[rows]).tolist(), rows.tolist(), self._level[rows].tolist(), strict=True))
            heapq.heapify(heap)
        return heaps

    def _top(self, heap: list[tuple[float, int, int]]) -> int | None:
        """The valid top row of ``heap`` (entries of rows that moved on since are dropped)."""
        level = self._level
        while heap:
            _, row, j = heap[0]
            if level[row] == j:
                return row
            heapq.heappop(heap)
        return None

    def select(self, task: TaskInfo, local: bool = False) -> tuple[int | None, FitErrors | None]:
        """What ``select_node(ssn, task)`` answers (see the class docstring). ``local``: the caller
        knows that ``ssn.rows_local(task)`` holds (it is not asked again). ``fit_idle`` then tells
        whether the task fits the answer's Idle (``fits``; a row that passes fits its FutureIdle),
        or is None when unknown (``select_node`` answered)."""
        self.fit_idle = None
        if not self._applies(task, local):
            self.write()
            self._sig = None
            return select_node(self.ssn, task)
        if self._sig != task.spec.sched_sig or self._vec != task.vec.tobytes() or not self._advance(task):
            self._start(task)
        self._last = -1
        heaps = self._heaps
        if heaps is not None:
            top = self._top(heaps[0])
            if top is None:
                top = self._top(heaps[1])
                if top is None:
                    return None, self._no_fit(task)
            self._answer(top)
            return top, None
        ok = self._ok
        cand = ok & self._idle
        if not cand.any():
            if not ok.any():
                return None, self._no_fit(task)
            cand = ok
        best = int(np.argmax(np.where(cand, self._scores, -np.inf)))
        if not cand[best]:
            best = int(np.argmax(cand))
        self._answer(best)
        return best, None

    def _no_fit(self, task: TaskInfo) -> FitErrors:
        """``feasible``'s fit errors for ``task`` (of the run's signature) over the table with every
        placement written. The held ones (all of the run's vector) are not written for it: their
        rows' accounting is shifted by them meanwhile, as ``_level_values`` does, which is all a
        row-local task's ``feasible`` reads of a row (its predicates read no task on it).

        The answer is kept for the action by what it reads besides the session's node specs and
        plugins: the signature and vector, the table's state (its position in ``changes``: every
        write of the table appends there, and the table is read here only outside the temporary
        shifts) and the held placements; a later task with the same inputs (another gang of the
        signature stuck at the same point, no commit in between) gets the same object. The fit
        errors are never changed once made (one object may be shared by many tasks, ``FitErrors``)."""
        held = self._held
        key = (task.spec.sched_sig, self._vec, len(self.ssn.table.changes),
               tuple(sorted((row, n, a) for row, (n, a) in held.items())))
        hit = self._no_fits.get(key)
        if hit is None:
            hit = self._no_fits[key] = self._fit_errors(task)
        return hit

    def _fit_errors(self, task: TaskInfo) -> FitErrors:
        """``_no_fit``, worked out."""
        held = self._held
        if not held:
            return feasible(self.ssn, task)[1]
        rows = np.array(sorted(held), dtype=np.intp)
        counts = np.array([held[r] for r in rows.tolist()], dtype=np.int64)
        shift = counts[:, 1:2] * self._deltas[0] + (counts[:, 0:1] - counts[:, 1:2]) * self._deltas[1]
        block = self.ssn.table.block
        block[rows] += shift
        try:
            return feasible(self.ssn, task)[1]
        finally:
            block[rows] -= shift

    def _answer(self, row: int) -> None:
        """Remember ``row`` as the answer and its accounting now (``_advance`` checks what follows)."""
        self._last = row
        idle = bool(self._idle[row])
        self.fit_idle = idle
        if self._writer is not None:  # the caller may hold the placement (``note``): checked then, not here
            self._snap = self._placed = b""
            return
        state = self._row_state(row)
        self._snap = state.tobytes()
        self._placed = (state + self._deltas[0 if idle else 1]).tobytes()


_BUILTIN = "volcano.scheduler.plugins."
"""Module prefix of the built-in plugins (``Lookahead`` trusts only their row-local callbacks)."""
