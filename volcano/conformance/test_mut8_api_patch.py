"""API conformance: ``$retainKeys`` in a strategic merge patch (strategicpatch's ``applyRetainKeysDirective``).

* Every key of the patched map that is neither null nor a directive must be named by the list: one that
  is not is 400 BadRequest ``invalid patch format of retainKeys``, wherever it stands (after a null,
  after a ``$setElementOrder`` directive, first); so is a ``$retainKeys`` that is not a list. Nothing
  is stored.
* A valid list clears the keys it does not name: a volume switched from ``hostPath`` to ``emptyDir``
  keeps only ``name`` and ``emptyDir``.

Every case uses only the backend-neutral ``cluster`` fixture, on a Deployment of no replicas.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.test_admission import denial, plain

__all__: list[str] = []

Obj = dict[str, Any]
LABELS = {"app": "mut8-retain"}


def _deployment() -> Obj:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "mut8-retain"},
            "spec": {"replicas": 0, "selector": {"matchLabels": LABELS},
                     "template": {"metadata": {"labels": LABELS}, "spec": {
                         "schedulerName": "mut8-absent-scheduler",
                         "containers": [{"name": "c", "image": "busybox:1.36"}],
                         "volumes": [{"name": "v", "hostPath": {"path": "/tmp/mut8"}}]}}}}


def _volume_patch(volume: Obj) -> Obj:
    return {"spec": {"template": {"spec": {"volumes": [volume]}}}}


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_retain_keys_refuses_keys_it_does_not_name(cluster: Cluster) -> None:
    """Four refused patches (the unnamed ``emptyDir`` after a null, after a directive, first; a list that is
    not a list): each 400 with the same words, the Deployment unchanged."""
    made = plain(cluster.create(_deployment()))
    for volume in (
            {"name": "v", "hostPath": None, "emptyDir": {}, "$retainKeys": ["hostPath", "name"]},
            {"name": "v", "$setElementOrder/x": [], "emptyDir": {}, "$retainKeys": ["name"]},
            {"emptyDir": {}, "name": "v", "$retainKeys": ["name"]},
            {"name": "v", "$retainKeys": "name"}):
        d = denial(lambda volume=volume: cluster.patch("Deployment", "mut8-retain", _volume_patch(volume),
                                                       patch_type="strategic"))
        assert (d.code, d.reason, d.message) == (400, "BadRequest", "invalid patch format of retainKeys"), (volume, d)
    stored = plain(cluster.get("Deployment", "mut8-retain"))
    assert (stored["spec"]["template"]["spec"]["volumes"][0]["hostPath"]["path"], stored["metadata"]["generation"]) \
        == ("/tmp/mut8", 1)
    assert stored["spec"]["template"] == made["spec"]["template"]


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_retain_keys_switches_a_volume_source(cluster: Cluster) -> None:
    """``hostPath`` to ``emptyDir`` with the list naming ``name`` and ``emptyDir`` (and a null for the old
    source): the volume keeps only those; one more generation."""
    cluster.create(_deployment())
    patched = plain(cluster.patch("Deployment", "mut8-retain", _volume_patch(
        {"name": "v", "hostPath": None, "emptyDir": {"medium": "Memory"}, "$retainKeys": ["emptyDir", "name"]}),
        patch_type="strategic"))
    assert patched["spec"]["template"]["spec"]["volumes"] == [{"name": "v", "emptyDir": {"medium": "Memory"}}]
    assert patched["metadata"]["generation"] == 2


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
@pytest.mark.parametrize("patch_type", ["strategic", "merge"])
def test_nulls_inside_a_new_map_are_dropped(cluster: Cluster, patch_type: str) -> None:
    """A patch adding a map the object does not have yet (``affinity``), with nulls at two depths: every
    null is dropped (``discardNullValuesFromPatch``; RFC 7386 prunes them), the rest is stored."""
    cluster.create(_deployment())
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": None}, "podAffinity": None}
    patched = plain(cluster.patch("Deployment", "mut8-retain",
                                  {"spec": {"template": {"spec": {"affinity": affinity}}}}, patch_type=patch_type))
    assert patched["spec"]["template"]["spec"]["affinity"] == {"nodeAffinity": {}}
    assert patched["metadata"]["generation"] == 2
