"""``volcano replay [TRACE.csv]``: replay a job trace on a fresh in-memory GPU cluster and report.

Without a trace, a seeded synthetic one is drawn (``volcano.replay.trace``:
``--jobs`` jobs over ``--hours`` on ``--nodes`` nodes, Poisson arrivals,
heavy-tailed gang sizes and durations, four weighted queues). With one, the
CSV's rows are the jobs (columns ``submit_s,gang_size,cpu,memory,gpu,duration_s,queue``).

The report (``volcano.replay.report``) goes to ``--out``: ``report.json`` and
``gpu-utilisation.png``; a summary is printed (or the JSON with ``-o json``).

Exit status: 0 when the replay ran; 1 when the trace, the scheduler
configuration or the output folder is refused (one line ``error: <where>:
<message>`` on stderr, nothing runs); 2 for a malformed flag.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from pathlib import Path
from typing import Any

from volcano.cli import args as types
from volcano.cli.args import CliError

__all__ = ["hours", "queue_weight", "register"]

_QUEUE_NAME = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")

_EPILOG = """\
examples:
  volcano replay                                   the synthetic day: 1,000 nodes x 8 GPUs, 20,000 jobs
  volcano replay --nodes 50 --jobs 500 --hours 2   a small synthetic trace
  volcano replay trace.csv --nodes 100 --queue prod=4 --queue dev=1
  volcano replay --jobs 100 --write-trace t.csv --seconds 1   write the synthetic trace to edit it

A trace CSV has a header row with the columns submit_s, gang_size, cpu, memory,
gpu, duration_s and queue (name optional); a bad row is one line on stderr,
error: <file>: line N, column C: <message>."""


def queue_weight(text: str) -> tuple[str, int]:
    """Argument type of ``--queue``: ``NAME=WEIGHT`` with a whole weight >= 1."""
    name, sep, weight = text.partition("=")
    if not sep or not _QUEUE_NAME.match(name) or not weight.isdigit() or int(weight) < 1:
        raise argparse.ArgumentTypeError(f"expected NAME=WEIGHT with a whole weight >= 1, got {text!r}")
    return name, int(weight)


def hours(text: str) -> float:
    """Argument type of ``--hours``: a finite number > 0."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"expected a number of hours > 0, got {text!r}")
    return value


def _positive(kind: Any) -> Any:
    def parse(text: str) -> Any:
        value = kind(text)
        if value == 0:
            raise argparse.ArgumentTypeError(f"expected a value > 0, got {text!r}")
        return value
    parse.__name__ = kind.__name__
    return parse


def register(sub: Any) -> None:
    """Add the ``replay`` sub-command to ``sub`` (an argparse sub-parsers object)."""
    p = sub.add_parser(
        "replay", help="replay a job trace (synthetic or CSV) on an in-memory GPU cluster and report",
        description="Replay a job trace on a fresh in-memory cluster of GPU nodes and report simulated\n"
                    "seconds per wall second, jobs completed, queueing delays and GPU utilisation.\n"
                    "Exit status 0 when the replay ran; 1 on a refused trace or configuration; 2 on a bad flag.",
        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("trace", nargs="?", metavar="TRACE.csv", default=None,
                   help="the trace to replay (default: a synthetic trace drawn from --seed)")
    p.add_argument("--nodes", type=_positive(types.count), default=1000, help="number of nodes (default: %(default)s)")
    p.add_argument("--gpus-per-node", type=types.count, default=8, help="GPUs per node (default: %(default)s)")
    p.add_argument("--cpu", type=types.quantity, default="96", help="CPUs per node (default: %(default)s)")
    p.add_argument("--memory", type=types.quantity, default="768Gi", help="memory per node (default: %(default)s)")
    p.add_argument("--hours", type=hours, default=24.0,
                   help="synthetic trace: simulated hours of arrivals (default: %(default)g)")
    p.add_argument("--jobs", type=types.count, default=20000, help="synthetic trace: number of jobs "
                   "(default: %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="seed of the synthetic trace and of the cluster "
                   "(default: %(default)s)")
    p.add_argument("--seconds", type=types.seconds, default=None,
                   help="simulated seconds to run (default: --hours for a synthetic trace, the last submit "
                        "time for a CSV); the replay stops earlier once every job has finished")
    p.add_argument("--mode", choices=("podgroup", "job"), default="podgroup",
                   help="submit each job as a PodGroup and its pods, or as a Volcano Job (default: %(default)s)")
    p.add_argument("--queue", type=queue_weight, action="append", metavar="NAME=WEIGHT", default=None,
                   help="weight of a queue; repeatable (default: prod=4 research=3 dev=2 batch=1 for the "
                        "synthetic trace, 1 for every queue of a CSV)")
    p.add_argument("--scheduler-conf", metavar="FILE", default=None,
                   help="Volcano scheduler configuration (default: Volcano's built-in configuration)")
    p.add_argument("--out", default="out/replay", help="folder for report.json and gpu-utilisation.png "
                   "(default: %(default)s)")
    p.add_argument("--write-trace", metavar="CSV", default=None,
                   help="also write the replayed trace as CSV to this file (default: not written)")
    p.add_argument("-o", "--output", choices=("text", "json"), default="text",
                   help="what to print: a summary or the report as JSON (default: %(default)s)")
    p.set_defaults(handler=_run)


def _trace(args: argparse.Namespace) -> list[Any]:
    from volcano.replay import SyntheticSpec, TraceError, read_trace, synthetic_trace

    if args.trace is None:
        return synthetic_trace(args.seed, SyntheticSpec(nodes=args.nodes, gpus_per_node=max(1, args.gpus_per_node),
                                                        hours=args.hours, jobs=args.jobs))
    try:
        return read_trace(args.trace)
    except TraceError as err:
        raise CliError(args.trace, str(err)) from None
    except (OSError, UnicodeDecodeError) as err:
        raise CliError(args.trace, f"cannot read the trace: {getattr(err, 'strerror', None) or err}") from None


def _progress(now_s: float, finished: int, total: int) -> None:
    sys.stderr.write(f"\rsimulated {now_s:,.0f} s, {finished:,} of {total:,} jobs finished ")
    sys.stderr.flush()


def _run(args: argparse.Namespace) -> int:
    from volcano.replay import DEFAULT_QUEUES, ReplayConfig, build_report, plot_utilisation, render_summary, replay
    from volcano.scheduler.config import SchedulerConfError, load_scheduler_conf

    conf = None
    if args.scheduler_conf is not None:
        from volcano.cli.inputs import read_text

        conf = read_text(args.scheduler_conf) + "\n"  # the newline: text, not a path
        try:
            load_scheduler_conf(conf)
        except SchedulerConfError as err:
            raise CliError(args.scheduler_conf, str(err).removeprefix("scheduler configuration: ")) from None
    out = Path(args.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise CliError(args.out, f"cannot create the output folder: {err.strerror or err}") from None
    trace = _trace(args)
    if args.write_trace is not None:
        from volcano.replay import write_trace

        try:
            write_trace(trace, args.write_trace)
        except OSError as err:
            raise CliError(args.write_trace, f"cannot write the trace: {err.strerror or err}") from None
    weights = dict(DEFAULT_QUEUES) if args.trace is None else {}
    weights.update(dict(args.queue or ()))
    seconds = args.seconds if args.seconds is not None else (args.hours * 3600 if args.trace is None else None)
    config = ReplayConfig(nodes=args.nodes, gpus_per_node=args.gpus_per_node, cpu=args.cpu, memory=args.memory,
                          seed=args.seed, scheduler_conf=conf, mode=args.mode, queue_weights=weights, seconds=seconds)
    try:
        result = replay(trace, config, progress=_progress if sys.stderr.isatty() else None)
    except ValueError as err:
        raise CliError(args.trace or "--nodes", str(err)) from None
    if sys.stderr.isatty():
        sys.stderr.write("\n")
    report = build_report(result)
    (out / "report.json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    chart = out / "gpu-utilisation.png"
    try:
        plot_utilisation(report, chart)
    except ImportError:
        chart = None  # type: ignore[assignment]
    if args.output == "json":
        sys.stdout.write(json.dumps(report) + "\n")
    else:
        sys.stdout.write(render_summary(report) + "\n")
        sys.stdout.write(f"report: {out / 'report.json'}" + (f", chart: {chart}" if chart else "") + "\n")
    sys.stdout.flush()
    return 0
