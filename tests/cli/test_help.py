"""``volcano --help`` and each command's help: plain text, every flag explained with its default."""

from __future__ import annotations

import argparse
import re

import pytest

from volcano.cli import _COMMANDS, build_parser, main

MARKUP = re.compile(r"``|:(class|func|meth|mod|attr|ref):`|\.\. \w+::")


def subparsers() -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def help_text(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as exit_info:
        main([*argv, "--help"])
    assert exit_info.value.code == 0
    return capsys.readouterr().out


def test_top_level_help_lists_every_command_in_plain_text(capsys: pytest.CaptureFixture[str]) -> None:
    text = help_text(capsys)
    for name in _COMMANDS:
        assert re.search(rf"^\s+{name}\s+\S", text, re.M), f"{name} has no help line"
    assert not MARKUP.search(text), text


@pytest.mark.parametrize("command", ["run", "demo"])
def test_every_option_has_help_with_its_default(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    parser = subparsers()[command]
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction) or not action.option_strings:
            continue
        assert action.help and "default" in action.help, f"{command} {action.option_strings}: {action.help!r}"
    text = help_text(capsys, command)
    assert not MARKUP.search(text), text


def test_run_help_shows_the_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    text = " ".join(help_text(capsys, "run").split())
    for expected in ("number of nodes (default: 4)", "CPUs per node (default: 8)", "memory per node (default: 32Gi)",
                     "nvidia.com/gpu per node (default: 0)", "(default: 0)", "at most (default: 3600)",
                     "(default: Completed)", "report format (default: text)", "- for stdin"):
        assert expected in text, expected


def test_serve_cluster_flags_have_help_with_defaults() -> None:
    parser = subparsers()["serve"]
    for flag in ("--nodes", "--cpu", "--memory", "--gpu", "--seed"):
        action = next(a for a in parser._actions if flag in a.option_strings)
        assert action.help and "default" in action.help, flag
