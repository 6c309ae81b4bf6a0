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


def calibrate() -> tuple[float, float]:
    """A fixed pure-Python workload (dict, heap, sort and string work, no I/O): (CPU s, wall s).
    The report divides by it to give figures that compare across machines."""
    import heapq
    import time

    cpu, wall = time.process_time(), time.perf_counter()
    heap: list[tuple[int, str]] = []
    table: dict[str, int] = {}
    for i in range(300_000):
        key = f"pod-{i % 5000}"
        table[key] = table.get(key, 0) + i
        heapq.heappush(heap, ((i * 7919) % 100_003, key))
        if len(heap) > 1000:
            heapq.heappop(heap)
    sorted(table.items(), key=lambda kv: (kv[1], kv[0]))
    return time.process_time() - cpu, time.perf_counter() - wall


def test_calibration(benchmark: Any) -> None:
    cpu_s, wall_s = benchmark.pedantic(calibrate, rounds=1, iterations=1)
    benchmark.extra_info.update({"calibration": True, "cpu_s": round(cpu_s, 4), "wall_s": round(wall_s, 4)})
    assert cpu_s > 0


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
    if workload.shape == "idle":
        assert result.sim_s == size.measured, f"{workload.name}: ran {result.sim_s} of {size.measured} simulated s"
        return
    assert result.bound == size.measured, f"{workload.name}: only {result.bound}/{size.measured} pods bound"
    if workload.shape == "bigjob":
        assert result.running_wall_s > 0, f"{workload.name}: the Job never reached Running"
