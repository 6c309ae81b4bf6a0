"""``volcano`` as a process: stderr and exit statuses, stdin, and a reader that leaves early."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from tests.cli.helpers import FIXTURES, Writer, volcano_job

VOLCANO = [sys.executable, "-m", "volcano.cli"]


def volcano(*argv: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*VOLCANO, *argv], input=stdin, capture_output=True, text=True, timeout=120)


def test_a_bad_file_is_one_line_on_stderr_and_status_1(write: Writer) -> None:
    path = write("list.yaml", "- a\n- b\n")
    proc = volcano("run", path)
    assert (proc.returncode, proc.stdout) == (1, "")
    assert proc.stderr == f"error: {path}: document 0 (0-based): expected a mapping (a Kubernetes object), " \
                          "got list: ['a', 'b']\n"


def test_a_malformed_flag_is_one_line_on_stderr_and_status_2() -> None:
    proc = volcano("run", str(FIXTURES / "mpi-job.yaml"), "--cpu", "abc")
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == ("error: argument --cpu: expected a Kubernetes quantity such as 4, 500m or 16Gi, "
                           "got 'abc' (see 'volcano run --help')\n")


def test_stdin_and_exit_status_0() -> None:
    proc = volcano("run", "-", "--seconds", "60", stdin=volcano_job("piped", duration="5s"))
    assert (proc.returncode, proc.stderr) == (0, "")
    assert proc.stdout.splitlines()[-1] == "every Volcano Job reached Completed (1 of 1) by t=8.000s"


def test_a_reader_that_leaves_early_ends_the_command_quietly(write: Writer) -> None:
    """``volcano run ... | head``: no traceback, status 141 (128 + SIGPIPE).

    The reading end is closed before the command can have written anything (it is
    still starting), so its first write meets a pipe without a reader."""
    path = write("job.yaml", volcano_job("short", duration="5s"))
    proc = subprocess.Popen([*VOLCANO, "run", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 141
    assert err == ""


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash (PIPESTATUS)")
def test_head_in_a_shell_pipeline(write: Writer) -> None:
    path = write("job.yaml", volcano_job("short", duration="5s"))
    command = " ".join([*VOLCANO, "run", path]) + " | head -1; echo \"status ${PIPESTATUS[0]}\""
    proc = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=120)
    assert proc.stdout.splitlines()[0] == "simulated time: 8.000s (limit 3600s)"
    assert proc.stdout.splitlines()[-1] in ("status 0", "status 141")  # 0: the report fit the pipe's buffer
    assert proc.stderr == ""
