"""The ``vcctl`` console script: upstream vcctl's commands and flags, on argparse.

``main(argv)`` runs one command and returns the exit status: 0, or 255 after printing
``Failed to <command> <group>: <message>`` on standard output (upstream's ``CheckError``, which
exits with -1), for a missing flag, a refused request or an unreachable server. Flags are upstream's,
short forms included (``job``: ``-n`` namespace, ``-N`` name; ``queue``: ``-n`` name); every command
takes ``--master/-s`` and ``--kubeconfig/-k``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import platform
import sys
from collections.abc import Callable
from typing import Any, TextIO

from volcano.vcctl import jobs, queues
from volcano.vcctl.client import VcctlError, api_message, connect, is_api_error

__all__ = ["build_parser", "main", "version_lines"]

Handler = Callable[[argparse.Namespace, Any, TextIO, dt.datetime], None]


def _group(sub: Any, name: str, text: str) -> Any:
    """Command group ``name`` (``job``, ``queue``); its sub-commands are the verbs."""
    return sub.add_parser(name, help=text).add_subparsers(dest="verb", required=True, metavar="COMMAND")


def _verb(group: Any, name: str, text: str, run: Handler) -> argparse.ArgumentParser:
    """Verb ``name`` of ``group``, handled by ``run``, with the flags every command takes."""
    p: argparse.ArgumentParser = group.add_parser(name, help=text)
    p.add_argument("-s", "--master", default="", help="the address of apiserver")
    p.add_argument("-k", "--kubeconfig", default="", help="(optional) absolute path to the kubeconfig file")
    p.set_defaults(run=run)
    return p


def _job_commands(sub: Any) -> None:
    job = _group(sub, "job", "vcctl command line operation job")
    p = _verb(job, "run", "run job by parameters from the command line", jobs.run)
    p.add_argument("-i", "--image", default="busybox", help="the container image of job")
    p.add_argument("-n", "--namespace", default="default", help="the namespace of job")
    p.add_argument("-N", "--name", default="", help="the name of job")
    p.add_argument("-m", "--min", type=int, default=1, help="the minimal available tasks of job")
    p.add_argument("-r", "--replicas", type=int, default=1, help="the total tasks of job")
    p.add_argument("-R", "--requests", default="cpu=1000m,memory=100Mi", help="the resource request of the task")
    p.add_argument("-L", "--limits", default="cpu=1000m,memory=100Mi", help="the resource limit of the task")
    p.add_argument("-S", "--scheduler", default="volcano", help="the scheduler for this job")
    p.add_argument("-f", "--filename", default="", help="the yaml file of job")
    p = _verb(job, "list", "list job information", jobs.list_jobs)
    p.add_argument("-q", "--queue", default="", help="list job with specified queue name")
    p.add_argument("-n", "--namespace", default="default", help="the namespace of job")
    p.add_argument("-S", "--scheduler", default="", help="list job with specified scheduler name")
    p.add_argument("--all-namespaces", action="store_true", help="list jobs in all namespaces")
    p.add_argument("--selector", default="", help="fuzzy matching jobName")
    for name, text, fn in (("view", "show job information", jobs.view), ("suspend", "abort a job", jobs.suspend),
                           ("resume", "resume a job", jobs.resume), ("delete", "delete a job", jobs.delete)):
        p = _verb(job, name, text, fn)
        p.add_argument("-n", "--namespace", default="default", help="the namespace of job")
        p.add_argument("-N", "--name", default="", help="the name of job")


def _queue_commands(sub: Any) -> None:
    queue = _group(sub, "queue", "Queue Operations")
    p = _verb(queue, "create", "creates queue", queues.create)
    p.add_argument("-n", "--name", default="test", help="the name of queue")
    p.add_argument("-w", "--weight", type=int, default=1, help="the weight of the queue")
    p.add_argument("-S", "--state", default="Open", help="the state of queue")
    for name, text, fn in (("delete", "delete queue", queues.delete), ("get", "get a queue", queues.get)):
        p = _verb(queue, name, text, fn)
        p.add_argument("-n", "--name", default="", help="the name of queue")
    _verb(queue, "list", "lists all the queue", queues.list_queues)
    p = _verb(queue, "operate", "operate queue", queues.operate)
    p.add_argument("-n", "--name", default="", help="the name of queue")
    p.add_argument("-w", "--weight", type=int, default=0, help="the weight of the queue")
    p.add_argument("-a", "--action", default="",
                   help="operate action to queue, valid actions are open, close, update")


def version_lines() -> list[str]:
    """What ``vcctl version`` prints: upstream's lines, with this implementation's version and runtime."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        ours = version("volcano")
    except PackageNotFoundError:  # pragma: no cover - run from a source tree without installing
        ours = "Not provided."
    return ["API Version: v1alpha1", f"Version: {ours}", "Git SHA: Not provided.", "Built At: Not provided.",
            f"Python Version: {platform.python_version()}",
            f"Python OS/Arch: {sys.platform}/{platform.machine()}"]


def build_parser() -> argparse.ArgumentParser:
    """The ``vcctl`` argument parser."""
    parser = argparse.ArgumentParser(prog="vcctl", description="Volcano's command-line tool.")
    sub = parser.add_subparsers(dest="group", required=True, metavar="COMMAND")
    _job_commands(sub)
    _queue_commands(sub)
    sub.add_parser("version", help="Print the version information")
    return parser


def main(argv: list[str] | None = None, out: TextIO | None = None) -> int:
    """Run ``vcctl`` with ``argv`` (default ``sys.argv[1:]``), writing to ``out``; return the exit status."""
    out = out or sys.stdout
    args = build_parser().parse_args(argv)
    if args.group == "version":
        out.write("".join(f"{line}\n" for line in version_lines()))
        return 0
    handler: Handler = args.run
    command, verb = args.group, args.verb
    try:
        api = connect(args.master, args.kubeconfig)
        with api:
            handler(args, api, out, dt.datetime.now(dt.UTC))
    except VcctlError as exc:
        out.write(f"Failed to {verb} {command}: {exc}\n")
        return 255
    except Exception as exc:
        if not is_api_error(exc):
            raise
        out.write(f"Failed to {verb} {command}: {api_message(exc)}\n")
        return 255
    return 0


if __name__ == "__main__":
    sys.exit(main())
