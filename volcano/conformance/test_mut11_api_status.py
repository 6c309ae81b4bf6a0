"""API conformance: the whole ``metav1.Status`` body of a refused request, as the server serves it.

kube-apiserver answers every failed request with a Status object: ``kind: Status``, ``apiVersion:
v1``, empty ``metadata``, ``status: Failure``, the ``message``, the ``reason``, the HTTP ``code`` and,
for errors about an object, ``details`` (name, group, the resource or kind, field causes); an error
about no object (a malformed ``continue`` token, too many JSON patch operations) has no details. The
body is compared whole for one error of each family: NotFound, AlreadyExists, Conflict, Invalid
(an object, and a ``DeleteOptions`` with no name), BadRequest and RequestEntityTooLarge.

Over HTTP the body is the client error's JSON; in memory it is the Status the API server would
serve for the raised error. Objects are ConfigMaps and Deployments of no replicas; every case uses
only the backend-neutral ``cluster`` fixture.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.test_admission import denial, plain

__all__: list[str] = []

Obj = dict[str, Any]
MODIFIED = "the object has been modified; please apply your changes to the latest version and try again"


def _served(call: Callable[[], object]) -> Obj:
    """The Status body of the error ``call`` must raise."""
    try:
        call()
    except Exception as err:
        body = getattr(err, "body", None)
        if body:
            return dict(json.loads(body))
        status = getattr(err, "status", None)
        if callable(status):
            return dict(status())
        raise
    raise AssertionError("the request succeeded, but it should have failed")


def _failure(code: int, reason: str, message: str, details: Obj | None = None) -> Obj:
    out: Obj = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message,
                "reason": reason, "code": code}
    if details is not None:
        out["details"] = details
    return out


def _cm(name: str, **fields: Any) -> Obj:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": "v"}, **fields}


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_object_errors_are_served_whole(cluster: Cluster) -> None:
    """404 of a missing ConfigMap and Deployment, 409 AlreadyExists and Conflict, 422 Invalid."""
    assert _served(lambda: cluster.get("ConfigMap", "mut11-absent")) == _failure(
        404, "NotFound", 'configmaps "mut11-absent" not found', {"name": "mut11-absent", "kind": "configmaps"})
    assert _served(lambda: cluster.get("Deployment", "mut11-absent")) == _failure(
        404, "NotFound", 'deployments.apps "mut11-absent" not found',
        {"name": "mut11-absent", "group": "apps", "kind": "deployments"})
    made = plain(cluster.create(_cm("mut11-status")))
    assert _served(lambda: cluster.create(_cm("mut11-status"))) == _failure(
        409, "AlreadyExists", 'configmaps "mut11-status" already exists',
        {"name": "mut11-status", "kind": "configmaps"})
    cluster.patch("ConfigMap", "mut11-status", {"data": {"k": "w"}})
    stale = {"metadata": {"resourceVersion": made["metadata"]["resourceVersion"]}, "data": {"k": "x"}}
    assert _served(lambda: cluster.patch("ConfigMap", "mut11-status", stale)) == _failure(
        409, "Conflict", f'Operation cannot be fulfilled on configmaps "mut11-status": {MODIFIED}',
        {"name": "mut11-status", "kind": "configmaps"})
    bad = _cm("mut11-bad-key", data={"a b": "v"})
    message = ('ConfigMap "mut11-bad-key" is invalid: data[a b]: Invalid value: "a b": a valid config key must '
               "consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or "
               "'key-name', regex used for validation is '[-._a-zA-Z0-9]+')")
    assert _served(lambda: cluster.create(bad)) == _failure(422, "Invalid", message, {
        "name": "mut11-bad-key", "kind": "ConfigMap",
        "causes": [{"reason": "FieldValueInvalid", "field": "data[a b]",
                    "message": message.split("data[a b]: ", 1)[1]}]})


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_request_errors_are_served_whole(cluster: Cluster) -> None:
    """Errors about the request, not an object: a DeleteOptions policy Kubernetes does not know (422 on
    ``DeleteOptions.meta.k8s.io ""``: details without a name), a malformed ``continue`` (400, no
    details) and a JSON patch of 10,001 operations (413, no details)."""
    cluster.create(_cm("mut11-request"))
    unsupported = ('propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", '
                   '"Orphan", "nil"')
    assert _served(lambda: cluster.delete("ConfigMap", "mut11-request", propagation_policy="Sideways")) == _failure(
        422, "Invalid", f'DeleteOptions.meta.k8s.io "" is invalid: {unsupported}',
        {"group": "meta.k8s.io", "kind": "DeleteOptions", "causes": [
            {"reason": "FieldValueNotSupported", "field": "propagationPolicy",
             "message": unsupported.split(": ", 1)[1]}]})
    token = "bm90LWEtdG9rZW4"  # base64 of "not-a-token"
    served = _served(lambda: cluster.list_page("ConfigMap", limit=1, continue_=token))
    assert {k: v for k, v in served.items() if k != "message"} == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "reason": "BadRequest", "code": 400}
    assert "continue key is not valid" in served["message"], served
    ops = [{"op": "test", "path": "/data/k", "value": "v"}] * 10001
    assert _served(lambda: cluster.patch("ConfigMap", "mut11-request", ops, patch_type="json")) == _failure(
        413, "RequestEntityTooLarge",
        "Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001")
    assert cluster.get("ConfigMap", "mut11-request")["data"] == {"k": "v"}


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_status_of_a_kind_served_without_it_is_not_found(cluster: Cluster) -> None:
    """A ``/status`` patch of a kind served without that subresource: a built-in ConfigMap's path is
    unknown (404 ``the server could not find the requested resource``); a PodGroup's CRD handler answers
    404 naming the object, which exists, by a merge patch and by server-side apply alike. Nothing changes.
    A Kubernetes client reaches only the subresources discovery lists, so the request is made in memory."""
    if cluster.backend != "memory":
        pytest.skip("the client refuses a subresource discovery does not list before any request")
    cluster.create(_cm("mut11-no-status"))
    d = denial(lambda: cluster.patch("ConfigMap", "mut11-no-status", {"status": {"x": "y"}}, subresource="status"))
    assert (d.code, d.reason, d.message) == (404, "NotFound", "the server could not find the requested resource"), d
    assert plain(cluster.get("ConfigMap", "mut11-no-status"))["data"] == {"k": "v"}
    group = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup", "metadata": {"name": "mut11-pg"},
             "spec": {"minMember": 1, "queue": "default"}}
    cluster.create(group)
    missing = (404, "NotFound", 'podgroups.scheduling.volcano.sh "mut11-pg" not found')
    d = denial(lambda: cluster.patch("PodGroup", "mut11-pg", {"status": {"phase": "Running"}}, subresource="status"))
    assert (d.code, d.reason, d.message) == missing, d
    applied = {**group, "status": {"phase": "Running"}}
    d = denial(lambda: cluster.patch("PodGroup", "mut11-pg", applied, subresource="status", patch_type="apply",
                                     field_manager="mut11", force=True))
    assert (d.code, d.reason, d.message) == missing, d
    assert (plain(cluster.get("PodGroup", "mut11-pg")).get("status") or {}).get("phase") != "Running"
