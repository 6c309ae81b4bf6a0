"""A whole fake cluster behind the Kubernetes REST API, paced in real time (``volcano serve``).

``ServedCluster`` composes, in this order: a ``SimClock`` whose epoch is the
start time; a ``FakeCluster`` on it (API server, admission, controllers,
scheduler, simulated kubelet), or with ``api_only`` just the ``ApiServer``
and admission; the nodes and manifests asked for, at simulated time 0; the
``RealtimeDriver`` pacing the clock at ``speed``; the ``ApiApp`` and the
``HttpServer`` (bound at once, so ``url`` is known before serving). With ``api_only`` the
server also calls the admission webhooks registered in it (``volcano.httpapi.ExternalAdmission``),
and ``builtin_admission=False`` leaves Volcano's in-process webhooks out.

With ``faults`` (a ``FaultPlan``) the components inside reach the server
through ``FakeCluster``'s faulty client, and HTTP clients through a second one
(``self.faults``, stream ``faults-http``): failed writes answer with their
Status, watches are dropped and history compacted on the simulated clock.
Manifests given at start are applied before any fault.

Threading: one event loop owns the store and the clock. ``serve()`` runs on the
caller's loop (the CLI's main thread); ``start_background()`` runs it on a new
loop in a thread of its own (the ``kube_api`` pytest fixture). From any other
thread, touch the cluster only through ``call(fn)``, ``run(seconds)`` and
``run_until(predicate)``, which run on the owner loop and wait for the result.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar, cast

from volcano.admission import install_admission
from volcano.api.kinds import kind_for_object
from volcano.api.manifest import load_manifests
from volcano.apiserver import ApiError, ApiServer
from volcano.apiserver.faults import FaultPlan, FaultyClient
from volcano.httpapi import ApiApp, ExternalAdmission, HttpServer, Limits, new_event_loop, write_kubeconfig
from volcano.sim import RandomStreams, SimClock
from volcano.sim.realtime import RealtimeDriver, call_on_loop, wall_epoch
from volcano.testbed import FakeCluster

__all__ = ["ServeOptions", "ServedCluster"]

T = TypeVar("T")

_LOOPBACK = ("127.0.0.1", "::1", "localhost")


@dataclass(frozen=True)
class ServeOptions:
    """What ``volcano serve`` starts (the CLI flags, one field each)."""

    nodes: int = 4
    cpu: str = "8"
    memory: str = "32Gi"
    gpu: int = 0
    manifests: Sequence[str] = ()
    scheduler_conf: str | None = None
    seed: int = 0
    speed: float = 1.0
    api_only: bool = False
    address: str = "127.0.0.1"
    port: int = 0
    token: str | None = None
    kubeconfig: str | Path | None = None
    limits: Limits | None = None
    faults: FaultPlan | None = None
    builtin_admission: bool = True
    """False (``--no-builtin-admission``, with ``api_only``): Volcano's in-process webhooks are off."""

    def check(self) -> None:
        """Reject unsafe or meaningless options, naming the option and the value."""
        if self.address not in _LOOPBACK and not self.address.startswith("127.") and not self.token:
            raise ValueError(f"--address {self.address}: listening beyond loopback requires --token")
        if not self.speed >= 0:
            raise ValueError(f"--speed {self.speed}: must be a number of simulated seconds per second >= 0")
        if self.nodes < 0:
            raise ValueError(f"--nodes {self.nodes}: must be >= 0")
        if not self.builtin_admission and not self.api_only:
            raise ValueError("--no-builtin-admission: only with --api-only (the whole cluster keeps its admission)")


class ServedCluster:
    """A cluster served over HTTP (see the module docstring)."""

    def __init__(self, options: ServeOptions) -> None:
        options.check()
        self.options = options
        self.clock = SimClock(epoch=wall_epoch())
        self.cluster: FakeCluster | None = None
        self.webhooks: ExternalAdmission | None = None
        if options.api_only:
            self.server = ApiServer(self.clock, RandomStreams(options.seed))
            if options.builtin_admission:
                install_admission(self.server)
            else:
                install_admission(self.server, webhooks=())
            self.webhooks = ExternalAdmission(self.server)
        else:
            self.cluster = FakeCluster(seed=options.seed, scheduler_conf=options.scheduler_conf, clock=self.clock,
                                       faults=options.faults)
            self.server = self.cluster.server
            if options.nodes:
                self.cluster.add_nodes(options.nodes, cpu=options.cpu, memory=options.memory, gpu=options.gpu)
        for manifest in options.manifests:
            self._apply(manifest)
        self.faults: FaultyClient | None = None
        served: ApiServer = self.server
        if options.faults is not None:
            self.faults = FaultyClient(self.server, options.faults, self.clock, RandomStreams(options.seed),
                                       stream="faults-http")
            served = cast(ApiServer, self.faults)  # forwards every other attribute to the server
        self.driver = RealtimeDriver(self.clock, options.speed)
        self.app = ApiApp(served, self.driver, token=options.token, limits=options.limits,
                          webhooks=self.webhooks)
        self.http = HttpServer(self.app, address=options.address, port=options.port)
        self.kubeconfig: Path | None = Path(options.kubeconfig) if options.kubeconfig else None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None

    def _apply(self, manifest: str) -> None:
        if self.cluster is not None:
            self.cluster.apply(manifest)
            return
        for doc in load_manifests(manifest):
            info = kind_for_object(doc)
            meta = doc.get("metadata") or {}
            try:
                self.server.create(doc)
            except ApiError as err:
                if err.code != 409:
                    raise
                current = self.server.get(info.key, meta["name"], meta.get("namespace"))
                self.server.update({**doc, "metadata": {**meta, "resourceVersion":
                                                        current["metadata"]["resourceVersion"]}})

    @property
    def url(self) -> str:
        """The server's URL (``http://127.0.0.1:<port>``)."""
        return self.http.url

    # -- serving on the caller's loop --------------------------------------------------------------------
    async def serve(self) -> None:
        """Serve on the running loop until ``stop``; the kubeconfig is written once the socket listens."""
        self._loop = asyncio.get_running_loop()
        self.driver.attach(self._loop)
        if self.kubeconfig is not None:
            write_kubeconfig(self.kubeconfig, self.url, token=self.options.token)
        try:
            serving = asyncio.ensure_future(self.http.serve())
            while not self.http.started and not serving.done():
                await asyncio.sleep(0.005)
            self._ready.set()
            await serving
        finally:
            self.driver.close()

    def stop(self) -> None:
        """Stop serving (any thread)."""
        self.http.stop()

    # -- serving on a thread of its own -----------------------------------------------------------------
    def start_background(self, timeout: float = 30.0) -> ServedCluster:
        """Serve on a new event loop in a daemon thread; return once it accepts connections."""
        def main() -> None:
            loop = new_event_loop()
            asyncio.set_event_loop(loop)
            try:
                loop.run_until_complete(self.serve())
            except BaseException as exc:  # reported to the starting thread
                self._error = exc
            finally:
                self._ready.set()
                loop.close()

        self._thread = threading.Thread(target=main, name="volcano-serve", daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout) or self._error is not None:
            raise RuntimeError(f"volcano serve did not start within {timeout:g}s: {self._error!r}")
        return self

    def close(self, timeout: float = 10.0) -> None:
        """Stop a background server and wait for its thread."""
        self.stop()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def call(self, fn: Callable[[], T], timeout: float = 60.0) -> T:
        """Run ``fn()`` on the owner loop (clock caught up first, due callbacks settled after) and
        return its result; safe from any thread."""
        loop = self._loop
        if loop is None or self._on_owner():
            self.driver.catch_up()
            try:
                return fn()
            finally:
                self.app.settle()
        return call_on_loop(loop, fn, before=self.driver.catch_up, after=self.app.settle, timeout=timeout)

    def _on_owner(self) -> bool:
        try:
            return asyncio.get_running_loop() is self._loop
        except RuntimeError:
            return False

    def run(self, seconds: float) -> None:
        """Advance simulated time by ``seconds`` at once (any speed; paused servers move only so)."""
        self.call(lambda: self.driver.advance(seconds))

    def run_until(self, predicate: Callable[[Any], bool], timeout: float = 600.0) -> float:
        """Advance simulated time until ``predicate(cluster)`` holds (``TimeoutError`` after ``timeout``
        simulated seconds); return the simulated seconds it took."""
        target = self.cluster if self.cluster is not None else self.server
        return self.call(lambda: self.driver.run_until(lambda: predicate(target), timeout))
