"""Trace replay at scale: the synthetic day of issue 11 and smaller shapes of the same density.

The synthetic trace (``volcano.replay``): Poisson arrivals, power-of-two gangs
with a heavy tail, lognormal durations (median 8 minutes), four weighted
queues, on nodes of 8 GPUs; every size keeps the full shape's density of
about 0.83 jobs per node-hour (an offered load of about 0.9 of the GPUs).

Sizes: ``make test`` (benchmarks disabled) replays 8 jobs on 4 nodes for 6
simulated minutes; ``make bench`` one simulated hour on 100 nodes; ``BENCH_SIZE=full``
the simulated day (1,000 nodes x 8 GPUs, 20,000 jobs over 24 hours), whose
target is 10 minutes of wall time. ``BENCH_WINDOW_S`` replays only the first
that many simulated seconds of the size's trace (``BENCH_SIZE=full
BENCH_WINDOW_S=3600``: the full day's first hour), for measuring a change
without the whole day. The figures (simulated seconds per wall and per CPU
second, CPU seconds per simulated hour, jobs completed, queueing delays, mean
GPU utilisation) go to the benchmark's ``extra_info``.
"""

from __future__ import annotations

import os
from typing import Any

from volcano.replay import DEFAULT_QUEUES, ReplayConfig, SyntheticSpec, build_report, replay, synthetic_trace

SIZE = os.environ.get("BENCH_SIZE", "fast")
SHAPES = {"smoke": SyntheticSpec(nodes=4, hours=0.1, jobs=8), "fast": SyntheticSpec(nodes=100, hours=1, jobs=83),
          "full": SyntheticSpec(nodes=1000, hours=24, jobs=20000)}
TARGET_WALL_S = {"full": 600.0}
WINDOW_S = float(os.environ["BENCH_WINDOW_S"]) if os.environ.get("BENCH_WINDOW_S") else None


def run(spec: SyntheticSpec, seconds: float | None = None) -> dict[str, Any]:
    """Replay the synthetic trace of ``spec`` (seed 0) for its span, or its first ``seconds``; the
    report without the series."""
    trace = synthetic_trace(0, spec)
    span = spec.hours * 3600 if seconds is None else min(seconds, spec.hours * 3600)
    result = replay(trace, ReplayConfig(nodes=spec.nodes, gpus_per_node=spec.gpus_per_node, seed=0,
                                        queue_weights=dict(DEFAULT_QUEUES), seconds=span))
    report = build_report(result)
    report["gpu_utilisation"].pop("series")
    return report


def test_replay(benchmark: Any) -> None:
    which = "smoke" if benchmark.disabled and SIZE == "fast" else SIZE
    spec = SHAPES[which]
    window = WINDOW_S if which == SIZE else None
    report = benchmark.pedantic(run, args=(spec, window), rounds=1, iterations=1)
    timing = report["timing"]
    target = TARGET_WALL_S.get(which) if window is None else None
    hours = report["simulated_s"] / 3600
    benchmark.extra_info.update(
        workload="Replay", size=which, nodes=spec.nodes, jobs=spec.jobs, simulated_s=report["simulated_s"],
        wall_s=timing["wall_s"], cpu_s=timing["cpu_s"], sim_s_per_wall_s=timing["sim_s_per_wall_s"],
        sim_s_per_cpu_s=round(report["simulated_s"] / timing["cpu_s"], 2) if timing["cpu_s"] else None,
        window_s=window, cpu_s_per_simulated_hour=round(timing["cpu_s"] / hours, 1) if hours else None,
        jobs_completed=report["jobs"]["completed"], queueing_delay_mean_s=report["queueing_delay_s"]["mean"],
        queueing_delay_p99_s=report["queueing_delay_s"]["p99"], gpu_utilisation=report["gpu_utilisation"]["mean"],
        target_wall_s=target, passed=None if target is None else timing["wall_s"] <= target)
    assert 0 < report["simulated_s"] <= (window or spec.hours * 3600)
    assert report["jobs"]["submitted"] == spec.jobs or window is not None
    assert report["jobs"]["completed"] > 0
    assert 0 < report["gpu_utilisation"]["mean"] <= 1
