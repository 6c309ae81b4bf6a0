"""The nodeorder scorers' fast path (every node has every scored resource) gives
exactly what the general formulas give."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from hypothesis import given, settings
from hypothesis import strategies as st

from volcano.scheduler.plugins.nodeorder import balanced_allocation, least_allocated, most_allocated

MAX = 100


def _ref_average(req: npt.NDArray[np.int64], alloc: npt.NDArray[np.int64], most: bool) -> list[int]:
    out = []
    for r_row, a_row in zip(req.tolist(), alloc.tolist(), strict=True):
        total = n = 0
        for r, a in zip(r_row, a_row, strict=True):
            if a == 0:
                continue
            n += 1
            total += (min(r, a) * MAX) // a if most else (0 if r > a else ((a - r) * MAX) // a)
        out.append(total // n if n else 0)
    return out


def _ref_balanced(req: npt.NDArray[np.int64], alloc: npt.NDArray[np.int64]) -> list[int]:
    has = alloc != 0
    frac = np.minimum(np.where(has, req / np.where(has, alloc, 1), 0.0), 1.0)
    count = has.sum(axis=1)
    safe = np.maximum(count, 1)
    mean = frac.sum(axis=1) / safe
    std = np.sqrt(np.where(has, (frac - mean[:, None]) ** 2, 0.0).sum(axis=1) / safe)
    hi = np.where(has, frac, -np.inf).max(axis=1)
    lo = np.where(has, frac, np.inf).min(axis=1)
    std = np.where(count == 2, (hi - lo) / 2, std)
    std = np.where(count == 0, 0.0, std)
    return [int(x) for x in ((1.0 - std) * MAX).astype(np.int64).tolist()]


amounts = st.integers(0, 10**13)


@settings(max_examples=200, deadline=None)
@given(cols=st.integers(1, 3), data=st.data(), zero_cap=st.booleans())
def test_fast_paths_match_reference(cols: int, data: st.DataObject, zero_cap: bool) -> None:
    rows = data.draw(st.integers(1, 6))
    lo = 0 if zero_cap else 1
    alloc = np.array(data.draw(st.lists(st.lists(st.integers(lo, 10**13), min_size=cols, max_size=cols),
                                        min_size=rows, max_size=rows)), dtype=np.int64)
    req = np.array(data.draw(st.lists(st.lists(amounts, min_size=cols, max_size=cols),
                                      min_size=rows, max_size=rows)), dtype=np.int64)
    assert least_allocated(req, alloc).tolist() == _ref_average(req, alloc, most=False)
    assert most_allocated(req, alloc).tolist() == _ref_average(req, alloc, most=True)
    assert balanced_allocation(req, alloc).tolist() == _ref_balanced(req, alloc)
