"""API conformance: PersistentVolumeClaims as kube-apiserver validates them, and a Volcano Job whose
``volumeClaim`` the API server refuses.

* A claim needs at least one access mode, each one Kubernetes knows (``ReadWriteOncePod`` alone), a
  storage request above zero (the error names ``spec.resources[storage]``) and a volume mode of
  ``Block`` or ``Filesystem``; a data source without an ``apiGroup`` must be a PersistentVolumeClaim.
  422 lists every error; nothing is stored.
* On create ``volumeMode`` defaults to ``Filesystem``, a PersistentVolumeClaim ``dataSource`` is
  copied to ``dataSourceRef``, and a ``dataSource`` of another kind given alone is dropped.
* The spec of an unbound claim is immutable (its labels are not); ``volumeMode`` is named again.
* A Job ``volumeClaim`` the API server refuses (controllers reference §1.2.4, §2.3 c, §2.10): a
  ``PVCError`` event carrying the server's message, no claim, no PodGroup and no pod.

Every case uses only the backend-neutral ``cluster`` fixture; on a real cluster the default
StorageClass may fill ``storageClassName``, which no case reads.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import Task, job, plain
from volcano.conformance.test_admission import denial

__all__: list[str] = []

Obj = dict[str, Any]
GOOD: Obj = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}
MODES = '"ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"'
DEFAULT_GROUP = "must be 'PersistentVolumeClaim' when referencing the default apiGroup"
IMMUTABLE = ("spec: Forbidden: spec is immutable after creation except resources.requests and "
             "volumeAttributesClassName for bound claims")


def _claim(name: str, spec: Obj) -> Obj:
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name}, "spec": spec}


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
@pytest.mark.parametrize(("spec", "causes"), [
    pytest.param({}, "[spec.accessModes: Required value: at least 1 access mode is required, "
                     "spec.resources[storage]: Required value]", id="empty"),
    pytest.param({**GOOD, "accessModes": ["ReadWriteOnce", "Sometimes"]},
                 f'spec.accessModes: Unsupported value: "Sometimes": supported values: {MODES}', id="unknown-mode"),
    pytest.param({**GOOD, "accessModes": ["ReadWriteOncePod", "ReadOnlyMany"]},
                 "spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes", id="rwop"),
    pytest.param({**GOOD, "resources": {"requests": {"storage": "0"}}},
                 'spec.resources[storage]: Invalid value: "0": must be greater than zero', id="zero"),
    pytest.param({**GOOD, "resources": {"limits": {"storage": "1Gi"}}},
                 "spec.resources[storage]: Required value", id="limit-only"),
    pytest.param({**GOOD, "volumeMode": "Raw"},
                 'spec.volumeMode: Unsupported value: "Raw": supported values: "Block", "Filesystem"', id="mode"),
    pytest.param({**GOOD, "dataSourceRef": {"kind": "Thing", "name": "x"}},
                 f'[spec.dataSource: Invalid value: "Thing": {DEFAULT_GROUP}, '
                 f'spec.dataSourceRef: Invalid value: "Thing": {DEFAULT_GROUP}]', id="ref-default-group"),
])
def test_claim_spec_is_validated(cluster: Cluster, spec: Obj, causes: str) -> None:
    """Each broken claim is 422 Invalid listing its errors in the server's order; nothing is stored."""
    d = denial(lambda: cluster.create(_claim("claim-bad", spec)))
    assert (d.code, d.reason) == (422, "Invalid"), d
    assert d.message == f'PersistentVolumeClaim "claim-bad" is invalid: {causes}', d.message
    assert cluster.try_get("PersistentVolumeClaim", "claim-bad") is None


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_claim_defaults_and_data_sources(cluster: Cluster) -> None:
    """``volumeMode`` defaults to Filesystem and the claim starts Pending; a PersistentVolumeClaim
    data source is mirrored into ``dataSourceRef``; a foreign kind given as ``dataSource`` alone is
    dropped; ``ReadWriteOncePod`` alone and ``Block`` are accepted."""
    made = plain(cluster.create(_claim("claim-src", {**GOOD, "accessModes": ["ReadWriteOncePod"],
                                                      "volumeMode": "Block"})))
    assert (made["spec"]["volumeMode"], made["spec"]["accessModes"]) == ("Block", ["ReadWriteOncePod"])
    plain_claim = plain(cluster.create(_claim("claim-plain", dict(GOOD))))
    assert plain_claim["spec"]["volumeMode"] == "Filesystem"
    assert plain_claim.get("status", {}).get("phase") == "Pending", plain_claim.get("status")
    source = {"kind": "PersistentVolumeClaim", "name": "claim-src"}
    cloned = plain(cluster.create(_claim("claim-clone", {**GOOD, "dataSource": source})))
    assert (cloned["spec"]["dataSource"], cloned["spec"]["dataSourceRef"]) == (source, source)
    foreign = {"kind": "Thing", "apiGroup": "example.com", "name": "t"}
    dropped = plain(cluster.create(_claim("claim-foreign", {**GOOD, "dataSource": foreign})))
    assert "dataSource" not in dropped["spec"] and "dataSourceRef" not in dropped["spec"], dropped["spec"]


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_unbound_claim_spec_is_immutable(cluster: Cluster) -> None:
    """An unbound claim's access modes and storage request may not change (``spec: Forbidden``); a
    new ``volumeMode`` is named on its own path too; labels change."""
    cluster.create(_claim("claim-fixed", dict(GOOD)))
    for change in ({"accessModes": ["ReadOnlyMany"]}, {"resources": {"requests": {"storage": "2Gi"}}}):
        d = denial(lambda change=change: cluster.patch("PersistentVolumeClaim", "claim-fixed", {"spec": change}))
        assert (d.code, d.reason) == (422, "Invalid"), d
        assert d.message.startswith(f'PersistentVolumeClaim "claim-fixed" is invalid: {IMMUTABLE}\n'), d.message
    d = denial(lambda: cluster.patch("PersistentVolumeClaim", "claim-fixed", {"spec": {"volumeMode": "Block"}}))
    assert d.message.startswith(f'PersistentVolumeClaim "claim-fixed" is invalid: [{IMMUTABLE}\n'), d.message
    assert d.message.endswith(', volumeMode: Invalid value: "Block": field is immutable]'), d.message
    labelled = plain(cluster.patch("PersistentVolumeClaim", "claim-fixed", {"metadata": {"labels": {"a": "b"}}}))
    assert labelled["metadata"]["labels"] == {"a": "b"}
    assert labelled["spec"]["accessModes"] == ["ReadWriteOnce"]


@pytest.mark.job_lifecycle
def test_a_refused_volume_claim_is_a_pvc_error(cluster: Cluster) -> None:
    """A Job whose ``volumeClaim`` has no access mode: the API server refuses the claim, the
    controller records ``PVCError`` with the server's message and goes no further (no claim, no
    PodGroup, no pod)."""
    name = "vol-refused"
    spec = job(name, [Task(name="task", rep=1, req={})])
    spec["spec"]["volumes"] = [{"mountPath": "/data", "volumeClaim": {"resources": {"requests": {"storage": "1Gi"}}}}]
    cluster.apply(spec)

    def pvc_errors() -> list[str]:
        events = cluster.events(kind="Job", name=name)
        return [str(e.get("message", "")) for e in events if e.get("reason") == "PVCError"]

    cluster.wait_until(lambda: bool(pvc_errors()), 60, "a PVCError event")
    message = pvc_errors()[0]
    assert message.startswith(f'Failed to create PVC, err: PersistentVolumeClaim "{name}-pvc-'), message
    assert message.endswith('" is invalid: spec.accessModes: Required value: at least 1 access mode is required'), \
        message
    cluster.hold(lambda: not cluster.job_pods(name), 5, "no pod while the claim is refused")
    assert cluster.list("PersistentVolumeClaim") == []
    assert cluster.list("PodGroup") == []
