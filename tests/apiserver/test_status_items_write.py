"""A status write whose list property (``PodStatus.conditions``) keeps some of the stored list's own
items and replaces or adds others (``shared_status``' item-by-item path, the scheduler's
``PodScheduled`` write) stores exactly what the general path stores (thaw the whole status,
``decode_status``, freeze): same object, same types at every level, same key order, same
resourceVersion and watch events, and the same error, on random stored conditions and random
(valid and invalid) new items; only the new items are copied, the kept ones are shared."""

from __future__ import annotations

import json
from typing import Any
from unittest import mock

from hypothesis import event, given, settings
from hypothesis import strategies as st

from tests.apiserver.test_fast_status_write import _outcome, _pod
from volcano.admission.install import install_admission
from volcano.api.frozen import FrozenDict, FrozenList, thaw
from volcano.apiserver import server as server_module
from volcano.apiserver.server import ApiServer
from volcano.apiserver.status_write import shared_status
from volcano.apiserver.validation import status_items_decode
from volcano.sim.clock import SimClock
from volcano.sim.rand import RandomStreams

_TIME = st.sampled_from(["2024-01-01T00:00:00Z", "2024-01-01T00:01:00Z", "yesterday", 5, None])
_TEXT = st.one_of(st.text(max_size=6), st.sampled_from([1, None, True, 2.0]))
_VALID = st.fixed_dictionaries(
    {"type": st.sampled_from(["PodScheduled", "Ready", "DisruptionTarget"]),
     "status": st.sampled_from(["True", "False"])},
    optional={"reason": st.text(max_size=4), "message": st.text(max_size=6),
              "lastTransitionTime": st.sampled_from(["2024-01-01T00:00:00Z", "2024-01-01T00:01:00Z"])})
_ANY_CONDITION = st.fixed_dictionaries(
    {"type": st.sampled_from(["PodScheduled", "Ready", 3, None])},
    optional={"status": st.sampled_from(["True", "False", 1, None]), "reason": _TEXT, "message": _TEXT,
              "lastTransitionTime": _TIME, "lastProbeTime": _TIME, "extra": st.sampled_from([1, "x", [1], {"a": 1}]),
              "observedGeneration": st.sampled_from([1, 2.0, "1"])})
_ITEM = st.one_of(_VALID, _ANY_CONDITION, st.sampled_from([None, "x", 1, [], {}]))


def _events(server: ApiServer) -> list[tuple[str, str]]:
    return [(etype, json.dumps(obj, default=str)) for etype, obj, *_ in server._hub.log("Pod").events]


@settings(max_examples=200, deadline=None)
@given(st.lists(_VALID, min_size=1, max_size=4), st.data(), st.booleans(), st.booleans())
def test_an_item_by_item_write_stores_what_the_general_path_stores(before: list[dict[str, Any]],
                                                                   data: st.DataObject, managed: bool,
                                                                   admission: bool) -> None:
    servers = [ApiServer(SimClock(), RandomStreams(3)) for _ in range(2)]
    for server in servers:
        if admission:
            install_admission(server)
        server.create(_pod(), field_manager="kubectl" if managed else None)
        server.patch("Pod", "p-0", {"status": {"conditions": before, "message": "m"}}, "default",
                     subresource="status")
    fast, general = servers
    writes = []
    plan = data.draw(st.lists(st.one_of(st.integers(0, len(before) - 1), st.just(-1)), max_size=5), "plan")
    fresh = [data.draw(_ITEM, f"item {i}") for i, at in enumerate(plan) if at < 0]
    nominated = data.draw(st.sampled_from([None, "n1", 5]), "nominated")
    for server in servers:
        stored = server.get("Pod", "p-0", "default")
        items = iter(fresh)
        # Each item is one of the stored list's own (by index), or a new one (-1): the same values
        # for both servers, each server's write holding its own stored items.
        conditions = [stored["status"]["conditions"][at] if at >= 0 else thaw(next(items)) for at in plan]
        status = {**stored["status"], "conditions": conditions}
        if nominated is not None:
            status["nominatedNodeName"] = nominated
        writes.append({"apiVersion": "v1", "kind": "Pod", "metadata": stored["metadata"], "status": status})
    stored = fast.get("Pod", "p-0", "default")
    taken = shared_status(server_module.kind_of(stored), stored, writes[0]["status"]) is not None
    a = _outcome(fast, writes[0])
    event(f"{a[0]}, shared path {'taken' if taken else 'not taken'}")
    with mock.patch.object(server_module, "shared_status", return_value=None):
        b = _outcome(general, writes[1])
    assert a == b
    assert fast.snapshot() == general.snapshot()
    assert _events(fast) == _events(general)


def test_a_condition_write_shares_the_kept_conditions_and_copies_the_new_one() -> None:
    server = ApiServer(SimClock(), RandomStreams(3))
    server.create(_pod())
    ready = {"type": "Ready", "status": "False"}
    stored = server.patch("Pod", "p-0", {"status": {"conditions": [ready, {"type": "PodScheduled", "status": "True"}]}},
                          "default", subresource="status")
    new = {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": "0/1 nodes"}
    status = {**stored["status"], "conditions": [stored["status"]["conditions"][0], new]}
    written = server.update_status({"apiVersion": "v1", "kind": "Pod", "metadata": stored["metadata"],
                                    "status": status})
    conditions = written["status"]["conditions"]
    assert type(conditions) is FrozenList and conditions == [ready, new]
    assert conditions[0] is stored["status"]["conditions"][0]
    assert type(conditions[1]) is FrozenDict and conditions[1] is not new
    new["message"] = "changed later"  # the caller's dict is not retained
    assert server.get("Pod", "p-0", "default")["status"]["conditions"][1]["message"] == "0/1 nodes"


def test_items_are_proven_only_for_an_array_of_one_flat_item_type() -> None:
    pod = server_module.kind_of(_pod())
    assert status_items_decode(pod, "conditions", [{"type": "Ready", "status": "True"}])
    assert not status_items_decode(pod, "conditions", [{"type": "Ready", "status": 1}])
    assert not status_items_decode(pod, "conditions", [None])  # decodes, but not proven here
    assert not status_items_decode(pod, "conditions", [{"type": "Ready", "status": "True", "x": [1]}])
    assert not status_items_decode(pod, "phase", [{"type": "Ready"}])
    assert status_items_decode(pod, "conditions", ()) and not status_items_decode(pod, "phase", ())
    assert not status_items_decode(server_module.kind_of({"apiVersion": "v1", "kind": "ConfigMap"}),
                                   "conditions", [{"type": "Ready", "status": "True"}])
