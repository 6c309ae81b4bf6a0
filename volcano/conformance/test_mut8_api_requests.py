"""API conformance: a create whose object has no metadata.

An absent (or null) ``metadata`` decodes to an empty ObjectMeta, so the create fails validation for the
missing name: 422 Invalid ``ConfigMap "" is invalid: metadata.name: Required value: name or generateName
is required``, with that one cause, and nothing is stored. Uses only the backend-neutral ``cluster``
fixture.
"""

from __future__ import annotations

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.test_admission import denial
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
