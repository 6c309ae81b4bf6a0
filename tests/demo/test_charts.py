"""The demo's charts read clearly: the legend covers no bar, both panels share one y-axis and one
x-axis, and each job has one colour in both panels."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

matplotlib = pytest.importorskip("matplotlib")

from matplotlib.collections import PolyCollection  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from volcano.demo.charts import job_colours, running_series, timeline_chart, timeline_figure  # noqa: E402
from volcano.demo.runner import RunResult, run_scenario  # noqa: E402
from volcano.demo.scenarios import BASELINE, SCENARIOS, VOLCANO  # noqa: E402


@cache
def pair(key: str) -> tuple[RunResult, RunResult]:
    scenario = next(s for s in SCENARIOS if s.key == key)
    return run_scenario(scenario, BASELINE), run_scenario(scenario, VOLCANO)


def colours_by_job(fig: Figure, panel: int) -> dict[str, tuple[float, ...]]:
    ax = fig.axes[panel]
    return {c.get_label(): tuple(c.get_facecolor()[0]) for c in ax.collections if isinstance(c, PolyCollection)}


def test_fair_share_chart() -> None:
    runs = pair("fair-share")
    fig = timeline_figure(runs)
    fig.canvas.draw()
    top, bottom = fig.axes[0], fig.axes[1]
    # one y-axis and one x-axis for both panels, covering both runs
    assert top.get_ylim() == bottom.get_ylim()
    peak = max(sum(levels) for r in runs for levels in zip(*running_series(r)[1].values(), strict=True))
    assert peak == 16 and peak <= top.get_ylim()[1] < peak * 1.1
    assert top.get_xlim() == bottom.get_xlim() == (0.0, max(r.end for r in runs) / 60)
    # the legend lies outside both plotting areas
    [legend] = fig.legends
    box = legend.get_window_extent()
    for ax in (top, bottom):
        assert not box.overlaps(ax.get_window_extent())
    assert [t.get_text() for t in legend.get_texts()] == sorted(colours_by_job(fig, 0))
    # every job has one colour, the same in both panels, and no two jobs share one
    above, below = colours_by_job(fig, 0), colours_by_job(fig, 1)
    assert above == below
    assert len(above) == 10 and len(set(above.values())) == 10


def test_job_colours_depend_on_names_only() -> None:
    assert job_colours(["b", "a"]) == job_colours(["a", "b", "a"])
    assert job_colours(["a", "b"])["a"] != job_colours(["a", "b"])["b"]
    many = job_colours([f"j{i:02d}" for i in range(14)])
    assert len(set(many.values())) == 14


def test_a_deadlocked_run_shares_the_volcano_runs_axes(tmp_path: Path) -> None:
    runs = pair("tf-gpu")
    assert runs[0].deadlocked and not runs[1].deadlocked
    path = timeline_chart(runs, tmp_path / "tf-gpu.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    fig = timeline_figure(runs)
    assert fig.axes[0].get_xlim()[1] == runs[1].end / 60 > runs[0].end / 60
    assert colours_by_job(fig, 0) == colours_by_job(fig, 1)
