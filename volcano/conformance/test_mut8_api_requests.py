"""API conformance: a create whose object has no metadata.

An absent (or null) ``metadata`` decodes to an empty ObjectMeta, so the create fails validation for the
missing name: 422 Invalid ``ConfigMap "" is invalid: metadata.name: Required value: name or generateName
is required``, with that one cause, and nothing is stored. Uses only the backend-neutral ``cluster``
fixture.
"""

from __future__ import annotations

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.test_admission import denial, plain
from volcano.conformance.test_strength_api_details import _status

__all__: list[str] = []

REQUIRED = "Required value: name or generateName is required"


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
@pytest.mark.parametrize("metadata", [{}, {"metadata": None}], ids=["absent", "null"])
def test_create_without_metadata(cluster: Cluster, metadata: dict[str, None]) -> None:
    before = len(cluster.list("ConfigMap"))
    obj = {"apiVersion": "v1", "kind": "ConfigMap", **metadata, "data": {"k": "v"}}
    assert _status(lambda: cluster.create(obj)) == (422, "Invalid", {
        "name": "", "kind": "ConfigMap",
        "causes": [{"reason": "FieldValueRequired", "message": REQUIRED, "field": "metadata.name"}]})
    d = denial(lambda: cluster.create(obj))
    assert d.message == f'ConfigMap "" is invalid: metadata.name: {REQUIRED}', d
    assert len(cluster.list("ConfigMap")) == before


SNAPSHOTS = "snapshot.storage.k8s.io"


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
@pytest.mark.parametrize("ref", [
    {"apiGroup": SNAPSHOTS, "kind": "VolumeSnapshotContent", "name": "s"},  # only the kind differs
    {"apiGroup": "example.com", "kind": "VolumeSnapshot", "name": "s"},      # only the group differs
], ids=["kind", "group"])
def test_claim_data_source_must_match_its_ref(cluster: Cluster, ref: dict[str, str]) -> None:
    """A claim whose ``dataSource`` and ``dataSourceRef`` differ in one of kind and apiGroup: 422 Invalid with
    the one cause at ``spec`` (``must match dataSourceRef``); nothing stored. The same pair made equal is
    stored with both."""
    source = {"apiGroup": SNAPSHOTS, "kind": "VolumeSnapshot", "name": "s"}
    spec = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}},
            "dataSource": source, "dataSourceRef": ref}
    claim = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "mut8-source"}, "spec": spec}
    d = denial(lambda: cluster.create(claim))
    assert (d.code, d.reason) == (422, "Invalid"), d
    assert d.message.startswith('PersistentVolumeClaim "mut8-source" is invalid: spec: Invalid value: '), d
    assert d.message.endswith(": must match dataSourceRef") and d.message.count("must match") == 1, d
    assert cluster.try_get("PersistentVolumeClaim", "mut8-source") is None
    made = plain(cluster.create({**claim, "spec": {**spec, "dataSourceRef": dict(source)}}))
    assert (made["spec"]["dataSource"], made["spec"]["dataSourceRef"]) == (source, source)
