"""The HTTP server: uvicorn serving an ``ApiApp`` on a socket bound here, with connection timeouts.

The stack is uvicorn with the ``httptools`` parser on ``uvloop`` when
available (chosen by measurement; see docs/architecture.md, "The HTTP front
end"). The socket is bound before serving, so port 0 picks a free port and
``url`` is known before the first request. Connection limits:

* ``Limits.header_timeout``: a connection must deliver a request's headers within this many
  seconds of opening (or of its previous response) or it is closed (slow-header clients);
* ``Limits.idle_timeout``: a keep-alive connection with no request for this long is closed;
* request-body size and time limits, and the watch bound, are enforced by ``ApiApp``.

``HttpServer.serve`` runs on the caller's event loop (the loop that owns the store and the
clock); ``stop`` may be called from any thread. Signal handling is the caller's: the server
installs none.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Iterator
from typing import Any

import uvicorn

from volcano.httpapi.app import ApiApp

__all__ = ["HttpServer", "QuietServer", "SocketServer", "listening_socket", "new_event_loop"]

try:  # the C parser; uvicorn's pure-Python h11 protocol otherwise
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as _BaseProtocol
except ImportError:  # pragma: no cover - httptools is a dependency
    from uvicorn.protocols.http.h11_impl import H11Protocol as _BaseProtocol  # type: ignore[assignment]


def new_event_loop() -> asyncio.AbstractEventLoop:
    """A new event loop: uvloop's when installed, else asyncio's."""
    try:
        import uvloop
    except ImportError:  # pragma: no cover - uvloop is a dependency on Linux and macOS
        return asyncio.new_event_loop()
    loop: asyncio.AbstractEventLoop = uvloop.new_event_loop()
    return loop


def _protocol_class(header_timeout: float) -> type:
    """uvicorn's HTTP protocol with a deadline for receiving each request's headers."""

    class Protocol(_BaseProtocol):
        _header_timer: asyncio.TimerHandle | None = None

        def _arm(self) -> None:
            if self._header_timer is None:
                self._header_timer = self.loop.call_later(header_timeout, self._too_slow)

        def _disarm(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _too_slow(self) -> None:
            self._header_timer = None
            if self.cycle is None or self.cycle.response_complete:
                self.transport.close()

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            if self.cycle is None or self.cycle.response_complete:
                self._arm()
            super().data_received(data)

        def on_headers_complete(self) -> None:
            self._disarm()
            super().on_headers_complete()

    return Protocol


class QuietServer(uvicorn.Server):
    """uvicorn's server without its signal handlers (the owner of the process installs its own)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        """Install nothing: SIGINT and SIGTERM belong to the process owner."""
        yield


def listening_socket(address: str, port: int, *, backlog: int = 1024) -> socket.socket:
    """A non-blocking TCP socket bound to ``address:port`` (0: a free port) and listening.

    It is made with ``IPPROTO_TCP`` so that asyncio sets ``TCP_NODELAY`` on the connections it
    accepts (it does so only for sockets that say they are TCP); without it, a response's header and
    body writes wait on delayed ACKs, about 40 ms per request on the plain asyncio loop."""
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((address, port))
    sock.listen(backlog)
    sock.setblocking(False)
    return sock


class SocketServer:
    """A uvicorn server on a socket bound at construction (so ``url`` is known before serving), run on
    the caller's event loop by ``serve`` and stopped from any thread by ``stop``."""

    scheme = "http"

    def __init__(self, config: uvicorn.Config, *, address: str, port: int, backlog: int = 1024) -> None:
        self.address = address
        self.socket = listening_socket(address, port, backlog=backlog)
        self.port: int = self.socket.getsockname()[1]
        self._server = QuietServer(config)
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def url(self) -> str:
        """``<scheme>://address:port`` (IPv6 addresses in brackets)."""
        host = f"[{self.address}]" if ":" in self.address else self.address
        return f"{self.scheme}://{host}:{self.port}"

    @property
    def started(self) -> bool:
        """Whether the server accepts connections."""
        return bool(self._server.started)

    async def serve(self) -> None:
        """Serve until ``stop``; return after open connections have been closed."""
        self._loop = asyncio.get_running_loop()
        await self._server.serve(sockets=[self.socket])

    def on_stop(self) -> None:
        """Run on the serving loop when a stop is asked, before connections close (a hook)."""

    def stop(self) -> None:
        """Ask the server to stop (any thread): ``on_stop``, then connections close."""
        loop = self._loop
        if loop is None or loop.is_closed():
            self._server.should_exit = True
            return

        def _stop() -> None:
            self.on_stop()
            self._server.should_exit = True

        if _on_loop(loop):
            _stop()
        else:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(_stop)


class HttpServer(SocketServer):
    """Serves ``app`` on ``address:port`` (see the module docstring)."""

    def __init__(self, app: ApiApp, *, address: str = "127.0.0.1", port: int = 0) -> None:
        self.app = app
        limits = app.limits
        config = uvicorn.Config(app, http=_protocol_class(limits.header_timeout), loop="none", lifespan="on",
                                log_level="warning", access_log=False, server_header=False, date_header=False,
                                timeout_keep_alive=limits.idle_timeout, timeout_graceful_shutdown=2, backlog=1024)
        super().__init__(config, address=address, port=port)

    def on_stop(self) -> None:
        """Watches end first: they would hold their connections open."""
        self.app.stopping.set()


def _on_loop(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False
