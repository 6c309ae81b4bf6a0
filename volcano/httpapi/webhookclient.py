"""How ``volcano serve`` reaches an admission webhook: HTTPS POST from a worker thread.

``post(endpoint, body, timeout)`` sends one AdmissionReview and returns the HTTP status and body. It
runs the standard library's ``http.client`` in the event loop's default executor, so the loop that
owns the store keeps serving while a webhook answers; the socket timeout and an ``asyncio`` deadline
both bound the call by ``timeout`` seconds. Connections are kept alive and reused per endpoint (at
most 8 idle each), and one TLS context is made per CA bundle, so a call costs a request, not a
handshake. The choice (over an async HTTP client) keeps the package's dependencies as they are;
webhooks are few and calls short, so a thread per call in flight costs nothing that matters.

``Endpoint.from_client_config`` resolves a ``WebhookClientConfig`` as kube-apiserver does: ``url``
as given (``https`` only), or a ``service`` reference as ``https://<name>.<namespace>.svc:<port><path>``
(port 443 by default), with ``caBundle`` (base64 PEM) as the only trusted CA when present (the
system's CAs otherwise). Every failure is a ``CallError`` whose text reads as kube-apiserver's.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import http.client
import ssl
import threading
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

__all__ = ["CallError", "Endpoint", "Transport", "post"]


class CallError(Exception):
    """The webhook could not be called, or answered something that is not an answer."""


@dataclass(frozen=True)
class Endpoint:
    """Where a webhook is called: host, port, path, and the CA bundle to trust (PEM, or None)."""

    url: str
    host: str
    port: int
    path: str
    ca_pem: str | None

    @classmethod
    def from_client_config(cls, config: Mapping[str, Any]) -> Endpoint:
        """The endpoint of ``config`` (see the module docstring); ``CallError`` when it names none."""
        ca_pem: str | None = None
        bundle = config.get("caBundle")
        if bundle:
            try:
                ca_pem = base64.b64decode(str(bundle), validate=True).decode()
            except (binascii.Error, UnicodeDecodeError, ValueError) as exc:
                raise CallError(f"caBundle is not base64 PEM: {exc}") from None
        service = config.get("service")
        if isinstance(service, Mapping):
            port = service.get("port") or 443
            path = str(service.get("path") or "/")
            host = f"{service.get('name')}.{service.get('namespace')}.svc"
            return cls(f"https://{host}:{port}{path}", host, int(port), path, ca_pem)
        url = config.get("url")
        if not isinstance(url, str) or not url:
            raise CallError("the webhook's clientConfig has neither url nor service")
        parts = urlsplit(url)
        if parts.scheme != "https" or not parts.hostname:
            raise CallError(f"webhook url {url!r} must be an https URL with a host")
        return cls(url, parts.hostname, parts.port or 443, parts.path or "/", ca_pem)


Transport = Callable[[Endpoint, bytes, float], Awaitable[tuple[int, bytes]]]
"""``fn(endpoint, body, timeout) -> (status, body)``; raises ``CallError``."""


class _Pool:
    """Idle keep-alive connections per endpoint and one TLS context per CA bundle, shared by the worker
    threads (a lock guards both)."""

    def __init__(self, max_idle: int = 8) -> None:
        self.max_idle = max_idle
        self._idle: dict[tuple[str, int, str | None], list[http.client.HTTPSConnection]] = {}
        self._contexts: dict[str | None, ssl.SSLContext] = {}
        self._lock = threading.Lock()

    def context(self, ca_pem: str | None) -> ssl.SSLContext:
        with self._lock:
            found = self._contexts.get(ca_pem)
            if found is None:
                found = ssl.create_default_context(cadata=ca_pem) if ca_pem else ssl.create_default_context()
                self._contexts[ca_pem] = found
            return found

    def take(self, endpoint: Endpoint) -> http.client.HTTPSConnection | None:
        with self._lock:
            idle = self._idle.get((endpoint.host, endpoint.port, endpoint.ca_pem))
            return idle.pop() if idle else None

    def give(self, endpoint: Endpoint, conn: http.client.HTTPSConnection) -> None:
        with self._lock:
            idle = self._idle.setdefault((endpoint.host, endpoint.port, endpoint.ca_pem), [])
            if len(idle) < self.max_idle:
                idle.append(conn)
                return
        conn.close()


_POOL = _Pool()


def _exchange(conn: http.client.HTTPSConnection, target: str, body: bytes) -> tuple[int, bytes, bool]:
    conn.request("POST", target, body=body, headers={"Content-Type": "application/json",
                                                     "Accept": "application/json"})
    resp = conn.getresponse()
    return resp.status, resp.read(), not resp.will_close


def _release(endpoint: Endpoint, conn: http.client.HTTPSConnection, keep: bool) -> None:
    if keep:
        _POOL.give(endpoint, conn)
    else:
        conn.close()


def _post_blocking(endpoint: Endpoint, body: bytes, timeout: float, target: str) -> tuple[int, bytes]:
    reused = _POOL.take(endpoint)
    if reused is not None:
        try:
            if reused.sock is not None:
                reused.sock.settimeout(timeout)
            status, answer, keep = _exchange(reused, target, body)
        except (OSError, http.client.HTTPException):  # the webhook closed the idle connection: a new one
            reused.close()
        else:
            _release(endpoint, reused, keep)
            return status, answer
    conn = http.client.HTTPSConnection(endpoint.host, endpoint.port, context=_POOL.context(endpoint.ca_pem),
                                       timeout=timeout)
    try:
        status, answer, keep = _exchange(conn, target, body)
    except BaseException:
        conn.close()
        raise
    _release(endpoint, conn, keep)
    return status, answer


async def post(endpoint: Endpoint, body: bytes, timeout: float) -> tuple[int, bytes]:
    """POST ``body`` to ``endpoint`` within ``timeout`` seconds (see the module docstring)."""
    parts = urlsplit(endpoint.url)
    seconds = max(1, int(-(-timeout // 1)))
    target = f"{parts.path or '/'}?{parts.query + '&' if parts.query else ''}timeout={seconds}s"
    shown = f'Post "{endpoint.url}?timeout={seconds}s"'
    loop = asyncio.get_running_loop()
    try:
        return await asyncio.wait_for(loop.run_in_executor(None, _post_blocking, endpoint, body, timeout, target),
                                      timeout)
    except TimeoutError:
        raise CallError(f"failed to call webhook: {shown}: context deadline exceeded") from None
    except ssl.SSLError as exc:
        raise CallError(f"failed to call webhook: {shown}: tls: {exc}") from None
    except (OSError, http.client.HTTPException) as exc:
        raise CallError(f"failed to call webhook: {shown}: {exc}") from None
