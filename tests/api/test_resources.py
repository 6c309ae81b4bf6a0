"""Tests for volcano.api.resources: resource vectors and Kubernetes' pod request arithmetic."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from volcano.api.frozen import freeze
from volcano.api.quantity import QuantityError
from volcano.api.resources import (
    CPU,
    EPHEMERAL_STORAGE,
    GPU,
    MEMORY,
    PODS,
    Resources,
    node_allocatable,
    pod_limits,
    pod_requests,
)

GI = 2**30 * 1000


def test_resource_names() -> None:
    assert (CPU, MEMORY, PODS, EPHEMERAL_STORAGE, GPU) == (
        "cpu", "memory", "pods", "ephemeral-storage", "nvidia.com/gpu")


def test_zero_entries_dropped_and_equality() -> None:
    r = Resources({"cpu": 1000, "memory": 0})
    assert dict(r) == {"cpu": 1000}
    assert r == Resources({"cpu": 1000})
    assert r == {"cpu": 1000, "gpu": 0}
    assert hash(r) == hash(Resources([("cpu", 1000)]))
    assert r.names() == ("cpu",)
    assert r.get("memory") == 0 and r.get("cpu") == 1000
    assert "memory" not in r and len(r) == 1


def test_arithmetic() -> None:
    a = Resources({"cpu": 1000, "memory": GI})
    b = Resources({"cpu": 500, GPU: 1000})
    assert a + b == {"cpu": 1500, "memory": GI, GPU: 1000}
    assert (a + b) - b == a
    assert a - a == Resources() and (a - a).is_zero()
    assert b - a == {"cpu": -500, "memory": -GI, GPU: 1000}
    assert a.max_with(b) == {"cpu": 1000, "memory": GI, GPU: 1000}


def test_immutable() -> None:
    r = Resources({"cpu": 1})
    with pytest.raises(TypeError):
        r["cpu"] = 2  # type: ignore[index]
    with pytest.raises(TypeError, match=r"cpu=1\.5"):
        Resources({"cpu": 1.5})  # type: ignore[arg-type]


FITS = [
    ("empty-in-empty", {}, {}, True),
    ("equal", {"cpu": 1000}, {"cpu": 1000}, True),
    ("less", {"cpu": 500}, {"cpu": 1000, "memory": GI}, True),
    ("more", {"cpu": 1500}, {"cpu": 1000}, False),
    ("absent-in-other", {GPU: 1000}, {"cpu": 1000}, False),
    ("one-exceeds", {"cpu": 500, "memory": 2 * GI}, {"cpu": 1000, "memory": GI}, False),
]


@pytest.mark.parametrize(("a", "b", "expected"), [c[1:] for c in FITS], ids=[c[0] for c in FITS])
def test_fits_in(a: dict[str, int], b: dict[str, int], expected: bool) -> None:
    assert Resources(a).fits_in(Resources(b)) is expected


def test_from_k8s_and_to_k8s() -> None:
    r = Resources.from_k8s({"cpu": "500m", "memory": "2Gi", GPU: 1, "pods": "110", "hugepages-2Mi": "4Mi"})
    assert r == {"cpu": 500, "memory": 2 * GI, GPU: 1000, "pods": 110_000, "hugepages-2Mi": 4 * 2**20 * 1000}
    assert r.to_k8s() == {"cpu": "500m", "hugepages-2Mi": "4Mi", "memory": "2Gi", GPU: "1", "pods": "110"}
    assert Resources.from_k8s(r.to_k8s()) == r
    assert Resources.from_k8s(None) == Resources()


def test_from_k8s_error_names_field_and_value() -> None:
    with pytest.raises(QuantityError, match=r"spec.overhead.cpu: .*'1x'"):
        Resources.from_k8s({"cpu": "1x"}, field="spec.overhead")


_vec = st.dictionaries(st.sampled_from(["cpu", "memory", GPU, "pods"]),
                       st.integers(min_value=0, max_value=10**12), max_size=4).map(Resources)


@given(a=_vec, b=_vec)
def test_vector_properties(a: Resources, b: Resources) -> None:
    assert a + b == b + a
    assert (a + b) - b == a
    assert a.fits_in(a + b)
    assert a.max_with(b) == b.max_with(a)
    assert a.fits_in(a.max_with(b)) and b.fits_in(a.max_with(b))
    assert Resources.from_k8s(a.to_k8s()) == a


def _c(requests: dict[str, Any] | None = None, limits: dict[str, Any] | None = None,
       restart: str | None = None) -> dict[str, Any]:
    res: dict[str, Any] = {}
    if requests is not None:
        res["requests"] = requests
    if limits is not None:
        res["limits"] = limits
    out: dict[str, Any] = {"name": "c", "resources": res}
    if restart:
        out["restartPolicy"] = restart
    return out


def _pod(containers: list[dict[str, Any]], init: list[dict[str, Any]] | None = None,
         overhead: dict[str, str] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": containers}
    if init:
        spec["initContainers"] = init
    if overhead:
        spec["overhead"] = overhead
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": spec}


REQUEST_CASES: list[tuple[str, dict[str, Any], dict[str, int]]] = [
    ("no-containers", {"spec": {}}, {}),
    ("no-spec", {}, {}),
    ("no-resources", _pod([{"name": "c"}]), {}),
    ("sum-of-containers", _pod([_c({"cpu": "1"}), _c({"cpu": "500m", "memory": "1Gi"})]),
     {"cpu": 1500, "memory": GI}),
    ("init-is-a-floor", _pod([_c({"cpu": "1"})], init=[_c({"cpu": "2", "memory": "1Gi"})]),
     {"cpu": 2000, "memory": GI}),
    ("init-below-sum", _pod([_c({"cpu": "3"})], init=[_c({"cpu": "2"})]), {"cpu": 3000}),
    ("max-over-inits", _pod([_c({"cpu": "1"})], init=[_c({"cpu": "2"}), _c({"cpu": "4"}), _c({"cpu": "3"})]),
     {"cpu": 4000}),
    ("sidecar-adds", _pod([_c({"cpu": "1"})], init=[_c({"cpu": "500m"}, restart="Always")]), {"cpu": 1500}),
    # regular init after a sidecar runs next to it: 2 + 0.5 = 2.5 > 1 + 0.5
    ("init-after-sidecar", _pod([_c({"cpu": "1"})],
                                init=[_c({"cpu": "500m"}, restart="Always"), _c({"cpu": "2"})]), {"cpu": 2500}),
    # regular init before the sidecar does not overlap with it
    ("init-before-sidecar", _pod([_c({"cpu": "1"})],
                                 init=[_c({"cpu": "2"}), _c({"cpu": "500m"}, restart="Always")]), {"cpu": 2000}),
    ("overhead-added", _pod([_c({"cpu": "1"})], overhead={"cpu": "250m", "memory": "64Mi"}),
     {"cpu": 1250, "memory": 64 * 2**20 * 1000}),
    ("limits-default-requests", _pod([_c(limits={"cpu": "2", GPU: "1"})]), {"cpu": 2000, GPU: 1000}),
    ("explicit-request-wins", _pod([_c({"cpu": "1"}, {"cpu": "2", "memory": "1Gi"})]), {"cpu": 1000, "memory": GI}),
    ("explicit-zero-request", _pod([_c({"cpu": "0"}, {"cpu": "2"})]), {}),
]


@pytest.mark.parametrize(("pod", "expected"), [c[1:] for c in REQUEST_CASES], ids=[c[0] for c in REQUEST_CASES])
def test_pod_requests(pod: dict[str, Any], expected: dict[str, int]) -> None:
    assert pod_requests(pod) == Resources(expected)
    assert pod_requests(freeze(pod)) == Resources(expected)


def test_pod_requests_without_limit_defaulting() -> None:
    pod = _pod([_c({"memory": "1Gi"}, {"cpu": "2", "memory": "2Gi"})], init=[_c(limits={"cpu": "4"})])
    assert pod_requests(pod, default_from_limits=False) == Resources({"memory": GI})
    assert pod_requests(pod) == Resources({"cpu": 4000, "memory": GI})


LIMIT_CASES: list[tuple[str, dict[str, Any], dict[str, int]]] = [
    ("requests-ignored", _pod([_c({"cpu": "1"})]), {}),
    ("sum", _pod([_c(limits={"cpu": "1"}), _c(limits={"cpu": "2"})]), {"cpu": 3000}),
    ("init-floor", _pod([_c(limits={"cpu": "1"})], init=[_c(limits={"cpu": "4"})]), {"cpu": 4000}),
    ("overhead-only-on-limited", _pod([_c(limits={"cpu": "1"})], overhead={"cpu": "100m", "memory": "1Gi"}),
     {"cpu": 1100}),
    ("overhead-without-limits", _pod([_c({"cpu": "1"})], overhead={"cpu": "100m"}), {}),
]


@pytest.mark.parametrize(("pod", "expected"), [c[1:] for c in LIMIT_CASES], ids=[c[0] for c in LIMIT_CASES])
def test_pod_limits(pod: dict[str, Any], expected: dict[str, int]) -> None:
    assert pod_limits(pod) == Resources(expected)


def test_pod_requests_error_names_container_field() -> None:
    with pytest.raises(QuantityError, match=r"spec.containers\[1\].resources.requests.memory: .*'lots'"):
        pod_requests(_pod([_c({"cpu": "1"}), _c({"memory": "lots"})]))
    with pytest.raises(QuantityError, match=r"spec.initContainers\[0\].resources.limits.cpu"):
        pod_requests(_pod([], init=[_c(limits={"cpu": "x"})]))


NODE_CASES: list[tuple[str, dict[str, Any], dict[str, int]]] = [
    ("allocatable", {"status": {"allocatable": {"cpu": "4", "pods": "110"}, "capacity": {"cpu": "8"}}},
     {"cpu": 4000, "pods": 110_000}),
    ("capacity-fallback", {"status": {"capacity": {"cpu": "8", "memory": "16Gi"}}}, {"cpu": 8000, "memory": 16 * GI}),
    ("nothing", {"status": {}}, {}),
    ("no-status", {}, {}),
]


@pytest.mark.parametrize(("node", "expected"), [c[1:] for c in NODE_CASES], ids=[c[0] for c in NODE_CASES])
def test_node_allocatable(node: dict[str, Any], expected: dict[str, int]) -> None:
    assert node_allocatable(node) == Resources(expected)
