"""``volcano run --timeline``: the pods of each node over time, as a PNG."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.cli.helpers import FIXTURES, Writer, volcano_job
from volcano.cli import main
from volcano.cli.observe import PodSpan
from volcano.cli.timeline import running_levels

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def span(name: str, node: str, start: float, end: float | None) -> PodSpan:
    return PodSpan("default", name, "default/j", node, start, end)


def test_running_levels_count_the_pods_of_each_workload_on_each_node() -> None:
    spans = [span("a", "n0", 0, 10), span("b", "n0", 5, None), span("c", "n0", 10, 20), span("d", "n1", 3, 4),
             PodSpan("default", "e", "default/other", "n0", 5, 6)]
    grid, levels = running_levels(spans, end=30)
    assert grid == [0, 3, 4, 5, 6, 10, 20, 30]
    assert levels == {("n0", "default/j"): [1, 1, 1, 2, 2, 2, 1, 1],  # c starts as a ends; b runs to the end
                      ("n0", "default/other"): [0, 0, 0, 1, 0, 0, 0, 0],
                      ("n1", "default/j"): [0, 1, 0, 0, 0, 0, 0, 0]}


def test_timeline_png_is_written(tmp_path: Path, write: Writer, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    out = tmp_path / "timeline.png"
    rc = main(["run", str(FIXTURES / "mpi-job.yaml"), write("j.yaml", volcano_job("short")),
               "--expect", "Running", "--timeline", str(out)])
    assert rc == 0 and capsys.readouterr().err == ""
    assert out.read_bytes()[:8] == PNG_MAGIC and out.stat().st_size > 5_000


def test_timeline_without_matplotlib_is_a_clean_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    rc = main(["run", str(FIXTURES / "mpi-job.yaml"), "--expect", "Running", "--timeline", str(tmp_path / "t.png")])
    out, err = capsys.readouterr()
    assert rc == 1 and out == ""
    assert err == ("error: --timeline: drawing a chart needs matplotlib: pip install matplotlib "
                   "(it comes with the package's dev extra)\n")


def test_timeline_into_a_missing_folder_names_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    target = tmp_path / "no" / "t.png"
    rc = main(["run", str(FIXTURES / "mpi-job.yaml"), "--expect", "Running", "--timeline", str(target)])
    assert rc == 1
    assert capsys.readouterr().err == f"error: {target}: cannot write the chart: No such file or directory\n"
