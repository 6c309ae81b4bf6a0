"""``shared_conditions`` (the scheduler's fast condition write) gives a list equal to
``updated_conditions``' whose other conditions are the stored objects themselves; written with
``Scheduler._update_pod_status`` it stores exactly what the reference path (the merge patch of the
``status`` subresource with ``updated_conditions``' copies) stores: same object, types, key order,
resourceVersion and watch events."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.scheduler.test_pod_status_write import _CONDITION, _writer
from volcano.api.frozen import freeze
from volcano.apiserver.server import ApiServer
from volcano.scheduler.framework.status import updated_conditions
from volcano.scheduler.scheduler import Scheduler, shared_conditions
from volcano.sim.clock import SimClock
from volcano.sim.rand import RandomStreams

_SET = st.fixed_dictionaries({"type": st.sampled_from(["PodScheduled", "Ready"]),
                              "status": st.sampled_from(["True", "False"]),
                              "reason": st.sampled_from(["Unschedulable", "SchedulerError"]),
                              "message": st.text(max_size=20)})


def _typed(value: Any) -> Any:
    if isinstance(value, dict):
        return [(k, _typed(v)) for k, v in value.items()]
    if isinstance(value, list):
        return [_typed(v) for v in value]
    return (type(value).__name__, value)


@settings(max_examples=200, deadline=None)
@given(st.lists(_CONDITION, max_size=4), _SET, st.sampled_from(["2024-01-01T00:02:00Z", "now"]))
def test_shared_conditions_equal_updated_conditions_and_share_the_rest(
        conditions: list[dict[str, Any]], cond: dict[str, Any], now: str) -> None:
    stored = freeze(conditions)
    shared = shared_conditions(stored, cond, now)
    reference = updated_conditions(stored, cond, now)
    assert shared == reference and _typed(shared) == _typed(reference)
    assert [list(c) for c in shared] == [list(c) for c in reference]  # key order
    kept = [c for c in shared if any(c is s for s in stored)]
    assert len(kept) >= len(shared) - 1  # at most the condition set is new
    assert stored == conditions  # nothing edited


def _pod() -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "p-0", "namespace": "default", "labels": {"a": "b"}},
            "spec": {"schedulerName": "volcano", "containers": [{"name": "c", "image": "i"}]}}


@settings(max_examples=60, deadline=None)
@given(st.fixed_dictionaries({}, optional={"conditions": st.lists(_CONDITION, max_size=3),
                                           "nominatedNodeName": st.sampled_from(["", "n1"]),
                                           "message": st.text(max_size=10)}),
       st.lists(_SET, min_size=1, max_size=3), st.sampled_from(["", "n1", "n2"]), st.booleans())
def test_shared_writes_store_what_the_reference_patches_store(before: dict[str, Any], sets: list[dict[str, Any]],
                                                              nominated: str, managed: bool) -> None:
    servers = [ApiServer(SimClock(), RandomStreams(1)) for _ in range(2)]
    for server in servers:
        server.create(_pod(), field_manager="kubectl" if managed else None)
        server.patch("Pod", "p-0", {"status": before}, "default", subresource="status")
    patched, direct = servers
    task = SimpleNamespace(name="p-0", namespace="default")
    for i, cond in enumerate(sets):  # a sequence of writes: each keeps what the previous ones stored
        now = f"2024-01-01T00:0{i}:00Z"
        for server, fast in ((patched, False), (direct, True)):
            conditions = (server.get("Pod", "p-0", "default")["status"].get("conditions") or [])
            status: dict[str, Any] = {"conditions": (shared_conditions if fast else updated_conditions)(
                conditions, cond, now)}
            if nominated:
                status["nominatedNodeName"] = nominated
            if fast:
                Scheduler._update_pod_status(_writer(server), task, status)  # type: ignore[arg-type]
            else:
                server.patch("Pod", "p-0", {"status": status}, "default", subresource="status")
    a, b = patched.get("Pod", "p-0", "default"), direct.get("Pod", "p-0", "default")
    assert _typed(a) == _typed(b)
    assert a["metadata"]["resourceVersion"] == b["metadata"]["resourceVersion"]
    assert [(t, json.dumps(o)) for t, o, *_ in patched._hub.log("Pod").events] \
        == [(t, json.dumps(o)) for t, o, *_ in direct._hub.log("Pod").events]
