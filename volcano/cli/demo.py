"""``volcano demo``: the seed scenarios under the default scheduler and under Volcano.

The demo redraws a progress line with ``\\r`` while a scenario runs. On a
terminal that is what the user sees; anywhere else (a pipe, a CI log) the
output goes through ``LogStream``, which keeps only the final state of each
redrawn line, so a log gets one line per scenario instead of a pile of them.
"""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path
from typing import Any, TextIO, cast

from volcano.cli.args import CliError

__all__ = ["LogStream", "register"]


class LogStream(io.TextIOBase):
    """A text stream for logs: ``\\r`` discards the unfinished line, ``\\n`` writes it out.

    ``isatty()`` is False, so writers that check it need not redraw at all.
    """

    def __init__(self, target: TextIO) -> None:
        super().__init__()
        self.target = target
        self._line = ""

    def write(self, text: str) -> int:
        """Buffer ``text``; write each completed line (its last ``\\r`` redraw) to the target."""
        for i, part in enumerate(text.split("\n")):
            if i:
                self.target.write(self._line.rstrip(" ") + "\n")
                self._line = ""
            self._line = (self._line + part).rpartition("\r")[2]
        return len(text)

    def flush(self) -> None:
        """Flush the target (an unfinished line stays buffered until its newline)."""
        self.target.flush()

    def isatty(self) -> bool:
        """Always False: this stream is for logs."""
        return False

    def close(self) -> None:
        """Write out an unfinished line and flush."""
        if self._line:
            self.target.write(self._line.rstrip(" ") + "\n")
            self._line = ""
        self.target.flush()
        super().close()


def register(sub: Any) -> None:
    """Add the ``demo`` sub-command to ``sub`` (an argparse sub-parsers object)."""
    demo = sub.add_parser("demo", help="run the seed scenarios on the in-memory cluster",
                          description="Run each seed scenario under the default scheduler and under Volcano, "
                                      "print a results table and write charts.")
    demo.add_argument("--out", default="out/demo", help="folder for the charts and the results table "
                      "(default: %(default)s)")
    demo.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    from volcano.demo import run_demo

    out = Path(args.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise CliError(args.out, f"cannot create the output folder: {err.strerror or err}") from None

    if sys.stdout.isatty():
        return int(run_demo(args.out, stream=sys.stdout))
    stream = LogStream(sys.stdout)
    try:
        return int(run_demo(args.out, stream=cast(TextIO, stream)))  # a text stream, as TextIO describes
    finally:
        stream.close()
