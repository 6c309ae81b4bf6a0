"""Exact API errors of the request plumbing: every ``errors`` constructor's Status (code, reason, message,
details), the cause a printed field error becomes, a malformed selector's 400 (the parser's own words),
and the admission chain's registrations (names, kinds, operations, and a mutating hook that runs with
no validating one beside it)."""

from __future__ import annotations

from typing import Any

import pytest

from volcano.apiserver import ApiError, ApiServer
from volcano.apiserver import errors as e
from volcano.apiserver.admission import AdmissionChain
from volcano.sim import RandomStreams, SimClock


@pytest.mark.parametrize(("err", "status"), [
    (e.not_found("pods", "x"), (404, "NotFound", 'pods "x" not found', {"name": "x", "kind": "pods"})),
    (e.not_found("deployments.apps", "d"),
     (404, "NotFound", 'deployments.apps "d" not found', {"name": "d", "group": "apps", "kind": "deployments"})),
    (e.already_exists("jobs.batch.volcano.sh", "j"),
     (409, "AlreadyExists", 'jobs.batch.volcano.sh "j" already exists',
      {"name": "j", "group": "batch.volcano.sh", "kind": "jobs"})),
    (e.conflict("pods", "p", "why"),
     (409, "Conflict", 'Operation cannot be fulfilled on pods "p": why', {"name": "p", "kind": "pods"})),
    (e.forbidden("pods", "p", "no"), (403, "Forbidden", 'pods "p" is forbidden: no', {"name": "p", "kind": "pods"})),
    (e.gone("too old resource version: 1 (5)"), (410, "Expired", "too old resource version: 1 (5)", None)),
    (e.bad_request("nope"), (400, "BadRequest", "nope", None)),
    (e.too_many_requests("Cannot evict pod as it would violate the pod's disruption budget."),
     (429, "TooManyRequests", "Cannot evict pod as it would violate the pod's disruption budget.", None)),
    (e.invalid("Pod", "p", ["spec.a: Required value", "spec.b: Invalid value: 1: bad", "spec.a: Required value"]),
     (422, "Invalid", 'Pod "p" is invalid: [spec.a: Required value, spec.b: Invalid value: 1: bad]',
      {"name": "p", "kind": "Pod", "causes": [
          {"reason": "FieldValueRequired", "message": "Required value", "field": "spec.a"},
          {"reason": "FieldValueInvalid", "message": "Invalid value: 1: bad", "field": "spec.b"}]})),
])
def test_error_constructors(err: ApiError, status: tuple[int, str, str, Any]) -> None:
    code, reason, message, details = status
    assert (err.code, err.reason, err.message, err.details or None) == (code, reason, message, details)
    body = err.status()
    assert (body["kind"], body["apiVersion"], body["status"], body["code"], body["reason"], body["message"]) == (
        "Status", "v1", "Failure", code, reason, message)


@pytest.mark.parametrize(("text", "cause"), [
    ("a.b: Invalid value: \"x\": bad", {"reason": "FieldValueInvalid", "message": 'Invalid value: "x": bad',
                                        "field": "a.b"}),
    ("a: Required value", {"reason": "FieldValueRequired", "message": "Required value", "field": "a"}),
    ("a: Required value: why", {"reason": "FieldValueRequired", "message": "Required value: why", "field": "a"}),
    ('a: Unsupported value: "x": supported values: "y"',
     {"reason": "FieldValueNotSupported", "message": 'Unsupported value: "x": supported values: "y"', "field": "a"}),
    ('a[1]: Duplicate value: "x"', {"reason": "FieldValueDuplicate", "message": 'Duplicate value: "x"',
                                    "field": "a[1]"}),
    ("a: Forbidden: no", {"reason": "FieldValueForbidden", "message": "Forbidden: no", "field": "a"}),
    ("a: Too long: may not be more than 63 bytes",
     {"reason": "FieldValueTooLong", "message": "Too long: may not be more than 63 bytes", "field": "a"}),
    ("a: Not found: \"x\"", {"reason": "FieldValueNotFound", "message": 'Not found: "x"', "field": "a"}),
    ("a: Too many: 3: must have at most 2 items",
     {"reason": "FieldValueTooMany", "message": "Too many: 3: must have at most 2 items", "field": "a"}),
    ("a: Forbiddenish: no", {"reason": "FieldValueInvalid", "message": "a: Forbiddenish: no"}),
    ("no field here", {"reason": "FieldValueInvalid", "message": "no field here"}),
])
def test_status_cause(text: str, cause: dict[str, str]) -> None:
    assert e.status_cause(text) == cause


@pytest.mark.parametrize(("label", "field", "message"), [
    ("a in (b", None, "label selector 'a in (b': missing ')' in the values of key 'a'"),
    ("a=b,", None, "label selector 'a=b,': expected a requirement after the trailing ','"),
    ("x,,y", None, "label selector 'x,,y': expected a label key, found ','"),
    ("a notin ()", None, "for 'in', 'notin' operators, values set can't be empty (key 'a' in label selector "
                         "'a notin ()')"),
    (None, "a", "field selector 'a': invalid selector term 'a': expected <field><op><value> with op one of '=', "
                "'==', '!='"),
    (None, "metadata.name==x==y", "field selector 'metadata.name==x==y': unescaped '=' in value 'x==y'"),
    ("app=x", "spec.nodeName=n", '"spec.nodeName" is not a known field selector: only "metadata.name", '
                                 '"metadata.namespace"'),
])
def test_malformed_selectors_are_400_with_the_parsers_words(label: str | None, field: str | None,
                                                             message: str) -> None:
    server = ApiServer(SimClock(), RandomStreams(0))
    with pytest.raises(ApiError) as err:
        server.list("ConfigMap", "default", label_selector=label, field_selector=field)
    assert (err.value.code, err.value.reason, err.value.message) == (400, "BadRequest", message)


def test_admission_chain_registrations() -> None:
    chain = AdmissionChain()
    def hook(_request: Any) -> None:
        return None
    chain.register_mutating("Pod", "UPDATE", hook, "m1")
    chain.register_validating("*", ("CREATE", "DELETE"), hook, "v1")
    chain.register_mutating("*", ["CREATE"], hook, "m2")
    assert chain.names() == ["m1", "m2", "v1"]
    assert [r.name for r in chain.hooks(True, "Pod", "UPDATE")] == ["m1"]
    assert [r.name for r in chain.hooks(True, "Pod", "CREATE")] == ["m2"]
    assert [r.name for r in chain.hooks(False, "ConfigMap", "DELETE")] == ["v1"]
    assert chain.hooks(False, "Pod", "UPDATE") == ()
    for kind, ops, message in (
            ("", ("CREATE",), "admission hook 'x': kind_key must be a non-empty string, got ''"),
            ("Pod", ("PATCH",), "admission hook 'x': operations must be among ('CREATE', 'UPDATE', 'DELETE'), "
                                "got ['PATCH']"),
            ("Pod", (), "admission hook 'x': operations must be among ('CREATE', 'UPDATE', 'DELETE'), got []")):
        with pytest.raises(ValueError) as bad:
            chain.register_validating(kind, ops, hook, "x")
        assert str(bad.value) == message
    assert chain.names() == ["m1", "m2", "v1"]


def test_a_mutating_hook_alone_runs_on_update() -> None:
    """A Pod UPDATE with a mutating hook and no validating one: the hook still mutates the stored object."""
    server = ApiServer(SimClock(), RandomStreams(0))
    server.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                   "spec": {"containers": [{"name": "c", "image": "busybox"}]}})
    seen: list[str] = []

    def label(request: Any) -> None:
        seen.append(request.operation)
        request.obj["metadata"].setdefault("labels", {})["mutated"] = "yes"

    server.admission.register_mutating("Pod", ("UPDATE",), label, "label-on-update")
    out = server.patch("Pod", "p", {"metadata": {"annotations": {"a": "b"}}}, "default")
    assert seen == ["UPDATE"]
    assert out["metadata"]["labels"] == {"mutated": "yes"}
    assert server.get("Pod", "p", "default")["metadata"]["labels"] == {"mutated": "yes"}


@pytest.mark.parametrize("obj", [
    {"apiVersion": "v1", "kind": "ConfigMap"},
    {"apiVersion": "v1", "kind": "ConfigMap", "metadata": None, "data": {"a": "b"}},
    {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {}},
])
def test_create_without_metadata_is_a_missing_name(obj: dict[str, Any]) -> None:
    """Absent or null metadata decodes to an empty ObjectMeta: 422 for the missing name, not a 400."""
    server = ApiServer(SimClock(), RandomStreams(0))
    with pytest.raises(ApiError) as err:
        server.create(obj)
    assert (err.value.code, err.value.reason, err.value.message) == (
        422, "Invalid", 'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required')
    assert err.value.details == {"name": "", "kind": "ConfigMap", "causes": [
        {"reason": "FieldValueRequired", "message": "Required value: name or generateName is required",
         "field": "metadata.name"}]}
    assert server.list("ConfigMap", "default")["items"] == []


@pytest.mark.parametrize(("metadata", "json_type"), [("x", "string"), ([], "array"), (5, "number"), (True, "bool")])
def test_create_with_metadata_of_another_type_is_a_decode_error(metadata: Any, json_type: str) -> None:
    server = ApiServer(SimClock(), RandomStreams(0))
    with pytest.raises(ApiError) as err:
        server.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata})
    assert (err.value.code, err.value.reason, err.value.message) == (
        400, "BadRequest", f'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal '
                           f"{json_type} into Go struct field ConfigMap.metadata of type v1.ObjectMeta")
