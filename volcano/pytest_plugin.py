"""The pytest plugin installed with the package (entry point ``pytest11``).

Two fixtures:

* ``fake_cluster``: a fresh ``volcano.testbed.FakeCluster`` for each test: seed 0 and Volcano's
  default scheduler configuration, or the ``FakeCluster`` arguments of a
  ``@pytest.mark.fake_cluster(seed=..., scheduler_conf=..., kubelet=..., faults=...)`` marker.
* ``kube_api``: the same cluster served over the Kubernetes REST API (``volcano serve``,
  in-process, on a free loopback port), for testing code that talks to Kubernetes through
  kubectl or a client library. It yields a ``volcano.serve.ServedCluster`` with ``.kubeconfig``
  (a path), ``.url`` and ``.cluster`` (the ``FakeCluster``). The cluster is owned by the
  server's event loop: from the test, read or change it through ``.call(fn)``, and move time
  with ``.run(seconds)`` / ``.run_until(predicate, timeout)``. Options come from a
  ``@pytest.mark.kube_api(...)`` marker with ``volcano.serve.ServeOptions`` fields (default:
  4 nodes of 8 CPU and 32Gi, ``speed=1``; ``speed=0`` pauses the clock so that only the test
  moves time, which makes the test deterministic).

Both import the testbed only when used, so loading the plugin costs nothing otherwise.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from volcano.serve import ServedCluster
    from volcano.testbed import FakeCluster

__all__ = ["fake_cluster", "kube_api"]


def pytest_configure(config: pytest.Config) -> None:
    """Register the ``fake_cluster`` and ``kube_api`` markers."""
    config.addinivalue_line("markers", "fake_cluster(**arguments): volcano.testbed.FakeCluster arguments for the "
                                       "fake_cluster fixture")
    config.addinivalue_line("markers", "kube_api(**options): volcano.serve.ServeOptions for the kube_api fixture")


@pytest.fixture
def fake_cluster(request: pytest.FixtureRequest) -> Iterator[FakeCluster]:
    """A new in-memory cluster: namespace ``default``, queues ``root`` and ``default``; seed 0 unless
    a ``fake_cluster`` marker gives other ``FakeCluster`` arguments."""
    from volcano.testbed import FakeCluster

    marker = request.node.get_closest_marker("fake_cluster")
    arguments = {"seed": 0, **(marker.kwargs if marker is not None else {})}
    yield FakeCluster(**arguments)


@pytest.fixture
def kube_api(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ServedCluster]:
    """A fake cluster served over HTTP on a free loopback port, with a kubeconfig for it."""
    from volcano.serve import ServedCluster, ServeOptions

    marker = request.node.get_closest_marker("kube_api")
    options = dict(marker.kwargs) if marker is not None else {}
    options.setdefault("kubeconfig", tmp_path / "kubeconfig")
    served = ServedCluster(ServeOptions(**options)).start_background()
    try:
        yield served
    finally:
        served.close()
