"""Store throughput: create, update and watch 100,000 small pods (pytest-benchmark).

Run with ``pytest benchmarks/test_store_bench.py --benchmark-only``. Each
benchmark runs once on a fresh server (the workload is large enough that one
round is a stable measurement) and checks the work was really done. With
``--benchmark-disable`` (the smoke run in ``make test``) each runs the same
work and checks on ``SMOKE_N`` pods.
"""

from __future__ import annotations

from typing import Any

from volcano.api.frozen import thaw
from volcano.apiserver import ApiServer, WatchEvent
from volcano.sim import RandomStreams, SimClock

N = 100_000
"""Pods per benchmark."""
SMOKE_N = 2_000
"""Pods per benchmark when benchmarks are disabled (the smoke run)."""
PODS_PER_NODE = 20
"""Pods the bind benchmark puts on each node (5,000 nodes at ``N``)."""


def _size(benchmark: Any) -> int:
    return SMOKE_N if benchmark.disabled else N


def _pod(i: int) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"pod-{i}", "namespace": "default", "labels": {"app": "bench"}},
            "spec": {"schedulerName": "volcano",
                     "containers": [{"name": "c", "image": "busybox",
                                     "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}]}}


def _server() -> ApiServer:
    return ApiServer(SimClock(), RandomStreams(0))


def test_create_100k_pods(benchmark: Any) -> None:
    n = _size(benchmark)
    manifests = [_pod(i) for i in range(n)]

    def run() -> ApiServer:
        server = _server()
        for m in manifests:
            server.create(m)
        return server

    server = benchmark.pedantic(run, rounds=1, iterations=1)
    assert len(server.list("Pod")["items"]) == n


def test_update_100k_pods(benchmark: Any) -> None:
    n = _size(benchmark)
    server = _server()
    for i in range(n):
        server.create(_pod(i))
    edits = []
    for obj in server.list("Pod")["items"]:
        edit = thaw(obj)
        edit["metadata"]["labels"]["step"] = "1"
        edits.append(edit)

    def run() -> None:
        for e in edits:
            server.update(e)

    benchmark.pedantic(run, rounds=1, iterations=1)
    items = server.list("Pod")["items"]
    assert len(items) == n
    assert all(o["metadata"]["labels"]["step"] == "1" for o in items)


def test_bind_100k_pods(benchmark: Any) -> None:
    n = _size(benchmark)
    nodes = n // PODS_PER_NODE
    server = _server()
    for i in range(n):
        server.create(_pod(i))

    def run() -> None:
        for i in range(n):
            server.bind(f"pod-{i}", "default", f"node-{i % nodes}")

    benchmark.pedantic(run, rounds=1, iterations=1)
    assert len(server.list("Pod", field_selector="spec.nodeName=node-7")["items"]) == PODS_PER_NODE


def test_watch_100k_pods(benchmark: Any) -> None:
    n = _size(benchmark)
    clock = SimClock()
    server = ApiServer(clock, RandomStreams(0))
    start = server.resource_version
    for i in range(n):
        server.create(_pod(i))
    for i in range(n):
        server.bind(f"pod-{i}", "default", "node-1")
    received: list[int] = [0]

    def handler(ev: WatchEvent) -> None:
        received[0] += 1

    def run() -> None:
        received[0] = 0
        handle = server.watch("Pod", handler, resource_version=start)
        clock.run()
        handle.stop()

    benchmark.pedantic(run, rounds=1, iterations=1)
    assert received[0] == 2 * n
