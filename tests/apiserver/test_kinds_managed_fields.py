"""``metadata.managedFields``, whole: after every write of a sequence by several managers (a create
naming a field manager, an update, a merge, JSON and strategic merge patch, a refused and a forced
server-side apply, a write naming no manager, a re-apply dropping a field, status subresource writes
and applies, a reset, a create by apply, the eleventh updater folding into ``ancient-changes``) the
COMPLETE list is compared: every entry's manager, operation, apiVersion, time (from the simulated
clock, one tick per step), fieldsType, fieldsV1 and subresource, in upstream's order, including the
entries of the managers the write did not touch."""

from __future__ import annotations

from typing import Any

import pytest

from volcano.api.frozen import thaw
from volcano.apiserver import ApiError, ApiServer
from volcano.sim import SimClock


def _entry(manager: str, operation: str, second: int, fields: dict[str, Any], subresource: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {"manager": manager, "operation": operation, "apiVersion": "v1",
                           "time": f"2024-01-01T00:00:{second:02d}Z", "fieldsType": "FieldsV1", "fieldsV1": fields}
    if subresource:
        out["subresource"] = subresource
    return out


def _managed(server: ApiServer, kind: str, name: str) -> Any:
    return thaw(server.get(kind, name, "default")["metadata"].get("managedFields"))


def _tick(clock: SimClock) -> None:
    clock.run(until_ms=clock.now_ms + 1_000)


def _cm_apply(**data: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": data}


def test_every_write_kind_by_several_managers(server: ApiServer, clock: SimClock) -> None:
    server.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "labels": {"x": "1"}},
                   "data": {"a": "1"}}, field_manager="creator")
    creator = _entry("creator", "Update", 0, {"f:data": {".": {}, "f:a": {}},
                                              "f:metadata": {"f:labels": {".": {}, "f:x": {}}}})
    assert _managed(server, "ConfigMap", "cm") == [creator]
    _tick(clock)

    obj = thaw(server.get("ConfigMap", "cm"))
    obj["data"] = {"a": "2", "b": "1"}
    server.update(obj, field_manager="updater")
    creator = _entry("creator", "Update", 0, {"f:data": {}, "f:metadata": {"f:labels": {".": {}, "f:x": {}}}})
    updater = _entry("updater", "Update", 1, {"f:data": {"f:a": {}, "f:b": {}}})
    assert _managed(server, "ConfigMap", "cm") == [creator, updater]
    _tick(clock)

    server.patch("ConfigMap", "cm", {"metadata": {"labels": {"y": "1"}}}, field_manager="merger")
    merger = _entry("merger", "Update", 2, {"f:metadata": {"f:labels": {"f:y": {}}}})
    assert _managed(server, "ConfigMap", "cm") == [creator, updater, merger]
    _tick(clock)

    server.patch("ConfigMap", "cm", [{"op": "add", "path": "/data/c", "value": "3"}], patch_type="json",
                 field_manager="jsoner")
    jsoner = _entry("jsoner", "Update", 3, {"f:data": {"f:c": {}}})
    assert _managed(server, "ConfigMap", "cm") == [creator, updater, merger, jsoner]
    _tick(clock)

    server.patch("ConfigMap", "cm", {"data": {"b": "9"}}, patch_type="strategic", field_manager="smp")
    updater = _entry("updater", "Update", 1, {"f:data": {"f:a": {}}})
    smp = _entry("smp", "Update", 4, {"f:data": {"f:b": {}}})
    assert _managed(server, "ConfigMap", "cm") == [creator, updater, merger, jsoner, smp]
    _tick(clock)

    with pytest.raises(ApiError) as err:
        server.patch("ConfigMap", "cm", _cm_apply(a="5", d="4"), patch_type="apply", field_manager="applier")
    assert err.value.status() == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": 'Apply failed with 1 conflict: conflict with "updater" using v1: .data.a', "reason": "Conflict",
        "details": {"causes": [{"reason": "FieldManagerConflict", "message": 'conflict with "updater" using v1',
                                "field": ".data.a"}]}, "code": 409}
    assert _managed(server, "ConfigMap", "cm") == [creator, updater, merger, jsoner, smp]

    server.patch("ConfigMap", "cm", _cm_apply(a="5", d="4"), patch_type="apply", field_manager="applier", force=True)
    applier = _entry("applier", "Apply", 5, {"f:data": {"f:a": {}, "f:d": {}}})
    assert _managed(server, "ConfigMap", "cm") == [applier, creator, merger, jsoner, smp]  # updater owns nothing
    _tick(clock)

    server.patch("ConfigMap", "cm", {"data": {"e": "5"}})  # no manager named: "unknown"
    unknown = _entry("unknown", "Update", 6, {"f:data": {"f:e": {}}})
    assert _managed(server, "ConfigMap", "cm") == [applier, creator, merger, jsoner, smp, unknown]
    _tick(clock)

    server.patch("ConfigMap", "cm", _cm_apply(d="4"), patch_type="apply", field_manager="applier")
    applier = _entry("applier", "Apply", 7, {"f:data": {"f:d": {}}})
    assert _managed(server, "ConfigMap", "cm") == [applier, creator, merger, jsoner, smp, unknown]
    assert thaw(server.get("ConfigMap", "cm")["data"]) == {"b": "9", "c": "3", "d": "4", "e": "5"}
    _tick(clock)

    server.patch("ConfigMap", "cm", _cm_apply(d="4"), patch_type="apply", field_manager="applier")  # no change
    assert _managed(server, "ConfigMap", "cm") == [applier, creator, merger, jsoner, smp, unknown]


_POD_SPEC_DEFAULTS: dict[str, Any] = {"f:spec": {
    "f:containers": {".": {}, 'k:{"name":"c"}': {
        ".": {}, "f:image": {}, "f:imagePullPolicy": {}, "f:name": {}, "f:terminationMessagePath": {},
        "f:terminationMessagePolicy": {}}},
    "f:dnsPolicy": {}, "f:enableServiceLinks": {}, "f:restartPolicy": {}, "f:schedulerName": {},
    "f:terminationGracePeriodSeconds": {}}}


def _pod_apply(**extra: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, **extra}


def test_untracked_object_then_status_subresource_writes(server: ApiServer, clock: SimClock) -> None:
    server.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                   "spec": {"containers": [{"name": "c", "image": "busybox"}]}})
    assert _managed(server, "Pod", "p") is None  # created naming no manager: untracked
    obj = thaw(server.get("Pod", "p"))
    obj["metadata"]["labels"] = {"u": "1"}
    server.update(obj)
    assert _managed(server, "Pod", "p") is None  # an untracked object stays untracked
    _tick(clock)

    server.patch("Pod", "p", _pod_apply(metadata={"name": "p", "labels": {"a": "1"}}), patch_type="apply",
                 field_manager="ssa")
    ssa = _entry("ssa", "Apply", 1, {"f:metadata": {"f:labels": {"f:a": {}}}})
    first = _entry("before-first-apply", "Update", 1, {
        **_POD_SPEC_DEFAULTS, "f:metadata": {"f:labels": {".": {}, "f:u": {}}}})
    assert _managed(server, "Pod", "p") == [ssa, first]
    _tick(clock)

    obj = thaw(server.get("Pod", "p"))
    obj["status"] = {"phase": "Running", "message": "m"}
    server.update_status(obj, field_manager="kubelet")
    kubelet = _entry("kubelet", "Update", 2, {"f:status": {"f:message": {}, "f:phase": {}}}, "status")
    assert _managed(server, "Pod", "p") == [ssa, first, kubelet]
    _tick(clock)

    server.patch("Pod", "p", {"status": {"message": "n"}}, subresource="status", field_manager="other")
    kubelet = _entry("kubelet", "Update", 2, {"f:status": {"f:phase": {}}}, "status")
    other = _entry("other", "Update", 3, {"f:status": {"f:message": {}}}, "status")
    assert _managed(server, "Pod", "p") == [ssa, first, kubelet, other]
    _tick(clock)

    server.patch("Pod", "p", _pod_apply(status={"reason": "R"}), subresource="status", patch_type="apply",
                 field_manager="ssa")
    ssa_status = _entry("ssa", "Apply", 4, {"f:status": {"f:reason": {}}}, "status")
    assert _managed(server, "Pod", "p") == [ssa, ssa_status, first, kubelet, other]
    _tick(clock)

    obj = thaw(server.get("Pod", "p"))
    obj["spec"]["activeDeadlineSeconds"] = 5
    obj["status"] = {"phase": "Failed"}  # the main resource neither writes nor owns status
    server.update(obj, field_manager="editor")
    editor = _entry("editor", "Update", 5, {"f:spec": {"f:activeDeadlineSeconds": {}}})
    assert _managed(server, "Pod", "p") == [ssa, ssa_status, first, kubelet, other, editor]
    assert server.get("Pod", "p")["status"]["phase"] == "Running"


@pytest.mark.parametrize("reset", [[], [{}]])
def test_reset_strips_every_entry(server: ApiServer, clock: SimClock, reset: list[Any]) -> None:
    server.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"a": "1"}},
                  field_manager="creator")
    _tick(clock)
    obj = thaw(server.get("ConfigMap", "cm"))
    obj["metadata"]["managedFields"] = reset
    server.update(obj, field_manager="resetter")
    assert _managed(server, "ConfigMap", "cm") is None
    obj = thaw(server.get("ConfigMap", "cm"))
    obj["metadata"]["managedFields"] = reset
    obj["data"]["b"] = "2"
    server.update(obj, field_manager="resetter")  # reset, so the update of an untracked object: not tracked
    assert _managed(server, "ConfigMap", "cm") is None
    assert server.get("ConfigMap", "cm")["data"] == {"a": "1", "b": "2"}


def test_malformed_incoming_entries_keep_the_live_ones(server: ApiServer, clock: SimClock) -> None:
    server.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"a": "1"}},
                  field_manager="creator")
    _tick(clock)
    obj = thaw(server.get("ConfigMap", "cm"))
    obj["metadata"]["managedFields"] = [{"manager": "x", "operation": "Bogus", "apiVersion": "v1",
                                         "fieldsType": "FieldsV1", "fieldsV1": {}}]
    obj["data"]["z"] = "1"
    server.update(obj, field_manager="w")
    assert _managed(server, "ConfigMap", "cm") == [
        _entry("creator", "Update", 0, {"f:data": {".": {}, "f:a": {}}}),
        _entry("w", "Update", 1, {"f:data": {"f:z": {}}})]


def test_create_by_apply_records_only_the_applier(server: ApiServer, clock: SimClock) -> None:
    _tick(clock)
    _, created = server.server_side_apply(
        "Pod", "p", _pod_apply(spec={"containers": [{"name": "c", "image": "x"}]}), field_manager="ssa")
    assert created is True
    assert _managed(server, "Pod", "p") == [
        _entry("ssa", "Apply", 1, {"f:spec": {"f:containers": {'k:{"name":"c"}': {
            ".": {}, "f:image": {}, "f:name": {}}}}})]


def test_eleventh_updater_folds_the_oldest_into_ancient_changes(server: ApiServer, clock: SimClock) -> None:
    server.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"k0": "0"}},
                  field_manager="m0")
    for i in range(1, 12):
        _tick(clock)
        server.patch("ConfigMap", "cm", {"data": {f"k{i}": str(i)}}, field_manager=f"m{i}")
    ancient = _entry("ancient-changes", "Update", 2, {"f:data": {".": {}, "f:k0": {}, "f:k1": {}, "f:k2": {}}})
    recent = [_entry(f"m{i}", "Update", i, {"f:data": {f"f:k{i}": {}}}) for i in range(3, 12)]
    assert _managed(server, "ConfigMap", "cm") == [ancient, *recent]
    _tick(clock)
    server.patch("ConfigMap", "cm", {"data": {"k12": "12"}}, field_manager="m12")
    ancient = _entry("ancient-changes", "Update", 3, {
        "f:data": {".": {}, "f:k0": {}, "f:k1": {}, "f:k2": {}, "f:k3": {}}})
    assert _managed(server, "ConfigMap", "cm") == [ancient, *recent[1:],
                                                    _entry("m12", "Update", 12, {"f:data": {"f:k12": {}}})]
