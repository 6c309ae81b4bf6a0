"""Every bad input of ``volcano run`` is one ``error: <where>: <message>`` line on stderr.

Exit status 1 for a bad file or a refused object, 2 for a malformed flag; never a
traceback, nothing on stdout, nothing applied.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from tests.cli.helpers import FIXTURES, QUEUE, Writer, volcano_job
from volcano.cli import main

MPI = str(FIXTURES / "mpi-job.yaml")


def error_line(capsys: pytest.CaptureFixture[str]) -> str:
    """The single stderr line (asserting there is exactly one, and no stdout)."""
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ") and "Traceback" not in err
    return lines[0]


@pytest.mark.parametrize(("text", "message"), [
    ("a: [\n", "document 0 (0-based): YAML syntax error at line 2, column 1: expected the node content"),
    ("- a\n- b\n", "document 0 (0-based): expected a mapping (a Kubernetes object), got list: ['a', 'b']"),
    ("apiVersion: v1\nkind: Foo\nmetadata: {name: x}\n",
     "document 0 (0-based): unknown kind 'Foo' in apiVersion 'v1'"),
    ("apiVersion: nope.io/v9\nkind: Pod\nmetadata: {name: x}\n",
     "document 0 (0-based): unknown kind 'Pod' in apiVersion 'nope.io/v9'"),
    ("apiVersion: v1\nkind: Pod\nmetadata: {name: ok}\n---\nkind: Pod\nmetadata: {name: x}\n",
     "document 1 (0-based): missing field 'apiVersion'"),
    ("", "no Kubernetes object in it (empty, or only comments)"),
    ("# only a comment\n---\n", "no Kubernetes object in it (empty, or only comments)"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary data, not a YAML or JSON text file"),
    (b"kind: \xff\xfe\n", "not UTF-8 text (invalid byte at offset 6): expected a YAML or JSON file"),
], ids=["malformed-yaml", "yaml-list", "unknown-kind", "unknown-apiversion", "second-document",
        "empty-file", "only-comments", "binary", "not-utf8"])
def test_a_bad_file_is_one_error_line_naming_it(text: str | bytes, message: str, write: Writer,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    path = write("bad.yaml", text)
    assert main(["run", path]) == 1
    assert error_line(capsys).startswith(f"error: {path}: {message}")


def test_a_bad_json_file_is_named(write: Writer, capsys: pytest.CaptureFixture[str]) -> None:
    path = write("bad.json", '{"apiVersion": "v1",\n\t"kind": ')
    assert main(["run", path]) == 1
    assert error_line(capsys).startswith(f"error: {path}: document 0 (0-based): JSON syntax error at line 2")


def test_a_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(tmp_path / "nope.yaml")]) == 1
    assert error_line(capsys) == f"error: {tmp_path / 'nope.yaml'}: no such file or directory"


def test_an_empty_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "README.md").write_text("not a manifest")
    assert main(["run", str(tmp_path)]) == 1
    assert error_line(capsys) == f"error: {tmp_path}: empty directory: no *.yaml, *.yml, *.json file in it"


def test_a_directory_of_empty_files(write: Writer, capsys: pytest.CaptureFixture[str]) -> None:
    write("d/a.yaml", "")
    path = write("d/b.yml", "# nothing yet\n")
    folder = str(Path(path).parent)
    assert main(["run", folder]) == 1
    assert error_line(capsys) == (f"error: {folder}: no Kubernetes object in its *.yaml, *.yml, *.json files "
                                  "(all empty, or only comments)")


def test_empty_stdin(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["run", "-"]) == 1
    assert error_line(capsys) == "error: <stdin>: no Kubernetes object in it (empty, or only comments)"


def test_no_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main([])
    assert exit_info.value.code == 2
    assert error_line(capsys) == "error: the following arguments are required: COMMAND (see 'volcano --help')"


def test_a_directory_as_scheduler_configuration(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", MPI, "--scheduler-conf", str(tmp_path)]) == 1
    assert error_line(capsys) == f"error: {tmp_path}: is a directory, expected a file"


def test_a_directory_with_a_bad_file_names_the_file_and_applies_nothing(
        write: Writer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    write("jobs/a-good.yaml", volcano_job("good"))
    bad = write("jobs/b-bad.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {}\n")
    applied: list[object] = []
    monkeypatch.setattr("volcano.testbed.FakeCluster.apply", lambda self, obj: applied.append(obj))
    assert main(["run", str(Path(bad).parent)]) == 1
    assert error_line(capsys) == (f"error: {bad}: document 0 (0-based): missing field 'metadata.name' "
                                  "(or 'metadata.generateName')")
    assert applied == []


def test_a_refused_object_names_its_file_and_the_admission_message(
        write: Writer, capsys: pytest.CaptureFixture[str]) -> None:
    write("jobs/a-good.yaml", volcano_job("good"))
    rejected = FIXTURES / "upstream-examples" / "invalid_jobs_duplicatedTaskName-webhook-deny.yaml"
    bad = write("jobs/b-dup.yaml", rejected.read_text())
    assert main(["run", str(Path(bad).parent)]) == 1
    assert error_line(capsys) == (f'error: {bad}: jobs.batch.volcano.sh "test-job-webhook-disallow" is forbidden: '
                                  'admission webhook "validatejob.volcano.sh" denied the request: '
                                  "duplicated task name task-1;")


def test_a_job_in_a_queue_that_does_not_exist_is_refused(write: Writer, capsys: pytest.CaptureFixture[str]) -> None:
    path = write("job.yaml", volcano_job("j", queue="nope"))
    assert main(["run", path]) == 1
    assert error_line(capsys) == (f'error: {path}: jobs.batch.volcano.sh "j" is forbidden: admission webhook '
                                  '"validatejob.volcano.sh" denied the request: unable to find job queue: '
                                  'queue.scheduling.volcano.sh "nope" not found;')


@pytest.mark.parametrize(("conf", "message"), [
    ('actions: "enqueue, allocate, bogus"\ntiers:\n- plugins:\n  - name: gang\n', "actions: unknown action 'bogus'"),
    ('actions: "allocate"\ntiers:\n- plugins:\n  - name: nosuch\n', "tiers[0].plugins[0]: unknown plugin 'nosuch'"),
    ("actions: [\n", "YAML: "),
    ("just-a-word", "document: expected a mapping, got str"),
], ids=["unknown-action", "unknown-plugin", "malformed", "not-a-mapping"])
def test_a_bad_scheduler_configuration_names_its_file(conf: str, message: str, write: Writer,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    path = write("conf.yaml", conf)
    assert main(["run", MPI, "--scheduler-conf", path]) == 1
    assert error_line(capsys).startswith(f"error: {path}: {message}")


def test_a_missing_scheduler_configuration(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", MPI, "--scheduler-conf", str(tmp_path / "none.yaml")]) == 1
    assert error_line(capsys) == f"error: {tmp_path / 'none.yaml'}: no such file or directory"


@pytest.mark.parametrize(("flags", "message"), [
    (["--nodes", "-1"], "argument --nodes: expected a whole number >= 0, got '-1'"),
    (["--nodes", "two"], "argument --nodes: expected a whole number >= 0, got 'two'"),
    (["--gpu", "-2"], "argument --gpu: expected a whole number >= 0, got '-2'"),
    (["--cpu", "abc"], "argument --cpu: expected a Kubernetes quantity such as 4, 500m or 16Gi, got 'abc'"),
    (["--memory=-1Gi"], "argument --memory: expected a quantity >= 0, got '-1Gi'"),
    (["--seconds", "-5"], "argument --seconds: expected a number of seconds > 0, got '-5'"),
    (["--seconds", "nan"], "argument --seconds: expected a number of seconds > 0, got 'nan'"),
    (["--seed", "x"], "argument --seed: invalid int value: 'x'"),
    (["--expect", "Runing"], "argument --expect: unknown Job phase 'Runing': expected one of Pending,"),
    (["--expect", ","], "argument --expect: expected one or more Job phases, got ','"),
    (["-o", "yaml"], "argument -o/--output: invalid choice: 'yaml'"),
    (["--bogus"], "unrecognized arguments: --bogus"),
], ids=lambda v: v[0] if isinstance(v, list) else "")
def test_a_malformed_flag_is_a_usage_error(flags: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["run", MPI, *flags])
    assert exit_info.value.code == 2
    line = error_line(capsys)
    assert line.startswith(f"error: {message}") and line.endswith("--help')")


def test_no_manifest_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["run"])
    assert exit_info.value.code == 2
    assert error_line(capsys) == ("error: the following arguments are required: MANIFEST "
                                  "(see 'volcano run --help')")


def test_stdin_twice_is_an_error(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(QUEUE))
    assert main(["run", "-", "-"]) == 1
    assert error_line(capsys) == ("error: <stdin>: '-' given more than once: "
                                  "the standard input can be read only once")


def test_bad_stdin_is_named_stdin(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("- just\n- a list\n"))
    assert main(["run", "-"]) == 1
    assert error_line(capsys).startswith("error: <stdin>: document 0 (0-based): expected a mapping")


@pytest.mark.parametrize(("exc", "status"), [(BrokenPipeError(), 141), (KeyboardInterrupt(), 130)])
def test_a_closed_pipe_or_ctrl_c_ends_quietly(exc: BaseException, status: int, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    def interrupted(*args: object, **kwargs: object) -> int:
        raise exc

    monkeypatch.setattr("volcano.cli.run.run_manifests", interrupted)
    assert main(["run", MPI]) == status
    assert capsys.readouterr() == ("", "")
