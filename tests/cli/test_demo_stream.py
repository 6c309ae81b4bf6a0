"""``volcano demo`` in a log: ``\\r`` progress redraws collapse to their final state."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from volcano.cli import main
from volcano.cli.demo import LogStream


def test_redrawn_lines_keep_only_their_final_state() -> None:
    target = io.StringIO()
    stream = LogStream(target)
    stream.write("Scenario A\n  expected: x\n")
    for minute in (0, 15, 30):
        stream.write(f"\r  a  volcano  t={minute:3d} min   ")
    assert target.getvalue() == "Scenario A\n  expected: x\n"  # nothing of an unfinished line yet
    stream.write("\n\rpartial")
    stream.close()
    assert target.getvalue() == "Scenario A\n  expected: x\n  a  volcano  t= 30 min\npartial\n"
    assert not stream.isatty()


def test_demo_through_a_pipe_writes_no_carriage_return(monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    def fake_demo(out_dir: str, stream: io.TextIOBase) -> int:
        assert out_dir == "somewhere"
        for step in range(3):
            stream.write(f"\r  step {step}   ")
        stream.write("\ndone\n")
        return 0

    monkeypatch.setattr("volcano.demo.run_demo", fake_demo)
    assert main(["demo", "--out", "somewhere"]) == 0
    assert capsys.readouterr().out == "  step 2\ndone\n"


def test_an_output_folder_that_cannot_be_made_is_one_error_line(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("in the way")
    assert main(["demo", "--out", str(blocker / "demo")]) == 1
    assert capsys.readouterr() == ("", f"error: {blocker / 'demo'}: cannot create the output folder: Not a directory\n")
