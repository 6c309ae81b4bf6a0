"""``ApiServer.update_status_fields`` (a status write naming only the properties it replaces, the
scheduler's ``PodScheduled`` condition write) is ``update_status`` of the stored object with those
properties merged over its status, taken the general way (thaw the whole status, ``decode_status``,
freeze, ``_commit``): on random stored pods and random (valid and invalid) fields, one write after
another, it gives the same answers and errors, the same stored objects (types and key order
included), the same resourceVersion sequence and the same watch events; with managedFields, with
Volcano's admission or a hook that edits the status, on a pod being deleted, and in a dry run.
Where the fields hold no null and no mapping it is also the merge patch of the status subresource."""

from __future__ import annotations

import json
from contextlib import nullcontext
from functools import partial
from typing import Any
from unittest import mock

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from tests.apiserver.conftest import typed_shape
from tests.apiserver.test_fast_status_write import _stamp
from volcano.admission.install import install_admission
from volcano.api.frozen import FrozenDict, FrozenList, thaw
from volcano.apiserver import server as server_module
from volcano.apiserver.errors import ApiError
from volcano.apiserver.server import ApiServer
from volcano.apiserver.status_write import status_with
from volcano.apiserver.validation import has_status_rules, status_item_check
from volcano.sim.clock import SimClock
from volcano.sim.rand import RandomStreams

_TEXT = st.one_of(st.text(max_size=5), st.sampled_from([1, None, True, 2.0]))
_TIME = st.sampled_from(["2024-01-01T00:00:00Z", "2024-01-01T00:01:00Z", "yesterday", 5, None])
_VALID = st.fixed_dictionaries(
    {"type": st.sampled_from(["PodScheduled", "Ready", "DisruptionTarget"]),
     "status": st.sampled_from(["True", "False"])},
    optional={"reason": st.text(max_size=4), "message": st.text(max_size=6),
              "lastTransitionTime": st.sampled_from(["2024-01-01T00:00:00Z", "2024-01-01T00:01:00Z"])})
_ANY = st.fixed_dictionaries(
    {"type": st.sampled_from(["PodScheduled", "Ready", 3, None])},
    optional={"status": st.sampled_from(["True", "False", 1, None]), "reason": _TEXT, "message": _TEXT,
              "lastTransitionTime": _TIME, "extra": st.sampled_from([1, "x", [1], {"a": 1}]),
              "observedGeneration": st.sampled_from([1, 2.0, "1"])})
_NEW_ITEM = st.one_of(_VALID, _VALID, _ANY, st.sampled_from([None, "x", 1, [], {}]))
_SCALAR = {"nominatedNodeName": st.sampled_from(["", "n1", 5, None, 1.5]),
           "message": _TEXT, "phase": st.sampled_from(["Pending", "Running", 1, None]),
           "startTime": _TIME, "qosClass": st.sampled_from(["BestEffort", 2])}
_OTHER = st.sampled_from([{"a": 1}, [1, 2], "nope", (), [[1]]])
_BEFORE = st.fixed_dictionaries(
    {"conditions": st.lists(_VALID, max_size=3)},
    optional={"nominatedNodeName": st.sampled_from(["", "n1"]), "message": st.text(max_size=4),
              "phase": st.sampled_from(["Pending", "Running"])}) | st.fixed_dictionaries({}, optional={
                  "message": st.text(max_size=4), "phase": st.sampled_from(["Pending", "Running"])})
"""A stored status: mostly with conditions (the case the scheduler writes), sometimes without."""


def _pod(deleting: bool) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": "p-0", "namespace": "default", "labels": {"a": "b"}}
    if deleting:
        meta["finalizers"] = ["example.com/keep"]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": {"schedulerName": "volcano", "containers": [{"name": "c", "image": "i"}]}}


def _server(before: dict[str, Any], managed: bool, hooks: str, deleting: bool) -> ApiServer | None:
    server = ApiServer(SimClock(), RandomStreams(3))
    if hooks == "volcano":
        install_admission(server)
    elif hooks == "stamp":
        server.admission.register_mutating("Pod", ("UPDATE",), _stamp, "stamp")
    server.create(_pod(deleting), field_manager="kubectl" if managed else None)
    try:
        server.patch("Pod", "p-0", {"status": before}, "default", subresource="status")
    except ApiError:
        return None
    if deleting:
        server.delete("Pod", "p-0", "default", grace_period_seconds=0)
    return server


def _draw_fields(data: st.DataObject, stored: FrozenDict) -> dict[str, Any]:
    """Fields over ``stored``'s status, as a plan of plain values: mostly a condition list of stored
    (by index) and new items, plus the stored values themselves, scalars and other values."""
    status = stored["status"]
    keys = data.draw(st.lists(st.sampled_from([*sorted(_SCALAR), "extra"]), max_size=2, unique=True), "keys")
    if data.draw(st.sampled_from([True, True, True, False]), "conditions"):
        keys.insert(data.draw(st.integers(0, len(keys)), "at"), "conditions")
    fields: dict[str, Any] = {}
    for key in keys:
        hows = ["list"] * 4 + ["same", "frozen", "other"] if key == "conditions" else ["same", "scalar", "other",
                                                                                      "frozen"]
        how = data.draw(st.sampled_from(hows), f"how {key}")
        if how == "same" and key in status:
            fields[key] = ("same",)
        elif how == "list" or (key == "conditions" and how == "same"):
            n = len(status.get("conditions") or ())
            plan = data.draw(st.lists(st.integers(-1, n - 1), max_size=4), f"plan {key}")
            fields[key] = ("list", [("own", at) if at >= 0 else ("new", data.draw(_NEW_ITEM)) for at in plan])
        elif how == "scalar" or how == "same":
            fields[key] = ("value", data.draw(_SCALAR.get(key, _TEXT), f"scalar {key}"))
        elif how == "frozen" and key in status:
            fields[key] = ("thawed",)
        else:
            fields[key] = ("value", data.draw(_OTHER, f"other {key}"))
    return fields


def _build(fields: dict[str, Any], stored: FrozenDict) -> dict[str, Any]:
    """The fields a writer sends, over this server's own stored object."""
    status = stored["status"]
    out: dict[str, Any] = {}
    for key, (how, *rest) in fields.items():
        if how == "same":
            out[key] = status[key]
        elif how == "thawed":
            out[key] = thaw(status[key])
        elif how == "list":
            own = status.get("conditions") or ()
            out[key] = [own[at] if kind == "own" else thaw(at) for kind, at in rest[0]]
        else:
            out[key] = thaw(rest[0])
    return out


def _answer(write: Any) -> Any:
    try:
        stored = write()
    except ApiError as exc:
        return ("error", exc.code, exc.reason, exc.message, json.dumps(exc.details, sort_keys=True, default=str))
    return ("stored", typed_shape(stored), json.dumps(stored, default=str))


def _general(server: ApiServer, fields: dict[str, Any]) -> Any:
    """``update_status`` of the merged status, with the shared-status shortcut off."""
    stored = server.get("Pod", "p-0", "default")
    merged = {**stored["status"], **fields}
    with mock.patch.object(server_module, "shared_status", return_value=None):
        return _answer(lambda: server.update_status({"apiVersion": "v1", "kind": "Pod",
                                                     "metadata": stored["metadata"], "status": merged}))


def _history(server: ApiServer) -> Any:
    return (server.resource_version, typed_shape(server.snapshot()),
            [(etype, json.dumps(obj, default=str)) for etype, obj, *_ in server._hub.log("Pod").events])


@settings(max_examples=150, deadline=None)
@given(_BEFORE, st.data(), st.booleans(), st.sampled_from(["none", "volcano", "stamp"]),
       st.booleans(), st.booleans())
def test_update_status_fields_equals_the_general_status_update(before: dict[str, Any], data: st.DataObject,
                                                               managed: bool, hooks: str, deleting: bool,
                                                               dry: bool) -> None:
    servers = [_server(before, managed, hooks, deleting) for _ in range(2)]
    fast, general = servers
    if fast is None or general is None:
        event("initial status rejected")
        return
    for step in range(data.draw(st.integers(1, 3), "writes")):
        plan = _draw_fields(data, fast.get("Pod", "p-0", "default"))
        fields = [_build(plan, server.get("Pod", "p-0", "default")) for server in servers]
        stored = fast.get("Pod", "p-0", "default")
        taken = status_with(server_module.kind_of(stored), stored, fields[0]) is not None
        with fast.dry_run() if dry else nullcontext():
            a = _answer(partial(fast.update_status_fields, "Pod", "p-0", "default", fields[0]))
        with general.dry_run() if dry else nullcontext():
            b = _general(general, fields[1])
        event(f"{a[0]}, fields path {'taken' if taken else 'not taken'}")
        assert a == b, step
        assert _history(fast) == _history(general)


@settings(max_examples=120, deadline=None)
@given(_BEFORE, st.data())
def test_update_status_fields_equals_the_merge_patch_without_nulls_or_mappings(before: dict[str, Any],
                                                                                data: st.DataObject) -> None:
    servers = [_server(before, False, "volcano", False) for _ in range(2)]
    fast, patched = servers
    if fast is None or patched is None:
        return
    for _ in range(data.draw(st.integers(1, 3), "writes")):
        plan = _draw_fields(data, fast.get("Pod", "p-0", "default"))
        fields = [_build(plan, server.get("Pod", "p-0", "default")) for server in servers]
        if any(v is None or isinstance(v, dict) for v in fields[0].values()):
            continue
        a = _answer(partial(fast.update_status_fields, "Pod", "p-0", "default", fields[0]))
        b = _answer(partial(patched.patch, "Pod", "p-0", {"status": fields[1]}, "default", subresource="status"))
        assert a == b
        assert _history(fast) == _history(patched)


def test_a_condition_write_copies_only_the_new_condition_and_shares_the_rest() -> None:
    server = _server({"conditions": [{"type": "Ready", "status": "False"}], "phase": "Pending"}, False, "volcano",
                     False)
    assert server is not None
    stored = server.get("Pod", "p-0", "default")
    new = {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": "0/1 nodes"}
    written = server.update_status_fields("Pod", "p-0", "default",
                                          {"conditions": [stored["status"]["conditions"][0], new]})
    conditions = written["status"]["conditions"]
    assert type(conditions) is FrozenList and conditions == [{"type": "Ready", "status": "False"}, new]
    assert conditions[0] is stored["status"]["conditions"][0] and type(conditions[1]) is FrozenDict
    assert written["spec"] is stored["spec"] and written["metadata"]["labels"] is stored["metadata"]["labels"]
    assert int(written["metadata"]["resourceVersion"]) == int(stored["metadata"]["resourceVersion"]) + 1
    new["message"] = "edited later"  # the writer's dict is not kept
    assert server.get("Pod", "p-0", "default")["status"]["conditions"][1]["message"] == "0/1 nodes"
    again = server.update_status_fields("Pod", "p-0", "default", {"conditions": list(conditions)})
    assert again is written  # nothing changed: no write, no resourceVersion


def test_a_malformed_condition_gets_the_general_paths_400_and_a_missing_pod_404() -> None:
    server = _server({}, False, "volcano", False)
    assert server is not None
    rv = server.resource_version
    with pytest.raises(ApiError) as err:
        server.update_status_fields("Pod", "p-0", "default", {"conditions": [{"type": "Ready", "status": 1}]})
    assert err.value.code == 400 and "status" in err.value.message
    assert server.resource_version == rv
    with pytest.raises(ApiError) as missing:
        server.update_status_fields("Pod", "nope", "default", {"phase": "Running"})
    assert missing.value.code == 404


def test_item_checks_and_status_rules_are_known_per_kind() -> None:
    pod = server_module.kind_of({"apiVersion": "v1", "kind": "Pod"})
    node = server_module.kind_of({"apiVersion": "v1", "kind": "Node"})
    check = status_item_check(pod, "conditions")
    assert check is not None and check is status_item_check(pod, "conditions")  # looked up once
    assert check({"type": "Ready", "status": "True"}) and not check({"type": "Ready", "status": 1})
    assert not check(FrozenDict({"type": "Ready", "status": "True"}))  # only a plain mapping is copied as is
    assert status_item_check(pod, "phase") is None
    assert not has_status_rules(pod) and has_status_rules(node)
