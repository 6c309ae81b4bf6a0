"""Scheduling throughput benchmarks (pytest-benchmark), one per workload.

``make bench`` runs the ``fast`` sizes, ``make bench-full`` the ``full`` ones
(``BENCH_SIZE=full``); with benchmarks disabled (``make test``) a workload with a
``smoke`` size runs at that size. Each benchmark runs its workload once on a fresh
cluster, checks every measured pod was bound (the smoke test CI relies on),
and stores the figures in the benchmark's ``extra_info`` for the report.
"""

from __future__ import annotations

import os
from typing import Any

import pytest

from benchmarks.harness import run_isolated, run_workload
from benchmarks.workloads import WORKLOADS, size_of

SIZE = os.environ.get("BENCH_SIZE", "fast")


@pytest.mark.parametrize("workload", WORKLOADS, ids=[w.name for w in WORKLOADS])
def test_throughput(benchmark: Any, workload: Any) -> None:
    which = "smoke" if benchmark.disabled and SIZE == "fast" else SIZE
    size = size_of(workload, which)
    if workload.isolated:
        result = benchmark.pedantic(run_isolated, args=(workload, which), rounds=1, iterations=1)
    else:
        result = benchmark.pedantic(run_workload, args=(workload, size), rounds=1, iterations=1)
    benchmark.extra_info.update(result.as_dict())
    benchmark.extra_info["isolated"] = workload.isolated
    benchmark.extra_info["size"] = which
    assert result.bound == size.measured, f"{workload.name}: only {result.bound}/{size.measured} pods bound"
    if workload.shape == "bigjob":
        assert result.running_wall_s > 0, f"{workload.name}: the Job never reached Running"
