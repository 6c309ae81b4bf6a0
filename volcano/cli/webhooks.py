"""``volcano webhooks``: Volcano's admission as HTTPS AdmissionReview v1 webhooks for a real API server.

It listens on ``--listen-address:--port`` over TLS (a self-signed CA and serving certificate made at
start, unless ``--tls-cert-file``, ``--tls-private-key-file`` and ``--ca-cert-file`` are given),
registers one Mutating/ValidatingWebhookConfiguration per enabled path through ``--kubeconfig``
(``--webhook-url``, or the ``--webhook-service-name`` in ``--webhook-namespace``, as the client
configuration; the local URL when neither is given), prints one line when ready, and serves until
SIGINT or SIGTERM. The flags are upstream's webhook manager's.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import signal
import sys
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

__all__ = ["register"]


def register(sub: Any) -> None:
    """Add the ``webhooks`` sub-command to ``sub`` (an argparse sub-parsers object)."""
    from volcano.webhooks.services import DEFAULT_ENABLED

    p = sub.add_parser("webhooks", help="serve Volcano's admission as HTTPS webhooks and register them")
    p.add_argument("--kubeconfig", default=None, help="kubeconfig of the cluster (default: KUBECONFIG, in-cluster)")
    p.add_argument("--master", default=None, help="API server address (overrides the kubeconfig)")
    p.add_argument("--listen-address", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8443, help="port to listen on (default 8443; 0: a free port)")
    p.add_argument("--tls-cert-file", default=None, help="serving certificate (PEM); default: made at start")
    p.add_argument("--tls-private-key-file", default=None, help="private key of --tls-cert-file (PEM)")
    p.add_argument("--ca-cert-file", default=None, help="CA certificate for the caBundle (PEM)")
    p.add_argument("--webhook-namespace", default="", help="namespace of the webhook's Service")
    p.add_argument("--webhook-service-name", default="", help="name of the webhook's Service")
    p.add_argument("--webhook-url", default="", help="URL the API server calls (paths are appended)")
    p.add_argument("--enabled-admission", default=DEFAULT_ENABLED, help="comma-separated admission paths")
    p.add_argument("--scheduler-name", action="append", default=None,
                   help="scheduler names whose pods Volcano handles (repeatable; default volcano)")
    p.add_argument("--enable-queue-allocated-pods-check", action="store_true",
                   help="refuse deleting a queue that has allocated pods")
    p.add_argument("--cert-host", action="append", default=[],
                   help="extra DNS name or IP for the made certificate (repeatable)")
    p.add_argument("--no-register", action="store_true", help="serve only; do not register the configurations")
    p.set_defaults(handler=_webhooks)


def _hosts(args: argparse.Namespace) -> list[str]:
    hosts = ["localhost", "127.0.0.1", *args.cert_host]
    if args.listen_address not in ("0.0.0.0", "::", ""):
        hosts.append(args.listen_address)
    if args.webhook_url:
        hosts.append(urlsplit(args.webhook_url).hostname or "")
    name, ns = args.webhook_service_name, args.webhook_namespace
    if name and ns:
        hosts += [name, f"{name}.{ns}", f"{name}.{ns}.svc", f"{name}.{ns}.svc.cluster.local"]
    return hosts


def _tls(args: argparse.Namespace, workdir: Path) -> tuple[Path, Path, bytes]:
    given = (args.tls_cert_file, args.tls_private_key_file, args.ca_cert_file)
    if any(given):
        if not all(given):
            raise ValueError("--tls-cert-file, --tls-private-key-file and --ca-cert-file go together")
        return Path(args.tls_cert_file), Path(args.tls_private_key_file), Path(args.ca_cert_file).read_bytes()
    from volcano.webhooks.certs import make_certificates

    certs = make_certificates(_hosts(args), now=dt.datetime.now(dt.UTC))
    cert, key = certs.write(workdir)
    return cert, key, certs.ca


def _webhooks(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="volcano-webhooks-") as tmp:
        try:
            return _run(args, Path(tmp))
        except (ValueError, OSError, RuntimeError) as err:
            print(f"error: {err}", file=sys.stderr)
            return 2


def _run(args: argparse.Namespace, workdir: Path) -> int:
    from volcano.webhooks.kube import KubeView, api_client, register_configurations
    from volcano.webhooks.review import Reviewer
    from volcano.webhooks.server import WebhookApp, WebhookServer
    from volcano.webhooks.services import client_config, parse_enabled, webhook_configurations

    services = parse_enabled(args.enabled_admission)
    certfile, keyfile, ca = _tls(args, workdir)
    client = api_client(args.kubeconfig, args.master)
    reviewer = Reviewer(KubeView(client), services=services, scheduler_names=args.scheduler_name or ("volcano",),
                        check_queue_allocated_pods=args.enable_queue_allocated_pods_check)
    server = WebhookServer(WebhookApp(reviewer), certfile=certfile, keyfile=keyfile, address=args.listen_address,
                           port=args.port)
    url = args.webhook_url
    if not url and not (args.webhook_service_name and args.webhook_namespace):
        if args.listen_address in ("0.0.0.0", "::", ""):
            raise ValueError("--listen-address is a wildcard: give --webhook-url or the webhook's Service")
        url = server.url
    clients = {s.path: client_config(s.path, ca, url=url or None, service_name=args.webhook_service_name or None,
                                     service_namespace=args.webhook_namespace or None) for s in services}
    excluded = ["kube-system", *([args.webhook_namespace] if args.webhook_namespace else ["volcano-system"])]
    configs = webhook_configurations(services, clients, service_name=args.webhook_service_name or "volcano-admission",
                                     excluded_namespaces=excluded)
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, server.stop)

    async def main() -> int:
        task = asyncio.ensure_future(server.serve())
        while not server.started and not task.done():
            await asyncio.sleep(0.01)
        if not server.started:
            await task
            return 1
        if not args.no_register:
            try:
                lines = await asyncio.to_thread(register_configurations, client, configs)
            except Exception as exc:  # the API server refused or could not be reached
                print(f"error: registering the webhook configurations: {exc}", file=sys.stderr)
                server.stop()
                await task
                return 1
            for line in lines:
                print(line, flush=True)
        print(f"volcano webhooks: {len(services)} admission paths, listening on {server.url}", flush=True)
        await task
        return 0

    try:
        status = loop.run_until_complete(main())
    finally:
        loop.close()
    print("volcano webhooks: stopped", flush=True)
    return status
