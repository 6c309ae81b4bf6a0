"""Fixtures of the over-the-wire tests: an API-only ``volcano serve`` on loopback and a ``KubeClient``
on a background ``Runtime`` (the owner thread), shared by a module's tests."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

pytest.importorskip("kubernetes", reason="the over-the-wire tests need the 'kubernetes' package")

from volcano.kube import KubeClient, Runtime, api_client
from volcano.serve import ServedCluster, ServeOptions


def wait_for(predicate: Callable[[], object], timeout: float = 10.0, what: str = "") -> None:
    """Poll ``predicate`` every 20 ms until it is true; fail after ``timeout`` wall seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g}s waiting for {what or predicate!r}")
        time.sleep(0.02)


@dataclass
class Wire:
    """A served API server, a runtime and a client on it."""

    served: ServedCluster
    runtime: Runtime
    client: KubeClient
    kubeconfig: Path

    def call(self, fn: Callable[[], object]) -> object:
        """Run ``fn`` on the runtime's owner thread."""
        return self.runtime.call(fn)


@pytest.fixture(scope="module")
def wire(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Wire]:
    """``volcano serve --api-only`` on loopback and a ``KubeClient`` on a background runtime."""
    kubeconfig = tmp_path_factory.mktemp("wire") / "kubeconfig"
    served = ServedCluster(ServeOptions(api_only=True, kubeconfig=kubeconfig)).start_background()
    runtime = Runtime()
    holder: dict[str, KubeClient] = {}

    def setup() -> None:
        holder["client"] = KubeClient(api_client(str(kubeconfig)), dispatch=runtime.dispatch, qps=0, burst=0)

    runtime.start_background(setup)
    try:
        yield Wire(served, runtime, holder["client"], kubeconfig)
    finally:
        runtime.call(holder["client"].close)
        runtime.close()
        served.close()
