"""``KubeClient``: the ``Client`` protocol over a real API server, through the official client.

Components written against ``volcano.apiserver.client.Client`` run unchanged
against any Kubernetes API server (kind, a real cluster, ``volcano serve``)
through this class. It uses the official ``kubernetes`` package for what a
client library owns (kubeconfig and in-cluster configuration, TLS, bearer
tokens and their refresh, the connection pool) and sends the requests of
the protocol itself, paths built from the kind table (``volcano.api.kinds``),
bodies as JSON, answers decoded into frozen dicts: the typed models are
never used, which also avoids the official client's ``pods/binding`` quirk
(the server answers a ``Status`` that the generated ``V1Binding`` model
refuses although the binding was applied).

What client-go's REST client does on its own is done here too:

* **Rate limits.** Every request, watch connections included, takes a token
  from a ``TokenBucket(qps, burst)`` first (``--kube-api-qps``/``--kube-api-burst``).
* **Retries.** A 429 or 5xx answer carrying ``Retry-After`` is retried after
  that many seconds, up to ``max_retries`` times; a refused connection (the
  server restarting) is retried with backoff for every verb, another dropped
  connection only for GET. When the retries run out the caller gets
  ``ApiError`` (503 ``ServiceUnavailable`` for a connection that never
  answered), which the components' work queues retry with their backoff.

Protocol details over the wire:

* ``list`` pages through the collection (``limit=500`` and ``continue``, as the
  reflector's pager does), sorts items by (namespace, name) and fills in their
  ``apiVersion``/``kind`` (a real server leaves them out of list items).
* ``watch`` returns a ``WatchStream``: events are read on a thread of their own
  and handed to ``dispatch`` (the owner thread's queue), so handlers run where
  the component's state lives. ``resource_version=None`` means "from now": the
  current resourceVersion is read first.
* ``bind`` posts a ``Binding`` to ``pods/<name>/binding``; ``evict`` posts a
  ``policy/v1`` ``Eviction`` to ``pods/<name>/eviction``.
* ``update_status`` is ``PUT <item>/status``. PodGroup's CRD has no status
  subresource: its status is written with ``update`` (a plain PUT), as
  Volcano's scheduler does.
* ``delete`` returns the object when it still exists afterwards: the server
  answered an object (not a ``Status``) that carries a ``deletionTimestamp``
  with finalizers left, or a grace period above zero when the request did not
  ask for grace 0.
"""

from __future__ import annotations

import builtins
import logging
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import orjson
import urllib3

from volcano.api.frozen import freeze, thaw
from volcano.api.kinds import KindInfo, kind_for_object, resolve_kind
from volcano.apiserver.client import Obj, WatchEvent
from volcano.apiserver.errors import ApiError
from volcano.kube.ratelimit import TokenBucket
from volcano.kube.watch import Dispatch, WatchStream

__all__ = ["PATCH_TYPES", "KubeClient"]

log = logging.getLogger("volcano.kube.client")

PATCH_TYPES = {
    "merge": "application/merge-patch+json",
    "json": "application/json-patch+json",
    "strategic": "application/strategic-merge-patch+json",
    "apply": "application/apply-patch+yaml",
}
"""PATCH media type of each short patch-type name."""

_REASONS = {400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound", 405: "MethodNotAllowed",
            406: "NotAcceptable", 408: "Timeout", 409: "Conflict", 410: "Expired", 413: "RequestEntityTooLarge",
            415: "UnsupportedMediaType", 422: "Invalid", 429: "TooManyRequests", 500: "InternalError",
            503: "ServiceUnavailable", 504: "Timeout"}
_PAGE = 500


def _error(status: int, data: bytes, what: str) -> ApiError:
    """The ``ApiError`` of a failed answer: its ``Status`` body when it has one."""
    try:
        body = orjson.loads(data) if data else None
    except orjson.JSONDecodeError:
        body = None
    if isinstance(body, dict) and body.get("kind") == "Status":
        return ApiError(int(body.get("code") or status), str(body.get("reason") or _REASONS.get(status, "Unknown")),
                        str(body.get("message") or what), body.get("details") or None)
    text = data.decode("utf-8", "replace").strip()[:200] if data else ""
    return ApiError(status, _REASONS.get(status, "Unknown"), f"{what}: {text or f'HTTP {status}'}")


def _refused(err: Exception) -> bool:
    """Whether a connection error means the request never reached the server."""
    reason = getattr(err, "reason", None)
    return isinstance(err, urllib3.exceptions.NewConnectionError) or isinstance(
        reason, urllib3.exceptions.NewConnectionError | ConnectionRefusedError)


class KubeClient:
    """The ``Client`` protocol over HTTP (see the module docstring).

    ``api`` is a configured ``kubernetes.client.ApiClient`` (``volcano.kube.config.api_client``);
    ``dispatch`` hands watch events to the owner thread. ``wall``/``sleep`` are the wall clock
    the rate limiter and the retry waits use (injectable for tests). When ``stop`` is set (the
    process is shutting down), a retry wait ends at once and the request fails with 503, so a
    component blocked on an unreachable server still stops promptly.
    """

    def __init__(self, api: Any, *, dispatch: Dispatch, qps: float = 5.0, burst: int = 10,
                 user_agent: str = "volcano", timeout_s: float = 30.0, watch_timeout_s: int = 290,
                 max_retries: int = 10, wall: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep, stop: threading.Event | None = None) -> None:
        self._api = api
        self._dispatch = dispatch
        self.limiter = TokenBucket(qps, burst, wall=wall, sleep=sleep)
        self.user_agent = user_agent
        self.timeout_s = timeout_s
        self.watch_timeout_s = watch_timeout_s
        self.max_retries = max_retries
        self._sleep = sleep
        self._stop = stop
        self.requests = 0
        """Requests sent (each retry counts)."""
        self.retries = 0
        self.watches: builtins.list[WatchStream] = []

    # -- plumbing --------------------------------------------------------------------------------------
    @staticmethod
    def _path(info: KindInfo, namespace: str | None, name: str | None = None, sub: str | None = None) -> str:
        base = f"/apis/{info.group}/{info.version}" if info.group else f"/api/{info.version}"
        if info.namespaced and namespace:
            base += f"/namespaces/{namespace}"
        base += f"/{info.plural}"
        if name is not None:
            base += f"/{name}"
            if sub:
                base += f"/{sub}"
        return base

    @staticmethod
    def _ns(info: KindInfo, namespace: str | None) -> str | None:
        if not info.namespaced:
            return None
        return namespace or "default"

    def _send(self, method: str, path: str, query: Sequence[tuple[str, Any]], body: Any, content_type: str,
              *, stream: bool = False, read_timeout_s: float | None = None) -> Any:
        """Send one request with client-go's throttling and retries; the urllib3 response (2xx) or ApiError."""
        headers = {"Accept": "application/json", "User-Agent": self.user_agent}
        if body is not None:
            headers["Content-Type"] = content_type
        data = None if body is None else orjson.dumps(body)
        timeout = urllib3.Timeout(connect=self.timeout_s, read=read_timeout_s or self.timeout_s)
        attempt = 0
        while True:
            self.limiter.wait()
            _, url, all_headers, _, _ = self._api.param_serialize(
                method, path, query_params=list(query), header_params=dict(headers), auth_settings=["BearerToken"])
            self.requests += 1
            try:
                response = self._api.rest_client.pool_manager.request(
                    method, url, body=data, headers=all_headers, timeout=timeout, preload_content=not stream)
            except urllib3.exceptions.HTTPError as err:
                if attempt < self.max_retries and (method == "GET" or _refused(err)):
                    attempt += 1
                    self.retries += 1
                    self._wait(min(30.0, 0.2 * 2 ** min(attempt, 8)), method, path)
                    continue
                raise ApiError(503, "ServiceUnavailable", f"{method} {path}: the API server did not answer: "
                                                          f"{err}") from None
            status = response.status
            if status >= 400:
                payload = response.data if not stream else response.read()
                retry_after = response.headers.get("Retry-After")
                if (status == 429 or status >= 500) and retry_after is not None and attempt < self.max_retries:
                    attempt += 1
                    self.retries += 1
                    try:
                        wait = max(0.0, float(retry_after))
                    except ValueError:
                        wait = 1.0
                    self._wait(min(wait, 60.0), method, path)
                    continue
                raise _error(status, payload, f"{method} {path}")
            return response

    def _wait(self, seconds: float, method: str, path: str) -> None:
        """Wait before a retry; give up at once (503) when the process is stopping."""
        log.info("retrying %s %s in %.1fs", method, path, seconds)
        stop = self._stop
        if stop is not None and (stop.is_set() or stop.wait(seconds)):
            raise ApiError(503, "ServiceUnavailable", f"{method} {path}: not retried, the process is stopping")
        if stop is None:
            self._sleep(seconds)

    def _call(self, method: str, path: str, query: Sequence[tuple[str, Any]] = (), body: Any = None,
              content_type: str = "application/json") -> Any:
        response = self._send(method, path, query, body, content_type)
        data = response.data
        return orjson.loads(data) if data else None

    def stream(self, path: str, query: Sequence[tuple[str, Any]], *, read_timeout_s: float) -> Any:
        """A streaming GET (a watch): the open urllib3 response (status 2xx) or ApiError."""
        return self._send("GET", path, query, None, "application/json", stream=True, read_timeout_s=read_timeout_s)

    @staticmethod
    def _object(info: KindInfo, obj: Any) -> Obj:
        if isinstance(obj, dict):
            obj.setdefault("apiVersion", info.api_version)
            obj.setdefault("kind", info.kind)
        out: Obj = freeze(obj)
        return out

    # -- the Client protocol ----------------------------------------------------------------------------
    def create(self, obj: Obj, *, namespace: str | None = None) -> Obj:
        """POST the object to its collection; the stored object."""
        info = kind_for_object(obj)
        ns = self._ns(info, namespace or (obj.get("metadata") or {}).get("namespace"))
        return self._object(info, self._call("POST", self._path(info, ns), body=thaw(obj)))

    def get(self, kind: str, name: str, namespace: str | None = None) -> Obj:
        """GET one object (NotFound as ApiError 404)."""
        info = resolve_kind(kind)
        return self._object(info, self._call("GET", self._path(info, self._ns(info, namespace), name)))

    def list(self, kind: str, namespace: str | None = None, *, label_selector: str | None = None,
             field_selector: str | None = None) -> Obj:
        """Every page of the collection (all namespaces when ``namespace`` is None), items sorted."""
        info = resolve_kind(kind)
        path = self._path(info, namespace if info.namespaced else None)
        query: builtins.list[tuple[str, Any]] = [("limit", _PAGE)]
        if label_selector:
            query.append(("labelSelector", label_selector))
        if field_selector:
            query.append(("fieldSelector", field_selector))
        items: builtins.list[Obj] = []
        cont = None
        while True:
            page = self._call("GET", path, [*query, ("continue", cont)] if cont else query)
            for item in page.get("items") or ():
                item.setdefault("apiVersion", info.api_version)
                item.setdefault("kind", info.kind)
                items.append(item)
            meta = page.get("metadata") or {}
            cont = meta.get("continue")
            if not cont:
                break
        items.sort(key=lambda o: (o["metadata"].get("namespace", ""), o["metadata"]["name"]))
        listing = {"apiVersion": info.api_version, "kind": f"{info.kind}List",
                   "metadata": {"resourceVersion": meta.get("resourceVersion", "")}, "items": items}
        out: Obj = freeze(listing)
        return out

    def _put(self, obj: Obj, sub: str | None) -> Obj:
        info = kind_for_object(obj)
        meta = obj.get("metadata") or {}
        path = self._path(info, self._ns(info, meta.get("namespace")), meta.get("name") or "", sub)
        return self._object(info, self._call("PUT", path, body=thaw(obj)))

    def update(self, obj: Obj) -> Obj:
        """PUT the object (PodGroup status too: its CRD has no status subresource)."""
        return self._put(obj, None)

    def update_status(self, obj: Obj) -> Obj:
        """PUT the object to its ``/status`` subresource."""
        return self._put(obj, "status")

    def patch(self, kind: str, name: str, patch: Any, namespace: str | None = None, *,
              subresource: str | None = None, patch_type: str | None = None, field_manager: str | None = None,
              force: bool | None = None) -> Obj:
        """PATCH the object or a subresource with the named patch type (default: merge)."""
        info = resolve_kind(kind)
        kind_name = patch_type or "merge"
        content_type = PATCH_TYPES.get(kind_name, kind_name)
        if content_type not in PATCH_TYPES.values():
            raise ApiError(415, "UnsupportedMediaType", f"the body of the request was in an unknown format - "
                                                         f"accepted media types include: "
                                                         f"{', '.join(PATCH_TYPES.values())}")
        query: builtins.list[tuple[str, Any]] = []
        if field_manager:
            query.append(("fieldManager", field_manager))
        if force is not None:
            query.append(("force", "true" if force else "false"))
        path = self._path(info, self._ns(info, namespace), name, subresource)
        return self._object(info, self._call("PATCH", path, query, thaw(patch), content_type))

    def delete(self, kind: str, name: str, namespace: str | None = None, *,
               grace_period_seconds: int | None = None, propagation_policy: str | None = None,
               preconditions: Obj | None = None) -> Obj | None:
        """DELETE with ``DeleteOptions``; the object when it still exists afterwards, else None."""
        info = resolve_kind(kind)
        options: dict[str, Any] = {"apiVersion": "v1", "kind": "DeleteOptions"}
        if grace_period_seconds is not None:
            options["gracePeriodSeconds"] = grace_period_seconds
        if propagation_policy is not None:
            options["propagationPolicy"] = propagation_policy
        if preconditions:
            options["preconditions"] = thaw(preconditions)
        answer = self._call("DELETE", self._path(info, self._ns(info, namespace), name), body=options)
        if not isinstance(answer, dict) or answer.get("kind") == "Status":
            return None
        meta = answer.get("metadata") or {}
        if not meta.get("deletionTimestamp"):
            return None
        if meta.get("finalizers") or (grace_period_seconds != 0 and (meta.get("deletionGracePeriodSeconds") or 0) > 0):
            return self._object(info, answer)
        return None

    def watch(self, kind: str, handler: Callable[[WatchEvent], None], namespace: str | None = None, *,
              resource_version: str | None = None, label_selector: str | None = None,
              field_selector: str | None = None) -> WatchStream:
        """Watch from ``resource_version`` (None: from now) on a thread; events reach ``handler`` through
        ``dispatch``, in order."""
        info = resolve_kind(kind)
        ns = namespace if info.namespaced else None
        query: builtins.list[tuple[str, str]] = []
        if label_selector:
            query.append(("labelSelector", label_selector))
        if field_selector:
            query.append(("fieldSelector", field_selector))
        if resource_version is None:
            head = self._call("GET", self._path(info, ns), [*query, ("limit", 1)])
            resource_version = str((head.get("metadata") or {}).get("resourceVersion") or "")
        stream = WatchStream(self, info, self._path(info, ns), handler, self._dispatch,
                             resource_version=resource_version, query=query, timeout_s=self.watch_timeout_s)
        self.watches = [w for w in self.watches if not w.stopped]
        self.watches.append(stream)
        return stream

    def bind(self, name: str, namespace: str, node_name: str) -> None:
        """POST a ``Binding`` to ``pods/<name>/binding`` (bound already: Conflict)."""
        body = {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": name, "namespace": namespace},
                "target": {"apiVersion": "v1", "kind": "Node", "name": node_name}}
        self._call("POST", self._path(resolve_kind("Pod"), namespace, name, "binding"), body=body)

    def evict(self, name: str, namespace: str, *, grace_period_seconds: int | None = None) -> None:
        """POST a ``policy/v1`` ``Eviction`` to ``pods/<name>/eviction``."""
        body: dict[str, Any] = {"apiVersion": "policy/v1", "kind": "Eviction",
                                "metadata": {"name": name, "namespace": namespace}}
        if grace_period_seconds is not None:
            body["deleteOptions"] = {"gracePeriodSeconds": grace_period_seconds}
        self._call("POST", self._path(resolve_kind("Pod"), namespace, name, "eviction"), body=body)

    def close(self) -> None:
        """Stop every watch and release the connection pool."""
        for stream in self.watches:
            stream.stop()
        self.watches = []
        self._api.rest_client.pool_manager.clear()
