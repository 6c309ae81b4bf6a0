"""``volcano controllers``: Volcano's controllers against a real API server (``vc-controller-manager``).

It runs the Queue, Job, PodGroup and garbage-collection controllers through
the cluster given by ``--kubeconfig`` (or ``KUBECONFIG``, or the in-cluster
service account). ``--builtin-controllers`` adds the Deployment, ReplicaSet,
ReplicationController, batch/v1 Job and Namespace controllers, for an API
server with no kube-controller-manager (``volcano serve --api-only``).
Leader election through the Lease ``volcano-system/vc-controller-manager`` is
on by default (``--leader-elect=false`` disables it). SIGINT/SIGTERM stop it.
"""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["register"]


def register(sub: Any) -> None:
    """Add the ``controllers`` sub-command to ``sub`` (an argparse sub-parsers object)."""
    from volcano.kube.flags import add_component_flags, add_connection_flags

    p = sub.add_parser("controllers", help="run Volcano's controllers against a Kubernetes API server (kubeconfig)")
    add_connection_flags(p, qps=50.0, burst=100)
    p.add_argument("--builtin-controllers", action="store_true",
                   help="also run the Deployment, ReplicaSet, ReplicationController, batch/v1 Job and Namespace "
                        "controllers (for an API server without kube-controller-manager)")
    add_component_flags(p, lease="vc-controller-manager")
    p.set_defaults(handler=_controllers)


def _controllers(args: argparse.Namespace) -> int:
    from volcano.kube.components import start_controllers
    from volcano.kube.flags import leader_options
    from volcano.kube.process import run_process

    leader = leader_options(args)

    def start(runtime: Any, client: Any) -> str:
        controllers = start_controllers(runtime, client, builtin=args.builtin_controllers, leader=leader,
                                        resync_ms=args.resync_period)
        names = ", ".join(type(c).__name__ for c in controllers)
        return f"{names}; {leader.describe()}"

    return run_process("controllers", args, start)
