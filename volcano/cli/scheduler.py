"""``volcano scheduler``: Volcano's scheduler against a real API server (``vc-scheduler``).

It watches Pods, Nodes, PodGroups, Queues and PriorityClasses through the
cluster given by ``--kubeconfig`` (or ``KUBECONFIG``, or the in-cluster
service account), runs a scheduling cycle every ``--schedule-period`` with
the actions and plugins of ``--scheduler-conf`` (default: Volcano's default
configuration), binds pods through ``pods/binding`` and evicts through
``policy/v1`` Eviction. Leader election through the Lease
``volcano-system/vc-scheduler`` is on by default (``--leader-elect=false``
disables it). SIGINT/SIGTERM stop it cleanly (the Lease is released).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["register"]


def register(sub: Any) -> None:
    """Add the ``scheduler`` sub-command to ``sub`` (an argparse sub-parsers object)."""
    from volcano.kube.flags import add_component_flags, add_connection_flags, duration_ms

    p = sub.add_parser("scheduler", help="run Volcano's scheduler against a Kubernetes API server (kubeconfig)")
    add_connection_flags(p, qps=2000.0, burst=2000)
    p.add_argument("--scheduler-conf", default=None,
                   help="Volcano scheduler configuration YAML file (default: Volcano's default configuration)")
    p.add_argument("--scheduler-name", default="volcano", help="pods whose spec.schedulerName this is are scheduled "
                                                               "(default volcano)")
    p.add_argument("--schedule-period", type=duration_ms, default=1000, metavar="DURATION",
                   help="period between scheduling cycles (default 1s)")
    p.add_argument("--default-queue", default="default", help="queue of PodGroups naming none (default default)")
    p.add_argument("--default-scheduler", action="store_true",
                   help="also schedule pods of schedulerName default-scheduler with the kube-scheduler-like baseline "
                        "(for an API server without kube-scheduler, such as volcano serve --api-only)")
    add_component_flags(p, lease="vc-scheduler")
    p.set_defaults(handler=_scheduler)


def _checked_conf(args: argparse.Namespace) -> tuple[bool, Any]:
    """``(ok, conf)``: the ``--scheduler-conf`` loaded (None for the default), after checking it and
    ``--schedule-period``; on a bad flag, ``(False, None)`` with the error printed."""
    from volcano.scheduler import SchedulerConfError, load_scheduler_conf

    conf = None
    if args.scheduler_conf is not None:
        try:
            conf = load_scheduler_conf(args.scheduler_conf)
        except (SchedulerConfError, OSError, ValueError) as err:
            print(f"error: --scheduler-conf {args.scheduler_conf}: {err}", file=sys.stderr)
            return False, None
    if args.schedule_period <= 0:
        print(f"error: --schedule-period {args.schedule_period}ms: must be > 0", file=sys.stderr)
        return False, None
    return True, conf


def _scheduler(args: argparse.Namespace) -> int:
    from volcano.kube.components import start_scheduler
    from volcano.kube.flags import leader_options
    from volcano.kube.process import run_process

    ok, conf = _checked_conf(args)
    if not ok:
        return 2
    leader = leader_options(args)

    def start(runtime: Any, client: Any) -> str:
        start_scheduler(runtime, client, conf=conf, scheduler_name=args.scheduler_name,
                        period_ms=args.schedule_period, default_queue=args.default_queue, leader=leader,
                        resync_ms=args.resync_period, default_scheduler=args.default_scheduler)
        return f"scheduler {args.scheduler_name!r}, period {args.schedule_period} ms, {leader.describe()}"

    return run_process("scheduler", args, start)
