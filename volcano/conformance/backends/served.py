"""The ``kubeconfig`` backend against ``volcano serve``: one served cluster per case, over HTTP.

For ``make conformance-http`` (``--backend kubeconfig --serve``): each case
gets a fresh ``volcano serve`` (in-process, on a free loopback port) built to
the case's shape and scheduler configuration exactly as the memory backend
builds its ``FakeCluster`` (a tainted control-plane node, then the workers).
The case then runs through ``KubeCluster``, the same official-client code
that runs against a real cluster.

Time follows the memory backend's contract: the served clock stands still
(``--speed 0``) while the case reads and writes, and runs at ``speed``
cluster seconds per wall second only inside ``wait_until``, ``hold`` and
``sleep``. So, as in memory, no cluster time passes between two requests of a
case (a job created and then watched is seen from its first phase), while
every request, watch and wait still crosses HTTP. Four things reach into the
served cluster, as a real cluster's infrastructure would: the clock's pace,
the cluster time (the server's simulated clock, read directly), the time each
recorded change was committed (an in-process watch notes it per
resourceVersion, so the invariants replay the server's own timeline with the
memory backend's zero gang window), and failing and recovering a node. With
``faults`` the server is started with a ``FaultPlan`` injecting nothing at
random, and ``fail_writes`` arms the components' fault-injecting client (the
case's HTTP requests pass through a client of their own, never failed);
``scheduler_metrics`` reads the scheduler's registry in the served process
(``volcano serve`` has no ``/metrics`` endpoint), rendered as a scrape.

Per-case costs are kept off the case's path: the official client's discovery
of a fresh server is done once per process and copied into each case's
directory (every fresh server serves the same API), and a served cluster's
shutdown finishes in the background while the next case starts
(``drain_closing`` waits for the last ones at the end of the session).
"""

from __future__ import annotations

import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from volcano.conformance.backends.base import ClusterShape, MetricSample, Obj, WatchRecorder
from volcano.conformance.backends.kube import KubeCluster
from volcano.conformance.lib.metrics import parse_samples
from volcano.serve import ServedCluster, ServeOptions
from volcano.testbed import FaultPlan

__all__ = ["ServedKubeCluster"]

_CATCH_UP_S = 30.0
"""Wall seconds the recorder is given to catch up with the server's last commits at a case's end."""
_CATCH_UP_POLL_S = 0.02
"""Wall seconds between two looks at the recorder while it catches up."""

CONTROL_PLANE_TAINT = {"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}

_discovery: bytes | None = None
"""The official client's discovery cache of a fresh served cluster, every API group resolved (every
served cluster serves the same API at its start), written once per process and copied into each case's
directory: a case then starts from the discovery a fresh cluster answers, without asking it again."""

_closing: list[threading.Thread] = []
"""Threads finishing the close of served clusters whose cases ended (``drain_closing`` joins them)."""
_closing_lock = threading.Lock()


def drain_closing(timeout: float = 30.0) -> None:
    """Wait for the served clusters still shutting down (each within ``timeout`` wall seconds)."""
    with _closing_lock:
        threads = list(_closing)
        _closing.clear()
    for thread in threads:
        thread.join(timeout)


class ServedKubeCluster(KubeCluster):
    """A ``KubeCluster`` talking to a ``volcano serve`` started for it (see the module docstring)."""

    backend = "kubeconfig"
    gang_window = 0.0

    def __init__(self, shape: ClusterShape, *, speed: float, scheduler_conf: str | None = None,
                 seed: int = 0, faults: bool = False) -> None:
        self._dir = tempfile.TemporaryDirectory(prefix="volcano-conformance-")
        root = Path(self._dir.name)
        self._speed = speed
        self._commit_ms: dict[str, int] = {}
        self.served = ServedCluster(ServeOptions(nodes=0, speed=0, scheduler_conf=scheduler_conf, seed=seed,
                                                 kubeconfig=root / "kubeconfig",
                                                 faults=FaultPlan() if faults else None))
        fake = self.served.cluster
        assert fake is not None
        if shape.control_plane:
            fake.add_node("control-plane", cpu="4", memory="16Gi", taints=[CONTROL_PLANE_TAINT],
                          labels={"node-role.kubernetes.io/control-plane": ""})
        node = shape.node
        for i in range(shape.workers):
            fake.add_node(f"worker-{i}", cpu=node.cpu, memory=node.memory, pods=node.pods, gpu=node.gpu,
                          labels=dict(node.labels))
        self.served.start_background()
        server, clock = self.served.server, self.served.clock

        self._last_commit: dict[str, int] = {}

        def commit_time(kind: str) -> Callable[[Any], None]:
            def record(event: Any) -> None:
                rv = event.object["metadata"]["resourceVersion"]
                self._commit_ms[rv] = clock.now_ms
                self._last_commit[kind] = max(self._last_commit.get(kind, 0), int(rv))
            return record

        def hook(kind: str) -> Callable[[], Any]:
            return lambda: server.watch(kind, commit_time(kind), resource_version="0")

        self._hooks = [self.served.call(hook(kind)) for kind in WatchRecorder.KINDS]
        global _discovery
        discovery = root / "discovery.json"
        if _discovery is not None:
            discovery.write_bytes(_discovery)
        try:
            super().__init__(shape, kubeconfig=str(root / "kubeconfig"), time_scale=speed,
                             discovery_cache=str(discovery))
            if _discovery is None:
                list(self._dyn.resources)  # resolves every group version: the cache then holds the whole API
                _discovery = discovery.read_bytes()
        except BaseException:
            self.served.close()
            self._dir.cleanup()
            raise

    def now(self) -> float:
        """The served cluster's own simulated time: when the simulation cannot keep its pace on a busy
        machine, waits stretch with it instead of timing out early."""
        return self.served.clock.now_ms / 1000.0

    def _event_time(self, obj: Obj) -> float:
        """When the server committed the change (delivered to an in-process watch at that instant), so
        the invariants see the served cluster's own timeline, as in memory; read time as a fallback."""
        ms = self._commit_ms.get(obj.get("metadata", {}).get("resourceVersion", ""))
        return self.now() if ms is None else ms / 1000.0

    def recorded_history(self) -> list[tuple[float, str, str, Obj]]:
        """The recorder's history once its watches (over HTTP, so behind the server) have delivered
        the last change the server committed of every recorded kind: a case that ends while a
        scheduler cycle's binds are still on the wire is checked on all of them, not on the first
        few. The clock stands still between waits, so nothing new is committed meanwhile; gives up
        after ``_CATCH_UP_S`` wall seconds and returns what arrived."""
        deadline = time.monotonic() + _CATCH_UP_S
        while time.monotonic() < deadline:
            seen: dict[str, int] = {}
            for _, kind, _, obj in list(self.recorder.history):
                rv = int(obj.get("metadata", {}).get("resourceVersion") or 0)
                seen[kind] = max(seen.get(kind, 0), rv)
            if all(seen.get(kind, 0) >= rv for kind, rv in list(self._last_commit.items())):
                break
            time.sleep(_CATCH_UP_POLL_S)
        return self.recorder.history

    @contextmanager
    def _running(self) -> Iterator[None]:
        """The served clock runs at ``speed`` inside the block and stands still outside it."""
        driver = self.served.driver
        self.served.call(lambda: driver.set_speed(self._speed))
        try:
            yield
        finally:
            self.served.call(lambda: driver.set_speed(0))

    def wait_until(self, predicate: Callable[[], bool], timeout: float = 300.0, what: str = "") -> float:
        with self._running():
            return super().wait_until(predicate, timeout, what)

    def hold(self, predicate: Callable[[], bool], seconds: float = 30.0, what: str = "") -> None:
        with self._running():
            super().hold(predicate, seconds, what)

    def sleep(self, seconds: float) -> None:
        with self._running():
            super().sleep(seconds)

    def fail_node(self, name: str) -> None:
        fake = self.served.cluster
        assert fake is not None
        self.served.call(lambda: fake.fail_node(name))

    def recover_node(self, name: str) -> None:
        fake = self.served.cluster
        assert fake is not None
        self.served.call(lambda: fake.recover_node(name))

    def fail_writes(self, verb: str, kind: str, name: str, namespace: str | None = None, *, times: int = 1,
                    code: int = 409) -> None:
        from volcano.api.kinds import resolve_kind

        fake = self.served.cluster
        assert fake is not None
        faults = fake.faults
        if faults is None:
            raise RuntimeError("fail_writes needs a cluster built with faults (mark the case @pytest.mark.faults)")
        ns = (namespace or self.namespace) if resolve_kind(kind).namespaced else ""
        self.served.call(lambda: faults.fail_next(verb, kind, name, ns, times=times, code=code))

    def scheduler_metrics(self) -> list[MetricSample]:
        from prometheus_client import generate_latest

        fake = self.served.cluster
        assert fake is not None
        text = self.served.call(lambda: generate_latest(fake.scheduler.metrics.registry))
        return parse_samples(text.decode())

    def close(self) -> None:
        """Delete the namespace and stop the server; the server's shutdown (a fraction of a wall second,
        mostly its serving loop noticing the stop) finishes in the background while the next case starts:
        ``drain_closing`` waits for it."""
        try:
            super().close()
        finally:
            for hook in self._hooks:
                self.served.call(hook.stop)
            self.served.stop()

            def finish() -> None:
                try:
                    self.served.close()
                finally:
                    self._dir.cleanup()

            thread = threading.Thread(target=finish, name="volcano-serve-close", daemon=True)
            thread.start()
            with _closing_lock:
                _closing[:] = [t for t in _closing if t.is_alive()]
                _closing.append(thread)
