"""A status update that sends back the stored status with a few properties replaced
(``shared_status``) stores exactly what the general path stores (thaw, ``decode_status``, freeze):
same object, same types at every level, same key order, same resourceVersion and watch events,
and the same error for a status that does not decode, is too deep, or needs normalising; with
managedFields, with Volcano's admission (whose Pod UPDATE hooks skip status writes without reading
the object) and with a hook that edits the status."""

from __future__ import annotations

import json
from typing import Any
from unittest import mock

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from tests.apiserver.conftest import typed_shape
from volcano.admission.install import install_admission
from volcano.api.frozen import FrozenDict, thaw
from volcano.apiserver import server as server_module
from volcano.apiserver.admission import AdmissionRequest
from volcano.apiserver.errors import ApiError
from volcano.apiserver.server import ApiServer
from volcano.apiserver.status_write import shared_status
from volcano.sim.clock import SimClock
from volcano.sim.rand import RandomStreams

_TIME = st.sampled_from(["2024-01-01T00:00:00Z", "2024-01-01T00:01:00Z", "yesterday", 5])
_TEXT = st.one_of(st.text(max_size=6), st.sampled_from([1, None, True]))
_CONDITION = st.fixed_dictionaries(
    {"type": st.sampled_from(["PodScheduled", "Ready", 3])},
    optional={"status": st.sampled_from(["True", "False", 1]), "reason": _TEXT, "message": _TEXT,
              "lastTransitionTime": _TIME, "extra": st.integers()})
_STATE = st.one_of(st.just({}), st.fixed_dictionaries({"terminated": st.fixed_dictionaries(
    {"exitCode": st.sampled_from([0, 1, 2.0, 2.5, "1", 2**40])})}))
_CONTAINER = st.fixed_dictionaries(
    {"name": st.sampled_from(["c", 7])},
    optional={"ready": st.sampled_from([True, "yes"]), "restartCount": st.sampled_from([0, 3, 1.0, -1, "2"]),
              "image": st.just("i"), "imageID": st.just(""), "state": _STATE})


def _deep(levels: int) -> Any:
    value: Any = "x"
    for _ in range(levels):
        value = [value]
    return value


_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "phase": st.sampled_from(["Pending", "Running", "Failed", 1, None]),
    "conditions": st.one_of(st.lists(_CONDITION, max_size=3), st.just("nope"),
                            st.lists(_CONDITION, max_size=2).map(tuple)),
    "nominatedNodeName": st.one_of(st.sampled_from(["", "n1", "n2"]), st.just(5)),
    "message": _TEXT,
    "startTime": _TIME,
    "containerStatuses": st.lists(_CONTAINER, max_size=2),
    "qosClass": st.sampled_from(["BestEffort", "Guaranteed"]),
    "unknownField": st.one_of(st.integers(), st.just(_deep(120)), st.just({"a": [1, 2.5]})),
}
_VALID_CONDITION = st.fixed_dictionaries(
    {"type": st.sampled_from(["PodScheduled", "Ready"]), "status": st.sampled_from(["True", "False"])},
    optional={"reason": st.text(max_size=4), "message": st.text(max_size=6),
              "lastTransitionTime": st.sampled_from(["2024-01-01T00:00:00Z", "2024-01-01T00:01:00Z"])})
_STATUS = st.fixed_dictionaries({}, optional={
    "phase": st.sampled_from(["Pending", "Running"]), "conditions": st.lists(_VALID_CONDITION, max_size=3),
    "nominatedNodeName": st.sampled_from(["", "n1"]), "message": st.text(max_size=6),
    "containerStatuses": st.lists(st.fixed_dictionaries({"name": st.just("c"), "ready": st.booleans(),
                                                         "restartCount": st.integers(0, 3), "image": st.just("i"),
                                                         "imageID": st.just("")}), max_size=2)})
"""A stored status to start from (valid: the patch that writes it must succeed)."""


def _pod() -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "p-0", "namespace": "default", "labels": {"a": "b"}},
            "spec": {"schedulerName": "volcano", "containers": [{"name": "c", "image": "i"}]}}


def _outcome(server: ApiServer, write: dict[str, Any]) -> Any:
    try:
        stored = server.update_status(write)
    except ApiError as exc:
        return ("error", exc.code, exc.reason, exc.message, json.dumps(exc.details, sort_keys=True, default=str))
    return ("stored", typed_shape(stored), json.dumps(stored, default=str), server.resource_version)


def _stamp(req: AdmissionRequest) -> None:
    """A mutating hook that edits the status of every pod status write."""
    if req.subresource == "status":
        req.obj.setdefault("status", {})["message"] = "stamped"


def _servers(before: dict[str, Any], managed: bool, hooks: str) -> list[ApiServer] | None:
    servers = [ApiServer(SimClock(), RandomStreams(3)) for _ in range(2)]
    for server in servers:
        if hooks == "volcano":
            install_admission(server)
        elif hooks == "stamp":
            server.admission.register_mutating("Pod", ("UPDATE",), _stamp, "stamp")
        server.create(_pod(), field_manager="kubectl" if managed else None)
        try:
            server.patch("Pod", "p-0", {"status": before}, "default", subresource="status")
        except ApiError:
            return None
    return servers


@settings(max_examples=150, deadline=None)
@given(_STATUS, st.data(), st.booleans(), st.sampled_from(["none", "volcano", "stamp"]))
def test_a_status_write_stores_what_the_general_path_stores(before: dict[str, Any], data: st.DataObject,
                                                            managed: bool, hooks: str) -> None:
    servers = _servers(before, managed, hooks)
    if servers is None:
        event("initial status rejected")
        return
    fast, general = servers
    stored = fast.get("Pod", "p-0", "default")
    current = stored["status"]
    changes = data.draw(st.dictionaries(st.sampled_from(sorted(_VALUES)), st.none(), max_size=3), "keys")
    request: dict[str, Any] = {}
    for key, value in current.items():  # kept as the stored value, an equal copy, or dropped
        how = data.draw(st.sampled_from(["same", "copy", "drop"]), f"keep {key}")
        if how != "drop":
            request[key] = value if how == "same" else thaw(value)
    for key in changes:
        request[key] = data.draw(_VALUES[key], key)
    writes = [{"apiVersion": "v1", "kind": "Pod", "metadata": server.get("Pod", "p-0", "default")["metadata"],
               "status": dict(request)} for server in servers]
    taken = shared_status(server_module.kind_of(writes[0]), stored, writes[0]["status"]) is not None
    a = _outcome(fast, writes[0])
    event(f"{a[0]}, shared path {'taken' if taken else 'not taken'}")
    with mock.patch.object(server_module, "shared_status", return_value=None):
        b = _outcome(general, writes[1])
    assert a == b
    assert fast.snapshot() == general.snapshot()
    assert _events(fast) == _events(general)


def _events(server: ApiServer) -> list[tuple[str, str]]:
    """The pod watch log: each event's type and object as JSON (key order and number types kept)."""
    return [(etype, json.dumps(obj, default=str)) for etype, obj, *_ in server._hub.log("Pod").events]


def test_a_scheduler_condition_write_takes_the_shared_path_and_shares_the_rest() -> None:
    server = ApiServer(SimClock(), RandomStreams(3))
    server.create(_pod())
    server.patch("Pod", "p-0", {"status": {"containerStatuses": [{"name": "c", "ready": False, "restartCount": 0,
                                                                  "image": "i", "imageID": ""}]}},
                 "default", subresource="status")
    stored = server.get("Pod", "p-0", "default")
    cond = {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": "0/1 nodes",
            "lastTransitionTime": "2024-01-01T00:00:00Z"}
    status = {**stored["status"], "conditions": [cond]}
    frozen = shared_status(server_module.kind_of(stored), stored, status)
    assert frozen is not None and frozen == status
    new = server.update_status({"apiVersion": "v1", "kind": "Pod", "metadata": stored["metadata"], "status": status})
    assert new["status"]["containerStatuses"] is stored["status"]["containerStatuses"]
    assert type(new["status"]["conditions"]) is not list and new["status"]["conditions"] == [cond]
    assert new["spec"] is stored["spec"]
    assert int(new["metadata"]["resourceVersion"]) == int(stored["metadata"]["resourceVersion"]) + 1


@pytest.mark.parametrize("value", [[{"type": "Ready", "status": 1}], "nope", _deep(120)])
def test_a_part_that_does_not_decode_is_left_to_the_general_path(value: Any) -> None:
    server = ApiServer(SimClock(), RandomStreams(3))
    stored = server.create(_pod())
    assert shared_status(server_module.kind_of(stored), stored, {**stored["status"], "conditions": value}) is None
    with pytest.raises(ApiError) as err:
        server.update_status({"apiVersion": "v1", "kind": "Pod", "metadata": stored["metadata"],
                              "status": {**stored["status"], "conditions": value}})
    assert err.value.code == 400


def test_an_integral_float_is_normalised_by_the_general_path() -> None:
    server = ApiServer(SimClock(), RandomStreams(3))
    stored = server.create(_pod())
    status = {**stored["status"], "containerStatuses": [{"name": "c", "ready": True, "restartCount": 2.0,
                                                          "image": "i", "imageID": ""}]}
    assert shared_status(server_module.kind_of(stored), stored, status) is None
    new = server.update_status({"apiVersion": "v1", "kind": "Pod", "metadata": stored["metadata"], "status": status})
    assert type(new["status"]["containerStatuses"][0]["restartCount"]) is int


def test_a_status_that_is_not_a_mapping_or_a_kind_without_stored_status_is_not_proven() -> None:
    server = ApiServer(SimClock(), RandomStreams(3))
    stored = server.create(_pod())
    info = server_module.kind_of(stored)
    assert shared_status(info, stored, None) is None
    assert shared_status(info, stored, [1]) is None
    assert shared_status(info, FrozenDict({"metadata": stored["metadata"]}), {"phase": "Pending"}) is None
