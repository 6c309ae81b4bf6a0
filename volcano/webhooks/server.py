"""The webhook manager's HTTPS server: an ASGI application under uvicorn, with TLS.

``WebhookApp`` serves ``POST <path>`` for every enabled admission path (JSON AdmissionReview in and
out, see ``review``), and ``GET /healthz``. A request for another path is 404, another method 405, a
body that is not JSON or not an AdmissionReview 400, a body over 3 MiB 413. The review runs in a
worker thread: the rules read the cluster with blocking requests, and the event loop keeps serving.

``WebhookServer`` binds its socket at construction (port 0 picks a free port, so the URL is known
before serving) and serves ``app`` over TLS with the given certificate and key. ``serve`` runs on
the caller's loop; ``stop`` may be called from any thread; signal handling is the caller's.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import uvicorn

from volcano.httpapi.server import SocketServer
from volcano.webhooks.review import Reviewer, ReviewError

__all__ = ["MAX_BODY", "WebhookApp", "WebhookServer"]

log = logging.getLogger("volcano.webhooks")

MAX_BODY = 3 * 1024 * 1024
"""The largest request body accepted (kube-apiserver's own limit)."""

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


class WebhookApp:
    """ASGI application answering AdmissionReviews with ``reviewer`` (see the module docstring)."""

    def __init__(self, reviewer: Reviewer) -> None:
        self.reviewer = reviewer
        self.reviews = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one ASGI scope."""
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            return
        code, body = await self._answer(scope, receive)
        content_type = b"application/json" if body.startswith(b"{") else b"text/plain; charset=utf-8"
        await send({"type": "http.response.start", "status": code,
                    "headers": [(b"content-type", content_type), (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})

    async def _answer(self, scope: Scope, receive: Receive) -> tuple[int, bytes]:
        path, method = scope["path"], scope["method"]
        if path in ("/healthz", "/readyz", "/livez"):
            return (200, b"ok") if method in ("GET", "HEAD") else (405, b"method not allowed")
        if path not in self.reviewer.services:
            return 404, f"no admission webhook is served at {path}".encode()
        if method != "POST":
            return 405, f"{path} accepts POST only".encode()
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return 400, b"the client disconnected before sending the body"
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > MAX_BODY:
                return 413, f"the request body exceeds {MAX_BODY} bytes".encode()
            chunks.append(chunk)
            if not message.get("more_body"):
                break
        try:
            body = json.loads(b"".join(chunks) or b"null")
        except ValueError as exc:
            return 400, f"the body is not JSON: {exc}".encode()
        try:
            answer = await asyncio.to_thread(self.reviewer.review, path, body)
        except ReviewError as exc:
            return 400, str(exc).encode()
        except Exception as exc:  # the server keeps serving; the API server sees a failed call
            log.exception("admission review at %s failed", path)
            return 500, f"admission review failed: {type(exc).__name__}: {exc}".encode()
        self.reviews += 1
        return 200, json.dumps(answer, separators=(",", ":")).encode()


class WebhookServer(SocketServer):
    """Serves ``app`` over HTTPS on ``address:port`` (see the module docstring)."""

    scheme = "https"

    def __init__(self, app: WebhookApp, *, certfile: Path, keyfile: Path, address: str = "127.0.0.1",
                 port: int = 8443) -> None:
        self.app = app
        config = uvicorn.Config(app, loop="none", lifespan="on", log_level="warning", access_log=False,
                                server_header=False, ssl_certfile=str(certfile), ssl_keyfile=str(keyfile),
                                timeout_graceful_shutdown=5)
        super().__init__(config, address=address, port=port, backlog=256)

