"""Conformance fixtures, options, invariants and the per-area report.

Options:
  --backend memory|kubeconfig   where the cases run (default: memory, a FakeCluster on simulated time)
  --kubeconfig PATH             kubeconfig for the kubeconfig backend (default: $KUBECONFIG or ~/.kube/config)
  --conformance-report PATH     write a Markdown report (counts per area, not-covered cases)

Markers a case may carry:
  @pytest.mark.<area>                       gang, preemption, reclaim, fairshare, podgroup_status, job_lifecycle,
                                            queue, admission, job_plugins, scheduling_base
  @pytest.mark.upstream(suite, name)        the upstream e2e case it mirrors
  @pytest.mark.cluster(workers=4, cpu="4", memory="16Gi", pods=110, gpu=0, control_plane=True)
  @pytest.mark.scheduler_conf(text)         a Volcano scheduler configuration for the memory backend
"""

from __future__ import annotations

import os
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


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "upstream(suite, name): the upstream Volcano e2e case this mirrors")
    config.addinivalue_line("markers", "cluster(**shape): worker nodes the case needs")
    config.addinivalue_line("markers", "scheduler_conf(text): scheduler configuration (memory backend)")
    config.pluginmanager.register(ConformanceReport(config, NOT_COVERED), "volcano-conformance-report")


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
    c: Cluster
    if backend == "memory":
        from volcano.conformance.backends.memory import MemoryCluster

        c = MemoryCluster(shape, scheduler_conf=conf_marker.args[0] if conf_marker else None)
    else:
        from volcano.conformance.backends.kube import KubeCluster, kube_unavailable_reason

        reason = kube_unavailable_reason(request.config.getoption("--kubeconfig"))
        if reason:
            pytest.skip(reason)
        if conf_marker:
            pytest.skip("case needs its own scheduler configuration; not applied on the kubeconfig backend")
        c = KubeCluster(shape, kubeconfig=request.config.getoption("--kubeconfig"))
    try:
        yield c
        # Proportion is the default scheduler configuration's queue plugin, here and in Volcano's chart.
        conf = conf_marker.args[0] if conf_marker else ""
        proportion = not conf or ("name: proportion" in conf and "name: capacity" not in conf)
        violations = check_invariants(c.recorder.history, gang_window=0.0 if backend == "memory" else 2.0,
                                      proportion=proportion)
        assert not violations, "invariants broken:\n" + "\n".join(violations)
    finally:
        c.close()
