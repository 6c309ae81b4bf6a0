"""The ASGI application: the Kubernetes REST API over an ``ApiServer``, on the loop that owns it.

Every request is handled on the one event loop that owns the store and the
clock, so nothing here takes a lock: before a request the real-time driver
catches the clock up with the wall clock (``RealtimeDriver.catch_up``), the
request runs to completion without awaiting (a write is visible to the next
request at once), and after the response is sent the driver settles (watch
events go out, same-instant reactions run).

The application is logic-free: paths come from ``Router`` (derived from the
kind table), verbs from ``ResourceHandlers``, discovery from ``Discovery``,
Tables from ``tables``. What it adds is the HTTP contract:

* bearer-token authentication when a token is set (401 otherwise; ``/version`` and the health
  endpoints stay public, as ``system:public-info-viewer`` makes them on a real cluster);
* request limits: a body over ``max_body`` bytes is 413, a body not received within
  ``body_timeout`` seconds is 408, more than ``max_watches`` concurrent watches is 429;
* every failure is a ``metav1.Status`` with the real code and reason: 400 for a body that does
  not decode, 404 for an unknown path, 405 for a wrong method, 415 for an unknown patch type;
  an unexpected exception is a 500 ``InternalError`` Status (the traceback goes to the log,
  never to the wire), and the server keeps serving.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from volcano.apiserver import ApiError, ApiServer
from volcano.httpapi.discovery import AGGREGATED_CONTENT_TYPE, VERSION, Discovery, wants_aggregated
from volcano.httpapi.handlers import Reply, ResourceHandlers, log_options
from volcano.httpapi.logstream import follow_log
from volcano.httpapi.params import Query, parse_query
from volcano.httpapi.routes import Router, Target
from volcano.httpapi.tables import to_table, wants_table
from volcano.httpapi.watchstream import EventLines, WatchOptions, WatchStream
from volcano.httpapi.webhookcalls import ExternalAdmission
from volcano.httpapi.wire import decode_body, dumps, media_type
from volcano.sim.realtime import RealtimeDriver

__all__ = ["ApiApp", "Limits"]

log = logging.getLogger("volcano.httpapi")

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

_JSON_HEADERS = [(b"content-type", b"application/json"), (b"cache-control", b"no-cache, private")]
_HEALTH = ("/healthz", "/livez", "/readyz")
_PUBLIC = ("/version", *_HEALTH)
_BODY_METHODS = ("POST", "PUT", "PATCH", "DELETE")


class Limits:
    """Request and connection limits (see the module docstring and ``HttpServer``); the body limit is
    kube-apiserver's (3 MiB)."""

    def __init__(self, *, max_body: int = 3 * 1024 * 1024, body_timeout: float = 60.0, max_watches: int = 1000,
                 bookmark_interval: float = 30.0, header_timeout: float = 10.0, idle_timeout: int = 60) -> None:
        self.max_body = max_body
        self.body_timeout = body_timeout
        self.max_watches = max_watches
        self.bookmark_interval = bookmark_interval
        self.header_timeout = header_timeout
        self.idle_timeout = idle_timeout


class _Failure(Exception):
    """An HTTP-level failure answered before any verb ran."""

    def __init__(self, error: ApiError) -> None:
        super().__init__(error.message)
        self.error = error


def _status(code: int, reason: str, message: str) -> ApiError:
    return ApiError(code, reason, message)


_NOT_FOUND = ("NotFound", "the server could not find the requested resource")


class ApiApp:
    """An ASGI application serving ``server`` (see the module docstring)."""

    def __init__(self, server: ApiServer, driver: RealtimeDriver | None = None, *, token: str | None = None,
                 limits: Limits | None = None, webhooks: ExternalAdmission | None = None) -> None:
        self.server = server
        self.webhooks = webhooks
        """When set, writes call the admission webhooks registered in the server (``webhookcalls``)."""
        self.driver = driver
        self.token = token
        self.limits = limits or Limits()
        self.router = Router()
        self.discovery = Discovery(self.router)
        self.handlers = ResourceHandlers(server)
        self.stopping = asyncio.Event()
        self.watches = 0
        self.requests = 0
        self._lines = EventLines()

    # -- the clock ------------------------------------------------------------------------------------
    def _catch_up(self) -> None:
        if self.driver is not None:
            self.driver.catch_up()

    def settle(self) -> None:
        """Run the clock callbacks due now (watch deliveries) and re-arm the driver."""
        if self.driver is not None:
            self.driver.settle()

    # -- ASGI -----------------------------------------------------------------------------------------
    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one ASGI connection scope."""
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        self.requests += 1
        try:
            await self._http(scope, receive, send)
        except _Failure as failure:
            await self._send_json(send, failure.error.code, failure.error.status())
        except ApiError as err:
            await self._send_json(send, err.code, err.status())
        except Exception as exc:  # the server keeps serving; the wire never sees a traceback
            log.exception("internal error serving %s %s", scope.get("method"), scope.get("path"))
            internal = ApiError(500, "InternalError", f'an error on the server ("{type(exc).__name__}") has '
                                                      "prevented the request from succeeding")
            await self._send_json(send, 500, internal.status())
        finally:
            self.settle()

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                self.stopping.set()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        method: str = scope["method"]
        path: str = scope["path"]
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        if self.token is not None and not path.rstrip("/").startswith(_PUBLIC):
            self._authenticate(headers)
        body = await self._read_body(method, headers, receive)
        query = Query(parse_query(scope.get("query_string") or b""))
        self._catch_up()
        norm = path.rstrip("/") or "/"
        if norm in ("/version", *_HEALTH) or norm.startswith(("/healthz/", "/livez/", "/readyz/")):
            self._only_get(method)
            if norm == "/version":
                await self._send_json(send, 200, VERSION)
            else:
                await self._send(send, 200, b"ok", b"text/plain; charset=utf-8")
            return
        if norm in ("/api", "/apis") or norm.startswith(("/apis/", "/api/", "/openapi/")):
            handled = await self._discovery(method, norm, headers, send)
            if handled:
                return
        target = self.router.match(norm)
        if target is None:
            raise _Failure(_status(404, *_NOT_FOUND))
        if method == "GET" and target.is_collection and target.subresource is None and query.flag("watch"):
            await self._watch(target, query, headers, receive, send)
            return
        if method == "GET" and target.subresource == "log" and query.flag("follow") and not query.flag("previous"):
            await follow_log(self.server, target.namespace or "default", target.name or "", log_options(query),
                             send, receive, self.stopping, self.settle)
            return
        content_type = media_type(headers.get("content-type"))
        def run() -> Reply:
            return self.handlers.handle(method, target, query, lambda: decode_body(body, content_type), content_type)
        if self.webhooks is not None and method in _BODY_METHODS:
            reply = await self.webhooks.admit(run, target, query.dry_run(), self._catch_up)
        else:
            reply = run()
        await self._reply(send, reply, target, query, headers)

    def _authenticate(self, headers: dict[str, str]) -> None:
        given = headers.get("authorization", "")
        expected = f"Bearer {self.token}"
        if not hmac.compare_digest(given.encode(), expected.encode()):
            raise _Failure(_status(401, "Unauthorized", "Unauthorized"))

    @staticmethod
    def _only_get(method: str) -> None:
        if method not in ("GET", "HEAD"):
            raise _Failure(_status(405, "MethodNotAllowed",
                                   "the server does not allow this method on the requested resource"))

    async def _read_body(self, method: str, headers: dict[str, str], receive: Receive) -> bytes:
        if method not in _BODY_METHODS:
            return b""
        limit = self.limits.max_body
        length = headers.get("content-length")
        if length is not None and length.isdigit() and int(length) > limit:
            raise _Failure(_status(413, "RequestEntityTooLarge", f"the request body is {length} bytes; the limit "
                                                                 f"is {limit} bytes"))
        chunks: list[bytes] = []
        size = 0
        try:
            async with asyncio.timeout(self.limits.body_timeout):
                while True:
                    message = await receive()
                    if message["type"] == "http.disconnect":
                        raise _Failure(_status(400, "BadRequest", "the client disconnected before sending the body"))
                    chunk = message.get("body", b"")
                    size += len(chunk)
                    if size > limit:
                        raise _Failure(_status(413, "RequestEntityTooLarge",
                                               f"the request body exceeds the limit of {limit} bytes"))
                    chunks.append(chunk)
                    if not message.get("more_body"):
                        break
        except TimeoutError:
            raise _Failure(_status(408, "Timeout", f"the request body was not received within "
                                                   f"{self.limits.body_timeout:g} seconds")) from None
        return b"".join(chunks)

    # -- discovery ------------------------------------------------------------------------------------
    async def _discovery(self, method: str, path: str, headers: dict[str, str], send: Send) -> bool:
        """Serve a discovery or OpenAPI document; False when ``path`` is a resource path instead."""
        disc = self.discovery
        parts = path.strip("/").split("/")
        doc: Any = None
        content_type = b"application/json"
        if path in ("/api", "/apis"):
            if wants_aggregated(headers.get("accept", "")):
                doc, content_type = disc.aggregated(core=path == "/api"), AGGREGATED_CONTENT_TYPE.encode()
            else:
                doc = disc.api_versions() if path == "/api" else disc.api_group_list()
        elif parts[0] == "api" and len(parts) == 2:
            doc = disc.resource_list(parts[1])
            if doc is None:
                raise _Failure(_status(404, *_NOT_FOUND))
        elif parts[0] == "apis" and len(parts) in (2, 3):
            doc = disc.api_group(parts[1]) if len(parts) == 2 else disc.resource_list(f"{parts[1]}/{parts[2]}")
            if doc is None:
                raise _Failure(_status(404, *_NOT_FOUND))
        elif parts[0] == "openapi":
            if parts[1:] == ["v3"]:
                doc = disc.openapi_root()
            elif parts[1] == "v3":
                doc = disc.openapi_doc("/".join(parts[2:]))
            if doc is None:
                raise _Failure(_status(404, *_NOT_FOUND))
        else:
            return False
        self._only_get(method)
        await self._send(send, 200, dumps(doc), content_type)
        return True

    # -- watch ----------------------------------------------------------------------------------------
    async def _watch(self, target: Target, query: Query, headers: dict[str, str], receive: Receive,
                     send: Send) -> None:
        if self.watches >= self.limits.max_watches:
            raise _Failure(_status(429, "TooManyRequests", f"too many concurrent watches: the limit is "
                                                           f"{self.limits.max_watches}; retry later"))
        timeout = query.integer("timeoutSeconds")
        include = query.text("includeObject") or "Metadata"
        opts = WatchOptions(resource_version=query.text("resourceVersion"),
                            label_selector=query.text("labelSelector"), field_selector=query.text("fieldSelector"),
                            timeout_s=None if timeout is None else float(timeout),
                            bookmarks=query.flag("allowWatchBookmarks"),
                            initial_events=query.flag("sendInitialEvents"),
                            table=wants_table(headers.get("accept", "")), include_object=include)
        stream = WatchStream(self.server, target.info, target.namespace, opts, settle=self.settle,
                             stopping=self.stopping, bookmark_interval=self.limits.bookmark_interval,
                             lines=self._lines)
        self.watches += 1
        try:
            await stream.run(send, receive, list(_JSON_HEADERS))
        finally:
            self.watches -= 1

    # -- responses ------------------------------------------------------------------------------------
    async def _reply(self, send: Send, reply: Reply, target: Target, query: Query, headers: dict[str, str]) -> None:
        if reply.text:
            await self._send(send, reply.code, str(reply.body).encode(), b"text/plain")
            return
        body = reply.body
        if reply.listing and wants_table(headers.get("accept", "")):
            include = query.text("includeObject") or "Metadata"
            if isinstance(body.get("items"), list) and str(body.get("kind", "")).endswith("List"):
                body = to_table(target.info, body["items"], self.server.clock, metadata=dict(body["metadata"]),
                                include_object=include)
            else:
                body = to_table(target.info, [body], self.server.clock,
                                metadata={"resourceVersion": body["metadata"].get("resourceVersion", "")},
                                include_object=include)
        await self._send_json(send, reply.code, body)

    async def _send_json(self, send: Send, code: int, obj: Any) -> None:
        await self._send(send, code, dumps(obj), b"application/json")

    @staticmethod
    async def _send(send: Send, code: int, body: bytes, content_type: bytes) -> None:
        await send({"type": "http.response.start", "status": code,
                    "headers": [(b"content-type", content_type), (b"content-length", str(len(body)).encode()),
                                (b"cache-control", b"no-cache, private")]})
        await send({"type": "http.response.body", "body": body})
