"""Helpers for the webhook tests: reading a child process's output lines with deadlines."""

from __future__ import annotations

import queue
import subprocess
import sys
import threading

VOLCANO = [sys.executable, "-c", "import sys; from volcano.cli import main; sys.exit(main(sys.argv[1:]))"]


class Lines:
    """A child process's stdout, read by a thread into a queue (no blocking read in the test)."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        self.proc = proc
        self.seen: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        stdout = proc.stdout

        def pump() -> None:
            for line in stdout:
                self._queue.put(line.rstrip("\n"))
            self._queue.put(None)

        self._thread = threading.Thread(target=pump, daemon=True)
        self._thread.start()

    def until(self, prefix: str, timeout: float = 60) -> list[str]:
        """The lines read up to and including the first that starts with ``prefix``."""
        start = len(self.seen)
        while True:
            line = self._queue.get(timeout=timeout)
            if line is None:
                err = self.proc.stderr.read() if self.proc.stderr else ""
                raise AssertionError(f"the process ended before {prefix!r}: {self.seen[start:]}\n{err}")
            self.seen.append(line)
            if line.startswith(prefix):
                return self.seen[start:]

    def finish(self, timeout: float = 30) -> tuple[str, str]:
        """Wait for the process; return the rest of stdout and all of stderr."""
        err = self.proc.stderr.read() if self.proc.stderr else ""
        self.proc.wait(timeout)
        self._thread.join(timeout)
        rest: list[str] = []
        while True:
            line = self._queue.get(timeout=timeout)
            if line is None:
                break
            rest.append(line)
        return "\n".join(rest), err
