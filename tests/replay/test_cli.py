"""``volcano replay``: a trace CSV or a synthetic trace in, a report out; one-line errors."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from volcano.cli import build_parser, main
from volcano.replay import COLUMNS


def write(tmp_path: Path, *rows: str) -> str:
    path = tmp_path / "trace.csv"
    path.write_text(",".join(COLUMNS) + "\n" + "".join(r + "\n" for r in rows))
    return str(path)


def test_a_csv_trace_is_replayed_and_reported_as_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace = write(tmp_path, "0,2,4,16Gi,4,60,prod", "5,1,4,16Gi,8,30,dev")
    out = tmp_path / "out"
    rc = main(["replay", trace, "--nodes", "1", "--seconds", "600", "--queue", "prod=3", "--out", str(out),
               "-o", "json"])
    stdout, stderr = capsys.readouterr()
    assert (rc, stderr) == (0, "")
    report = json.loads(stdout)
    assert report["jobs"]["completed"] == 2 and report["workload"]["total_gpus"] == 8
    assert json.loads((out / "report.json").read_text())["jobs"] == report["jobs"]
    assert (out / "gpu-utilisation.png").read_bytes()[:4] == b"\x89PNG"
    # the second job (8 GPUs) waited for the first (2 x 4 GPUs) to finish its 60 s
    assert report["queueing_delay_s"]["max"] >= 55


def test_the_summary_names_the_figures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["replay", "--nodes", "2", "--jobs", "3", "--hours", "0.05", "--out", str(tmp_path),
               "--write-trace", str(tmp_path / "t.csv")])
    stdout, _ = capsys.readouterr()
    assert rc == 0
    for expected in ("workload: 3 jobs", "simulated s per wall s",
                     "queueing delay: mean", "GPU utilisation: mean", "report: "):
        assert expected in stdout, stdout
    assert (tmp_path / "t.csv").read_text().startswith("name," + ",".join(COLUMNS))


def test_a_bad_row_is_one_line_naming_file_line_and_column(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    trace = write(tmp_path, "0,2,4,16Gi,4,60,prod", "5,1,4,16Gi,lots,30,dev")
    rc = main(["replay", trace, "--nodes", "1", "--out", str(tmp_path / "out")])
    stdout, stderr = capsys.readouterr()
    assert rc == 1 and stdout == ""
    assert stderr == f"error: {trace}: line 3, column gpu: expected a whole number >= 0, got 'lots'\n"
    assert not (tmp_path / "out" / "report.json").exists()


def test_a_missing_file_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = str(tmp_path / "nope.csv")
    assert main(["replay", missing, "--out", str(tmp_path)]) == 1
    assert capsys.readouterr().err == f"error: {missing}: cannot read the trace: No such file or directory\n"


@pytest.mark.parametrize(("argv", "message"), [
    (["--nodes", "0"], "argument --nodes: expected a value > 0, got '0'"),
    (["--queue", "prod"], "argument --queue: expected NAME=WEIGHT with a whole weight >= 1, got 'prod'"),
    (["--hours", "-1"], "argument --hours: expected a number of hours > 0, got '-1'"),
    (["--hours", "inf"], "argument --hours: expected a number of hours > 0, got 'inf'"),
    (["--queue", "Prod=2"], "argument --queue: expected NAME=WEIGHT with a whole weight >= 1, got 'Prod=2'"),
    (["--mode", "deployment"], "argument --mode: invalid choice: 'deployment'"),
])
def test_a_malformed_flag_exits_2(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["replay", *argv])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {message}") and err.count("\n") == 1, err


def test_every_option_has_help_with_its_default() -> None:
    action = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    for option in action.choices["replay"]._actions:
        if option.option_strings and not isinstance(option, argparse._HelpAction):
            assert option.help and "default" in option.help, option.option_strings
