"""``volcano conformance [--kubeconfig PATH] [pytest args]``: run the installed conformance suite.

Without ``--kubeconfig`` the cases run on the in-memory cluster (simulated time, about 20
seconds). With it they run against that cluster, which must have Volcano installed (the
``kubernetes`` client comes with ``pip install 'volcano[conformance]'``); the cluster is
checked once before any case runs, and an unreachable one is one error line and exit 1.
Every other argument goes to pytest unchanged (``-k gang``, ``-x``, ``--conformance-report
report.md``, ``--junitxml out.xml``, ``--time-scale S``); a ``--`` before them is allowed.
The exit status is pytest's (0 when every selected case passed).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["AREAS", "pytest_arguments", "register"]

AREAS = ("gang", "preemption", "reclaim", "fairshare", "podgroup_status", "job_lifecycle", "queue", "admission",
         "job_plugins", "scheduling_base", "slow")
"""The area markers of the suite's cases (registered here, as an installed package has no pytest ini)."""


def pytest_arguments(kubeconfig: str | None, extra: Sequence[str]) -> list[str]:
    """The pytest command line that runs the installed suite against ``kubeconfig`` (None: in memory)."""
    args = ["--pyargs", "volcano.conformance", "-p", "no:cacheprovider"]
    if kubeconfig is not None:
        args += ["--backend", "kubeconfig", "--kubeconfig", kubeconfig]
    return args + [a for i, a in enumerate(extra) if not (i == 0 and a == "--")]


class _Markers:
    """A pytest plugin object registering the area markers."""

    @staticmethod
    def pytest_configure(config: Any) -> None:
        for area in AREAS:
            config.addinivalue_line("markers", f"{area}: conformance area")


def register(sub: Any) -> None:
    """Add the ``conformance`` sub-command to ``sub`` (an argparse sub-parsers object)."""
    parser = sub.add_parser(
        "conformance", help="run the conformance suite (in memory, or against a cluster with --kubeconfig)",
        description="Run the Volcano conformance suite. Arguments other than --kubeconfig go to pytest.",
        epilog="example: volcano conformance --kubeconfig ~/.kube/config -k 'gang or reclaim' -x")
    parser.add_argument("--kubeconfig", metavar="PATH", default=None,
                        help="run against the cluster of this kubeconfig (default: the in-memory cluster)")
    parser.set_defaults(handler=_run, pytest_args=[])
    plain = parser.parse_known_args

    def parse_known_args(args: Sequence[str] | None = None,
                         namespace: argparse.Namespace | None = None) -> tuple[argparse.Namespace, list[str]]:
        # Everything this parser does not know is pytest's: keep it instead of refusing it.
        ns, rest = plain(args, namespace)
        ns.pytest_args = [*getattr(ns, "pytest_args", []), *rest]
        return ns, []

    parser.parse_known_args = parse_known_args


def _run(args: argparse.Namespace) -> int:
    try:
        import pytest
    except ImportError:
        sys.stderr.write("error: the conformance suite needs pytest: pip install 'volcano[conformance]'\n")
        return 1
    kubeconfig = args.kubeconfig
    if kubeconfig is not None:
        kubeconfig = os.path.expanduser(kubeconfig)
        if not Path(kubeconfig).is_file():
            sys.stderr.write(f"error: {kubeconfig}: no such kubeconfig file\n")
            return 1
        from volcano.conformance.backends.kube import kube_unavailable_reason

        reason = kube_unavailable_reason(kubeconfig)
        if reason:
            sys.stderr.write(f"error: {kubeconfig}: {reason}\n")
            return 1
    return int(pytest.main(pytest_arguments(kubeconfig, args.pytest_args), plugins=[_Markers()]))
