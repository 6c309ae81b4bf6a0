"""docs/vcctl.md stays true: its commands parse with vcctl's parser and its list header is vcctl's."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from volcano.vcctl.cli import build_parser

from .test_vcctl import JOB_HEADER

DOC = (Path(__file__).resolve().parents[2] / "docs" / "vcctl.md").read_text()


def test_every_vcctl_command_in_the_doc_parses() -> None:
    lines = [line.split("#")[0].strip() for block in re.findall(r"```sh\n(.*?)```", DOC, flags=re.S)
             for line in block.splitlines() if line.startswith(".venv/bin/vcctl ")]
    assert len(lines) >= 6
    for line in lines:
        build_parser().parse_args(shlex.split(line)[1:])


def test_the_example_output_has_vcctls_header() -> None:
    block = re.findall(r"```text\n(.*?)```", DOC, flags=re.S)[0]
    assert block.splitlines()[0].rstrip() == JOB_HEADER
