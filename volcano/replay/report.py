"""The figures of a replay: a JSON-able report, a printed summary and a GPU-utilisation chart.

``build_report(result)`` returns a dict:

- ``workload``: nodes, GPUs, jobs and pods in the trace, mode, seed;
- ``simulated_s``; ``timing``: ``wall_s``, ``cpu_s``, ``setup_wall_s``,
  ``sim_s_per_wall_s`` (the only figures that differ between two runs of the
  same seed);
- ``jobs``: submitted, started, completed, still queued and still running at the end;
- ``queueing_delay_s``: mean, p50, p99 and max of start minus submit over the
  jobs that started (a job that never started is counted in ``jobs.queued``,
  not here); also per queue;
- ``gpu_utilisation``: the time-weighted mean fraction of GPUs held by running
  pods over the replay, and ``series``: ``[bin start (s), mean fraction]`` per bin
  of ``bin_s`` simulated seconds.

``render_summary`` prints it for people; ``plot_utilisation`` draws the series
to a PNG (matplotlib, part of the ``dev`` extra).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from volcano.replay.replay import JobRecord, ReplayResult

__all__ = ["build_report", "plot_utilisation", "render_summary", "utilisation_series"]


def utilisation_series(changes: Sequence[tuple[int, int]], total_gpus: int, end_ms: int,
                       bin_ms: int) -> list[tuple[float, float]]:
    """The time-weighted mean fraction of ``total_gpus`` held in each bin of ``bin_ms``
    over ``[0, end_ms)``, from ``(ms, change)`` pairs in time order."""
    if end_ms <= 0 or bin_ms <= 0:
        return []
    bins = int(np.ceil(end_ms / bin_ms))
    held = np.zeros(bins, dtype=float)  # GPU-milliseconds per bin
    level, t_prev = 0, 0
    for t, delta in [*changes, (end_ms, 0)]:
        t = min(t, end_ms)
        if t > t_prev and level:
            _spread(held, t_prev, t, level, bin_ms)
        level, t_prev = level + delta, max(t_prev, t)
    widths = np.minimum(bin_ms, end_ms - np.arange(bins) * bin_ms)
    frac = held / (widths * total_gpus) if total_gpus else np.zeros(bins)
    return [(round(i * bin_ms / 1000, 3), round(float(f), 6)) for i, f in enumerate(frac)]


def _spread(held: Any, t0: int, t1: int, level: int, bin_ms: int) -> None:
    """Add ``level`` GPUs held over ``[t0, t1)`` to the bins it covers."""
    first, last = t0 // bin_ms, (t1 - 1) // bin_ms
    if first == last:
        held[first] += level * (t1 - t0)
        return
    held[first] += level * ((first + 1) * bin_ms - t0)
    held[first + 1:last] += level * bin_ms
    held[last] += level * (t1 - last * bin_ms)


def _mean_utilisation(changes: Sequence[tuple[int, int]], total_gpus: int, end_ms: int) -> float:
    """The time-weighted mean fraction of ``total_gpus`` held over ``[0, end_ms)``."""
    if end_ms <= 0 or total_gpus <= 0:
        return 0.0
    held, level, t_prev = 0, 0, 0
    for t, delta in [*changes, (end_ms, 0)]:
        t = min(t, end_ms)
        held += level * max(0, t - t_prev)
        level, t_prev = level + delta, max(t_prev, t)
    return held / (end_ms * total_gpus)


def _delays(records: Sequence[JobRecord]) -> dict[str, Any]:
    delays = np.array([(r.start_ms - r.submit_ms) / 1000 for r in records if r.start_ms >= 0], dtype=float)
    if not delays.size:
        return {"jobs": 0, "mean": None, "p50": None, "p99": None, "max": None}
    return {"jobs": int(delays.size), "mean": round(float(delays.mean()), 3),
            "p50": round(float(np.percentile(delays, 50)), 3), "p99": round(float(np.percentile(delays, 99)), 3),
            "max": round(float(delays.max()), 3)}


def build_report(result: ReplayResult, *, bin_s: float | None = None) -> dict[str, Any]:
    """The report of ``result`` (see the module docstring); ``bin_s`` defaults to 1/200 of
    the simulated span, at least one second."""
    records = [r for r in result.records if r.submit_ms >= 0]
    sim_s = result.sim_ms / 1000
    bin_ms = round(bin_s * 1000) if bin_s else max(1000, result.sim_ms // 200)
    series = utilisation_series(result.gpu_changes, result.total_gpus, result.sim_ms, bin_ms)
    mean_util = _mean_utilisation(result.gpu_changes, result.total_gpus, result.sim_ms)
    queues = sorted({r.job.queue for r in records})
    config = result.config
    return {
        "workload": {"nodes": config.nodes, "gpus_per_node": config.gpus_per_node, "total_gpus": result.total_gpus,
                     "jobs": len(result.records), "pods": sum(r.job.gang_size for r in result.records),
                     "mode": config.mode, "seed": config.seed},
        "simulated_s": round(sim_s, 3),
        "timing": {"wall_s": round(result.wall_s, 3), "cpu_s": round(result.cpu_s, 3),
                   "setup_wall_s": round(result.setup_wall_s, 3),
                   "sim_s_per_wall_s": round(sim_s / result.wall_s, 2) if result.wall_s > 0 else None},
        "jobs": {"submitted": len(records), "started": sum(1 for r in records if r.start_ms >= 0),
                 "completed": sum(1 for r in records if r.finish_ms >= 0),
                 "queued": sum(1 for r in records if r.start_ms < 0),
                 "running": sum(1 for r in records if r.start_ms >= 0 > r.finish_ms)},
        "queueing_delay_s": {**_delays(records),
                             "by_queue": {q: _delays([r for r in records if r.job.queue == q]) for q in queues}},
        "gpu_utilisation": {"mean": round(mean_util, 6), "bin_s": bin_ms / 1000,
                            "series": [list(p) for p in series]},
    }


def _fmt(value: Any, unit: str = "s") -> str:
    return "-" if value is None else f"{value:,.1f} {unit}"


def render_summary(report: dict[str, Any]) -> str:
    """A few lines for people: shape, speed, jobs, delays and utilisation."""
    w, t, j, d = report["workload"], report["timing"], report["jobs"], report["queueing_delay_s"]
    lines = [
        f"workload: {w['jobs']:,} jobs ({w['pods']:,} pods) on {w['nodes']:,} nodes x {w['gpus_per_node']} GPUs, "
        f"mode {w['mode']}, seed {w['seed']}",
        f"simulated {report['simulated_s']:,.0f} s in {t['wall_s']:,.1f} s wall ({t['cpu_s']:,.1f} s CPU, "
        f"set-up {t['setup_wall_s']:,.1f} s): {t['sim_s_per_wall_s'] or 0:,.1f} simulated s per wall s",
        f"jobs: {j['submitted']:,} submitted, {j['started']:,} started, {j['completed']:,} completed, "
        f"{j['running']:,} running and {j['queued']:,} queued at the end",
        f"queueing delay: mean {_fmt(d['mean'])}, p50 {_fmt(d['p50'])}, p99 {_fmt(d['p99'])}, max {_fmt(d['max'])}",
    ]
    for queue, q in d["by_queue"].items():
        lines.append(f"  queue {queue}: {q['jobs']:,} started, mean {_fmt(q['mean'])}, p99 {_fmt(q['p99'])}")
    lines.append(f"GPU utilisation: mean {report['gpu_utilisation']['mean'] * 100:.1f}%")
    return "\n".join(lines)


def plot_utilisation(report: dict[str, Any], path: str | Path) -> None:
    """Draw GPU utilisation over simulated hours to ``path`` (a PNG). ImportError without matplotlib."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series = report["gpu_utilisation"]["series"]
    w = report["workload"]
    fig, ax = plt.subplots(figsize=(9, 3.5))
    try:
        ax.step([p[0] / 3600 for p in series], [p[1] * 100 for p in series], where="post", color="tab:green")
        ax.set_ylim(0, 105)
        ax.set_xlabel("simulated hours")
        ax.set_ylabel("GPUs held by running pods (%)")
        ax.set_title(f"GPU utilisation: {w['jobs']:,} jobs on {w['nodes']:,} nodes x {w['gpus_per_node']} GPUs "
                     f"(mean {report['gpu_utilisation']['mean'] * 100:.1f}%)")
        ax.grid(alpha=0.3)
        fig.tight_layout()
        fig.savefig(path, dpi=100)
    finally:
        plt.close(fig)
