"""The demo's progress: rewritten in place on a terminal, one final line per run in a log."""

from __future__ import annotations

import io

from volcano.demo.runner import run_scenario
from volcano.demo.scenarios import SCENARIOS, VOLCANO

PSW1 = next(s for s in SCENARIOS if s.key == "ps-worker-1")


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_log_gets_one_line_per_run() -> None:
    log = io.StringIO()
    run_scenario(PSW1, VOLCANO, out=log)
    assert "\r" not in log.getvalue()
    [line] = log.getvalue().splitlines()
    assert "ps-worker-1" in line and "jobs finished 1/1" in line


def test_a_terminal_gets_the_line_rewritten() -> None:
    tty = Terminal()
    run_scenario(PSW1, VOLCANO, out=tty)
    text = tty.getvalue()
    assert text.count("\r") >= 2 and text.endswith("jobs finished 1/1   \n")
