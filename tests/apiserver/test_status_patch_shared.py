"""A JSON merge patch ``{"status": {...}}`` of the status subresource (the kubelet's pod status writes)
is built over the stored status's own values (``merged_status``) instead of a copy of the whole
object: on random stored pods and random patches (scalars, nulls that remove, mappings that merge,
lists, invalid values), with managedFields, with Volcano's admission or a hook that edits the status,
on a pod being deleted, and in a dry run, it gives the same answers and errors, the same stored
objects (types and key order included), the same resourceVersion sequence and the same watch log as
the general patch (``apply_patch`` of the whole object, ``decode_status``, ``freeze``). Its watch
events state their status change (as ``update_status``' do), which in-process readers alone see."""

from __future__ import annotations

import json
from contextlib import nullcontext
from functools import partial
from typing import Any
from unittest import mock

from hypothesis import event, given, settings
from hypothesis import strategies as st

from tests.apiserver.conftest import typed_shape
from tests.apiserver.test_fast_write_status_fields import _BEFORE, _answer, _server
from volcano.api.frozen import FrozenDict
from volcano.apiserver import server as server_module
from volcano.apiserver.changes import status_change
from volcano.apiserver.server import ApiServer
from volcano.sim.clock import SimClock
from volcano.sim.rand import RandomStreams

_CONDITION = st.fixed_dictionaries(
    {"type": st.sampled_from(["PodScheduled", "Ready", "Initialized", 3])},
    optional={"status": st.sampled_from(["True", "False", 1]), "reason": st.text(max_size=3),
              "lastTransitionTime": st.sampled_from(["2024-01-01T00:00:00Z", "yesterday", None])})
_STATE = st.sampled_from([{"running": {"startedAt": "2024-01-01T00:00:00Z"}},
                          {"terminated": {"exitCode": 0, "reason": "Completed"}},
                          {"terminated": {"exitCode": "x"}}, {"waiting": {"reason": "ContainerCreating"}}])
_CONTAINER = st.fixed_dictionaries({"name": st.sampled_from(["c", "d"]), "ready": st.booleans(),
                                    "restartCount": st.sampled_from([0, 1, -1, "2"]), "image": st.just("i"),
                                    "imageID": st.just("")}, optional={"state": _STATE, "lastState": _STATE})
_VALUE = {
    "phase": st.sampled_from(["Running", "Succeeded", "Failed", 7, None]),
    "conditions": st.one_of(st.lists(_CONDITION, max_size=3), st.none(), st.just("x")),
    "containerStatuses": st.one_of(st.lists(_CONTAINER, max_size=2), st.none()),
    "hostIP": st.sampled_from(["10.0.0.1", None, 5]),
    "hostIPs": st.sampled_from([[{"ip": "10.0.0.1"}], None, [{"ip": 1}], [[1]]]),
    "podIP": st.sampled_from(["10.1.0.1", None]),
    "startTime": st.sampled_from(["2024-01-01T00:00:00Z", "later", None]),
    "message": st.one_of(st.text(max_size=4), st.none()),
    "nominatedNodeName": st.sampled_from(["n1", "", None]),
    "qosClass": st.sampled_from(["BestEffort", None, {"a": 1}]),
    "extra": st.sampled_from([{"a": 1}, {"a": None}, [1], None]),
}
_PATCH = st.fixed_dictionaries({}, optional=_VALUE)


def _history(server: ApiServer) -> Any:
    """The objects, counter and watch log; each status change the log states is checked to be the
    one ``status_change`` states for its event (the general path states none: it compares)."""
    for _, obj, old, change in server._hub.log("Pod").events:
        if change is not None:
            assert change == status_change(old, obj["status"])
            event("a status change stated")
    return (server.resource_version, typed_shape(server.snapshot()),
            [(etype, json.dumps(obj, default=str)) for etype, obj, *_ in server._hub.log("Pod").events])


@settings(max_examples=200, deadline=None)
@given(_BEFORE, st.lists(_PATCH, min_size=1, max_size=3), st.booleans(),
       st.sampled_from(["none", "volcano", "stamp"]), st.booleans(), st.booleans(), st.sampled_from([None, "kubelet"]))
def test_a_status_merge_patch_equals_the_general_patch(before: dict[str, Any], patches: list[dict[str, Any]],
                                                       managed: bool, hooks: str, deleting: bool, dry: bool,
                                                       manager: str | None) -> None:
    fast, general = _server(before, managed, hooks, deleting), _server(before, managed, hooks, deleting)
    if fast is None or general is None:
        event("initial status rejected")
        return
    for step, fields in enumerate(patches):
        stored = fast.get("Pod", "p-0", "default")
        taken = server_module.merged_status(server_module.kind_of(stored), stored, {"status": fields}) is not None
        with fast.dry_run() if dry else nullcontext():
            a = _answer(partial(fast.patch, "Pod", "p-0", {"status": json.loads(json.dumps(fields))}, "default",
                                subresource="status", field_manager=manager))
        with general.dry_run() if dry else nullcontext(), \
                mock.patch.object(server_module, "merged_status", return_value=None):
            b = _answer(partial(general.patch, "Pod", "p-0", {"status": json.loads(json.dumps(fields))}, "default",
                                subresource="status", field_manager=manager))
        event(f"{a[0]}, shared path {'taken' if taken else 'not taken'}")
        assert a == b, step
        assert _history(fast) == _history(general), step


def test_only_a_plain_status_merge_patch_is_shared() -> None:
    server = ApiServer(SimClock(), RandomStreams(3))
    server.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
                   "spec": {"containers": [{"name": "c", "image": "i"}]}})
    pod = server.get("Pod", "p", "default")
    info = server_module.kind_of(pod)
    status = {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}
    merged = server_module.merged_status(info, pod, {"status": status})
    assert type(merged) is FrozenDict and merged == {**pod["status"], **status}
    assert merged["qosClass"] is pod["status"]["qosClass"]
    assert server_module.merged_status(info, pod, {"status": status, "metadata": {}}) is None
    assert server_module.merged_status(info, pod, {"status": "x"}) is None
    written = server.patch("Pod", "p", {"status": status}, "default", subresource="status")
    assert written["spec"] is pod["spec"] and written["status"] == merged
