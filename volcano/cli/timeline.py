"""``volcano run --timeline out.png``: the pods each node ran over simulated time.

One row per node; within a row, the number of pods running there over time,
stacked by the workload they belong to (their Volcano Job, else their PodGroup,
else the pod itself). Every row has the same scale: its full height is the most
pods any node ran at once (the title says how many).
Colours are fixed by the workload's name order, so a job keeps its colour on
every row; the legend sits outside the plot so that it never covers a bar.
The style follows the demo charts (``volcano.demo.charts``): Agg backend,
light grid, 90 dpi.

matplotlib is imported only when a chart is drawn; without it the command
fails with a ``CliError`` that says how to install it.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from volcano.cli.args import CliError
from volcano.cli.observe import PodSpan

__all__ = ["running_levels", "write_timeline"]

_LEGEND_MAX = 20


def running_levels(spans: Sequence[PodSpan], end: float) -> tuple[list[float], dict[tuple[str, str], list[int]]]:
    """A time grid (every start and end, 0 and ``end``) and, per (node, workload) that ran a
    pod, how many of its pods run on that node from each grid point on."""
    grid = sorted({0.0, end, *(s.start for s in spans), *(s.end for s in spans if s.end is not None)})
    index = {t: i for i, t in enumerate(grid)}
    deltas: dict[tuple[str, str], list[int]] = {}
    for span in spans:
        row = deltas.setdefault((span.node, span.owner), [0] * (len(grid) + 1))
        row[index[span.start]] += 1
        row[len(grid) if span.end is None else index[span.end]] -= 1
    levels = {key: list(itertools.accumulate(row[:-1])) for key, row in sorted(deltas.items())}
    return grid, levels


def _peak(levels: dict[tuple[str, str], list[int]], points: int) -> int:
    """The most pods any node ran at once (at least 1)."""
    totals: dict[str, list[int]] = {}
    for (node, _owner), level in levels.items():
        totals[node] = [a + b for a, b in zip(totals.get(node, [0] * points), level, strict=True)]
    return max((max(t) for t in totals.values()), default=0) or 1


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError:
        raise CliError("--timeline", "drawing a chart needs matplotlib: pip install matplotlib "
                                     "(it comes with the package's dev extra)") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def write_timeline(path: str, spans: Sequence[PodSpan], nodes: Sequence[str], end: float) -> Path:
    """Draw the chart of ``spans`` on ``nodes`` (rows, in this order) up to ``end`` into the PNG
    ``path``; returns the path. ``CliError`` without matplotlib or when the file cannot be written."""
    plt = _pyplot()
    scale, unit = (60.0, "simulated minutes") if end > 600 else (1.0, "simulated seconds")
    rows = list(nodes) + sorted({s.node for s in spans} - set(nodes))
    grid, levels = running_levels(spans, end)
    xs = [t / scale for t in grid]
    owners = sorted({s.owner for s in spans})
    cmap = plt.get_cmap("tab20" if len(owners) > 10 else "tab10")
    colour = {owner: cmap(i % cmap.N) for i, owner in enumerate(owners)}
    peak = _peak(levels, len(grid))
    fig, ax = plt.subplots(figsize=(10, min(30.0, max(3.0, 0.45 * len(rows) + 1.5))))
    for row, node in enumerate(rows):
        base = [len(rows) - 1 - row - 0.4] * len(grid)
        for owner in owners:
            level = levels.get((node, owner))
            if level is None:
                continue
            top = [b + 0.8 * n / peak for b, n in zip(base, level, strict=True)]
            ax.fill_between(xs, base, top, step="post", color=colour[owner], linewidth=0)
            base = top
    ax.set_yticks(range(len(rows)), list(reversed(rows)))
    ax.set_ylim(-0.5, len(rows) - 0.5)
    ax.set_xlim(0, max(end / scale, 1e-3))
    ax.set_xlabel(unit)
    ax.set_title(f"running pods per node (row height: {peak} pod{'s' if peak != 1 else ''}; "
                 f"{len(spans)} pod runs, {len(owners)} workloads)")
    ax.grid(alpha=0.3, axis="x")
    handles = [plt.Rectangle((0, 0), 1, 1, color=colour[o]) for o in owners[:_LEGEND_MAX]]
    if handles:
        ax.legend(handles, owners[:_LEGEND_MAX], loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small",
                  title="job" if len(owners) <= _LEGEND_MAX else f"job (first {_LEGEND_MAX})")
    fig.tight_layout()
    try:
        fig.savefig(path, dpi=90)
    except OSError as err:
        raise CliError(path, f"cannot write the chart: {err.strerror or err}") from None
    finally:
        plt.close(fig)
    return Path(path)
