"""``pods/<name>/log?follow=true``: the log so far, then each new line as the container's state changes.

The stream watches the pod (a ``metadata.name`` field selector on the
``ApiServer`` watch) and, after every change, sends the lines the log gained.
It ends once the followed container instance has ended (its exit line sent,
also when the kubelet has already restarted it), when the pod is deleted,
when the client goes away, or when the server stops, as ``kubectl logs -f``
expects of a container that exits.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

from volcano.apiserver import ApiError, ApiServer, WatchEvent
from volcano.apiserver.podlog import pod_log

__all__ = ["follow_log"]

Send = Callable[[dict[str, Any]], Awaitable[None]]
Receive = Callable[[], Awaitable[dict[str, Any]]]


def _status(pod: Any, container: str | None) -> dict[str, Any]:
    statuses: list[Any] = list((pod.get("status") or {}).get("containerStatuses") or [])
    if container is None and len(statuses) == 1:
        return dict(statuses[0])
    return next((dict(s) for s in statuses if s.get("name") == container), {})


def _terminated(pod: Any, container: str | None) -> bool:
    return bool((_status(pod, container).get("state") or {}).get("terminated"))


def _restarts(pod: Any, container: str | None) -> int:
    return int(_status(pod, container).get("restartCount") or 0)


async def follow_log(server: ApiServer, namespace: str, name: str, options: dict[str, Any], send: Send,
                     receive: Receive, stopping: asyncio.Event, settle: Callable[[], None]) -> None:
    """Stream the log of ``namespace/name`` (``options`` as ``pod_log`` takes them) until it ends."""
    pod = server.get("Pod", name, namespace)
    text = pod_log(pod, server.clock, **options)  # errors (no such container, ...) before any byte is sent
    whole = {**options, "tail_lines": None, "since_seconds": None, "limit_bytes": None}
    sent = pod_log(pod, server.clock, **whole)  # what the client has, counted on the unfiltered log
    events: asyncio.Queue[WatchEvent] = asyncio.Queue()
    handle = server.watch("Pod", events.put_nowait, namespace, field_selector=f"metadata.name={name}")
    settle()
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"text/plain"), (b"cache-control", b"no-cache, private")]})
    gone = asyncio.ensure_future(_disconnected(receive))
    stop = asyncio.ensure_future(stopping.wait())
    try:
        if text:
            await send({"type": "http.response.body", "body": text.encode(), "more_body": True})
        container = options.get("container")
        restarts = _restarts(pod, container)
        while not _terminated(pod, container):
            getter = asyncio.ensure_future(events.get())
            done, _ = await asyncio.wait({getter, gone, stop}, return_when=asyncio.FIRST_COMPLETED)
            if getter not in done:
                getter.cancel()
                return
            event = getter.result()
            if event.type in ("DELETED", "ERROR"):
                return
            pod = event.object
            restarted = _restarts(pod, container) > restarts  # the followed instance ended; a new one runs
            with contextlib.suppress(ApiError):
                text = pod_log(pod, server.clock, **{**whole, "previous": restarted})
                if text.startswith(sent) and len(text) > len(sent):
                    await send({"type": "http.response.body", "body": text[len(sent):].encode(),
                                "more_body": True})
                    sent = text
            if restarted:
                return
    finally:
        handle.stop()
        gone.cancel()
        stop.cancel()
        with contextlib.suppress(Exception):
            await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _disconnected(receive: Receive) -> None:
    while (await receive()).get("type") != "http.disconnect":
        pass
