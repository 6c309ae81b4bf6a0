"""Vectorised node selection: Volcano's PredicateNodes + prioritizeNodes over the node table.

``feasible`` evaluates every node at once (resource fit as one comparison over
the FutureIdle matrix, predicates as per-plugin ``Verdict`` vectors) and
returns the passing rows plus the fit errors. Deviations from Volcano, all for
determinism: every node is examined (Volcano samples a rotating subset of
large clusters in parallel), nodes stay in node order, and equal best scores
go to the first node in node order (Volcano picks at random). A node records
one reason (the first failing check), where Volcano may list several.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import numpy.typing as npt

from volcano.scheduler.framework.model import FitErrors, TaskInfo
from volcano.scheduler.framework.session import Session

__all__ = ["feasible", "fit_rows", "fits", "prioritize"]

_BASE = np.array([0, 1, 2], dtype=np.intp)


def _dims(task: TaskInfo) -> npt.NDArray[np.intp]:
    """Columns Volcano compares for a task: cpu, memory, pods and its scalars."""
    nz = np.flatnonzero(task.vec)
    return np.union1d(_BASE, nz).astype(np.intp)


def fits(task: TaskInfo, available: npt.NDArray[np.int64]) -> bool:
    """``task`` request <= ``available`` on every compared column."""
    d = _dims(task)
    return bool(np.all(task.vec[d] <= available[d]))


def fit_rows(ssn: Session, task: TaskInfo, matrix: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
    """Rows of ``matrix`` (idle or future idle) the task fits in."""
    d = _dims(task)
    return np.all(matrix[:, d] >= task.vec[d], axis=1)


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
        d = _dims(task)
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


def prioritize(ssn: Session, task: TaskInfo, rows: npt.NDArray[np.intp]) -> int | None:
    """The best row among ``rows``: nodes where the task fits Idle first, else
    FutureIdle; a single candidate is taken unscored; else BestNodeFn, else the
    highest summed score (ties: first in node order)."""
    if len(rows) == 0:
        return None
    table = ssn.table
    d = _dims(task)
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
