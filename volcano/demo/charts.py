"""Timeline charts: running pods per job over time, default scheduler beside Volcano."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

if TYPE_CHECKING:
    from volcano.demo.runner import RunResult

__all__ = ["timeline_chart"]


def _series(result: RunResult) -> dict[str, tuple[list[float], list[int]]]:
    out: dict[str, tuple[list[float], list[int]]] = {}
    jobs = sorted({lf.job for lf in result.history.pods.values()})
    for job in jobs:
        points: list[tuple[float, int]] = []
        for lf in result.history.pods.values():
            if lf.job == job:
                for s, e in lf.intervals:
                    points += [(s, 1), (e if e is not None else result.end, -1)]
        points.sort()
        xs, ys, level = [0.0], [0], 0
        for t, d in points:
            level += d
            xs.append(t / 60)
            ys.append(level)
        xs.append(result.end / 60)
        ys.append(level)
        out[job] = (xs, ys)
    return out


def timeline_chart(pair: tuple[RunResult, RunResult], path: Path) -> Path:
    """Write a two-panel PNG (default scheduler, Volcano) and return its path."""
    fig, axes = plt.subplots(2, 1, figsize=(10, 6), sharex=True)
    for ax, result in zip(axes, pair, strict=True):
        for job, (xs, ys) in _series(result).items():
            ax.step(xs, ys, where="post", label=job)
        ax.set_title(f"{result.scheduler}: {result.finished}/{len(result.jobs)} jobs finished")
        ax.set_ylabel("running pods")
        ax.grid(alpha=0.3)
        if len(result.jobs) <= 10:
            ax.legend(loc="upper right", fontsize="small", ncol=2)
    axes[-1].set_xlabel("simulated minutes")
    fig.suptitle(pair[0].scenario.title)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path
