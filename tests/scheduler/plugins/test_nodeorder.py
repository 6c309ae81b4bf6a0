"""Tests for the nodeorder plugin's resource scorers (Kubernetes integer arithmetic, vectorised)."""

from __future__ import annotations

import numpy as np

from volcano.scheduler.plugins.nodeorder import balanced_allocation, least_allocated, most_allocated


def test_least_allocated_integer_math() -> None:
    alloc = np.array([[4000, 8000], [4000, 0], [1000, 1000]], dtype=np.int64)
    req = np.array([[1000, 2000], [1000, 5], [2000, 500]], dtype=np.int64)
    # node 0: cpu 75, mem 75 -> 75; node 1: memory skipped (no allocatable) -> 75; node 2: cpu over -> 0, mem 50 -> 25
    assert least_allocated(req, alloc).tolist() == [75, 75, 25]


def test_most_allocated_caps_request() -> None:
    alloc = np.array([[4000, 8000], [1000, 1000]], dtype=np.int64)
    req = np.array([[1000, 2000], [3000, 333]], dtype=np.int64)
    assert most_allocated(req, alloc).tolist() == [25, (100 + 33) // 2]


def test_balanced_allocation() -> None:
    alloc = np.array([[4000, 8000, 0], [4000, 8000, 0], [1000, 1000, 1000]], dtype=np.int64)
    req = np.array([[1000, 2000, 0], [2000, 2000, 0], [1000, 0, 500]], dtype=np.int64)
    got = balanced_allocation(req, alloc).tolist()
    assert got[0] == 100  # equal fractions
    assert got[1] == 87  # |0.5 - 0.25| / 2 = 0.125 -> 87.5 -> 87
    # three resources: fractions 1, 0, 0.5 -> population std sqrt(1/6) -> int((1 - 0.408...) * 100) = 59
    assert got[2] == 59
