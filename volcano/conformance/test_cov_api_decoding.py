"""API conformance: a top-level field of the wrong JSON type is refused as Go's decoder refuses it.

A ConfigMap's ``immutable`` (a ``*bool``) and a Secret's ``type`` (a string) and ``immutable`` sit at the
top of the object, beside ``data``: a value of another JSON type is 400 BadRequest, ``<Kind> in
version "v1" cannot be handled as a <Kind>: json: cannot unmarshal <json type> into Go struct field
<Kind>.<field> of type <go type>``, and nothing is stored. The same fields of the right type are stored.

Every case uses only the backend-neutral ``cluster`` fixture.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.test_admission import denial

__all__: list[str] = []

Obj = dict[str, Any]


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
@pytest.mark.parametrize(("kind", "field", "value", "detail"), [
    pytest.param("ConfigMap", "immutable", "yes", "string into Go struct field ConfigMap.immutable of type bool",
                 id="configmap-immutable"),
    pytest.param("Secret", "type", 7, "number into Go struct field Secret.type of type string", id="secret-type"),
    pytest.param("Secret", "immutable", 1, "number into Go struct field Secret.immutable of type bool",
                 id="secret-immutable"),
])
def test_top_level_field_of_the_wrong_type(cluster: Cluster, kind: str, field: str, value: Any, detail: str) -> None:
    """400 naming the Go struct field; nothing stored; the right type is accepted."""
    obj: Obj = {"apiVersion": "v1", "kind": kind, "metadata": {"name": "cov-decode"}, "data": {}, field: value}
    d = denial(lambda: cluster.create(obj))
    assert (d.code, d.reason, d.message) == (
        400, "BadRequest", f'{kind} in version "v1" cannot be handled as a {kind}: json: cannot unmarshal {detail}'), d
    assert cluster.try_get(kind, "cov-decode") is None
    good = "Opaque" if field == "type" else False
    made = cluster.create({**obj, field: good})
    assert made[field] == good
