"""``pod_requests`` remembers its answer by the containers, init containers and overhead: on random
pods (values repeating, retyped, reordered, limits and sidecars) the answer is the computed one."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from volcano.api.frozen import freeze
from volcano.api.quantity import QuantityError
from volcano.api.resources import _pod_requests, pod_requests

_amounts = st.dictionaries(st.sampled_from(["cpu", "memory", "nvidia.com/gpu"]),
                           st.sampled_from(["1", "100m", "2Gi", 1, 1.5, "x", "0"]), max_size=3)


@st.composite
def pods(draw: st.DrawFn) -> dict[str, Any]:
    def container() -> dict[str, Any]:
        resources: dict[str, Any] = {}
        for part in draw(st.lists(st.sampled_from(["requests", "limits"]), max_size=2, unique=True)):
            resources[part] = draw(_amounts)
        out: dict[str, Any] = {"name": "c", "resources": resources}
        if draw(st.booleans()):
            out["restartPolicy"] = "Always"
        return out
    spec: dict[str, Any] = {"containers": [container() for _ in range(draw(st.integers(0, 2)))]}
    if draw(st.booleans()):
        spec["initContainers"] = [container() for _ in range(draw(st.integers(1, 2)))]
    if draw(st.booleans()):
        spec["overhead"] = draw(_amounts)
    pod = {"spec": spec}
    return freeze(pod) if draw(st.booleans()) else pod


def _answer(fn: Any, *args: Any) -> Any:
    try:
        return dict(fn(*args))
    except (ValueError, QuantityError) as exc:
        return ("error", type(exc).__name__, str(exc))


@settings(max_examples=200, deadline=None)
@given(st.lists(pods(), min_size=1, max_size=6), st.booleans())
def test_remembered_requests_are_computed_ones(batch: list[dict[str, Any]], from_limits: bool) -> None:
    for pod in batch + batch:
        assert _answer(lambda p: pod_requests(p, default_from_limits=from_limits), pod) == \
            _answer(_pod_requests, pod, from_limits)
