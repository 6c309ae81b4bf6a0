"""The futile-visit memo's per-matrix caches (``FutileMemo._moved_rows``, the per-signature row
failures of ``_same_table``) and ``_eligible``'s previous-signature shortcut answer exactly as
the uncached checks.

Over the random clusters and sessions of ``test_allocate_futile`` (whose property also compares
every replayed visit with the reference path), each ``_same_table`` answer is compared with the
check worked out from scratch (moved rows compared anew, every signature's failures asked of
``row_failures`` after and before), and each ``_eligible`` answer with the plain set walk.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.scheduler.test_allocate_futile import _run
from volcano.scheduler.actions import futile
from volcano.scheduler.framework.model import JobInfo, TaskInfo


def _reference_same_table(memo: futile.FutileMemo, entry: Any, taken: tuple[TaskInfo, ...]) -> bool:
    """``_same_table``'s answer without any cache (and without taking the table on success)."""
    now, then = memo._matrix(), entry.table
    if now is then:
        return True
    if now.shape != then.shape:
        return False
    rows = np.flatnonzero((now != then).any(axis=1))
    if not len(rows):
        return True
    ssn = memo.ssn
    after = [futile.row_failures(ssn, taken[i], rows) for i in entry.reps]
    if any(a is None for a in after):
        return False
    futile._write_rows(ssn.table, rows, then[rows])
    try:
        before = [futile.row_failures(ssn, taken[i], rows) for i in entry.reps]
    finally:
        futile._write_rows(ssn.table, rows, now[rows])
    return before == after


def _reference_eligible(job: JobInfo, taken: tuple[TaskInfo, ...], ssn: Any) -> tuple[int, ...] | None:
    """``_eligible`` as a plain walk over a set of the signatures seen."""
    if job.fit_errors or job.job_fit_errors:
        return None
    seen: set[Hashable] = set()
    reps: list[int] = []
    for i, task in enumerate(taken):
        spec = task.spec
        if spec.terms or spec.host_ports:
            return None
        if spec.sched_sig not in seen:
            if not ssn.rows_local(task):
                return None
            seen.add(spec.sched_sig)
            reps.append(i)
    return tuple(reps)


def _checked(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[bool]]:
    """Patch the memo so every ``_same_table`` and ``_eligible`` answer is compared with its
    reference; returns, per check, the answers (and whether moved rows came from the cache)."""
    seen: dict[str, list[bool]] = {"table": [], "cached_rows": [], "eligible": []}
    same_table, moved_rows, eligible = (futile.FutileMemo._same_table, futile.FutileMemo._moved_rows,
                                        futile.FutileMemo._eligible)

    def checked_table(self: futile.FutileMemo, entry: Any, taken: tuple[TaskInfo, ...]) -> bool:
        want = _reference_same_table(self, entry, taken)
        got = same_table(self, entry, taken)
        assert got == want
        seen["table"].append(got)
        return got

    def spied_rows(self: futile.FutileMemo, now: Any, then: Any) -> Any:
        hit = self._moved_for is now and id(then) in self._moved and self._moved[id(then)][0] is then
        seen["cached_rows"].append(hit)
        return moved_rows(self, now, then)

    def checked_eligible(self: futile.FutileMemo, job: JobInfo, taken: Any) -> tuple[int, ...] | None:
        taken = tuple(taken)
        got = eligible(self, job, taken)
        assert got == _reference_eligible(job, taken, self.ssn)
        seen["eligible"].append(got is not None)
        return got

    monkeypatch.setattr(futile.FutileMemo, "_same_table", checked_table)
    monkeypatch.setattr(futile.FutileMemo, "_moved_rows", spied_rows)
    monkeypatch.setattr(futile.FutileMemo, "_eligible", checked_eligible)
    return seen


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 1_000_000))
def test_cached_table_checks_answer_as_the_uncached_ones(seed: int) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        _checked(monkeypatch)
        _run(seed, 6)


def test_the_caches_are_exercised(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not vacuous: over the first seeds, moved rows are taken from the cache (entries sharing a
    recorded matrix), table checks both pass and fail, and eligible visits occur."""
    seen = _checked(monkeypatch)
    for seed in range(60):
        _run(seed, 6)

    assert seen["cached_rows"].count(True) >= 5, seen["cached_rows"].count(True)
    assert seen["table"].count(True) >= 5 and seen["table"].count(False) >= 1
    assert seen["eligible"].count(True) >= 20
