"""``update_status_fields`` checks and freezes a new condition of strings once per distinct content
(``status_write._flat_frozen``): over random condition writes to a few pods (contents repeated
across pods, values of other types that compare equal to strings or to each other, keys in other
orders, invalid conditions), every answer, stored object (types and key order included) and watch
event equals that of a server that checks and freezes every condition anew; and pods given the
same condition content share one frozen copy."""

from __future__ import annotations

import json
from typing import Any
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.apiserver.conftest import typed_shape
from volcano.api.frozen import FrozenDict
from volcano.apiserver import status_write
from volcano.apiserver.errors import ApiError
from volcano.apiserver.server import ApiServer
from volcano.sim.clock import SimClock
from volcano.sim.rand import RandomStreams

_VALUE = st.sampled_from(["True", "False", "Unschedulable", "0/3 nodes", "1", 1, True, 1.0, None])
_CONDITION = st.dictionaries(st.sampled_from(["type", "status", "reason", "message", "lastTransitionTime"]),
                             _VALUE, min_size=1, max_size=5).map(lambda d: {"type": "PodScheduled", **d}) \
    | st.fixed_dictionaries({"type": st.sampled_from(["PodScheduled", "Ready"]),
                             "status": st.sampled_from(["True", "False"])},
                            optional={"reason": st.sampled_from(["Unschedulable", "x"]),
                                      "message": st.sampled_from(["0/3 nodes", "0/4 nodes"])})
writes = st.lists(st.tuples(st.integers(0, 2), _CONDITION, st.booleans()), max_size=25)
"""(pod, condition, whether the pod's other conditions are kept)."""


def _server() -> ApiServer:
    server = ApiServer(SimClock(), RandomStreams(1))
    for i in range(3):
        server.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p-{i}", "namespace": "default"},
                       "spec": {"containers": [{"name": "c", "image": "busybox"}]}})
    return server


def _run(history: list[tuple[int, dict[str, Any], bool]]) -> tuple[ApiServer, list[Any]]:
    server = _server()
    answers: list[Any] = []
    for pod, cond, keep in history:
        name = f"p-{pod}"
        conditions = list((server.get("Pod", name, "default").get("status") or {}).get("conditions") or [])
        items = [c for c in conditions if c.get("type") != cond.get("type")] if keep else []
        try:
            stored = server.update_status_fields("Pod", name, "default", {"conditions": [*items, dict(cond)]})
            answers.append(("stored", typed_shape(stored)))
        except ApiError as exc:
            answers.append(("error", exc.code, exc.message))
    return server, answers


def _history(server: ApiServer) -> Any:
    return (server.resource_version, typed_shape(server.snapshot()),
            [(etype, json.dumps(obj, default=str)) for etype, obj, *_ in server._hub.log("Pod").events])


def _unmemoized(check: Any, item: dict[str, Any]) -> FrozenDict | None:
    return FrozenDict(item) if check(item) else None


@settings(max_examples=150, deadline=None)
@given(writes)
def test_shared_frozen_conditions_equal_fresh_ones(history: list[tuple[int, dict[str, Any], bool]]) -> None:
    status_write._FLAT.clear()
    memo, memo_answers = _run(history)
    with mock.patch.object(status_write, "_flat_frozen", _unmemoized):
        fresh, fresh_answers = _run(history)
    assert memo_answers == fresh_answers
    assert _history(memo) == _history(fresh)


def test_pods_given_the_same_condition_share_it() -> None:
    status_write._FLAT.clear()
    cond = {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": "0/3 nodes"}
    ready = {"type": "Ready", "status": "False"}  # a first condition list: a later write is item by item
    server, _ = _run([(0, ready, True), (1, ready, True), (2, ready, True),
                      (0, cond, True), (1, cond, True), (2, {**cond, "message": "0/4 nodes"}, True)])
    first, second, third = (server.get("Pod", f"p-{i}", "default")["status"]["conditions"][-1] for i in range(3))
    assert first is second and first == cond and third is not first
