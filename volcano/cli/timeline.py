"""``volcano run --timeline out.png``: the pods each node ran over simulated time.

One row per node; within a row each running pod is a bar on its own lane (a
node running three pods at once shows three stacked bars), coloured by the
workload it belongs to (its Volcano Job, else its PodGroup, else the pod).
Colours are fixed by the workload's name order, so a job keeps its colour on
every row; the legend sits outside the plot so that it never covers a bar.
The style follows the demo charts (``volcano.demo.charts``): Agg backend,
light grid, 90 dpi.

matplotlib is imported only when a chart is drawn; without it the command
fails with a ``CliError`` that says how to install it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from volcano.cli.args import CliError
from volcano.cli.observe import PodSpan

__all__ = ["lanes", "write_timeline"]

_LEGEND_MAX = 20


def lanes(spans: Sequence[PodSpan], end: float) -> dict[str, list[tuple[int, PodSpan]]]:
    """Per node, each span with the lowest lane free at its start (spans sorted by start, name)."""
    out: dict[str, list[tuple[int, PodSpan]]] = {}
    lane_ends: dict[str, list[float]] = {}
    for span in sorted(spans, key=lambda s: (s.node, s.start, s.namespace, s.name)):
        ends = lane_ends.setdefault(span.node, [])
        stop = end if span.end is None else span.end
        lane = next((i for i, e in enumerate(ends) if e <= span.start), len(ends))
        if lane == len(ends):
            ends.append(stop)
        else:
            ends[lane] = stop
        out.setdefault(span.node, []).append((lane, span))
    return out


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
    minutes = end > 600
    scale, unit = (60.0, "simulated minutes") if minutes else (1.0, "simulated seconds")
    rows = list(nodes) + sorted({s.node for s in spans} - set(nodes))
    by_node = lanes(spans, end)
    owners = sorted({s.owner for s in spans})
    cmap = plt.get_cmap("tab20" if len(owners) > 10 else "tab10")
    colour = {owner: cmap(i % cmap.N) for i, owner in enumerate(owners)}
    fig, ax = plt.subplots(figsize=(10, min(30.0, max(3.0, 0.45 * len(rows) + 1.5))))
    for row, node in enumerate(rows):
        placed = by_node.get(node, [])
        height = 0.8 / max(1, max((lane for lane, _ in placed), default=0) + 1)
        for lane, span in placed:
            stop = end if span.end is None else span.end
            ax.broken_barh([(span.start / scale, max(stop - span.start, 0.0) / scale)],
                           (row - 0.4 + lane * height, height * 0.9), color=colour[span.owner],
                           edgecolor="white", linewidth=0.5)
    ax.set_yticks(range(len(rows)), rows)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.set_xlim(0, max(end / scale, 1e-3))
    ax.set_xlabel(unit)
    ax.set_title(f"running pods per node ({len(spans)} pod runs, {len(owners)} workloads)")
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
