"""API conformance: server-side apply against fields an update (not an apply) took over.

A write through ``PUT``/``PATCH`` with ``?fieldManager=`` is recorded as an ``Update`` entry of that
manager (``apiVersion`` the version written, a ``time``); an apply that would change a field such an
entry owns is 409 Conflict naming the manager as structured-merge-diff's ``printManager`` does for an
updater: ``"<manager>" using <apiVersion>`` (the time is not part of the manager's identity, so it is
not printed). Forced, the applier takes the field and the updater's entry goes when it owns nothing.

Every case uses only the backend-neutral ``cluster`` fixture.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import plain
from volcano.conformance.test_admission import denial

__all__: list[str] = []

Obj = dict[str, Any]


def _owners(obj: Obj) -> dict[tuple[str, str], Obj]:
    return {(e["manager"], e["operation"]): e for e in obj["metadata"].get("managedFields") or []}


def _cm(data: dict[str, str]) -> Obj:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ssa-upd"}, "data": data}


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_apply_conflicts_with_an_updater(cluster: Cluster) -> None:
    """An applier's field changed by a merge patch of ``cov-updater``: the applier's next apply of
    another value is 409 ``conflict with "cov-updater" using v1: .data.k``; forced, it takes the field
    back and the updater, owning nothing more, leaves ``managedFields``."""
    cluster.patch("ConfigMap", "ssa-upd", _cm({"k": "a", "j": "a"}), patch_type="apply", field_manager="cov-applier")
    patched = plain(cluster.patch("ConfigMap", "ssa-upd", {"data": {"k": "u"}}, field_manager="cov-updater"))
    owners = _owners(patched)
    entry = owners[("cov-updater", "Update")]
    assert (entry["apiVersion"], entry["fieldsType"], entry["fieldsV1"]) == ("v1", "FieldsV1", {"f:data": {"f:k": {}}})
    assert entry.get("time")
    assert owners[("cov-applier", "Apply")]["fieldsV1"] == {"f:data": {"f:j": {}}}
    d = denial(lambda: cluster.patch("ConfigMap", "ssa-upd", _cm({"k": "a", "j": "a"}), patch_type="apply",
                                     field_manager="cov-applier"))
    assert (d.code, d.reason, d.message) == (
        409, "Conflict", 'Apply failed with 1 conflict: conflict with "cov-updater" using v1: .data.k'), d
    assert cluster.get("ConfigMap", "ssa-upd")["data"] == {"k": "u", "j": "a"}
    forced = plain(cluster.patch("ConfigMap", "ssa-upd", _cm({"k": "a", "j": "a"}), patch_type="apply",
                                 field_manager="cov-applier", force=True))
    assert forced["data"] == {"k": "a", "j": "a"}
    assert set(_owners(forced)) == {("cov-applier", "Apply")}
    assert _owners(forced)[("cov-applier", "Apply")]["fieldsV1"] == {"f:data": {"f:j": {}, "f:k": {}}}


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_apply_conflict_on_a_custom_resource_names_its_version(cluster: Cluster) -> None:
    """The same on a PodGroup: the updater is named with the custom resource's group version."""
    pg = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup", "metadata": {"name": "ssa-pg"},
          "spec": {"minMember": 1, "queue": "default"}}
    cluster.patch("PodGroup", "ssa-pg", pg, patch_type="apply", field_manager="cov-applier")
    cluster.patch("PodGroup", "ssa-pg", {"spec": {"minMember": 2}}, field_manager="cov-updater")
    d = denial(lambda: cluster.patch("PodGroup", "ssa-pg", pg, patch_type="apply", field_manager="cov-applier"))
    assert (d.code, d.reason, d.message) == (
        409, "Conflict", 'Apply failed with 1 conflict: conflict with "cov-updater" using '
        "scheduling.volcano.sh/v1beta1: .spec.minMember"), d
    assert cluster.get("PodGroup", "ssa-pg")["spec"]["minMember"] == 2
