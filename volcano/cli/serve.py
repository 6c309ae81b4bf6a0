"""``volcano serve``: the fake cluster behind the Kubernetes REST API, for kubectl and client libraries.

It starts the whole cluster (API server, admission, controllers, scheduler,
simulated kubelet; ``--api-only``: the API server and admission alone, calling the admission webhooks
registered in it; ``--no-builtin-admission``: without Volcano's in-process webhooks), paced
at ``--speed`` simulated seconds per wall second, serves it on
``--address:--port``, writes ``--kubeconfig`` once it listens, prints the URL
and the kubeconfig path, and runs until SIGINT or SIGTERM. The ``--fault-*``
flags inject seeded faults (``volcano.apiserver.faults``) for the components
inside and for HTTP clients alike.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from typing import Any

from volcano.cli import args as types

__all__ = ["register"]


def register(sub: Any) -> None:
    """Add the ``serve`` sub-command to ``sub`` (an argparse sub-parsers object)."""
    p = sub.add_parser("serve", help="serve a fake cluster over the Kubernetes REST API (kubectl, clients)")
    p.add_argument("--port", type=int, default=0, help="port to listen on (0: a free port; default 0)")
    p.add_argument("--address", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1; beyond loopback requires --token)")
    p.add_argument("--token", default=None, help="bearer token every request must carry")
    p.add_argument("--kubeconfig", default=None, help="write a kubeconfig for the server here")
    p.add_argument("--nodes", type=types.count, default=4, help="number of nodes (default: %(default)s)")
    p.add_argument("--cpu", type=types.quantity, default="8", help="CPUs per node (default: %(default)s)")
    p.add_argument("--memory", type=types.quantity, default="32Gi", help="memory per node (default: %(default)s)")
    p.add_argument("--gpu", type=types.count, default=0, help="nvidia.com/gpu per node (default: %(default)s)")
    p.add_argument("-f", "--filename", dest="manifests", action="append", default=[],
                   help="a manifest (file or folder) to apply at start; repeatable")
    p.add_argument("--scheduler-conf", default=None, help="Volcano scheduler configuration YAML file")
    p.add_argument("--seed", type=int, default=0, help="seed of every random choice (default: %(default)s)")
    p.add_argument("--speed", type=float, default=1.0,
                   help="simulated seconds per wall second (default 1; 0 pauses the clock)")
    p.add_argument("--api-only", action="store_true",
                   help="serve the API server and admission only: no controllers, scheduler or kubelet")
    p.add_argument("--fault-write-rate", type=float, default=0.0,
                   help="fraction of writes that fail (409/429/500/504), seeded by --seed (default 0)")
    p.add_argument("--fault-write-codes", default="409,429,500,504",
                   help="comma-separated codes a failed write gets (default 409,429,500,504)")
    p.add_argument("--fault-watch-drop-seconds", type=float, default=None,
                   help="drop every watch each this many simulated seconds (default never)")
    p.add_argument("--fault-compact-seconds", type=float, default=None,
                   help="compact watch history each this many simulated seconds (lagging watches get 410)")
    p.add_argument("--no-builtin-admission", action="store_true",
                   help="with --api-only: leave Volcano's in-process admission webhooks off (run `volcano webhooks`)")
    p.set_defaults(handler=_serve)


def _describe(plan: Any) -> str:
    """The fault plan in a few words (``writes 5% fail (409,429,500,504), watches dropped every 180s``)."""
    parts = []
    if plan.write_failure_rate:
        parts.append(f"writes {plan.write_failure_rate:.0%} fail ({','.join(map(str, plan.write_failure_codes))})")
    if plan.watch_drop_every_ms is not None:
        parts.append(f"watches dropped every {plan.watch_drop_every_ms / 1000:g}s")
    if plan.compact_every_ms is not None:
        parts.append(f"history compacted every {plan.compact_every_ms / 1000:g}s")
    return ", ".join(parts)


def _fault_plan(args: argparse.Namespace) -> Any:
    """The ``FaultPlan`` the ``--fault-*`` flags ask for, or None (ValueError naming the flag and value)."""
    from volcano.apiserver.faults import FaultPlan

    if not args.fault_write_rate and args.fault_watch_drop_seconds is None and args.fault_compact_seconds is None:
        return None
    try:
        codes = tuple(int(c) for c in str(args.fault_write_codes).split(",") if c.strip())
    except ValueError:
        raise ValueError(f"--fault-write-codes {args.fault_write_codes}: must be comma-separated codes") from None
    every: dict[str, int | None] = {}
    for flag, attr in (("--fault-watch-drop-seconds", "fault_watch_drop_seconds"),
                       ("--fault-compact-seconds", "fault_compact_seconds")):
        value = getattr(args, attr)
        if value is not None and not value > 0:
            raise ValueError(f"{flag} {value}: must be a number of seconds > 0")
        every[attr] = None if value is None else max(1, round(value * 1000))
    try:
        return FaultPlan(write_failure_rate=args.fault_write_rate, write_failure_codes=codes,
                         watch_drop_every_ms=every["fault_watch_drop_seconds"],
                         compact_every_ms=every["fault_compact_seconds"])
    except ValueError as err:
        raise ValueError(f"--fault-*: {err}") from None


def _serve(args: argparse.Namespace) -> int:
    from volcano.api.manifest import ManifestError
    from volcano.apiserver import ApiError
    from volcano.httpapi import new_event_loop
    from volcano.scheduler.config import SchedulerConfError
    from volcano.serve import ServedCluster, ServeOptions

    try:
        options = ServeOptions(nodes=args.nodes, cpu=args.cpu, memory=args.memory, gpu=args.gpu,
                               manifests=tuple(args.manifests), scheduler_conf=args.scheduler_conf, seed=args.seed,
                               speed=args.speed, api_only=args.api_only, address=args.address, port=args.port,
                               token=args.token, kubeconfig=args.kubeconfig, faults=_fault_plan(args),
                               builtin_admission=not args.no_builtin_admission)
        served = ServedCluster(options)
    except ManifestError as err:  # a bad file, not a bad flag
        print(f"error: {err}", file=sys.stderr)
        return 1
    except SchedulerConfError as err:
        print(f"error: {args.scheduler_conf}: {str(err).removeprefix('scheduler configuration: ')}", file=sys.stderr)
        return 1
    except (ValueError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except ApiError as err:
        print(f"error: {err.message}", file=sys.stderr)
        return 1
    loop = new_event_loop()
    asyncio.set_event_loop(loop)
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, served.stop)

    async def main() -> None:
        task = asyncio.ensure_future(served.serve())
        while not served.http.started and not task.done():
            await asyncio.sleep(0.01)
        if served.http.started:
            what = "API server only" if options.api_only else f"{options.nodes} nodes"
            if options.faults is not None:
                what += f", faults {_describe(options.faults)}"
            print(f"volcano serve: {what}, speed {options.speed:g}, listening on {served.url}", flush=True)
            if served.kubeconfig is not None:
                print(f"kubeconfig: {served.kubeconfig}", flush=True)
        await task

    try:
        loop.run_until_complete(main())
    finally:
        loop.close()
    print("volcano serve: stopped", flush=True)
    return 0
