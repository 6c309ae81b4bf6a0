"""Timeline charts: running pods per job over time (stacked), default scheduler above Volcano."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

if TYPE_CHECKING:
    from volcano.demo.runner import RunResult

__all__ = ["running_series", "timeline_chart"]


def running_series(result: RunResult) -> tuple[list[float], dict[str, list[int]]]:
    """A common time grid (minutes) and, per job, how many of its pods run from each grid point
    on. Pods still running when the run stopped count as running up to the stop."""
    jobs = sorted({lf.job for lf in result.history.pods.values()})
    changes: dict[str, list[tuple[float, int]]] = {job: [] for job in jobs}
    for lf in result.history.pods.values():
        for start, end in lf.intervals:
            changes[lf.job].append((start, +1))
            if end is not None and end < result.end:
                changes[lf.job].append((end, -1))
    grid = sorted({0.0, result.end, *(t for pts in changes.values() for t, _ in pts)})
    series: dict[str, list[int]] = {}
    for job, pts in changes.items():
        pts.sort()
        level, i, levels = 0, 0, []
        for t in grid:
            while i < len(pts) and pts[i][0] <= t:
                level += pts[i][1]
                i += 1
            levels.append(level)
        series[job] = levels
    return [t / 60 for t in grid], series


def timeline_chart(pair: tuple[RunResult, RunResult], path: Path) -> Path:
    """Write a two-panel PNG (default scheduler, Volcano) and return its path."""
    fig, axes = plt.subplots(2, 1, figsize=(10, 6), sharex=True)
    for ax, result in zip(axes, pair, strict=True):
        xs, series = running_series(result)
        if series:
            ax.stackplot(xs, *series.values(), labels=list(series), step="post", alpha=0.85)
        outcome = "deadlocked: no job can progress" if result.deadlocked else "all done"
        ax.set_title(f"{result.scheduler}: {result.finished}/{len(result.jobs)} jobs finished ({outcome})")
        ax.set_ylabel("running pods")
        ax.grid(alpha=0.3)
        if len(series) <= 10:
            ax.legend(loc="upper right", fontsize="small", ncol=2)
    axes[-1].set_xlabel("simulated minutes")
    fig.suptitle(pair[0].scenario.title)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path
