"""``volcano nodes``: simulated kubelets for fake nodes on a real control plane, as kwok does.

It registers ``--count`` Nodes named ``<prefix>0`` ... with ``--cpu``,
``--memory``, ``--gpu`` and ``--pods`` as capacity and allocatable, a Ready
condition and Lease heartbeats in ``kube-node-lease``, and runs the pods bound
to them by their ``sim.volcano.sh/*`` annotations on the wall clock
(``sim.volcano.sh/duration``, ``progress``, ``exit-code``), reporting pod
status as a kubelet does. The Nodes stay when it stops (SIGINT/SIGTERM), as
with a real kubelet; their Leases then expire.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["register"]


def register(sub: Any) -> None:
    """Add the ``nodes`` sub-command to ``sub`` (an argparse sub-parsers object)."""
    from volcano.kube.flags import add_connection_flags, duration_ms

    p = sub.add_parser("nodes", help="simulated kubelets for fake nodes on a Kubernetes API server (kubeconfig)")
    add_connection_flags(p, qps=100.0, burst=200)
    p.add_argument("--count", type=int, required=True, help="number of nodes")
    p.add_argument("--cpu", default="8", help="cpu of each node (default 8)")
    p.add_argument("--memory", default="32Gi", help="memory of each node (default 32Gi)")
    p.add_argument("--gpu", type=int, default=0, help="nvidia.com/gpu of each node (default 0)")
    p.add_argument("--pods", type=int, default=110, help="pod capacity of each node (default 110)")
    p.add_argument("--prefix", default="sim-node-", help="node name prefix (default sim-node-)")
    p.add_argument("--start-delay", type=duration_ms, default=1000, metavar="DURATION",
                   help="from a pod bound to its containers running (default 1s)")
    p.add_argument("--lease-renew-interval", type=duration_ms, default=10_000, metavar="DURATION",
                   help="node Lease heartbeat period (default 10s, the kubelet's)")
    p.add_argument("--node-status-report", type=duration_ms, default=300_000, metavar="DURATION",
                   help="Ready condition heartbeat period (default 5m, the kubelet's)")
    p.add_argument("--label", dest="labels", action="append", default=[], metavar="KEY=VALUE",
                   help="a label of every node; repeatable")
    p.add_argument("--taint", dest="taints", action="append", default=[], metavar="KEY[=VALUE]:EFFECT",
                   help="a taint of every node (NoSchedule, PreferNoSchedule, NoExecute); repeatable")
    p.add_argument("--seed", type=int, default=0, help="seed of the kubelet's random stream (container ids)")
    p.set_defaults(handler=_nodes)


_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def _label(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise ValueError(f"--label {text!r}: expected KEY=VALUE")
    return key, value


def _taint(text: str) -> dict[str, str]:
    head, sep, effect = text.rpartition(":")
    key, _, value = head.partition("=")
    if not sep or not key or effect not in _EFFECTS:
        raise ValueError(f"--taint {text!r}: expected KEY[=VALUE]:EFFECT with EFFECT one of {', '.join(_EFFECTS)}")
    return {"key": key, "value": value, "effect": effect} if value else {"key": key, "effect": effect}


def _nodes(args: argparse.Namespace) -> int:
    from volcano.kube.components import start_nodes
    from volcano.kube.nodes import SimNodes
    from volcano.kube.process import run_process
    from volcano.kubelet import KubeletConfig

    try:
        labels = dict(_label(text) for text in args.labels)
        taints = [_taint(text) for text in args.taints]
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    options = {"labels": labels, "taints": taints, "count": args.count, "prefix": args.prefix, "cpu": args.cpu,
               "memory": args.memory, "gpu": args.gpu, "pods": args.pods, "seed": args.seed,
               "kubelet": KubeletConfig(start_delay_ms=args.start_delay),
               "lease_renew_ms": args.lease_renew_interval, "status_report_ms": args.node_status_report}
    try:  # the options are checked before anything connects
        SimNodes.check(**{k: options[k] for k in ("count", "prefix", "cpu", "memory", "gpu")})
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if args.lease_renew_interval <= 0 or args.node_status_report <= 0:
        print("error: --lease-renew-interval and --node-status-report must be > 0", file=sys.stderr)
        return 2

    def start(runtime: Any, client: Any) -> str:
        nodes = start_nodes(runtime, client, **options)
        return f"{len(nodes.names)} nodes {args.prefix}0..{args.prefix}{max(0, args.count - 1)} (group {nodes.group})"

    return run_process("nodes", args, start)
