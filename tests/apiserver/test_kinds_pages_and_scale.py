"""Chunked lists and the scale subresource, whole. Lists: every page of a ``limit`` walk (its items in
(namespace, name) order and its COMPLETE list metadata: the first page's resourceVersion, the
``continue`` token, ``remainingItemCount`` only when no selector filters), the token's encoding, and
the 400 of every kind of malformed token. Scale: the ``autoscaling/v1 Scale`` of a Deployment and a
ReplicationController, a patch and a PUT of it (replicas at 0 and one below), a stale
resourceVersion, a missing workload and a kind without the subresource."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from volcano.api.frozen import thaw
from volcano.apiserver import ApiError, ApiServer
from volcano.apiserver.paging import decode_continue, encode_continue
from volcano.apiserver.scale import get_scale, patch_scale, update_scale

from .conftest import pod
from .test_kinds_errors import _status


def _token(rv: int, namespace: str, name: str) -> str:
    raw = '{"v":"meta.k8s.io/v1","rv":' + str(rv) + ',"start":["' + namespace + '","' + name + '"]}'
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def _fill(server: ApiServer) -> int:
    server.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "b"}})
    for name, ns, app in (("p3", "default", "x"), ("p1", "default", "y"), ("p2", "b", "x"), ("p0", "b", "x"),
                          ("p4", "default", "x")):
        server.create({**pod(name, ns), "metadata": {"name": name, "namespace": ns, "labels": {"app": app}}})
    return int(server.list("Pod")["metadata"]["resourceVersion"])


def _page(listing: Any) -> tuple[list[tuple[str, str]], dict[str, Any]]:
    return ([(o["metadata"]["namespace"], o["metadata"]["name"]) for o in listing["items"]], thaw(listing["metadata"]))


def test_a_limit_walk_page_by_page(server: ApiServer) -> None:
    rv = _fill(server)
    first = server.list("Pod", limit=2)
    assert (first["apiVersion"], first["kind"]) == ("v1", "PodList")
    assert _page(first) == ([("b", "p0"), ("b", "p2")], {
        "resourceVersion": str(rv), "continue": _token(rv, "b", "p2"), "remainingItemCount": 3})
    server.create(pod("p9"))  # a later page sees the store as it is, after the last key returned
    second = server.list("Pod", limit=2, continue_=first["metadata"]["continue"])
    assert _page(second) == ([("default", "p1"), ("default", "p3")], {
        "resourceVersion": str(rv), "continue": _token(rv, "default", "p3"), "remainingItemCount": 2})
    third = server.list("Pod", limit=2, continue_=second["metadata"]["continue"])
    assert _page(third) == ([("default", "p4"), ("default", "p9")], {"resourceVersion": str(rv)})
    assert _page(server.list("Pod", limit=6)) == (
        [("b", "p0"), ("b", "p2"), ("default", "p1"), ("default", "p3"), ("default", "p4"), ("default", "p9")],
        {"resourceVersion": str(rv + 1)})
    assert _page(server.list("Pod", limit=5))[1] == {
        "resourceVersion": str(rv + 1), "continue": _token(rv + 1, "default", "p4"), "remainingItemCount": 1}


def test_a_filtered_walk_reports_no_remaining_count(server: ApiServer) -> None:
    rv = _fill(server)
    first = server.list("Pod", label_selector="app=x", limit=1)
    assert _page(first) == ([("b", "p0")], {"resourceVersion": str(rv), "continue": _token(rv, "b", "p0")})
    in_default = server.list("Pod", "default", field_selector="metadata.name!=p3", limit=1)
    assert _page(in_default) == ([("default", "p1")], {"resourceVersion": str(rv),
                                                        "continue": _token(rv, "default", "p1")})
    rest = server.list("Pod", "default", field_selector="metadata.name!=p3", limit=1,
                       continue_=in_default["metadata"]["continue"])
    assert _page(rest) == ([("default", "p4")], {"resourceVersion": str(rv)})


def test_the_token_round_trips() -> None:
    assert encode_continue(12, ("ns", "a")) == _token(12, "ns", "a")
    assert decode_continue(_token(12, "ns", "a")) == (12, ("ns", "a"))
    assert decode_continue(_token(0, "", "n")) == (0, ("", "n"))


def _b64(value: Any) -> str:
    return base64.urlsafe_b64encode(json.dumps(value).encode()).decode()


@pytest.mark.parametrize("token", [
    "!!!", "e30", _b64({"v": "meta.k8s.io/v2", "rv": 1, "start": ["a", "b"]}),
    _b64({"v": "meta.k8s.io/v1", "rv": -1, "start": ["a", "b"]}), _b64({"v": "meta.k8s.io/v1", "rv": "1",
                                                                          "start": ["a", "b"]}),
    _b64({"v": "meta.k8s.io/v1", "rv": 1, "start": ["a"]}), _b64({"v": "meta.k8s.io/v1", "rv": 1, "start": ["a", 2]}),
    _b64({"v": "meta.k8s.io/v1", "rv": 1, "start": "a"}), _b64([1]), base64.urlsafe_b64encode(b"\xff").decode(),
])
def test_a_malformed_token_is_400(server: ApiServer, token: str) -> None:
    with pytest.raises(ApiError) as err:
        server.list("Pod", limit=1, continue_=token)
    assert err.value.status() == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                                  "message": f"continue key is not valid: {token!r}", "reason": "BadRequest",
                                  "code": 400}


def _deployment(server: ApiServer) -> None:
    server.create({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {
        "replicas": 2, "selector": {"matchLabels": {"app": "x"},
                                    "matchExpressions": [{"key": "t", "operator": "In", "values": ["a", "b"]}]},
        "template": {"metadata": {"labels": {"app": "x", "t": "a"}},
                     "spec": {"containers": [{"name": "c", "image": "b"}]}}}})


def _scale(server: ApiServer, kind: str, name: str, replicas: int, selector: str) -> dict[str, Any]:
    meta = server.get(kind, name)["metadata"]
    return {"kind": "Scale", "apiVersion": "autoscaling/v1",
            "metadata": {k: meta[k] for k in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp")},
            "spec": {"replicas": replicas}, "status": {"replicas": 0, "selector": selector}}


def test_scale_of_workloads(server: ApiServer) -> None:
    _deployment(server)
    assert get_scale(server, "Deployment", "d", "default") == _scale(server, "Deployment", "d", 2, "app=x,t in (a,b)")
    assert patch_scale(server, "Deployment", "d", "default", {"spec": {"replicas": 5}}) == _scale(
        server, "Deployment", "d", 5, "app=x,t in (a,b)")
    assert server.get("Deployment", "d")["spec"]["replicas"] == 5
    assert update_scale(server, "Deployment", "d", "default", {"spec": {"replicas": 0}}) == _scale(
        server, "Deployment", "d", 0, "app=x,t in (a,b)")
    server.create({"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "rc"}, "spec": {
        "replicas": 1, "selector": {"b": "2", "a": "1"},
        "template": {"metadata": {"labels": {"a": "1", "b": "2"}}, "spec": {"containers": [{"name": "c",
                                                                                             "image": "b"}]}}}})
    assert get_scale(server, "ReplicationController", "rc", "default") == _scale(
        server, "ReplicationController", "rc", 1, "a=1,b=2")


def test_scale_refusals(server: ApiServer) -> None:
    _deployment(server)
    before = server.snapshot()
    cases: list[tuple[Any, dict[str, Any]]] = [
        (lambda: update_scale(server, "Deployment", "d", "default", {"spec": {"replicas": -1}}),
         _status(422, "Invalid", 'Scale.autoscaling "d" is invalid: spec.replicas: Invalid value: -1: must be greater '
                 "than or equal to 0", {"name": "d", "group": "autoscaling", "kind": "Scale", "causes": [
                     {"reason": "FieldValueInvalid", "message": "Invalid value: -1: must be greater than or equal to 0",
                      "field": "spec.replicas"}]})),
        (lambda: update_scale(server, "Deployment", "d", "default",
                              {"metadata": {"resourceVersion": "1"}, "spec": {"replicas": 1}}),
         _status(409, "Conflict", 'Operation cannot be fulfilled on deployments.apps "d": the object has been '
                 "modified; please apply your changes to the latest version and try again",
                 {"name": "d", "group": "apps", "kind": "deployments"})),
        (lambda: get_scale(server, "Pod", "d", "default"),
         _status(404, "NotFound", "the server could not find the requested resource")),
        (lambda: get_scale(server, "Deployment", "zz", "default"),
         _status(404, "NotFound", 'deployments.apps "zz" not found', {"name": "zz", "group": "apps",
                                                                       "kind": "deployments"})),
        (lambda: patch_scale(server, "Deployment", "d", "default", [1]),
         _status(422, "Invalid", 'Scale.autoscaling "d" is invalid: spec: Invalid value: the patched Scale is not an '
                 "object", {"name": "d", "group": "autoscaling", "kind": "Scale", "causes": [
                     {"reason": "FieldValueInvalid", "message": "Invalid value: the patched Scale is not an object",
                      "field": "spec"}]})),
    ]
    for request, expected in cases:
        with pytest.raises(ApiError) as err:
            request()
        assert err.value.status() == expected
    assert server.snapshot() == before
