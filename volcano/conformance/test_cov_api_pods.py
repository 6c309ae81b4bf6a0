"""API conformance: what a pod update may not do, as ``ValidatePodUpdate`` refuses it.

* ``ValidatePodSpecificAnnotations``/``ValidatePodSpecificAnnotationUpdates``: the mirror-pod annotation
  (``kubernetes.io/config.mirror``) needs ``spec.nodeName`` and may not be added to a pod that lacks it;
  ``controller.kubernetes.io/pod-deletion-cost`` must be a canonical 32-bit integer (no ``+``).
* ``activeDeadlineSeconds`` may not go from a value back to none (the bad value shown as ``"null"``).
* ``ValidateContainerUpdates``: containers may not be added or removed (and validation stops there).
* A mirror pod that names its node is created without a service account (the ServiceAccount admission
  plugin leaves mirror pods alone).

Each refusal is 422 Invalid with exactly these causes, and the pod is unchanged. Pods use a scheduler
that does not exist, so nothing else writes them. Every case uses only the backend-neutral ``cluster``
fixture.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.test_admission import denial

__all__: list[str] = []

Obj = dict[str, Any]
MIRROR = "kubernetes.io/config.mirror"
COST = "controller.kubernetes.io/pod-deletion-cost"


def _pod(name: str, **spec: Any) -> Obj:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"schedulerName": "cov-absent-scheduler", "containers": [{"name": "c", "image": "busybox:1.36"}],
                     **spec}}


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
@pytest.mark.parametrize(("spec", "patch", "patch_type", "cause"), [
    pytest.param({}, {"metadata": {"annotations": {MIRROR: "x"}}}, "merge",
                 f'[metadata.annotations[{MIRROR}]: Invalid value: "x": must set spec.nodeName if mirror pod '
                 f"annotation is set, metadata.annotations[{MIRROR}]: Forbidden: may not add mirror pod annotation]",
                 id="mirror"),
    pytest.param({}, {"metadata": {"annotations": {COST: "+10"}}}, "merge",
                 f'metadata.annotations[{COST}]: Invalid value: "+10": must be a 32bit integer', id="deletion-cost"),
    pytest.param({"activeDeadlineSeconds": 600}, {"spec": {"activeDeadlineSeconds": None}}, "merge",
                 'spec.activeDeadlineSeconds: Invalid value: "null": must not update from a positive integer to '
                 "nil value", id="deadline-to-nil"),
    pytest.param({}, {"spec": {"containers": [{"name": "d", "image": "busybox:1.36"}]}}, "strategic",
                 "spec.containers: Forbidden: pod updates may not add or remove containers", id="add-container"),
])
def test_pod_update_refusals(cluster: Cluster, spec: Obj, patch: Obj, patch_type: str, cause: str) -> None:
    """One refused change each: 422 naming the pod and its causes; the stored pod is unchanged."""
    made = cluster.create(_pod("upd", **spec))
    d = denial(lambda: cluster.patch("Pod", "upd", patch, patch_type=patch_type))
    assert (d.code, d.reason, d.message) == (422, "Invalid", f'Pod "upd" is invalid: {cause}'), d
    stored = cluster.get("Pod", "upd")
    assert stored["metadata"]["resourceVersion"] == made["metadata"]["resourceVersion"]
    assert [c["name"] for c in stored["spec"]["containers"]] == ["c"]
    assert stored["spec"].get("activeDeadlineSeconds") == spec.get("activeDeadlineSeconds")


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_mirror_pod_with_a_node_is_left_alone(cluster: Cluster) -> None:
    """A mirror pod naming its node is created, and the ServiceAccount admission plugin does not give it
    a service account (it leaves mirror pods' specs alone); a plain pod gets ``default``."""
    mirror = _pod("mirror", nodeName="cov-absent-node")
    mirror["metadata"]["annotations"] = {MIRROR: "x"}
    made = cluster.create(mirror)
    assert made["spec"]["nodeName"] == "cov-absent-node"
    assert not made["spec"].get("serviceAccountName") and not made["spec"].get("serviceAccount"), made["spec"]
    plain_pod = cluster.create(_pod("not-mirror"))
    assert plain_pod["spec"]["serviceAccountName"] == "default"
