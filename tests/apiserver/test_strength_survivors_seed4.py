"""Unit tests for seed-4 mutation survivors no client of the API can reach (test tooling, in-process
hooks, this server's own diff text); each names the behaviour it pins."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from volcano.admission.lookup import StaticView
from volcano.apiserver import ApiError, ApiServer
from volcano.apiserver.admission import AdmissionRequest
from volcano.apiserver.client import WatchEvent
from volcano.apiserver.faults import FaultPlan, FaultyClient
from volcano.sim import RandomStreams, SimClock

from .conftest import pod


def test_faulty_client_update_status_forwards_when_no_fault_fires() -> None:
    clock = SimClock()
    server = ApiServer(clock, RandomStreams(0))
    client = FaultyClient(server, FaultPlan(), clock, RandomStreams(1))
    made = server.create(pod("p", "default"))
    answer = client.update_status({**made, "status": {"phase": "Running"}})
    assert answer["status"]["phase"] == "Running"
    assert server.get("Pod", "p", "default")["status"]["phase"] == "Running"
    assert client.stats.writes == 1


def test_binding_a_pod_being_deleted_is_a_conflict() -> None:
    server = ApiServer(SimClock(), RandomStreams(0))
    server.create(pod("held", "default", metadata={"name": "held", "namespace": "default",
                                                   "finalizers": ["example.com/hold"]}))
    server.delete("Pod", "held", "default")
    assert server.get("Pod", "held", "default")["metadata"]["deletionTimestamp"]
    with pytest.raises(ApiError) as err:
        server.bind("held", "default", "node-1")
    assert (err.value.code, err.value.message) == (
        409, 'Operation cannot be fulfilled on pods/binding "held": pod held is being deleted, cannot be assigned '
        "to a host")
    assert not server.get("Pod", "held", "default")["spec"].get("nodeName")


def test_compaction_sends_a_lagging_watcher_gone() -> None:
    clock = SimClock()
    server = ApiServer(clock, RandomStreams(0))
    got: list[WatchEvent] = []
    server.watch("Pod", got.append)
    server.create(pod("a", "default"))
    server.create(pod("b", "default"))
    server.compact_watch_history()  # before the watcher has been sent anything
    clock.run()
    assert [e.type for e in got] == ["ERROR"]
    assert (got[0].object["code"], got[0].object["reason"]) == (410, "Expired")


def test_static_view_lists_priority_classes_by_name() -> None:
    view = StaticView(priority_classes=[{"metadata": {"name": "b"}, "value": 1},
                                        {"metadata": {"name": "a"}, "value": 2}])
    assert [pc["metadata"]["name"] for pc in view.priority_classes()] == ["a", "b"]


def test_a_refused_pod_update_shows_quantities_in_milli_units() -> None:
    """This server's own rendering of the forbidden spec change (a deliberate difference: kube-apiserver
    prints go-cmp's diff of its Go types): quantities as milli-units."""
    server = ApiServer(SimClock(), RandomStreams(0))
    made = server.create(pod("q", "default", spec={"containers": [
        {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "500m"}}}]}))
    changed: dict[str, Any] = copy.deepcopy(dict(made))
    changed["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "1"
    with pytest.raises(ApiError) as err:
        server.update(changed)
    assert err.value.message.endswith("  core.PodSpec{\n- \tcontainers[0].resources.requests.cpu: 500m\n"
                                      "+ \tcontainers[0].resources.requests.cpu: 1000m\n  }\n")


def test_a_delete_hook_sees_the_stored_object_as_old_and_a_copy_as_obj() -> None:
    server = ApiServer(SimClock(), RandomStreams(0))
    seen: list[AdmissionRequest] = []
    server.admission.register_validating("ConfigMap", ("DELETE",), seen.append, "record")
    stored = server.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "default"},
                            "data": {"k": "v"}})
    server.delete("ConfigMap", "c", "default")
    assert len(seen) == 1 and seen[0].operation == "DELETE"
    assert seen[0].old is stored
    assert type(seen[0].obj) is dict and seen[0].obj == stored
    seen[0].obj["data"] = {}  # a plain copy: the hook may not touch the stored object
    assert stored["data"] == {"k": "v"}


def test_update_refuses_a_field_manager_too_long() -> None:
    """``?fieldManager=`` of an update (PUT) is checked as UpdateOptions (no Cluster call sends one)."""
    server = ApiServer(SimClock(), RandomStreams(0))
    made = server.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "default"}})
    with pytest.raises(ApiError) as err:
        server.update({**made, "data": {"k": "v"}}, field_manager="m" * 129)
    assert (err.value.code, err.value.message) == (
        422, 'UpdateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes')
    assert "data" not in server.get("ConfigMap", "c", "default")


def test_last_applied_configuration_is_the_manifest_without_the_annotation() -> None:
    """kubectl's annotation holds the manifest as sent, minus the annotation itself (the memory
    backend's ``apply``; the HTTP backend's apply is a plain create or replace)."""
    from volcano.apiserver.threeway import LAST_APPLIED, last_applied_configuration

    manifest = {"apiVersion": "v1", "kind": "ConfigMap", "data": {"k": "v"},
                "metadata": {"name": "c", "annotations": {LAST_APPLIED: "{}", "note": "x"}}}
    assert json.loads(last_applied_configuration(manifest)) == {
        "apiVersion": "v1", "kind": "ConfigMap", "data": {"k": "v"},
        "metadata": {"name": "c", "annotations": {"note": "x"}}}
    assert manifest["metadata"]["annotations"][LAST_APPLIED] == "{}"  # the manifest itself is not edited
