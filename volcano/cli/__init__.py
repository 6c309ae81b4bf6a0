"""The ``volcano`` command: one sub-command per module of this package.

Each sub-command module exposes ``register(subparsers)``, which adds its parser
and sets ``handler`` (``fn(args) -> exit status``) as the parser default.
``main`` parses the arguments and calls the chosen handler; adding a command is
one module plus one line in ``_COMMANDS``.

Exit statuses and error output, for every command:

- 0 success; 1 a failure the command reports (bad manifest, rejected object,
  a run that did not reach the expected phases); 2 a usage error (unknown or
  malformed flag);
- an error is one line on stderr, ``error: <where>: <message>`` (``<where>`` is
  the file, ``<stdin>`` or the flag), never a traceback;
- a closed stdout (``volcano run ... | head``) ends the command quietly with
  status 141 (128 + SIGPIPE, as coreutils do); Ctrl-C with 130.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from importlib import import_module
from typing import NoReturn

from volcano.cli.args import CliError

__all__ = ["CliError", "VolcanoArgumentParser", "build_parser", "main"]

_COMMANDS = ("demo", "run", "replay", "serve", "scheduler", "controllers", "nodes", "webhooks",
             "conformance")
"""Sub-command modules of this package, in the order ``--help`` lists them."""

EXIT_BROKEN_PIPE = 141
"""Exit status when stdout is closed early (128 + SIGPIPE)."""


class VolcanoArgumentParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose usage errors are one ``error: ...`` line on stderr, exit 2.

    Sub-parsers made with ``add_parser`` inherit the class, so every command
    reports malformed flags the same way.
    """

    def error(self, message: str) -> NoReturn:
        """Print ``error: <message> (see '<prog> --help')`` on stderr and exit with status 2."""
        self.exit(2, f"error: {message} (see '{self.prog} --help')\n")


def build_parser() -> argparse.ArgumentParser:
    """The ``volcano`` argument parser with every sub-command registered."""
    parser = VolcanoArgumentParser(
        prog="volcano",
        description="Volcano batch scheduling on a deterministic fake Kubernetes cluster.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in _COMMANDS:
        module = import_module(f"volcano.cli.{name}")
        module.register(sub)
    return parser


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's final flush does not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # not a real file (captured output): nothing to do
        pass


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv`` (default: ``sys.argv[1:]``), run the sub-command, return its exit status.

    ``CliError`` from a handler becomes its one-line message on stderr and status 1.
    """
    args = build_parser().parse_args(argv)
    handler: Callable[[argparse.Namespace], int] = args.handler
    try:
        return int(handler(args))
    except CliError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
