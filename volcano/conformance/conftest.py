"""Conformance fixtures, options, invariants and the per-area report.

Options:
  --backend memory|kubeconfig   where the cases run (default: memory, a FakeCluster on simulated time)
  --kubeconfig PATH             kubeconfig for the kubeconfig backend (default: $KUBECONFIG or ~/.kube/config)
  --conformance-report PATH     write a Markdown report (counts per area, not-covered cases)
  --serve                       with --backend kubeconfig: start a volcano serve per case, of the case's
                                shape and scheduler configuration, and run the case against it over HTTP
  --serve-speed S               cluster seconds per wall second of those servers (default 50)
  --wire                        with --backend kubeconfig: run each case against its own process set on
                                loopback (volcano serve --api-only, nodes, controllers, scheduler)
  --wire-speed S                cluster seconds per wall second of those processes (default 10)
  --time-scale S                cluster seconds per wall second of the --kubeconfig cluster (default 1;
                                the --speed of an external volcano serve)

Markers a case may carry:
  @pytest.mark.<area>                       gang, preemption, reclaim, fairshare, podgroup_status, job_lifecycle,
                                            queue, admission, job_plugins, scheduling_base
  @pytest.mark.upstream(suite, name)        the upstream e2e case it mirrors
  @pytest.mark.cluster(workers=4, cpu="4", memory="16Gi", pods=110, gpu=0, control_plane=True)
  @pytest.mark.scheduler_conf(text)         a Volcano scheduler configuration for the memory backend
  @pytest.mark.faults                       the case injects faults (``Cluster.fail_writes``): the backend routes
                                            the components through a fault-injecting client
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from volcano.conformance.backends.base import Cluster, ClusterShape, NodeShape
from volcano.conformance.lib.invariants import check_invariants
from volcano.conformance.lib.report import ConformanceReport

NOT_COVERED = Path(__file__).with_name("not_covered.yaml")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("conformance")
    group.addoption("--backend", default="memory", choices=("memory", "kubeconfig"),
                    help="cluster backend for conformance cases (default: memory)")
    group.addoption("--kubeconfig", default=os.environ.get("KUBECONFIG"), help="kubeconfig for --backend=kubeconfig")
    group.addoption("--conformance-report", default=None, help="write a Markdown conformance report here")
    group.addoption("--serve", action="store_true",
                    help="with --backend kubeconfig: run each case against a volcano serve of its own shape")
    group.addoption("--serve-speed", type=float, default=50.0, help="pace of the --serve servers (default 50)")
    group.addoption("--wire", action="store_true",
                    help="with --backend kubeconfig: run each case against volcano serve --api-only, nodes, "
                         "controllers and scheduler started as processes for it")
    group.addoption("--wire-speed", type=float, default=10.0, help="pace of the --wire processes (default 10)")
    group.addoption("--time-scale", type=float, default=1.0,
                    help="cluster seconds per wall second of the --kubeconfig cluster (default 1)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "upstream(suite, name): the upstream Volcano e2e case this mirrors")
    config.addinivalue_line("markers", "cluster(**shape): worker nodes the case needs")
    config.addinivalue_line("markers", "scheduler_conf(text): scheduler configuration (memory backend)")
    config.addinivalue_line("markers", "faults: the case injects faults (Cluster.fail_writes)")
    config.pluginmanager.register(ConformanceReport(config, NOT_COVERED), "volcano-conformance-report")


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Wait for the served clusters of the last cases to finish shutting down (``--serve``)."""
    served = sys.modules.get("volcano.conformance.backends.served")
    if served is not None:
        served.drain_closing()


def _shape(item: pytest.Item) -> ClusterShape:
    marker = item.get_closest_marker("cluster")
    if marker is None:
        return ClusterShape()
    kw = dict(marker.kwargs)
    node = NodeShape(cpu=str(kw.pop("cpu", "4")), memory=str(kw.pop("memory", "16Gi")), pods=int(kw.pop("pods", 110)),
                     gpu=int(kw.pop("gpu", 0)), labels=dict(kw.pop("labels", {})))
    return ClusterShape(workers=int(kw.pop("workers", 4)), node=node,
                        control_plane=bool(kw.pop("control_plane", True)))


@pytest.fixture
def cluster(request: pytest.FixtureRequest) -> Iterator[Cluster]:
    """A cluster of the shape the case asks for, on the selected backend; invariants are
    checked on everything it recorded when the case ends."""
    backend = request.config.getoption("--backend")
    shape = _shape(request.node)
    conf_marker = request.node.get_closest_marker("scheduler_conf")
    faults = request.node.get_closest_marker("faults") is not None
    c: Cluster
    if backend == "memory":
        from volcano.conformance.backends.memory import MemoryCluster

        c = MemoryCluster(shape, scheduler_conf=conf_marker.args[0] if conf_marker else None, faults=faults)
    elif request.config.getoption("--wire"):
        pytest.importorskip("kubernetes", reason="the kubeconfig backend needs the 'kubernetes' package")
        from volcano.conformance.backends.wire import WireKubeCluster

        c = WireKubeCluster(shape, speed=request.config.getoption("--wire-speed"),
                            scheduler_conf=conf_marker.args[0] if conf_marker else None)
    elif request.config.getoption("--serve"):
        pytest.importorskip("kubernetes", reason="the kubeconfig backend needs the 'kubernetes' package")
        from volcano.conformance.backends.served import ServedKubeCluster

        c = ServedKubeCluster(shape, speed=request.config.getoption("--serve-speed"),
                              scheduler_conf=conf_marker.args[0] if conf_marker else None, faults=faults)
    else:
        from volcano.conformance.backends.kube import KubeCluster, kube_unavailable_reason

        reason = kube_unavailable_reason(request.config.getoption("--kubeconfig"))
        if reason:
            pytest.skip(reason)
        if conf_marker:
            pytest.skip("case needs its own scheduler configuration; not applied on the kubeconfig backend")
        c = KubeCluster(shape, kubeconfig=request.config.getoption("--kubeconfig"),
                        time_scale=request.config.getoption("--time-scale"))
    try:
        yield c
        # Proportion is the default scheduler configuration's queue plugin, here and in Volcano's chart.
        conf = conf_marker.args[0] if conf_marker else ""
        proportion = not conf or ("name: proportion" in conf and "name: capacity" not in conf)
        # An injected fault may stop a gang midway (a refused bind), as it may stop Volcano's: no gang check.
        gang = (not conf or "name: gang" in conf) and not faults
        violations = check_invariants(c.recorded_history(), gang_window=c.gang_window, proportion=proportion,
                                      gang=gang)
        assert not violations, "invariants broken:\n" + "\n".join(violations)
    finally:
        c.close()
