"""API conformance: a PersistentVolumeClaim's data sources and what an update may set once.

* ``dataSource`` and ``dataSourceRef`` (``ValidatePersistentVolumeClaimSpec``): given both, they must
  name the same object (``spec: Invalid value: spec.dataSource: must match dataSourceRef``); a
  ``dataSourceRef`` given alone is copied to ``dataSource`` first (``NormalizeDataSources``), so each
  of its errors (a missing name, an API group that is not a DNS subdomain) is reported for both.
* An update (``ValidatePersistentVolumeClaimUpdate``): the beta storage-class annotation is
  immutable (``ValidateImmutableAnnotation``), ``spec.volumeName`` may be set once and not changed, and
  a field the spec did not have (a ``selector``) may not be added.

Every case uses only the backend-neutral ``cluster`` fixture; no claim is bound (no volume exists).
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import plain
from volcano.conformance.test_admission import denial

__all__: list[str] = []

Obj = dict[str, Any]
GOOD: Obj = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}
SUBDOMAIN = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and "
             "must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
             "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
CLASS = "volume.beta.kubernetes.io/storage-class"
IMMUTABLE = ("spec: Forbidden: spec is immutable after creation except resources.requests and "
             "volumeAttributesClassName for bound claims")


def _claim(name: str, spec: Obj, annotations: dict[str, str] | None = None) -> Obj:
    meta: Obj = {"name": name}
    if annotations:
        meta["annotations"] = annotations
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta, "spec": spec}


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
@pytest.mark.parametrize(("spec", "causes"), [
    pytest.param({"dataSource": {"kind": "PersistentVolumeClaim", "name": "a"},
                  "dataSourceRef": {"kind": "PersistentVolumeClaim", "name": "b"}},
                 "spec: Invalid value: spec.dataSource: must match dataSourceRef", id="mismatch"),
    pytest.param({"dataSourceRef": {"kind": "PersistentVolumeClaim"}},
                 "[spec.dataSource.name: Required value, spec.dataSourceRef.name: Required value]", id="no-name"),
    pytest.param({"dataSourceRef": {"apiGroup": "Bad_Group", "kind": "VolumeSnapshot", "name": "s"}},
                 f'[spec.dataSource.apiGroup: Invalid value: "Bad_Group": {SUBDOMAIN}, '
                 f'spec.dataSourceRef.apiGroup: Invalid value: "Bad_Group": {SUBDOMAIN}]', id="group"),
])
def test_claim_data_sources(cluster: Cluster, spec: Obj, causes: str) -> None:
    """Each claim is 422 Invalid with exactly these causes; nothing is stored."""
    d = denial(lambda: cluster.create(_claim("claim-source", {**GOOD, **spec})))
    assert (d.code, d.reason, d.message) == (
        422, "Invalid", f'PersistentVolumeClaim "claim-source" is invalid: {causes}'), d
    assert cluster.try_get("PersistentVolumeClaim", "claim-source") is None


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_claim_class_annotation_and_volume_name_on_update(cluster: Cluster) -> None:
    """The storage-class annotation may neither change nor go; ``volumeName`` is set once, then fixed."""
    cluster.create(_claim("claim-class", dict(GOOD), {CLASS: "slow"}))
    for value, shown in (("fast", "fast"), (None, "")):
        d = denial(lambda value=value: cluster.patch("PersistentVolumeClaim", "claim-class",
                                                     {"metadata": {"annotations": {CLASS: value}}}))
        assert (d.code, d.reason, d.message) == (
            422, "Invalid", f'PersistentVolumeClaim "claim-class" is invalid: metadata.annotations.{CLASS}: '
            f'Invalid value: "{shown}": field is immutable'), d
    named = plain(cluster.patch("PersistentVolumeClaim", "claim-class", {"spec": {"volumeName": "cov-pv-a"}}))
    assert named["spec"]["volumeName"] == "cov-pv-a"
    assert named["metadata"]["annotations"][CLASS] == "slow"
    d = denial(lambda: cluster.patch("PersistentVolumeClaim", "claim-class", {"spec": {"volumeName": "cov-pv-b"}}))
    assert (d.code, d.reason) == (422, "Invalid"), d
    assert d.message.startswith(f'PersistentVolumeClaim "claim-class" is invalid: {IMMUTABLE}\n'), d.message
    assert cluster.get("PersistentVolumeClaim", "claim-class")["spec"]["volumeName"] == "cov-pv-a"
    d = denial(lambda: cluster.patch("PersistentVolumeClaim", "claim-class",
                                     {"spec": {"selector": {"matchLabels": {"tier": "fast"}}}}))
    assert (d.code, d.reason) == (422, "Invalid"), d  # a field the claim did not have is a change too
    assert d.message.startswith(f'PersistentVolumeClaim "claim-class" is invalid: {IMMUTABLE}\n'), d.message
    assert "selector" not in cluster.get("PersistentVolumeClaim", "claim-class")["spec"]
