"""API conformance: strategic merge patch directives on a Deployment and a ConfigMap.

``kubectl patch`` (and ``kubectl apply``'s client-side merge) send strategic merge patches:
lists with a merge key merge item by item (containers by ``name``, ``env`` by ``name``, ports
by ``containerPort``), ``$patch: delete`` removes one item, ``$patch: replace`` the whole list
or map, ``$setElementOrder`` orders a list, ``$retainKeys`` drops the keys it does not name,
``$deleteFromPrimitiveList`` removes values from a merged list of strings (``finalizers``). An
item without its merge key or an unknown ``$patch`` is refused with the patch library's own
error (500, as kube-apiserver answers errors it does not classify), and nothing is stored.

Every case uses only the backend-neutral ``cluster`` fixture.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.test_admission import denial, plain

__all__: list[str] = []

Obj = dict[str, Any]
LABELS = {"app": "smp"}


def _make(cluster: Cluster) -> None:
    cluster.create({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "smp"},
        "spec": {"replicas": 0, "selector": {"matchLabels": LABELS},
                 "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}},
                 "template": {"metadata": {"labels": LABELS}, "spec": {
                     "schedulerName": "strength-absent-scheduler",
                     "containers": [{"name": "a", "image": "busybox:1.36", "ports": [{"containerPort": 80}],
                                     "env": [{"name": "E1", "value": "1"}, {"name": "E2", "value": "2"}]},
                                    {"name": "b", "image": "busybox:1.36"}]}}}})


def _patch(cluster: Cluster, patch: Obj) -> Obj:
    return plain(cluster.patch("Deployment", "smp", patch, patch_type="strategic"))


def _containers(patch: Obj) -> Obj:
    return {"spec": {"template": {"spec": patch}}}


def _shape(obj: Obj) -> list[tuple[str, str, list[tuple[str, str]], list[int]]]:
    return [(c["name"], c["image"], [(e["name"], e.get("value", "")) for e in c.get("env") or []],
             [p["containerPort"] for p in c.get("ports") or []])
            for c in obj["spec"]["template"]["spec"]["containers"]]


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_keyed_lists_merge_item_by_item(cluster: Cluster) -> None:
    """A new container is added beside the others; a container's env merges by name and its
    ports by containerPort; ``$patch: delete`` removes one container."""
    _make(cluster)
    added = _patch(cluster, _containers({"containers": [{"name": "c", "image": "busybox:1.37"}]}))
    assert {c[0] for c in _shape(added)} == {"a", "b", "c"}
    env = _patch(cluster, _containers({"containers": [{"name": "a", "env": [{"name": "E2", "value": "two"},
                                                                           {"name": "E3", "value": "3"}],
                                                       "ports": [{"containerPort": 81}]}]}))
    by_name = {c[0]: c for c in _shape(env)}
    assert sorted(by_name["a"][2]) == [("E1", "1"), ("E2", "two"), ("E3", "3")]
    assert sorted(by_name["a"][3]) == [80, 81]
    assert by_name["a"][1] == "busybox:1.36"
    gone = _patch(cluster, _containers({"containers": [{"name": "b", "$patch": "delete"}]}))
    assert {c[0] for c in _shape(gone)} == {"a", "c"}
    ordered = _patch(cluster, _containers({"$setElementOrder/containers": [{"name": "c"}, {"name": "a"}],
                                           "containers": [{"name": "a", "image": "busybox:1.37"}]}))
    assert [(c[0], c[1]) for c in _shape(ordered)] == [("c", "busybox:1.37"), ("a", "busybox:1.37")]
    replaced = _patch(cluster, _containers({"containers": [{"name": "z", "image": "busybox:1.36"},
                                                           {"$patch": "replace"}]}))
    assert _shape(replaced) == [("z", "busybox:1.36", [], [])]


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_map_directives(cluster: Cluster) -> None:
    """``$retainKeys`` drops the strategy's rollingUpdate; ``$patch: replace`` swaps a whole map."""
    _make(cluster)
    retained = _patch(cluster, {"spec": {"strategy": {"$retainKeys": ["type"], "type": "Recreate"}}})
    assert retained["spec"]["strategy"] == {"type": "Recreate"}
    back = _patch(cluster, {"spec": {"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 2}}}})
    assert back["spec"]["strategy"]["rollingUpdate"]["maxSurge"] == 2
    swapped = _patch(cluster, {"spec": {"strategy": {"$patch": "replace", "type": "Recreate"}}})
    assert swapped["spec"]["strategy"] == {"type": "Recreate"}


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_primitive_list_directives(cluster: Cluster) -> None:
    """``finalizers`` merge as a set of strings; ``$deleteFromPrimitiveList`` removes values."""
    cluster.create({"apiVersion": "v1", "kind": "ConfigMap",
                    "metadata": {"name": "smp-fin", "finalizers": ["example.com/a"]}, "data": {"k": "v"}})
    merged = plain(cluster.patch("ConfigMap", "smp-fin", {"metadata": {"finalizers": ["example.com/b"]}},
                                 patch_type="strategic"))
    assert sorted(merged["metadata"]["finalizers"]) == ["example.com/a", "example.com/b"]
    removed = plain(cluster.patch("ConfigMap", "smp-fin",
                                  {"metadata": {"$deleteFromPrimitiveList/finalizers": ["example.com/a"]}},
                                  patch_type="strategic"))
    assert removed["metadata"]["finalizers"] == ["example.com/b"]
    cluster.patch("ConfigMap", "smp-fin", {"metadata": {"finalizers": None}})


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
@pytest.mark.parametrize(("patch", "message"), [
    pytest.param(_containers({"containers": [{"image": "busybox:1.37"}]}),
                 "map: map[image:busybox:1.37] does not contain declared merge key: name", id="no-merge-key"),
    pytest.param(_containers({"containers": [{"name": "a", "$patch": "explode"}]}),
                 "unknown patch type: explode in map: map[$patch:explode name:a]", id="unknown-directive"),
])
def test_malformed_directives_are_refused(cluster: Cluster, patch: Obj, message: str) -> None:
    """The patch library's error, as kube-apiserver passes it on (500), and nothing stored."""
    _make(cluster)
    before = plain(cluster.get("Deployment", "smp"))
    d = denial(lambda: _patch(cluster, patch))
    assert (d.code, d.message) == (500, message), d
    after = plain(cluster.get("Deployment", "smp"))
    assert after["metadata"]["resourceVersion"] == before["metadata"]["resourceVersion"]
