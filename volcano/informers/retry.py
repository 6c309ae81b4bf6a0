"""The retries client-go's REST client makes by itself, as a ``Client`` wrapper.

client-go's ``rest.Request`` retries a request that failed with 429
TooManyRequests or a 5xx answer carrying ``Retry-After`` (up to 10 times), and
a request that timed out on the server (504 ``Timeout``); components see the
error only when the retries run out. Conflicts (409) and invalid requests are
never retried here: controllers requeue the key (``WorkQueue``'s backoff) or
re-read and retry (``RetryOnConflict``) themselves.

``RetryingClient`` does the same for the testbed's components. The waits
between attempts are not simulated (the retry happens at the same simulated
instant), which only matters for timing, not for outcomes. A retried create
that had in fact been stored (a 504) answers AlreadyExists, as it would for
client-go; a retried delete answers NotFound.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from volcano.apiserver.client import Obj, WatchEvent, WatchHandle
from volcano.apiserver.errors import ApiError

__all__ = ["MAX_RETRIES", "RETRIED_CODES", "RetryingClient"]

MAX_RETRIES = 10
"""client-go's ``maxRetries`` default for a request."""

RETRIED_CODES = frozenset({429, 500, 503, 504})
"""Answers client-go's REST client retries on its own."""


class RetryingClient:
    """Forwards to ``client``, retrying writes as client-go's REST client does (module docstring)."""

    def __init__(self, client: Any, max_retries: int = MAX_RETRIES) -> None:
        self._client = client
        self.max_retries = max_retries
        self.retries = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def _call(self, fn: Callable[[], Any]) -> Any:
        attempt = 0
        while True:
            try:
                return fn()
            except ApiError as err:
                if err.code not in RETRIED_CODES or attempt >= self.max_retries:
                    raise
                attempt += 1
                self.retries += 1

    def create(self, obj: Obj, *, namespace: str | None = None) -> Obj:
        """``Client.create`` with retries."""
        return self._call(lambda: self._client.create(obj, namespace=namespace))

    def update(self, obj: Obj) -> Obj:
        """``Client.update`` with retries."""
        return self._call(lambda: self._client.update(obj))

    def update_status(self, obj: Obj) -> Obj:
        """``Client.update_status`` with retries."""
        return self._call(lambda: self._client.update_status(obj))

    def patch(self, kind: str, name: str, patch: Any, namespace: str | None = None, *,
              subresource: str | None = None, patch_type: str | None = None, field_manager: str | None = None,
              force: bool | None = None) -> Obj:
        """``Client.patch`` with retries."""
        return self._call(lambda: self._client.patch(kind, name, patch, namespace, subresource=subresource,
                                                     patch_type=patch_type, field_manager=field_manager,
                                                     force=force))

    def delete(self, kind: str, name: str, namespace: str | None = None, **options: Any) -> Obj | None:
        """``Client.delete`` with retries (NotFound after a timed-out delete means it was done)."""
        return self._call(lambda: self._client.delete(kind, name, namespace, **options))

    def bind(self, name: str, namespace: str, node_name: str) -> None:
        """``pods/binding`` with retries."""
        self._call(lambda: self._client.bind(name, namespace, node_name))

    def evict(self, name: str, namespace: str, **options: Any) -> None:
        """``pods/eviction`` with retries."""
        self._call(lambda: self._client.evict(name, namespace, **options))

    def watch(self, kind: str, handler: Callable[[WatchEvent], None], namespace: str | None = None,
              **options: Any) -> WatchHandle:
        """``Client.watch`` (a failed watch is the reflector's business: it relists)."""
        handle: WatchHandle = self._client.watch(kind, handler, namespace, **options)
        return handle
