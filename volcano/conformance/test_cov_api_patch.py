"""API conformance: what a PATCH request is refused for before any field of the object is read.

* ``PatchOptions`` are validated as apimachinery's ``ValidatePatchOptions`` does: ``force`` outside
  an apply patch, and a ``fieldManager`` with a character that is not printable (one error per
  character, ``invalid character U+0009 (at position 1)``, the value quoted as Go's ``%q``), all
  listed in one 422 on ``PatchOptions.meta.k8s.io``.
* A JSON patch (RFC 6902) has at most 10,000 operations (one more is 413 RequestEntityTooLarge,
  ``maxJSONPatchOperations`` of the patch handler).
* A strategic merge patch must be a JSON object (400 naming ``map[string]interface {}``).

Nothing is stored by a refused patch. Objects are ConfigMaps (no controller writes them). Every
case uses only the backend-neutral ``cluster`` fixture.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.test_admission import denial

__all__: list[str] = []

Obj = dict[str, Any]


def _cm(cluster: Cluster, name: str) -> None:
    cluster.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": "v"}})


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_patch_options_are_refused_together(cluster: Cluster) -> None:
    """``force`` on a merge patch and a field manager holding a tab: one 422 listing both errors
    (``ValidatePatchOptions``, ``ValidateFieldManager``: ``invalid character %#U (at position %d)``);
    a field manager alone with a newline names U+000A at its byte offset."""
    _cm(cluster, "opts")
    d = denial(lambda: cluster.patch("ConfigMap", "opts", {"data": {"k": "x"}}, force=True, field_manager="a\tb"))
    assert (d.code, d.reason, d.message) == (
        422, "Invalid", 'PatchOptions.meta.k8s.io "" is invalid: [force: Forbidden: may not be specified for '
        'non-apply patch, fieldManager: Invalid value: "a\\tb": invalid character U+0009 (at position 1)]'), d
    d = denial(lambda: cluster.patch("ConfigMap", "opts", {"data": {"k": "x"}}, field_manager="ops\n"))
    assert (d.code, d.message) == (422, 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Invalid value: '
                                        '"ops\\n": invalid character U+000A (at position 3)'), d
    d = denial(lambda: cluster.patch("ConfigMap", "opts", {"data": {"k": "x"}}, patch_type="strategic",
                                     force=False))
    assert (d.code, d.message) == (422, 'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be '
                                        "specified for non-apply patch"), d
    assert cluster.get("ConfigMap", "opts")["data"] == {"k": "v"}


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_json_patch_operation_limit(cluster: Cluster) -> None:
    """10,000 operations are applied; 10,001 are 413 RequestEntityTooLarge (``maxJSONPatchOperations``)
    and nothing is stored."""
    _cm(cluster, "jp-limit")
    ops = [{"op": "test", "path": "/data/k", "value": "v"}] * 9999 + [{"op": "add", "path": "/data/n", "value": "1"}]
    assert cluster.patch("ConfigMap", "jp-limit", ops, patch_type="json")["data"] == {"k": "v", "n": "1"}
    ops = [*ops, {"op": "add", "path": "/data/m", "value": "2"}]
    d = denial(lambda: cluster.patch("ConfigMap", "jp-limit", ops, patch_type="json"))
    assert (d.code, d.reason, d.message) == (
        413, "RequestEntityTooLarge",
        "Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001"), d
    assert cluster.get("ConfigMap", "jp-limit")["data"] == {"k": "v", "n": "1"}


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_strategic_merge_patch_must_be_an_object(cluster: Cluster) -> None:
    """A strategic merge patch that is a list is 400: the decoder's error for ``map[string]interface {}``."""
    _cm(cluster, "smp-shape")
    d = denial(lambda: cluster.patch("ConfigMap", "smp-shape", [{"data": {"k": "x"}}], patch_type="strategic"))
    assert (d.code, d.reason, d.message) == (
        400, "BadRequest", "json: cannot unmarshal array into Go value of type map[string]interface {}"), d
    assert cluster.get("ConfigMap", "smp-shape")["data"] == {"k": "v"}
