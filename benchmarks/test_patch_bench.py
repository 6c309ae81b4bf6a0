"""Cost of one PATCH of each type on a Pod (pytest-benchmark).

Workload: one Pod with two containers (image, env of 3, ports, volume mounts, resources), four
labels and one annotation, on a fresh server. Each call alternates between two bodies so every
call really changes the object (an unchanged result would return early). ``apply`` re-applies a
full manifest with ``managedFields`` tracking; ``kubectl-apply`` computes kubectl's three-way patch
from the live object and sends it. Run with ``pytest benchmarks/test_patch_bench.py --benchmark-only``.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from volcano.apiserver import ApiServer
from volcano.apiserver.threeway import kubectl_apply_patch, with_last_applied
from volcano.sim import RandomStreams, SimClock


def manifest(image: str = "busybox:1") -> dict[str, Any]:
    def container(name: str) -> dict[str, Any]:
        return {"name": name, "image": image,
                "env": [{"name": f"E{i}", "value": str(i)} for i in range(3)],
                "ports": [{"containerPort": 8080, "protocol": "TCP"}],
                "volumeMounts": [{"name": "data", "mountPath": "/data"}],
                "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "p", "namespace": "default",
                         "labels": {"app": "bench", "tier": "web", "team": "a", "env": "test"},
                         "annotations": {"note": "x"}},
            "spec": {"schedulerName": "volcano", "containers": [container("main"), container("side")],
                     "volumes": [{"name": "data", "emptyDir": {}}]}}


def _bodies(kind: str) -> tuple[Any, Any, dict[str, Any]]:
    if kind == "merge":
        return {"metadata": {"labels": {"step": "a"}}}, {"metadata": {"labels": {"step": "b"}}}, {}
    if kind == "json":
        def ops(image: str) -> list[dict[str, Any]]:
            return [{"op": "replace", "path": "/spec/containers/0/image", "value": image}]
        return ops("busybox:2"), ops("busybox:3"), {}
    if kind == "strategic":
        def body(image: str) -> dict[str, Any]:
            return {"spec": {"$setElementOrder/containers": [{"name": "main"}, {"name": "side"}],
                             "containers": [{"name": "main", "image": image}]}}
        return body("busybox:2"), body("busybox:3"), {}
    return manifest("busybox:2"), manifest("busybox:3"), {"field_manager": "bench"}


@pytest.mark.parametrize("patch_type", ["merge", "json", "strategic", "apply"])
def test_patch_one_pod(benchmark: Any, patch_type: str) -> None:
    server = ApiServer(SimClock(), RandomStreams(0))
    if patch_type == "apply":
        server.server_side_apply("Pod", "p", manifest(), "default", field_manager="bench")
    else:
        server.create(manifest())
    first, second, options = _bodies(patch_type)
    bodies = [first, second]
    state = {"i": 0}
    before = int(server.resource_version)

    def run() -> Any:
        state["i"] += 1
        return server.patch("Pod", "p", bodies[state["i"] % 2], "default", patch_type=patch_type, **options)

    out = benchmark(run)
    assert int(out["metadata"]["resourceVersion"]) > before  # every call really wrote
    if patch_type == "apply":
        assert out["metadata"]["managedFields"][0]["manager"] == "bench"


def test_kubectl_client_side_apply_one_pod(benchmark: Any) -> None:
    server = ApiServer(SimClock(), RandomStreams(0))
    server.create(with_last_applied(manifest()))
    manifests = [manifest("busybox:2"), manifest("busybox:3")]
    state = {"i": 0}

    def step() -> Any:
        state["i"] += 1
        target = manifests[state["i"] % 2]
        patch = kubectl_apply_patch(server.get("Pod", "p", "default"), copy.deepcopy(target))
        return server.patch("Pod", "p", patch.patch, "default", patch_type=patch.patch_type)

    out = benchmark(step)
    assert out["spec"]["containers"][0]["image"] in ("busybox:2", "busybox:3")
