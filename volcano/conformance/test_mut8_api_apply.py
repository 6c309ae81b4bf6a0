"""API conformance: server-side apply conflicts as kube-apiserver reports them.

* Several conflicts with one manager: ``Apply failed with N conflicts: conflicts with "m":`` then one
  ``- <path>`` line per field, paths in order; an element of a list keyed by several fields prints as
  ``[containerPort=80,protocol="TCP"]`` (key fields by name, values as JSON). The paths come in
  structured-merge-diff's set order: a level's own fields before deeper ones, list items by their key
  values compared as values (port 8080 before port 10000, though "10000" sorts first as text).
* The Status of a conflict is 409 Conflict whose ``details`` hold only the causes: one
  ``FieldManagerConflict`` per field, its path and ``conflict with "m"``.
* Nothing is stored; forcing takes the fields over, and the first manager keeps only the rest.

Every case uses only the backend-neutral ``cluster`` fixture.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.test_admission import denial, plain
from volcano.conformance.test_strength_api_details import _status

__all__: list[str] = []

Obj = dict[str, Any]
LABELS = {"app": "mut8-applied"}
C = '.spec.template.spec.containers[name="c"]'


def _deployment(image: str, port_name: str, *, full: bool) -> Obj:
    container = {"name": "c", "image": image,
                 "ports": [{"containerPort": 80, "protocol": "TCP", "name": port_name}]}
    spec: Obj = {"template": {"spec": {"containers": [container]}}}
    if full:
        spec = {"replicas": 0, "selector": {"matchLabels": LABELS},
                "template": {"metadata": {"labels": LABELS},
                             "spec": {"containers": [container], "schedulerName": "mut8-absent-scheduler"}}}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "mut8-applied"}, "spec": spec}


def _apply(cluster: Cluster, body: Obj, manager: str, force: bool | None = None) -> Obj:
    return plain(cluster.patch("Deployment", "mut8-applied", copy.deepcopy(body), patch_type="apply",
                               field_manager=manager, force=force))


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_two_conflicts_with_one_manager(cluster: Cluster) -> None:
    """A second manager changing the image and a port's name conflicts twice with the first (the port
    named by both its keys); the 409 lists both, nothing changes; forced, the second owns both."""
    made = _apply(cluster, _deployment("busybox:1.36", "http", full=True), "mgr-a")
    other = _deployment("busybox:1.37", "web", full=False)
    image, port = f"{C}.image", f'{C}.ports[containerPort=80,protocol="TCP"].name'
    d = denial(lambda: _apply(cluster, other, "mgr-b"))
    assert (d.code, d.reason, d.message) == (
        409, "Conflict", f'Apply failed with 2 conflicts: conflicts with "mgr-a":\n- {image}\n- {port}'), d
    assert _status(lambda: _apply(cluster, other, "mgr-b")) == (409, "Conflict", {"causes": [
        {"reason": "FieldManagerConflict", "message": 'conflict with "mgr-a"', "field": image},
        {"reason": "FieldManagerConflict", "message": 'conflict with "mgr-a"', "field": port}]})
    stored = plain(cluster.get("Deployment", "mut8-applied"))  # (its status may change meanwhile)
    assert (stored["spec"], stored["metadata"]["generation"]) == (made["spec"], 1)
    forced = _apply(cluster, other, "mgr-b", force=True)
    container = forced["spec"]["template"]["spec"]["containers"][0]
    assert (container["image"], container["ports"][0]["name"]) == ("busybox:1.37", "web")
    owners = {e["manager"]: e["fieldsV1"] for e in forced["metadata"]["managedFields"]}
    key = 'k:{"containerPort":80,"protocol":"TCP"}'
    assert owners["mgr-b"]["f:spec"]["f:template"]["f:spec"]["f:containers"]['k:{"name":"c"}'] == {
        ".": {}, "f:image": {}, "f:name": {}, "f:ports": {key: {".": {}, "f:containerPort": {}, "f:name": {},
                                                                 "f:protocol": {}}}}
    mine = owners["mgr-a"]["f:spec"]["f:template"]["f:spec"]["f:containers"]['k:{"name":"c"}']
    assert "f:image" not in mine and mine["f:ports"][key] == {".": {}, "f:containerPort": {}, "f:protocol": {}}


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_conflicts_on_two_ports_come_in_key_value_order(cluster: Cluster) -> None:
    """A second manager renaming ports 10000 and 8080 conflicts on both names; the 409 lists port 8080
    first (keys compare as numbers), and the causes in the same order."""
    def ports(names: tuple[str, str]) -> Obj:
        body = _deployment("busybox:1.36", "x", full=True)
        body["metadata"]["name"] = "mut8-ports"
        body["spec"]["template"]["spec"]["containers"][0]["ports"] = [
            {"containerPort": 10000, "protocol": "TCP", "name": names[0]},
            {"containerPort": 8080, "protocol": "TCP", "name": names[1]}]
        return body
    cluster.patch("Deployment", "mut8-ports", ports(("big", "small")), patch_type="apply", field_manager="mgr-a")
    first, second = (f'{C}.ports[containerPort={n},protocol="TCP"].name' for n in (8080, 10000))
    d = denial(lambda: cluster.patch("Deployment", "mut8-ports", ports(("b2", "s2")), patch_type="apply",
                                     field_manager="mgr-b"))
    assert (d.code, d.message) == (
        409, f'Apply failed with 2 conflicts: conflicts with "mgr-a":\n- {first}\n- {second}'), d
    assert _status(lambda: cluster.patch("Deployment", "mut8-ports", ports(("b2", "s2")), patch_type="apply",
                                         field_manager="mgr-b")) == (409, "Conflict", {"causes": [
        {"reason": "FieldManagerConflict", "message": 'conflict with "mgr-a"', "field": first},
        {"reason": "FieldManagerConflict", "message": 'conflict with "mgr-a"', "field": second}]})
    cluster.delete("Deployment", "mut8-ports")
