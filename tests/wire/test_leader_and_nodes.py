"""Leader election and the simulated nodes, on the in-memory API server and simulated time
(both only need a ``Client`` and a ``Clock``, so their rules are checked deterministically here)."""

from __future__ import annotations

from typing import Any

import pytest

from volcano.admission import install_admission
from volcano.apiserver import ApiError, ApiServer
from volcano.kube.leader import LeaderElector, LeaderOptions
from volcano.kube.nodes import GROUP_LABEL, SimNodes
from volcano.kubelet.annotation_check import install_sim_annotation_check
from volcano.sim import RandomStreams, SimClock


class Flaky:
    """A client that fails every call while ``down``."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.down = False

    def __getattr__(self, name: str) -> Any:
        fn = getattr(self.client, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            if self.down:
                raise ApiError(503, "ServiceUnavailable", "down")
            return fn(*args, **kwargs)

        return call


def _elector(server: Any, clock: SimClock, who: str, log: list[str]) -> LeaderElector:
    return LeaderElector(server, clock, namespace="kube-system", name="vc-scheduler", identity=who,
                         on_started=lambda: log.append(f"{who} started"),
                         on_stopped=lambda: log.append(f"{who} stopped"))


def test_one_leader_takeover_after_the_lease_expires_and_release() -> None:
    clock = SimClock()
    server = ApiServer(clock, RandomStreams(0))
    log: list[str] = []
    a, b = _elector(server, clock, "a", log), _elector(server, clock, "b", log)
    a.start()
    clock.run(1)
    b.start()
    clock.run(30_000)
    assert log == ["a started"] and a.leading and not b.leading
    lease = server.get("Lease", "vc-scheduler", "kube-system")["spec"]
    assert lease["holderIdentity"] == "a" and lease["leaseDurationSeconds"] == 15
    assert clock.parse_timestamp(lease["renewTime"]) >= 28_000  # renewed every retry period
    a.stop()  # a hangs: it stops renewing without releasing
    stopped_at = clock.now_ms
    took = clock.run_until(lambda: b.leading, 60_000)
    assert 15_000 <= took - stopped_at <= 15_000 + 2_000  # lease duration (+ one retry period)
    assert server.get("Lease", "vc-scheduler", "kube-system")["spec"]["leaseTransitions"] == 1
    b.release()
    assert server.get("Lease", "vc-scheduler", "kube-system")["spec"]["holderIdentity"] == ""
    c = _elector(server, clock, "c", log)
    c.start()
    clock.run(clock.now_ms + 1)
    assert c.leading  # a released lease is free at once


def test_a_leader_that_cannot_renew_stops_after_the_renew_deadline() -> None:
    clock = SimClock()
    server = ApiServer(clock, RandomStreams(0))
    flaky = Flaky(server)
    log: list[str] = []
    a = LeaderElector(flaky, clock, namespace="kube-system", name="l", identity="a",
                      on_started=lambda: log.append("started"), on_stopped=lambda: log.append("stopped"))
    a.start()
    clock.run(5_000)
    flaky.down = True  # the last renewal was at 4 s (retry period 2 s)
    clock.run_until(lambda: "stopped" in log, 30_000)
    assert clock.now_ms == 4_000 + 10_000 and not a.leading  # the renew deadline after the last renewal


def test_bad_timings_are_refused() -> None:
    clock = SimClock()
    with pytest.raises(ValueError, match="renew deadline"):
        LeaderElector(ApiServer(clock, RandomStreams(0)), clock, namespace="n", name="l", identity="a",
                      on_started=lambda: None, on_stopped=lambda: None, lease_duration_ms=5_000,
                      renew_deadline_ms=10_000)


def _cluster() -> tuple[SimClock, ApiServer]:
    clock = SimClock()
    server = ApiServer(clock, RandomStreams(0))
    install_admission(server)
    install_sim_annotation_check(server.admission)
    return clock, server


def _pod(name: str, node: str, duration: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "annotations": {"sim.volcano.sh/duration": duration}},
            "spec": {"nodeName": node, "restartPolicy": "Never",
                     "containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "1"}}}]}}


def test_sim_nodes_register_heartbeat_and_run_their_pods_only() -> None:
    clock, server = _cluster()
    server.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "real-0"}})
    nodes = SimNodes(server, clock, count=2, prefix="sim-", cpu="4", memory="8Gi", gpu=1)
    nodes.start()
    node = server.get("Node", "sim-1")
    assert node["metadata"]["labels"][GROUP_LABEL] == "sim"
    assert node["status"]["allocatable"]["nvidia.com/gpu"] == "1"
    assert [c["type"] for c in node["status"]["conditions"]] == ["Ready"]
    lease = server.get("Lease", "sim-0", "kube-node-lease")
    assert lease["spec"]["holderIdentity"] == "sim-0"
    assert lease["metadata"]["ownerReferences"][0]["uid"] == server.get("Node", "sim-0")["metadata"]["uid"]
    server.create(_pod("mine", "sim-0", "30s"))
    server.create(_pod("theirs", "real-0", "30s"))
    clock.run(2_000)
    assert server.get("Pod", "mine")["status"]["phase"] == "Running"
    assert server.get("Pod", "theirs")["status"]["phase"] == "Pending"  # another kubelet's node
    renewed = server.get("Lease", "sim-0", "kube-node-lease")["spec"]["renewTime"]
    clock.run(25_000)
    assert server.get("Lease", "sim-0", "kube-node-lease")["spec"]["renewTime"] > renewed
    clock.run(33_000)
    assert server.get("Pod", "mine")["status"]["phase"] == "Succeeded"
    assert nodes.lease_renewals >= 2 * 3


def test_sim_nodes_take_over_existing_nodes_and_check_their_options() -> None:
    clock, server = _cluster()
    SimNodes(server, clock, count=1, prefix="n-", cpu="2").start()
    again = SimNodes(server, clock, count=1, prefix="n-", cpu="8")
    again.start()
    assert server.get("Node", "n-0")["status"]["capacity"]["cpu"] == "8"
    for kwargs, message in (({"count": -1}, "--count"), ({"count": 1, "cpu": "lots"}, "--cpu"),
                            ({"count": 1, "prefix": "Bad_"}, "--prefix"), ({"count": 1, "gpu": -2}, "--gpu")):
        with pytest.raises(ValueError, match=message):
            SimNodes(server, clock, **kwargs)


def test_a_components_start_line_names_its_lease_or_none() -> None:
    """``volcano scheduler`` and ``volcano controllers`` print the Lease they elect through, or say
    there is none (``--leader-elect=false``)."""
    assert LeaderOptions(namespace="volcano-system", name="vc-scheduler").describe() == \
        "Lease volcano-system/vc-scheduler"
    assert LeaderOptions(enabled=False, name="vc-scheduler").describe() == "no leader election"
