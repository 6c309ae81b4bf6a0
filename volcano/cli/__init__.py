"""The ``volcano`` command: one sub-command per module of this package.

Each sub-command module exposes ``register(subparsers)``, which adds its parser
and sets ``handler`` (``fn(args) -> exit status``) as the parser default.
``main`` parses the arguments and calls the chosen handler; adding a command is
one module plus one line in ``_COMMANDS``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from importlib import import_module

__all__ = ["main"]

_COMMANDS = ("demo", "run", "serve", "scheduler", "controllers", "nodes")
"""Sub-command modules of this package, in the order ``--help`` lists them."""


def build_parser() -> argparse.ArgumentParser:
    """The ``volcano`` argument parser with every sub-command registered."""
    parser = argparse.ArgumentParser(
        prog="volcano",
        description="Volcano batch scheduling on a deterministic fake Kubernetes cluster.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in _COMMANDS:
        module = import_module(f"volcano.cli.{name}")
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv`` (default: ``sys.argv[1:]``), run the sub-command, return its exit status."""
    args = build_parser().parse_args(argv)
    handler: Callable[[argparse.Namespace], int] = args.handler
    return int(handler(args))


if __name__ == "__main__":
    sys.exit(main())
