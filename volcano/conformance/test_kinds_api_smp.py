"""API conformance: the strategic merge patch directives a client may send, and each one's failure.

apimachinery's ``strategicpatch`` as the PATCH handler runs it (``application/strategic-merge-patch+json``):

* map directives: ``$patch: replace`` makes the map exactly the patch's other keys; ``$patch: delete``
  empties it (an empty ``labels`` map reads back empty); an unknown ``$patch`` value is the plain error
  ``unknown patch type: <v> in map: <Go-printed map>``, which the handler does not wrap, so a 500 with
  no reason; the object is unchanged.
* a primitive list with ``patchStrategy: merge`` (``metadata.finalizers``): ``$deleteFromPrimitiveList/<list>``
  removes the values it lists (a non-list value is ignored, as the types differ);
  ``$setElementOrder/<list>`` orders the merged list; a patch list whose items do not follow that order is
  ``The order in patch list: ... doesn't match $setElementOrder list: ...`` and an order that is not a list
  ``expected a []interface {}, but received a string`` (both 500, unwrapped); ``$retainKeys`` that is not a
  list, or that does not name every key the patch sets, is 400 ``invalid patch format of retainKeys``;
  ``$retainKeys`` keeps only the keys it names.
* a patch body that is not a JSON object is 400 with the JSON decoder's message.

Objects are ConfigMaps; the finalizers these cases add are removed before they end.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import plain
from volcano.conformance.test_admission import Denial, denial

__all__: list[str] = []

Obj = dict[str, Any]
FINALIZERS = ["kinds.example/a", "kinds.example/b", "kinds.example/c"]


def _cm(name: str, **meta: Any) -> Obj:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, **meta},
            "data": {"k": "v", "j": "w"}}


def _smp(cluster: Cluster, name: str, patch: Any) -> Obj:
    return plain(cluster.patch("ConfigMap", name, patch, patch_type="strategic"))


def _refused(cluster: Cluster, name: str, patch: Any) -> Denial:
    before = cluster.get("ConfigMap", name)["metadata"]["resourceVersion"]
    d = denial(lambda: cluster.patch("ConfigMap", name, patch, patch_type="strategic"))
    assert cluster.get("ConfigMap", name)["metadata"]["resourceVersion"] == before
    return d


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_map_directives(cluster: Cluster) -> None:
    """``replace`` keeps only the patch's keys, ``delete`` empties the map, an unknown directive is 500."""
    cluster.create(_cm("kinds-smp-map", labels={"a": "1", "b": "2"}))
    out = _smp(cluster, "kinds-smp-map", {"metadata": {"labels": {"$patch": "replace", "z": "9"}}})
    assert out["metadata"]["labels"] == {"z": "9"}
    assert out["data"] == {"k": "v", "j": "w"}
    out = _smp(cluster, "kinds-smp-map", {"metadata": {"labels": {"$patch": "delete"}}, "data": {"j": None}})
    assert not out["metadata"].get("labels")
    assert out["data"] == {"k": "v"}
    d = _refused(cluster, "kinds-smp-map", {"data": {"$patch": "bogus"}})
    assert (d.code, d.reason, d.message) == (500, "", "unknown patch type: bogus in map: map[$patch:bogus]"), d
    d = _refused(cluster, "kinds-smp-map", [{"data": 1}])
    assert (d.code, d.reason, d.message) == (
        400, "BadRequest", "json: cannot unmarshal array into Go value of type map[string]interface {}"), d
    out = _smp(cluster, "kinds-smp-map", {"data": {"$retainKeys": ["n"], "n": "x"}})
    assert out["data"] == {"n": "x"}


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_primitive_list_directives(cluster: Cluster) -> None:
    """``$deleteFromPrimitiveList`` and ``$setElementOrder`` on ``metadata.finalizers``, and the errors of an
    order the patch list does not follow, of an order that is not a list, and of ``$retainKeys`` not a list."""
    name = "kinds-smp-list"
    a, b, c = FINALIZERS
    cluster.create(_cm(name, finalizers=list(FINALIZERS)))
    try:
        out = _smp(cluster, name, {"metadata": {"$deleteFromPrimitiveList/finalizers": [b]}})
        assert out["metadata"]["finalizers"] == [a, c]
        out = _smp(cluster, name, {"metadata": {"$deleteFromPrimitiveList/finalizers": a}})
        assert out["metadata"]["finalizers"] == [a, c]
        out = _smp(cluster, name, {"metadata": {"$setElementOrder/finalizers": [c, a], "finalizers": [a]}})
        assert out["metadata"]["finalizers"] == [c, a]
        d = _refused(cluster, name, {"metadata": {"$setElementOrder/finalizers": [c, a],
                                                  "finalizers": ["kinds.example/q", c]}})
        assert (d.code, d.reason, d.message) == (
            500, "", f"The order in patch list:\n[kinds.example/q {c}]\n doesn't match $setElementOrder list:\n"
                     f"[{c} {a}]\n"), d
        d = _refused(cluster, name, {"metadata": {"$setElementOrder/finalizers": "x"}})
        assert (d.code, d.reason, d.message) == (500, "", "expected a []interface {}, but received a string"), d
        for retain in ("k", ["n"]):  # not a list; a list not naming the patch's key ``k``
            d = _refused(cluster, name, {"data": {"$retainKeys": retain, "k": "v2"}})
            assert (d.code, d.reason, d.message) == (400, "BadRequest", "invalid patch format of retainKeys"), d
        assert cluster.get("ConfigMap", name)["metadata"]["finalizers"] == [c, a]
    finally:
        cluster.patch("ConfigMap", name, {"metadata": {"finalizers": None}})
    assert not cluster.get("ConfigMap", name)["metadata"].get("finalizers")
