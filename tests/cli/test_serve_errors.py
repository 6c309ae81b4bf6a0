"""``volcano serve``: a bad manifest or scheduler configuration is one error line and status 1."""

from __future__ import annotations

import pytest

from tests.cli.helpers import Writer
from volcano.cli import main


def test_a_bad_manifest_names_the_file(write: Writer, capsys: pytest.CaptureFixture[str]) -> None:
    path = write("list.yaml", "- a\n")
    assert main(["serve", "-f", path]) == 1
    assert capsys.readouterr() == ("", f"error: {path}: document 0 (0-based): expected a mapping "
                                       "(a Kubernetes object), got list: ['a']\n")


def test_a_bad_scheduler_configuration_names_the_file(write: Writer, capsys: pytest.CaptureFixture[str]) -> None:
    path = write("conf.yaml", 'actions: "allocate, bogus"\n')
    assert main(["serve", "--scheduler-conf", path]) == 1
    assert capsys.readouterr() == ("", f"error: {path}: actions: unknown action 'bogus'\n")


def test_a_malformed_cluster_flag_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["serve", "--nodes", "-1"])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err == ("error: argument --nodes: expected a whole number >= 0, got '-1' "
                                       "(see 'volcano serve --help')\n")
