"""API conformance: requests a client can send that the seed-18 hold-out showed no case sending.

* ``metadata.finalizers: [null]``: Go's JSON decoder reads the null item of a ``[]string`` as ``""``,
  which ``ValidateObjectMeta`` refuses as a finalizer name, so the create is 422 Invalid naming
  ``metadata.finalizers`` (never a 500), and nothing is stored.
* A server-side apply creating an object from a body without ``metadata.name``: the applied object
  names no object, so ``checkName`` refuses it 400 BadRequest and nothing is created.
* An update whose object has no ``metadata.uid`` (a hand-written manifest ``PUT`` as ``kubectl replace``
  sends it, or a JSON patch removing the uid): the UID precondition applies only to a uid that is given,
  and ``BeforeUpdate`` keeps the stored uid when none is provided, so the update is stored and the uid
  is unchanged.
* ``validateNodeTaints``: two taints of one key and effect, neither with a value: the second is a
  Duplicate whose value is the Go-printed ``core.Taint`` with ``Value:""``.
* ``ValidatePodSpecificAnnotationUpdates``: changing a mirror pod's ``kubernetes.io/config.mirror``
  annotation is Forbidden at ``metadata.annotations[kubernetes.io/config.mirror]`` ("may not remove or
  update mirror pod annotation").

Pods use a scheduler that does not exist and a node that does not exist, so nothing else writes them.
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
MIRROR = "kubernetes.io/config.mirror"


def _cm(name: str, **meta: Any) -> Obj:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, **meta}, "data": {"k": "v"}}


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_null_finalizer_is_invalid(cluster: Cluster) -> None:
    """``finalizers: [null]`` is 422 Invalid about ``metadata.finalizers``; the ConfigMap is not stored."""
    d = denial(lambda: cluster.create(_cm("ph18-fin", finalizers=[None])))
    assert (d.code, d.reason) == (422, "Invalid"), d
    assert d.message.startswith('ConfigMap "ph18-fin" is invalid: '), d.message
    assert "metadata.finalizers" in d.message, d.message
    assert cluster.try_get("ConfigMap", "ph18-fin") is None


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_update_without_uid_is_stored(cluster: Cluster) -> None:
    """A replace of a ConfigMap by a manifest carrying no uid (a ``PUT`` over HTTP), and a JSON patch
    removing ``metadata.uid``, are both stored, keeping the stored uid."""
    made = plain(cluster.create(_cm("ph18-uid")))
    sent = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ph18-uid"}, "data": {"k": "w"}}
    cluster.apply(sent)
    stored = cluster.get("ConfigMap", "ph18-uid")
    assert (stored["data"], stored["metadata"]["uid"]) == ({"k": "w"}, made["metadata"]["uid"])
    patched = plain(cluster.patch("ConfigMap", "ph18-uid", [
        {"op": "remove", "path": "/metadata/uid"}, {"op": "replace", "path": "/data/k", "value": "x"}],
        patch_type="json"))
    assert (patched["data"], patched["metadata"]["uid"]) == ({"k": "x"}, made["metadata"]["uid"])
    assert cluster.get("ConfigMap", "ph18-uid")["data"] == {"k": "x"}


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_duplicate_valueless_taints_print_an_empty_value(cluster: Cluster) -> None:
    """Two ``ph18/k:NoSchedule`` taints without values: 422 Duplicate printing ``Value:""``."""
    taints = [{"key": "ph18/k", "effect": "NoSchedule"}, {"key": "ph18/k", "effect": "NoSchedule"}]
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "ph18-taints"}, "spec": {"taints": taints}}
    d = denial(lambda: cluster.create(node))
    assert (d.code, d.reason, d.message) == (
        422, "Invalid",
        'Node "ph18-taints" is invalid: spec.taints[1]: Duplicate value: core.Taint{Key:"ph18/k", Value:"", '
        'Effect:"NoSchedule", TimeAdded:<nil>}: taints must be unique by key and effect pair'), d
    assert cluster.try_get("Node", "ph18-taints") is None


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_mirror_annotation_update_names_the_annotation(cluster: Cluster) -> None:
    """Changing a mirror pod's mirror annotation: 422 Forbidden at the annotation; the pod is unchanged."""
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "ph18-mirror", "annotations": {MIRROR: "x"}},
           "spec": {"schedulerName": "ph18-absent-scheduler", "nodeName": "ph18-absent-node",
                    "containers": [{"name": "c", "image": "busybox:1.36"}]}}
    cluster.create(pod)
    d = denial(lambda: cluster.patch("Pod", "ph18-mirror", {"metadata": {"annotations": {MIRROR: "y"}}}))
    assert (d.code, d.reason, d.message) == (
        422, "Invalid",
        f'Pod "ph18-mirror" is invalid: metadata.annotations[{MIRROR}]: Forbidden: may not remove or update '
        "mirror pod annotation"), d
    assert cluster.get("Pod", "ph18-mirror")["metadata"]["annotations"][MIRROR] == "x"


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_apply_body_without_a_name_is_bad_request(cluster: Cluster) -> None:
    """An apply to ``configmaps/ph18-noname`` (absent) whose body has no name: 400; nothing is created."""
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {}, "data": {"k": "v"}}
    d = denial(lambda: cluster.patch("ConfigMap", "ph18-noname", body, patch_type="apply", field_manager="ph18"))
    assert (d.code, d.reason) == (400, "BadRequest"), d
    assert cluster.try_get("ConfigMap", "ph18-noname") is None
