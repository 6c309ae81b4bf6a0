"""Running a component command.

``run_process`` loads the cluster configuration (exit 2 with a message when
there is none), starts a ``Runtime``, runs the component's ``start(runtime, client)`` on its
owner thread, prints one line when it runs, and serves until SIGINT/SIGTERM
(exit 0) or until the component stops the runtime (exit 1: a lost Lease, a
failed start-up).
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Callable

from volcano.kube.client import KubeClient
from volcano.kube.config import KubeConfigError, api_client
from volcano.kube.runtime import Runtime

__all__ = ["run_process"]


def run_process(name: str, args: argparse.Namespace, start: Callable[[Runtime, KubeClient], str]) -> int:
    """Run component ``name`` (see the module docstring); return the exit status."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s",
                        stream=sys.stderr)
    if args.kube_api_qps > 0 and args.kube_api_burst < 1:
        print(f"error: --kube-api-burst {args.kube_api_burst}: must be >= 1 when --kube-api-qps > 0",
              file=sys.stderr)
        return 2
    if not args.speed > 0:
        print(f"error: --speed {args.speed}: must be > 0", file=sys.stderr)
        return 2
    user_agent = f"volcano-{name}"
    try:
        api = api_client(args.kubeconfig, args.context, user_agent=user_agent)
    except KubeConfigError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    runtime = Runtime(args.speed)

    def setup() -> None:
        client = KubeClient(api, dispatch=runtime.dispatch, qps=args.kube_api_qps, burst=args.kube_api_burst,
                            user_agent=user_agent, stop=runtime.stopping)
        runtime.on_stop(client.close)
        summary = start(runtime, client)
        print(f"volcano {name}: {summary} (API server {api.configuration.host})", flush=True)

    code = runtime.run(setup)
    print(f"volcano {name}: stopped", flush=True)
    return code
