"""The ``volcano`` command-line entry point."""

from __future__ import annotations

import argparse
import sys

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """Parse arguments and run a sub-command; return the exit status."""
    parser = argparse.ArgumentParser(prog="volcano", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("demo", help="run the seed scenarios on the in-memory cluster")
    args = parser.parse_args(argv)
    if args.command == "demo":
        from volcano.demo import run_demo

        return int(run_demo())
    return 2


if __name__ == "__main__":
    sys.exit(main())
