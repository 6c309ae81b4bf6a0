"""docs/webhooks.md stays true: its commands parse, its table lists the paths served, its text is the code's."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from volcano.cli import build_parser
from volcano.webhooks.services import SERVICES

DOC = (Path(__file__).resolve().parents[2] / "docs" / "webhooks.md").read_text()


def test_every_volcano_command_in_the_doc_parses() -> None:
    commands = [line for block in re.findall(r"```sh\n(.*?)```", DOC, flags=re.S) for line in block.splitlines()
                if line.startswith(".venv/bin/volcano ")]
    assert len(commands) >= 2
    for line in commands:
        argv = shlex.split(line.rstrip("&").strip())[1:]
        build_parser().parse_args(argv)


def test_the_path_table_is_the_services_table() -> None:
    rows = re.findall(r"^\| `(/[a-z]+/[a-z]+)` \| `([a-z.]+)` \|", DOC, flags=re.M)
    assert rows == [(s.path, s.webhook) for s in SERVICES]
