"""API conformance: the ``details`` of an error Status, which clients read to name what failed.

kube-apiserver fills ``details`` from the qualified resource or kind of the error: ``name``, the
API ``group`` when there is one (left out for the core group), and ``kind`` (the resource for
NotFound, AlreadyExists and Conflict; the kind for Invalid). A 422 Invalid lists one ``cause`` per
field error, with its ``reason`` (``FieldValueInvalid``, ``FieldValueRequired``, ...), ``field``
path and ``message`` (the error without the field path). The options of a request
(``?fieldManager=``) are validated as ``PatchOptions`` of group ``meta.k8s.io``.

Every case uses only the backend-neutral ``cluster`` fixture; the Status is read from the error the
backend raises (the memory backend's ``ApiError`` or the Kubernetes client's JSON body).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster

__all__: list[str] = []

Obj = dict[str, Any]


def _status(call: Callable[[], object]) -> tuple[int, str, Obj]:
    """Code, reason and ``details`` of the API error ``call`` must raise."""
    try:
        call()
    except Exception as err:
        body = getattr(err, "body", None)
        if body:
            status = json.loads(body)
            return int(status["code"]), str(status["reason"]), dict(status.get("details") or {})
        details = getattr(err, "details", None)
        if isinstance(details, dict) and isinstance(getattr(err, "code", None), int):
            return int(err.code), str(getattr(err, "reason", "")), dict(details)  # type: ignore[attr-defined]
        raise
    raise AssertionError("the request succeeded, but it should have failed")


def _cm(name: str, **fields: Any) -> Obj:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": "v"}, **fields}


@pytest.mark.admission
@pytest.mark.parametrize(("kind", "details"), [
    pytest.param("ConfigMap", {"name": "absent-object", "kind": "configmaps"}, id="core"),
    pytest.param("Deployment", {"name": "absent-object", "group": "apps", "kind": "deployments"}, id="apps"),
    pytest.param("Job", {"name": "absent-object", "group": "batch.volcano.sh", "kind": "jobs"}, id="volcano-job"),
])
def test_not_found_details(cluster: Cluster, kind: str, details: Obj) -> None:
    """A missing object: 404 NotFound, details naming the resource and its group."""
    assert _status(lambda: cluster.get(kind, "absent-object")) == (404, "NotFound", details)


@pytest.mark.admission
def test_already_exists_and_conflict_details(cluster: Cluster) -> None:
    """A second create and a stale resourceVersion: 409, details naming the object and resource."""
    made = cluster.create(_cm("details-cm"))
    assert _status(lambda: cluster.create(_cm("details-cm"))) == (
        409, "AlreadyExists", {"name": "details-cm", "kind": "configmaps"})
    cluster.patch("ConfigMap", "details-cm", {"data": {"k": "w"}})
    stale = {"metadata": {"resourceVersion": made["metadata"]["resourceVersion"]}, "data": {"k": "x"}}
    assert _status(lambda: cluster.patch("ConfigMap", "details-cm", stale)) == (
        409, "Conflict", {"name": "details-cm", "kind": "configmaps"})


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_invalid_details_list_each_cause(cluster: Cluster) -> None:
    """A Pod with two field errors: 422, details with the kind (no group) and a cause per error,
    each with its reason, field path and message (compared in field order)."""
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "details-pod"},
           "spec": {"schedulerName": "strength-absent-scheduler", "serviceAccountName": "Bad_Account",
                    "tolerations": [{"operator": "Equal", "value": "x"}],
                    "containers": [{"name": "c", "image": "busybox:1.36"}]}}
    code, reason, details = _status(lambda: cluster.create(pod))
    assert (code, reason) == (422, "Invalid")
    assert {k: v for k, v in details.items() if k != "causes"} == {"name": "details-pod", "kind": "Pod"}
    causes = sorted(details["causes"], key=lambda c: str(c["field"]))
    assert [(c["reason"], c["field"]) for c in causes] == [
        ("FieldValueInvalid", "spec.serviceAccountName"), ("FieldValueInvalid", "spec.tolerations[0].operator")]
    assert causes[0]["message"].startswith('Invalid value: "Bad_Account": a lowercase RFC 1123 subdomain')
    assert causes[1]["message"] == ('Invalid value: "Equal": operator must be Exists when `key` is empty, which '
                                    'means "match all values and all keys"')


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_invalid_details_of_a_grouped_kind(cluster: Cluster) -> None:
    """A Deployment status write refused: details with group ``apps`` and kind ``Deployment``."""
    labels = {"app": "details-deploy"}
    cluster.create({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "details-deploy"},
                    "spec": {"replicas": 0, "selector": {"matchLabels": labels},
                             "template": {"metadata": {"labels": labels},
                                          "spec": {"schedulerName": "strength-absent-scheduler",
                                                   "containers": [{"name": "c", "image": "busybox:1.36"}]}}}})
    code, reason, details = _status(lambda: cluster.patch("Deployment", "details-deploy",
                                                          {"status": {"collisionCount": -1}}, subresource="status"))
    assert (code, reason) == (422, "Invalid")
    assert details == {"name": "details-deploy", "group": "apps", "kind": "Deployment", "causes": [
        {"reason": "FieldValueInvalid", "field": "status.collisionCount",
         "message": "Invalid value: -1: must be greater than or equal to 0"}]}


@pytest.mark.admission
def test_request_options_are_validated_as_patch_options(cluster: Cluster) -> None:
    """``?fieldManager=`` of 129 bytes on a patch: 422 naming ``PatchOptions`` of ``meta.k8s.io``,
    the field ``fieldManager``; nothing is written."""
    cluster.create(_cm("details-options"))
    code, reason, details = _status(lambda: cluster.patch("ConfigMap", "details-options", {"data": {"k": "w"}},
                                                          field_manager="m" * 129))
    assert (code, reason) == (422, "Invalid")
    assert details == {"group": "meta.k8s.io", "kind": "PatchOptions", "causes": [
        {"reason": "FieldValueTooLong", "field": "fieldManager",
         "message": "Too long: may not be more than 128 bytes"}]}
    assert cluster.get("ConfigMap", "details-options")["data"] == {"k": "v"}
