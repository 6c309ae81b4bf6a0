"""Timeline charts: running pods per job over time (stacked), default scheduler above Volcano."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

if TYPE_CHECKING:
    from volcano.demo.runner import RunResult

__all__ = ["job_colours", "running_series", "timeline_chart", "timeline_figure"]


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


def job_colours(jobs: list[str]) -> dict[str, tuple[float, float, float, float]]:
    """One colour per job, assigned in sorted name order from a qualitative palette, so a job has
    the same colour in both panels of a chart (and in every chart where it appears)."""
    names = sorted(set(jobs))
    palette = plt.get_cmap("tab10" if len(names) <= 10 else "tab20")
    return {job: palette(i % palette.N) for i, job in enumerate(names)}


def timeline_chart(pair: tuple[RunResult, RunResult], path: Path) -> Path:
    """Write ``timeline_figure(pair)`` as a PNG and return its path."""
    fig = timeline_figure(pair)
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def timeline_figure(pair: tuple[RunResult, RunResult]) -> Figure:
    """The two-panel chart of a scenario: default scheduler above, Volcano below.

    Both panels share the x and y axes; each job keeps one colour and one stacking position in
    both panels (a job absent from a run stacks as zero there), and the legend sits outside the
    plotting area, so it never covers a bar."""
    runs = [running_series(result) for result in pair]
    jobs = sorted({job for _, series in runs for job in series})
    colours = job_colours(jobs)
    fig, axes = plt.subplots(2, 1, figsize=(11, 6), sharex=True, sharey=True, layout="constrained")
    for ax, result, (xs, series) in zip(axes, pair, runs, strict=True):
        if series:
            ax.stackplot(xs, *[series.get(job, [0] * len(xs)) for job in jobs], labels=jobs,
                         colors=[colours[job] for job in jobs], step="post", alpha=0.85)
        outcome = "deadlocked: no job can progress" if result.deadlocked else "all done"
        ax.set_title(f"{result.scheduler}: {result.finished}/{len(result.jobs)} jobs finished ({outcome})")
        ax.set_ylabel("running pods")
        ax.grid(alpha=0.3)
    peak = max((sum(levels) for _, series in runs for levels in zip(*series.values(), strict=True)), default=0)
    axes[0].set_ylim(0, max(1, peak) * 1.05)  # shared: both panels on one scale
    axes[0].set_xlim(0, max(result.end for result in pair) / 60)
    axes[-1].set_xlabel("simulated minutes")
    if jobs:
        handles, labels = axes[0].get_legend_handles_labels()
        if not handles:
            handles, labels = axes[1].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside right upper", fontsize="small", title="job")
    axes[0].yaxis.set_major_locator(MaxNLocator(integer=True))
    fig.suptitle(pair[0].scenario.title)
    return fig
