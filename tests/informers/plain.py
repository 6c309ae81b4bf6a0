"""``PlainClient``: the in-process server behind another class, the reference path of the tests of
status changes (``volcano.apiserver.changes``)."""

from __future__ import annotations

from typing import Any

from volcano.apiserver import ApiServer

__all__ = ["PlainClient"]


class PlainClient:
    """The server behind a client that is not the server's own class: it states no status change
    (as over HTTP or through a wrapper), so informers deliver every event to every handler."""

    def __init__(self, server: ApiServer) -> None:
        self._server = server

    def __getattr__(self, name: str) -> Any:
        return getattr(self._server, name)
