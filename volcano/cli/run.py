"""``volcano run MANIFEST...``: apply manifests to a fresh in-memory cluster and show the outcome.

A way to try a job spec or a scheduler configuration before it reaches a real
cluster, and a check fit for CI:

1. Every manifest (files, folders, ``-`` for stdin) is read and validated
   first; one bad file stops the command, naming that file, with nothing applied.
2. The objects are applied one after another, in order, each after the
   controllers have handled the previous one (in zero simulated time), as
   ``kubectl apply`` against a real cluster nearly always sees it.
3. The cluster runs until every Volcano Job has reached one of the ``--expect``
   phases (default ``Completed``), or every Job has ended in another phase, or
   ``--seconds`` of simulated time have passed.
4. The report (``volcano.cli.report``) lists Jobs with their counts, PodGroups
   with their conditions, pods with their nodes and every event with its
   simulated time, then one line saying why the run stopped.

Exit status: 0 when every Volcano Job reached an expected phase (or there is no
Job: the cluster then runs the whole ``--seconds``); 1 otherwise, or when a
manifest or the scheduler configuration is refused; 2 for a malformed flag.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

from volcano.cli import args as types
from volcano.cli.args import CliError
from volcano.cli.inputs import ManifestFile, load_manifest_args, read_text
from volcano.cli.observe import RunRecorder, job_phase

if TYPE_CHECKING:
    from volcano.testbed import FakeCluster

__all__ = ["JOB_PHASES", "TERMINAL_PHASES", "RunOutcome", "expect_phases", "register", "run_manifests"]

JOB_PHASES = ("Pending", "Aborting", "Aborted", "Running", "Restarting", "Completing", "Completed",
              "Terminating", "Terminated", "Failed")
"""The phases of a Volcano Job (``status.state.phase``)."""

TERMINAL_PHASES = frozenset({"Completed", "Failed", "Terminated", "Aborted"})
"""Phases a Job leaves only by a user's command: a run stops once every Job is in one."""


@dataclass
class RunOutcome:
    """How a run ended. ``reason``: ``reached`` (every Job reached an expected phase),
    ``ended`` (every Job ended, some in another phase), ``time-limit`` (``--seconds``
    ran out first) or ``no-jobs`` (nothing to wait for). ``missing``: the Jobs
    (``namespace/name``) that did not reach an expected phase."""

    code: int
    reason: str
    message: str
    missing: list[str]


def expect_phases(text: str) -> list[str]:
    """Argument type of ``--expect``: comma-separated Volcano Job phases."""
    phases = [p.strip() for p in text.split(",") if p.strip()]
    if not phases:
        raise argparse.ArgumentTypeError(f"expected one or more Job phases, got {text!r}")
    by_lower = {p.lower(): p for p in JOB_PHASES}
    out = []
    for phase in phases:
        if phase.lower() not in by_lower:
            raise argparse.ArgumentTypeError(f"unknown Job phase {phase!r}: expected one of {', '.join(JOB_PHASES)}")
        out.append(by_lower[phase.lower()])
    return out


def _job_key(job: dict[str, Any]) -> str:
    meta = job.get("metadata") or {}
    return f"{meta.get('namespace') or 'default'}/{meta.get('name', '')}"


class _Settled:
    """The stop condition: every Volcano Job reached an expected phase, is in a terminal one or
    was deleted."""

    def __init__(self, recorder: RunRecorder, expect: Sequence[str]) -> None:
        self.recorder = recorder
        self.expect = set(expect)

    def __call__(self, cluster: FakeCluster) -> bool:
        jobs = self.recorder.jobs
        return bool(jobs) and all(self.recorder.reached(key) & self.expect or job_phase(job) in TERMINAL_PHASES
                                  or key in self.recorder.deleted for key, job in jobs.items())


def _new_cluster(nodes: int, cpu: str, memory: str, gpu: int, scheduler_conf: str | None, seed: int) -> FakeCluster:
    from volcano.scheduler.config import SchedulerConfError
    from volcano.testbed import FakeCluster

    conf = None if scheduler_conf is None else read_text(scheduler_conf) + "\n"  # the newline: text, not a path
    try:
        cluster = FakeCluster(seed=seed, scheduler_conf=conf)
    except SchedulerConfError as err:
        raise CliError(str(scheduler_conf), str(err).removeprefix("scheduler configuration: ")) from None
    cluster.add_nodes(nodes, cpu=cpu, memory=memory, gpu=gpu)
    return cluster


def _apply(cluster: FakeCluster, files: Sequence[ManifestFile]) -> None:
    """Apply every object in order, letting the controllers handle each before the next."""
    from volcano.apiserver import ApiError

    for file in files:
        for obj in file.objects:
            try:
                cluster.apply(obj)
            except ApiError as err:
                raise CliError(file.name, err.message) from None
            cluster.run(0)


def _verdict(cluster: FakeCluster, recorder: RunRecorder, expect: Sequence[str], seconds: float,
             timed_out: bool) -> RunOutcome:
    jobs = [job for _key, job in sorted(recorder.jobs.items())]
    wanted = " or ".join(expect)
    if not jobs:
        return RunOutcome(0, "no-jobs", f"no Volcano Job to wait for: ran {seconds:g} simulated seconds", [])
    missing = [j for j in jobs if not recorder.reached(_job_key(j)) & set(expect)]
    names = [_job_key(j) for j in missing]
    listed = ", ".join(f"{_job_key(j)} ({job_phase(j) or 'no phase'}"
                       f"{', deleted' if _job_key(j) in recorder.deleted else ''})" for j in missing)
    if not missing:
        return RunOutcome(0, "reached", f"every Volcano Job reached {wanted} ({len(jobs)} of {len(jobs)}) "
                                        f"by t={cluster.now:.3f}s", [])
    if timed_out:
        return RunOutcome(1, "time-limit", f"time limit of {seconds:g} simulated seconds reached: "
                                           f"{len(missing)} of {len(jobs)} Volcano Jobs not {wanted}: {listed}", names)
    return RunOutcome(1, "ended", f"{len(missing)} of {len(jobs)} Volcano Jobs ended without reaching {wanted}: "
                                  f"{listed}", names)


def run_manifests(paths: Sequence[str], *, nodes: int = 4, cpu: str = "8", memory: str = "32Gi", gpu: int = 0,
                  seconds: float = 3600, scheduler_conf: str | None = None, seed: int = 0,
                  expect: Sequence[str] = ("Completed",), output: str = "text", timeline: str | None = None,
                  out: TextIO | None = None, stdin: TextIO | None = None) -> int:
    """Run ``paths`` as described in the module docstring; write the report to ``out`` (default
    stdout) as ``output`` (``text`` or ``json``), the chart to ``timeline``; return the exit status.

    Raises ``CliError`` for an unreadable or refused manifest or scheduler configuration, or a
    chart that cannot be drawn."""
    from volcano.cli.report import render_json, render_text

    out = sys.stdout if out is None else out
    files = load_manifest_args(paths, sys.stdin if stdin is None else stdin)
    cluster = _new_cluster(nodes, cpu, memory, gpu, scheduler_conf, seed)
    recorder = RunRecorder(cluster)
    _apply(cluster, files)
    timed_out = False
    try:
        cluster.run_until(_Settled(recorder, expect), timeout=seconds)
    except TimeoutError:
        timed_out = True
    recorder.close()
    outcome = _verdict(cluster, recorder, expect, seconds, timed_out)
    if timeline is not None:
        from volcano.cli.timeline import write_timeline

        write_timeline(timeline, recorder.spans, [n["metadata"]["name"] for n in cluster.list("Node")], cluster.now)
    render = render_json if output == "json" else render_text
    out.write(render(cluster, recorder, outcome, expect=expect, seconds=seconds))
    out.flush()
    return outcome.code


_EPILOG = """\
examples:
  volcano run job.yaml                          wait until every Volcano Job is Completed
  volcano run queue.yaml jobs/ --expect Running wait until every Job has been Running
  cat job.yaml | volcano run - -o json          read stdin, report as JSON
  volcano run job.yaml --timeline out.png       also chart the pods of each node over time

Errors are one line on stderr, error: <file>: <message>; nothing is applied when
a file is malformed."""


def register(sub: Any) -> None:
    """Add the ``run`` sub-command to ``sub`` (an argparse sub-parsers object)."""
    run = sub.add_parser(
        "run", help="apply manifests to a fresh in-memory cluster and report what happened",
        description="Apply manifests to a fresh in-memory cluster, run it in simulated time and report\n"
                    "Jobs, PodGroups, pods and events. Exit status 0 only when every Volcano Job reached\n"
                    "an expected phase (--expect); 1 otherwise or on a refused manifest; 2 on a bad flag.",
        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    run.add_argument("manifests", nargs="+", metavar="MANIFEST",
                     help="YAML or JSON file, folder (its *.yaml, *.yml, *.json files) or - for stdin; "
                          "applied in order")
    run.add_argument("--nodes", type=types.count, default=4, help="number of nodes (default: %(default)s)")
    run.add_argument("--cpu", type=types.quantity, default="8", help="CPUs per node (default: %(default)s)")
    run.add_argument("--memory", type=types.quantity, default="32Gi", help="memory per node (default: %(default)s)")
    run.add_argument("--gpu", type=types.count, default=0, help="nvidia.com/gpu per node (default: %(default)s)")
    run.add_argument("--seconds", type=types.seconds, default=3600.0,
                     help="simulated seconds to run at most (default: %(default)g)")
    run.add_argument("--expect", type=expect_phases, action="append", metavar="PHASE[,PHASE]",
                     help="Job phase(s) that count as success; repeatable (default: Completed)")
    run.add_argument("--scheduler-conf", metavar="FILE", default=None,
                     help="Volcano scheduler configuration (YAML, or the volcano-scheduler-configmap) "
                          "(default: Volcano's built-in configuration)")
    run.add_argument("--seed", type=int, default=0, help="seed of every random choice (default: %(default)s)")
    run.add_argument("-o", "--output", choices=("text", "json"), default="text",
                     help="report format (default: %(default)s)")
    run.add_argument("--timeline", metavar="PNG", default=None,
                     help="also draw the running pods of each node over time to this PNG; needs matplotlib "
                          "(default: no chart)")
    run.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    expect = [phase for group in (args.expect or [["Completed"]]) for phase in group]
    return run_manifests(args.manifests, nodes=args.nodes, cpu=args.cpu, memory=args.memory, gpu=args.gpu,
                         seconds=args.seconds, scheduler_conf=args.scheduler_conf, seed=args.seed,
                         expect=list(dict.fromkeys(expect)), output=args.output, timeline=args.timeline)
