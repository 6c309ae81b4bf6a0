"""``volcano run MANIFEST...``: apply manifests to a fresh in-memory cluster and show the outcome.

It runs the cluster and prints what happened (jobs, PodGroups, pods, events):
a way to try a job spec or a scheduler configuration before it reaches a real
cluster.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Sequence
from typing import Any, TextIO

__all__ = ["register", "run_manifests"]


def _phase(obj: dict[str, Any]) -> str:
    status = obj.get("status") or {}
    return str((status.get("state") or {}).get("phase") or status.get("phase") or "")


def run_manifests(paths: Sequence[str], *, nodes: int, cpu: str, memory: str, gpu: int, seconds: float,
                  scheduler_conf: str | None, seed: int, out: TextIO) -> int:
    """Apply ``paths`` to a fresh cluster of ``nodes`` nodes, run ``seconds`` of simulated time
    (stopping early once every Volcano Job has finished), and print the outcome. Returns 0, or 1
    when a manifest is rejected (the message names the object and the reason)."""
    from volcano.apiserver import ApiError
    from volcano.testbed import FakeCluster

    cluster = FakeCluster(seed=seed, scheduler_conf=scheduler_conf)
    cluster.add_nodes(nodes, cpu=cpu, memory=memory, gpu=gpu)
    for path in paths:
        try:
            cluster.apply(path)
        except ApiError as err:
            out.write(f"error: {path}: {err.message}\n")
            return 1
        cluster.run(1)

    def finished(c: FakeCluster) -> bool:
        jobs = c.list("Job")
        return bool(jobs) and all(_phase(j) in ("Completed", "Failed", "Terminated", "Aborted") for j in jobs)

    with contextlib.suppress(TimeoutError):
        cluster.run_until(finished, timeout=seconds)
    out.write(f"simulated time: {cluster.now:.0f}s\n\n")
    for kind in ("Job", "PodGroup", "Pod"):
        objs = cluster.list(kind)
        if not objs:
            continue
        out.write(f"{kind}s:\n")
        for obj in objs:
            meta = obj["metadata"]
            node = (obj.get("spec") or {}).get("nodeName", "") if kind == "Pod" else ""
            out.write(f"  {meta.get('namespace', '')}/{meta['name']}  {_phase(obj)}  {node}\n")
            for cond in (obj.get("status") or {}).get("conditions") or []:
                if kind == "PodGroup" and cond.get("message"):
                    out.write(f"      {cond['type']}: {cond['message']}\n")
        out.write("\n")
    events = sorted(cluster.events(), key=lambda e: (e.get("firstTimestamp") or "", e["metadata"]["name"]))
    if events:
        out.write("Events:\n")
        for e in events:
            inv = e["involvedObject"]
            out.write(f"  {e.get('type', '')} {e.get('reason', '')} {inv.get('kind')}/{inv.get('name')} "
                      f"(x{e.get('count', 1)}): {e.get('message', '')}\n")
    return 0


def register(sub: Any) -> None:
    """Add the ``run`` sub-command to ``sub`` (an argparse sub-parsers object)."""
    run = sub.add_parser("run", help="apply manifests to a fresh in-memory cluster and show what happens")
    run.add_argument("manifests", nargs="+", help="YAML files or folders, applied in order")
    run.add_argument("--nodes", type=int, default=4)
    run.add_argument("--cpu", default="8")
    run.add_argument("--memory", default="32Gi")
    run.add_argument("--gpu", type=int, default=0)
    run.add_argument("--seconds", type=float, default=3600, help="simulated seconds to run at most")
    run.add_argument("--scheduler-conf", default=None, help="Volcano scheduler configuration YAML file")
    run.add_argument("--seed", type=int, default=0)
    run.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    return run_manifests(args.manifests, nodes=args.nodes, cpu=args.cpu, memory=args.memory, gpu=args.gpu,
                         seconds=args.seconds, scheduler_conf=args.scheduler_conf, seed=args.seed, out=sys.stdout)
