"""API conformance: server-side apply through the ``status`` subresource, and the apply bodies refused.

* Field ownership per subresource: a merge patch of ``pods/status`` as ``kinds-editor`` is an ``Update``
  entry with ``subresource: status`` owning the condition it added (the list itself, the keyed item, its
  fields); an apply of ``pods/status`` changing that condition's ``status`` is 409 naming the updater as
  structured-merge-diff's ``printManager`` does (``"kinds-editor" with subresource "status" using v1``) and
  the field by its list key; forced, the applier's ``Apply`` entry (``subresource: status``) owns the field
  and the updater keeps the rest. The main resource's applier entry is untouched by either.
* Apply bodies refused 400 before any merge: a body of another kind or group version (the version check
  manager's ``invalid object type: <group>/<version>, Kind=<kind>``), a body carrying ``managedFields``
  (``metadata.managedFields must be nil``, an empty list included), and a body naming another object.
* An apply of ``status`` to an object that does not exist is 404 NotFound (the status store never creates).
* A set list (``metadata.finalizers``): each applier owns its values (``v:"<value>"``); a value an applier
  drops is removed unless another applier owns it.
* The applied object is converted to its typed form without allowing duplicates: a keyed list with two items
  of one key, a null item or an item without its key is 500 ``failed to create typed patch object
  (<namespace>/<name>; <group>/<version>, Kind=<kind>): <path>: <problem>``, nothing created.

Pods name a scheduler nobody runs, so nothing else writes them.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import plain
from volcano.conformance.test_admission import denial

__all__: list[str] = []

Obj = dict[str, Any]
COND = "kinds.example/Ready"
ITEM = 'k:{"type":"kinds.example/Ready"}'


def _pod(name: str) -> Obj:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"schedulerName": "kinds-absent-scheduler", "containers": [{"name": "c", "image": "busybox:1.36"}]}}


def _status(name: str, value: str) -> Obj:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "status": {"conditions": [{"type": COND, "status": value}]}}


def _entries(obj: Obj) -> dict[tuple[str, str, str], Obj]:
    return {(e["manager"], e["operation"], e.get("subresource", "")): e["fieldsV1"]
            for e in obj["metadata"].get("managedFields") or []}


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_status_apply_conflicts_with_a_status_updater(cluster: Cluster) -> None:
    """The updater of ``pods/status`` is named with its subresource in the 409; forcing moves only the
    conflicting field, each entry keeping its subresource."""
    name = "kinds-ssa-status"
    cluster.patch("Pod", name, _pod(name), patch_type="apply", field_manager="kinds-applier")
    spec_fields = _entries(cluster.get("Pod", name))[("kinds-applier", "Apply", "")]
    edited = plain(cluster.patch("Pod", name, {"status": {"conditions": [{"type": COND, "status": "True"}]}},
                                 subresource="status", field_manager="kinds-editor"))
    assert _entries(edited)[("kinds-editor", "Update", "status")] == {
        "f:status": {"f:conditions": {".": {}, ITEM: {".": {}, "f:status": {}, "f:type": {}}}}}
    d = denial(lambda: cluster.patch("Pod", name, _status(name, "False"), subresource="status", patch_type="apply",
                                     field_manager="kinds-applier"))
    assert (d.code, d.reason, d.message) == (
        409, "Conflict", 'Apply failed with 1 conflict: conflict with "kinds-editor" with subresource "status" '
        f'using v1: .status.conditions[type="{COND}"].status'), d
    assert cluster.get("Pod", name)["status"]["conditions"] == [{"type": COND, "status": "True"}]
    forced = plain(cluster.patch("Pod", name, _status(name, "False"), subresource="status", patch_type="apply",
                                 field_manager="kinds-applier", force=True))
    assert forced["status"]["conditions"] == [{"type": COND, "status": "False"}]
    entries = _entries(forced)
    assert set(entries) == {("kinds-applier", "Apply", ""), ("kinds-applier", "Apply", "status"),
                            ("kinds-editor", "Update", "status")}
    assert entries[("kinds-applier", "Apply", "status")] == {
        "f:status": {"f:conditions": {ITEM: {".": {}, "f:status": {}, "f:type": {}}}}}
    assert entries[("kinds-editor", "Update", "status")] == {
        "f:status": {"f:conditions": {".": {}, ITEM: {".": {}, "f:type": {}}}}}
    assert entries[("kinds-applier", "Apply", "")] == spec_fields
    assert cluster.get("Pod", name)["spec"]["containers"][0]["image"] == "busybox:1.36"


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_refused_apply_bodies(cluster: Cluster) -> None:
    """Another kind, another group version, ``managedFields`` given, another name: 400 each, nothing
    created; an apply of ``pods/status`` to no pod is 404."""
    name = "kinds-ssa-body"

    def refused(body: Obj, kind: str = "ConfigMap", subresource: str | None = None) -> tuple[int, str, str]:
        d = denial(lambda: cluster.patch(kind, name, body, subresource=subresource, patch_type="apply",
                                         field_manager="kinds-applier"))
        assert cluster.try_get(kind, name) is None
        return d.code, d.reason, d.message

    meta = {"name": name}
    assert refused({"apiVersion": "v1", "kind": "Secret", "metadata": meta}) == (
        400, "BadRequest", "invalid object type: /v1, Kind=Secret")
    assert refused({"apiVersion": "apps/v1", "kind": "ConfigMap", "metadata": meta}) == (
        400, "BadRequest", "invalid object type: apps/v1, Kind=ConfigMap")
    for managed in ([{"manager": "kinds-other", "operation": "Apply"}], []):
        assert refused({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {**meta, "managedFields": managed}}) == (
            400, "BadRequest", "metadata.managedFields must be nil")
    assert refused({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "kinds-other"}}) == (
        400, "BadRequest", f"the name of the object (kinds-other) does not match the name on the URL ({name})")
    assert refused({**_status(name, "True")}, kind="Pod", subresource="status") == (
        404, "NotFound", f'pods "{name}" not found')


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_set_lists_and_untyped_apply_bodies(cluster: Cluster) -> None:
    """Two appliers share ``finalizers`` by value; then the three typed-conversion failures of a keyed list."""
    name = "kinds-ssa-set"
    a, b, c = "kinds.example/a", "kinds.example/b", "kinds.example/c"

    def cm(finalizers: list[str]) -> Obj:
        return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "finalizers": finalizers}}

    cluster.patch("ConfigMap", name, cm([b, a]), patch_type="apply", field_manager="kinds-applier")
    both = plain(cluster.patch("ConfigMap", name, cm([c]), patch_type="apply", field_manager="kinds-other"))
    assert both["metadata"]["finalizers"] == [b, a, c]
    entries = _entries(both)
    assert entries[("kinds-applier", "Apply", "")] == {"f:metadata": {"f:finalizers": {f'v:"{a}"': {}, f'v:"{b}"': {}}}}
    assert entries[("kinds-other", "Apply", "")] == {"f:metadata": {"f:finalizers": {f'v:"{c}"': {}}}}
    try:
        kept = plain(cluster.patch("ConfigMap", name, cm([a]), patch_type="apply", field_manager="kinds-applier"))
        assert kept["metadata"]["finalizers"] == [a, c]
        assert _entries(kept)[("kinds-applier", "Apply", "")] == {"f:metadata": {"f:finalizers": {f'v:"{a}"': {}}}}
    finally:
        cluster.patch("ConfigMap", name, {"metadata": {"finalizers": None}})
    prefix = "failed to create typed patch object (/kinds-ssa-typed; /v1, Kind=Pod): .spec.containers: "
    problems = [
        ([{"name": "c", "image": "busybox:1.36"}, {"name": "c", "image": "busybox:1.37"}],
         'duplicate entries for key [name="c"]'),
        ([None], "element 0: associative list with keys may not have a null element"),
        ([{"name": "c", "image": "busybox:1.36"}, {"image": "busybox:1.36"}],
         'element 1: associative list with keys has an element that omits key field "name" (and doesn\'t have '
         "default value)"),
    ]
    for containers, problem in problems:
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "kinds-ssa-typed"},
               "spec": {"schedulerName": "kinds-absent-scheduler", "containers": containers}}
        d = denial(lambda: cluster.patch("Pod", "kinds-ssa-typed", pod, patch_type="apply",  # noqa: B023
                                         field_manager="kinds-applier"))
        assert (d.code, d.reason, d.message) == (500, "", prefix + problem), d
        assert cluster.try_get("Pod", "kinds-ssa-typed") is None
