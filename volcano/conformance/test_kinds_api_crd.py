"""API conformance: each kind of structural-schema violation of a Volcano custom resource, as kube-openapi words it.

The schema check runs after the mutating webhooks and before the validating ones; every violation is a
cause of one 422 ``<Kind>.<group> "<name>" is invalid: <causes>`` (several as ``[a, b]``):

* ``required``: ``<path>.<property>: Required value`` (a volume without ``mountPath``, a claim's
  ``dataSource`` without ``name``, a ``partitionPolicy`` without either size);
* ``x-kubernetes-int-or-string`` (a quantity) of another JSON type: ``Invalid value: <v>: <path> in body
  must be of type integer,string: "<json type>"``, the value shown as Go prints a scalar and by its JSON
  type name for a map or a list;
* ``pattern``: ``should match '<pattern>'``; ``minLength``: ``should be at least <n> chars long`` (both
  for an empty ``mountPath``, length first);
* ``minimum``: ``should be greater than or equal to <n>``, the bound itself accepted (checked with a dry
  run, which stores nothing).

Jobs and Queues refused here are never stored; the dry runs create nothing.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import plain
from volcano.conformance.test_admission import base_job, denial, queue_manifest, schema_causes

__all__: list[str] = []

Obj = dict[str, Any]
JOB = "Job.batch.volcano.sh"
NAME = "kinds-crd"


def _job(task: Obj | None = None, **spec: Any) -> Obj:
    job = base_job(NAME)
    job["spec"].update(spec)
    job["spec"]["tasks"][0].update(task or {})
    return job


def _causes(cluster: Cluster, obj: Obj, kind: str = JOB) -> str:
    name = obj["metadata"]["name"]
    text = schema_causes(denial(lambda: cluster.create(obj)), kind, name)
    assert cluster.try_get(obj["kind"], name) is None
    return text


def _claim(requests: Obj) -> list[Obj]:
    return [{"mountPath": "/data", "volumeClaim": {"accessModes": ["ReadWriteOnce"],
                                                    "resources": {"requests": requests}}}]


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_required_properties(cluster: Cluster) -> None:
    """A missing required property is ``Required value`` at the property's path; two are two causes."""
    assert _causes(cluster, _job(volumes=[{"volumeClaimName": "kinds-pvc"}])) == (
        "spec.volumes[0].mountPath: Required value")
    ref = [{"mountPath": "/data", "volumeClaim": {"dataSource": {"kind": "PersistentVolumeClaim"}}}]
    assert _causes(cluster, _job(volumes=ref)) == "spec.volumes[0].volumeClaim.dataSource.name: Required value"
    text = _causes(cluster, _job({"partitionPolicy": {}}))
    assert text.startswith("[") and text.endswith("]"), text
    assert sorted(text[1:-1].split(", ")) == ["spec.tasks[0].partitionPolicy.partitionSize: Required value",
                                              "spec.tasks[0].partitionPolicy.totalPartitions: Required value"]


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_int_or_string_of_another_type(cluster: Cluster) -> None:
    """A quantity that is a bool, a fraction, a map or a list: the type error names the JSON type; a
    string off the quantity pattern is a pattern error."""
    path = "spec.volumes[0].volumeClaim.resources.requests.storage"
    typed = f"{path} in body must be of type integer,string: "
    assert _causes(cluster, _job(volumes=_claim({"storage": True}))) == (
        f'{path}: Invalid value: true: {typed}"boolean"')
    assert _causes(cluster, _job(volumes=_claim({"storage": {"a": 1}}))) == (
        f'{path}: Invalid value: "object": {typed}"object"')
    text = _causes(cluster, _job(volumes=_claim({"storage": "1Gx"})))
    assert text.startswith(f'{path}: Invalid value: "1Gx": {path} in body should match \'^'), text
    cap = "spec.capability.cpu"
    for value, shown, kind in ((True, "true", "boolean"), ([1], '"array"', "array"), (1.5, "1.5", "number")):
        queue = queue_manifest("kinds-crd-queue", {"capability": {"cpu": value}})
        assert _causes(cluster, queue, "Queue.scheduling.volcano.sh") == (
            f'{cap}: Invalid value: {shown}: {cap} in body must be of type integer,string: "{kind}"'), value


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_string_and_number_bounds(cluster: Cluster) -> None:
    """``mountPath`` empty (length and pattern), with a colon (pattern); ``minimum`` one below the bound
    refused, the bound accepted."""
    mount = "spec.volumes[0].mountPath"
    assert _causes(cluster, _job(volumes=[{"mountPath": ""}])) == (
        f'[{mount}: Invalid value: "": {mount} in body should be at least 1 chars long, '
        f"{mount}: Invalid value: \"\": {mount} in body should match '^[^:]+$']")
    assert _causes(cluster, _job(volumes=[{"mountPath": "a:b"}])) == (
        f"{mount}: Invalid value: \"a:b\": {mount} in body should match '^[^:]+$'")
    assert _causes(cluster, _job(minAvailable=-1)) == (
        "spec.minAvailable: Invalid value: -1: spec.minAvailable in body should be greater than or equal to 0")
    assert _causes(cluster, _job(minSuccess=0)) == (
        "spec.minSuccess: Invalid value: 0: spec.minSuccess in body should be greater than or equal to 1")
    assert _causes(cluster, _job({"partitionPolicy": {"totalPartitions": 0, "partitionSize": 1}})) == (
        "spec.tasks[0].partitionPolicy.totalPartitions: Invalid value: 0: "
        "spec.tasks[0].partitionPolicy.totalPartitions in body should be greater than or equal to 1")
    dry = plain(cluster.create(_job(minSuccess=1), dry_run=True))
    assert dry["spec"]["minSuccess"] == 1
    assert cluster.try_get("Job", NAME) is None
