"""``volcano demo``: the seed scenarios under the default scheduler and under Volcano."""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["register"]


def register(sub: Any) -> None:
    """Add the ``demo`` sub-command to ``sub`` (an argparse sub-parsers object)."""
    demo = sub.add_parser("demo", help="run the seed scenarios on the in-memory cluster")
    demo.add_argument("--out", default="out/demo", help="folder for the charts and the results table "
                      "(default: %(default)s)")
    demo.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    from volcano.demo import run_demo

    return int(run_demo(args.out))
