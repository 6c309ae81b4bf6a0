"""The flags the component commands share: connection, leader election, durations.

``add_connection_flags`` adds ``--kubeconfig``, ``--context``, ``--kube-api-qps``
and ``--kube-api-burst`` (with the component's upstream defaults);
``add_leader_flags`` adds client-go's ``--leader-elect*`` flags and
``leader_options`` reads them back. Importing this module is cheap (the
``volcano`` command builds every parser on start).
"""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["add_connection_flags", "add_leader_flags", "add_resync_flag", "duration_ms", "leader_options"]


def duration_ms(text: str) -> int:
    """An argparse type: a Go-style duration (``1s``, ``500ms``, ``2m``) or seconds, in ms."""
    from volcano.kubelet.config import SimAnnotationError, parse_duration_ms

    try:
        return parse_duration_ms(text)
    except SimAnnotationError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _flag_bool(text: str) -> bool:
    value = text.strip().lower()
    if value in ("true", "1", "yes", "t"):
        return True
    if value in ("false", "0", "no", "f"):
        return False
    raise argparse.ArgumentTypeError(f"invalid boolean {text!r}: use true or false")


def add_connection_flags(p: argparse.ArgumentParser, *, qps: float, burst: int) -> None:
    """``--kubeconfig``, ``--context``, ``--kube-api-qps``, ``--kube-api-burst``."""
    p.add_argument("--kubeconfig", default=None,
                   help="kubeconfig of the cluster (default: $KUBECONFIG, in-cluster, ~/.kube/config)")
    p.add_argument("--context", default=None, help="kubeconfig context (default: the current one)")
    p.add_argument("--kube-api-qps", type=float, default=qps,
                   help=f"requests per second to the API server, client-go's token bucket (default {qps:g}; 0: "
                        "no limit)")
    p.add_argument("--kube-api-burst", type=int, default=burst, help=f"burst of that bucket (default {burst})")
    p.add_argument("--speed", type=float, default=1.0,
                   help="clock pace in simulated seconds per wall second (default 1; for a volcano serve run at "
                        "the same --speed)")


def add_component_flags(p: argparse.ArgumentParser, *, lease: str) -> None:
    """The flags of a long-running client-go component: ``--resync-period`` and ``--leader-elect*``
    (the Lease ``volcano-system/<lease>`` by default)."""
    add_resync_flag(p)
    add_leader_flags(p, name=lease)


def add_resync_flag(p: argparse.ArgumentParser) -> None:
    """client-go's ``--resync-period`` (default 0: never, as upstream)."""
    p.add_argument("--resync-period", type=duration_ms, default=0, metavar="DURATION",
                   help="deliver every cached object to the handlers again at this period (default 0: never, "
                        "as upstream)")


def add_leader_flags(p: argparse.ArgumentParser, *, name: str) -> None:
    """client-go's ``--leader-elect*`` flags (Lease lock; ``--leader-elect=false`` disables it)."""
    p.add_argument("--leader-elect", type=_flag_bool, nargs="?", const=True, default=True, metavar="BOOL",
                   help="run only while holding a coordination.k8s.io Lease (default true)")
    p.add_argument("--leader-elect-resource-namespace", default="volcano-system",
                   help="namespace of the Lease (default volcano-system)")
    p.add_argument("--leader-elect-resource-name", default=name, help=f"name of the Lease (default {name})")
    p.add_argument("--leader-elect-lease-duration", type=duration_ms, default=15_000, metavar="DURATION",
                   help="how long a standby waits before taking over an unrenewed Lease (default 15s)")
    p.add_argument("--leader-elect-renew-deadline", type=duration_ms, default=10_000, metavar="DURATION",
                   help="how long the leader retries renewing before it gives up (default 10s)")
    p.add_argument("--leader-elect-retry-period", type=duration_ms, default=2_000, metavar="DURATION",
                   help="between attempts to acquire or renew (default 2s)")


def leader_options(args: argparse.Namespace) -> Any:
    """The ``LeaderOptions`` of the parsed ``--leader-elect*`` flags."""
    from volcano.kube.leader import LeaderOptions

    return LeaderOptions(enabled=args.leader_elect, namespace=args.leader_elect_resource_namespace,
                         name=args.leader_elect_resource_name,
                         lease_duration_s=args.leader_elect_lease_duration / 1000,
                         renew_deadline_s=args.leader_elect_renew_deadline / 1000,
                         retry_period_s=args.leader_elect_retry_period / 1000)
