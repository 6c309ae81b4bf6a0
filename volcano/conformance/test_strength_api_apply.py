"""API conformance: server-side apply of a workload with keyed lists, as kube-apiserver records it.

A Deployment applied by one manager: ``managedFields`` holds its ``Apply`` entry with the
fields it set, keyed-list items named by their keys (``k:{"name":"c"}``, a port by
``containerPort`` and ``protocol``) with ``.`` for the item itself, and an atomic selector as
one field. Another manager's apply of a different value is 409 Conflict naming the field by
its list key; forced, it takes the field over. The first manager's re-apply without a field it
alone owned removes it; an added list item is merged by key. Each spec change bumps
``generation``. ``kubectl apply`` (client-side; the memory backend's apply) keeps the manifest
it applied in the last-applied annotation.

Every case uses only the backend-neutral ``cluster`` fixture.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.test_admission import denial, plain

__all__: list[str] = []

Obj = dict[str, Any]
LABELS = {"app": "applied"}


def _deployment(containers: list[Obj], *, full: bool = True) -> Obj:
    spec: Obj = {"template": {"spec": {"containers": containers}}}
    if full:
        spec = {"replicas": 0, "selector": {"matchLabels": LABELS},
                "template": {"metadata": {"labels": LABELS},
                             "spec": {"containers": containers, "schedulerName": "strength-absent-scheduler"}}}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "applied"}, "spec": spec}


def _apply(cluster: Cluster, body: Obj, manager: str, force: bool | None = None) -> Obj:
    return plain(cluster.patch("Deployment", "applied", copy.deepcopy(body), patch_type="apply",
                               field_manager=manager, force=force))


def _entry(obj: Obj, manager: str) -> Obj:
    found = [e for e in obj["metadata"].get("managedFields") or [] if e["manager"] == manager]
    assert len(found) == 1, obj["metadata"].get("managedFields")
    entry: Obj = found[0]
    return entry


PORT = {"containerPort": 80, "protocol": "TCP"}


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_apply_records_keyed_lists(cluster: Cluster) -> None:
    """The Apply entry of a created Deployment: keyed containers and ports, an atomic selector."""
    made = _apply(cluster, _deployment([{"name": "c", "image": "busybox:1.36", "ports": [PORT]}]), "mgr-a")
    assert made["metadata"]["generation"] == 1
    entry = _entry(made, "mgr-a")
    assert (entry["operation"], entry["apiVersion"], entry["fieldsType"]) == ("Apply", "apps/v1", "FieldsV1")
    container = {".": {}, "f:image": {}, "f:name": {},
                 "f:ports": {'k:{"containerPort":80,"protocol":"TCP"}': {".": {}, "f:containerPort": {},
                                                                          "f:protocol": {}}}}
    assert entry["fieldsV1"] == {"f:spec": {
        "f:replicas": {}, "f:selector": {},
        "f:template": {"f:metadata": {"f:labels": {"f:app": {}}},
                       "f:spec": {"f:containers": {'k:{"name":"c"}': container}, "f:schedulerName": {}}}}}


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_apply_conflict_force_and_removal(cluster: Cluster) -> None:
    """A second manager's different image is a conflict named by list key; forced, it owns the
    image; the first manager's re-apply without ports removes them, with a new container merged
    by name; every spec change is one more generation."""
    _apply(cluster, _deployment([{"name": "c", "image": "busybox:1.36", "ports": [PORT]}]), "mgr-a")
    other = _deployment([{"name": "c", "image": "busybox:1.37"}], full=False)
    d = denial(lambda: _apply(cluster, other, "mgr-b"))
    assert (d.code, d.reason) == (409, "Conflict"), d
    assert d.message == ('Apply failed with 1 conflict: conflict with "mgr-a": '
                         '.spec.template.spec.containers[name="c"].image')
    assert cluster.get("Deployment", "applied")["spec"]["template"]["spec"]["containers"][0]["image"] == "busybox:1.36"
    forced = _apply(cluster, other, "mgr-b", force=True)
    assert forced["spec"]["template"]["spec"]["containers"][0]["image"] == "busybox:1.37"
    assert forced["metadata"]["generation"] == 2
    b_fields = _entry(forced, "mgr-b")["fieldsV1"]["f:spec"]["f:template"]["f:spec"]["f:containers"]
    assert b_fields == {'k:{"name":"c"}': {".": {}, "f:image": {}, "f:name": {}}}
    a_container = _entry(forced, "mgr-a")["fieldsV1"]["f:spec"]["f:template"]["f:spec"]["f:containers"][
        'k:{"name":"c"}']
    assert "f:image" not in a_container and "f:ports" in a_container
    again = _apply(cluster, _deployment([{"name": "c", "image": "busybox:1.37"},
                                         {"name": "side", "image": "busybox:1.36"}]), "mgr-a")
    containers = again["spec"]["template"]["spec"]["containers"]
    assert [c["name"] for c in containers] == ["c", "side"]
    assert "ports" not in containers[0] and containers[0]["image"] == "busybox:1.37"
    assert again["metadata"]["generation"] == 3


LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_kubectl_server_side_apply_refreshes_last_applied(cluster: Cluster) -> None:
    """``kubectl apply --server-side`` (manager ``kubectl``) over an object a client-side apply made:
    the server rewrites the last-applied annotation to the configuration just applied."""
    old = json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "la-cm"}, "data": {"k": "v1"}})
    cluster.create({"apiVersion": "v1", "kind": "ConfigMap",
                    "metadata": {"name": "la-cm", "annotations": {LAST_APPLIED: old}}, "data": {"k": "v1"}})
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "la-cm"}, "data": {"k": "v2"}}
    applied = plain(cluster.patch("ConfigMap", "la-cm", body, patch_type="apply", field_manager="kubectl",
                                  force=True))
    assert applied["data"] == {"k": "v2"}
    refreshed = applied["metadata"]["annotations"][LAST_APPLIED]
    assert refreshed != old and json.loads(refreshed)["data"] == {"k": "v2"}


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_client_side_apply_records_the_manifest(cluster: Cluster) -> None:
    """``kubectl apply`` (client-side) stores the manifest it applied, without the annotation itself,
    in the last-applied annotation, and refreshes it on the next apply. The memory backend's apply is
    kubectl's; the HTTP backend's creates and replaces as a plain client does, so only the stored
    data is common to both."""
    manifest = {"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": "csa-cm", "labels": {"app": "x"}}, "data": {"k": "v1"}}
    cluster.apply(copy.deepcopy(manifest))
    again = copy.deepcopy(manifest)
    again["data"] = {"k": "v2"}
    cluster.apply(again)
    stored = plain(cluster.get("ConfigMap", "csa-cm"))
    assert (stored["data"], stored["metadata"]["labels"]) == ({"k": "v2"}, {"app": "x"})
    if cluster.backend != "memory":
        return
    last = json.loads(stored["metadata"]["annotations"][LAST_APPLIED])
    meta = {k: v for k, v in last["metadata"].items() if k not in ("namespace", "annotations")}
    assert (sorted(last), meta, last["data"]) == (["apiVersion", "data", "kind", "metadata"],
                                                 {"name": "csa-cm", "labels": {"app": "x"}}, {"k": "v2"}), last
    assert not last["metadata"].get("annotations"), last
