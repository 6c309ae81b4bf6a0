"""The scheduler's direct pod status write (``Scheduler._update_pod_status``, used when the client is
the in-process server) stores exactly what the merge patch of the ``status`` subresource it replaces
stores: same object, same resourceVersion, same key order, on random pods and random condition
writes; and a missing pod is NotFound either way."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from volcano.apiserver.errors import ApiError
from volcano.apiserver.server import ApiServer
from volcano.scheduler.scheduler import Scheduler
from volcano.sim.clock import SimClock
from volcano.sim.rand import RandomStreams

_CONDITION = st.fixed_dictionaries(
    {"type": st.sampled_from(["PodScheduled", "Ready", "DisruptionTarget"]),
     "status": st.sampled_from(["True", "False"])},
    optional={"reason": st.sampled_from(["Unschedulable", "SchedulerError", "Evict"]),
              "message": st.text(max_size=20),
              "lastTransitionTime": st.sampled_from(["2024-01-01T00:00:00Z", "2024-01-01T00:01:00Z"])})



def _writer(server: ApiServer) -> SimpleNamespace:
    """The scheduler's state ``_update_pod_status`` reads, with ``server`` as its in-process client."""
    return SimpleNamespace(client=server, _status_fields=ApiServer.update_status_fields)

def _pod() -> dict[str, Any]:
    pod: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod",
                           "metadata": {"name": "p-0", "namespace": "default", "labels": {"a": "b"}},
                           "spec": {"schedulerName": "volcano",
                                    "containers": [{"name": "c", "image": "i",
                                                    "resources": {"requests": {"cpu": "1"}}}]}}
    return pod


@settings(max_examples=30, deadline=None)
@given(st.fixed_dictionaries({}, optional={"conditions": st.lists(_CONDITION, max_size=3),
                                           "nominatedNodeName": st.sampled_from(["", "n1"]),
                                           "message": st.text(max_size=10)}),
       st.lists(_CONDITION, max_size=3), st.sampled_from(["", "n1", "n2"]), st.booleans())
def test_direct_write_stores_what_the_patch_stores(before: dict[str, Any], conds: list[dict[str, Any]],
                                                   nominated: str, managed: bool) -> None:
    servers = [ApiServer(SimClock(), RandomStreams(1)) for _ in range(2)]
    for server in servers:
        server.create(_pod(), field_manager="kubectl" if managed else None)
        server.patch("Pod", "p-0", {"status": before}, "default", subresource="status")
    status: dict[str, Any] = {"conditions": conds}
    if nominated:
        status["nominatedNodeName"] = nominated
    task = SimpleNamespace(name="p-0", namespace="default")
    patched, direct = servers
    patched.patch("Pod", "p-0", {"status": status}, "default", subresource="status")
    Scheduler._update_pod_status(_writer(direct), task, status)  # type: ignore[arg-type]
    a, b = patched.get("Pod", "p-0", "default"), direct.get("Pod", "p-0", "default")
    assert a == b
    assert list(a["status"]) == list(b["status"])
    assert a["metadata"]["resourceVersion"] == b["metadata"]["resourceVersion"]


def test_a_missing_pod_is_not_found_either_way() -> None:
    server = ApiServer(SimClock(), RandomStreams(1))
    with pytest.raises(ApiError) as via_patch:
        server.patch("Pod", "gone", {"status": {"conditions": []}}, "default", subresource="status")
    with pytest.raises(ApiError) as direct:
        Scheduler._update_pod_status(_writer(server),  # type: ignore[arg-type]
                                     SimpleNamespace(name="gone", namespace="default"), {"conditions": []})
    assert via_patch.value.code == direct.value.code == 404
