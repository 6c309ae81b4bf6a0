"""Error bodies, whole: a table of bad requests (create, read, update/PUT, patch of each type,
server-side apply, delete, list) of pods, ConfigMaps, PodGroups, Queues, Deployments and
PriorityClasses, each answered with the COMPLETE ``Status`` a real API server returns (kind,
apiVersion, metadata, status, message, reason, details with name/group/kind/causes, code, and
the field order ``details`` before ``code``). Webhook denials are left to the admission tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from volcano.admission import install_admission
from volcano.api.frozen import thaw
from volcano.apiserver import ApiError, ApiServer
from volcano.sim import RandomStreams, SimClock

POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
       "spec": {"containers": [{"name": "c", "image": "b"}]}}
CM = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"a": "1"}}
PG = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup", "metadata": {"name": "pg"},
      "spec": {"minMember": 1, "queue": "default"}}
QUEUE = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": "q"},
         "spec": {"weight": 1}}
PC = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "pc"}, "value": 1}
RFC1123 = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
           "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
           "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
STALE = "the object has been modified; please apply your changes to the latest version and try again"
REJECTED = "the server rejected our request due to an error in our request"


def _server() -> ApiServer:
    server = ApiServer(SimClock(), RandomStreams(0))
    install_admission(server)
    for name in ("root", "default"):
        server.create(QUEUE | {"metadata": {"name": name}})
        server.update_status(_stored(server, "Queue", name) | {"status": {"state": "Open"}})
    for obj in (POD, CM, PG):
        server.create(obj)
    return server


def _with(obj: dict[str, Any], **meta: Any) -> dict[str, Any]:
    return {**thaw(obj), "metadata": {**obj["metadata"], **meta}}


def _stored(server: ApiServer, kind: str, name: str, **meta: Any) -> dict[str, Any]:
    return _with(thaw(server.get(kind, name)), **meta)


def _status(code: int, reason: str, message: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    """The ``Status`` body of a failure, its keys in the order the API server writes them."""
    out: dict[str, Any] = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                           "message": message, "reason": reason}
    if details is not None:
        out["details"] = details
    out["code"] = code
    return out


def _invalid(kind: str, name: str, group: str, causes: list[tuple[str, str, str]]) -> dict[str, Any]:
    what = f"{kind}.{group}" if group else kind
    shown = [f"{field}: {message}" for _, message, field in causes]
    message = f'{what} "{name}" is invalid: ' + (shown[0] if len(shown) == 1 else "[" + ", ".join(shown) + "]")
    details: dict[str, Any] = {"name": name, "group": group, "kind": kind} if group else {"name": name, "kind": kind}
    details["causes"] = [{"reason": r, "message": m, "field": f} for r, m, f in causes]
    return _status(422, "Invalid", message, details)


def _what(resource: str, name: str, group: str = "") -> dict[str, Any]:
    return {"name": name, "group": group, "kind": resource} if group else {"name": name, "kind": resource}


def _uid(server: ApiServer, kind: str, name: str) -> str:
    return str(server.get(kind, name)["metadata"]["uid"])


def _rv(server: ApiServer, kind: str, name: str) -> str:
    return str(server.get(kind, name)["metadata"]["resourceVersion"])


Case = tuple[str, Callable[[ApiServer], Any], Callable[[ApiServer], dict[str, Any]]]

CASES: list[Case] = [
    # -- create ---------------------------------------------------------------------------------------------
    ("create an existing pod", lambda s: s.create(POD),
     lambda s: _status(409, "AlreadyExists", 'pods "p" already exists', _what("pods", "p"))),
    ("create an existing PodGroup", lambda s: s.create(PG),
     lambda s: _status(409, "AlreadyExists", 'podgroups.scheduling.volcano.sh "pg" already exists',
                       _what("podgroups", "pg", "scheduling.volcano.sh"))),
    ("create without a name", lambda s: s.create(_with(POD, name=None)),
     lambda s: _invalid("Pod", "", "", [("FieldValueRequired", "Required value: name or generateName is required",
                                         "metadata.name")])),
    ("create with a bad name", lambda s: s.create(_with(POD, name="A")),
     lambda s: _invalid("Pod", "A", "", [("FieldValueInvalid", f'Invalid value: "A": {RFC1123}', "metadata.name")])),
    ("create a Queue with a bad name", lambda s: s.create(_with(QUEUE, name="Q")),
     lambda s: _invalid("Queue", "Q", "scheduling.volcano.sh",
                        [("FieldValueInvalid", f'Invalid value: "Q": {RFC1123}', "metadata.name")])),
    ("create a Deployment with a bad name",
     lambda s: s.create({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "D"}}),
     lambda s: _invalid("Deployment", "D", "apps", [("FieldValueInvalid", f'Invalid value: "D": {RFC1123}',
                                                      "metadata.name")])),
    ("create a pod without containers", lambda s: s.create(_with(POD, name="q") | {"spec": {"containers": []}}),
     lambda s: _invalid("Pod", "q", "", [("FieldValueRequired", "Required value", "spec.containers")])),
    ("create in a missing namespace", lambda s: s.create(_with(POD, name="q", namespace="nope")),
     lambda s: _status(404, "NotFound", 'namespaces "nope" not found', _what("namespaces", "nope"))),
    ("create with a field of the wrong type", lambda s: s.create(_with(POD, name="q") | {"spec": {"containers": "x"}}),
     lambda s: _status(400, "BadRequest", 'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal '
                       "string into Go struct field PodSpec.spec.containers of type []v1.Container")),
    ("create a PodGroup with a label of the wrong type",
     lambda s: s.create(_with(PG, name="x", labels={"a": 1})),
     lambda s: _status(400, "BadRequest", 'PodGroup in version "v1beta1" cannot be handled as a PodGroup: json: '
                       "cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string")),
    ("create a PodGroup with a negative minMember",
     lambda s: s.create(_with(PG, name="x") | {"spec": {"minMember": -1}}),
     lambda s: _invalid("PodGroup", "x", "scheduling.volcano.sh", [
         ("FieldValueInvalid", "Invalid value: -1: spec.minMember in body should be greater than or equal to 0",
          "spec.minMember")])),
    ("create a Queue with a weight of 0 after defaulting to 1, then -1",
     lambda s: s.create(_with(QUEUE, name="x") | {"spec": {"weight": -1}}),
     lambda s: _invalid("Queue", "x", "scheduling.volcano.sh", [
         ("FieldValueInvalid", "Invalid value: -1: spec.weight in body should be greater than or equal to 1",
          "spec.weight")])),
    ("create a PriorityClass above the user maximum", lambda s: s.create(PC | {"value": 1000000001}),
     lambda s: _invalid("PriorityClass", "pc", "scheduling.k8s.io", [
         ("FieldValueForbidden", "Forbidden: maximum allowed value of a user defined priority is 1000000000",
          "value")])),
    ("create a system- PriorityClass", lambda s: s.create(_with(PC, name="system-x")),
     lambda s: _invalid("PriorityClass", "system-x", "scheduling.k8s.io", [
         ("FieldValueForbidden", "Forbidden: priority class names with 'system-' prefix are reserved for system use "
          "only. error: system-x is not a known system priority class", "metadata.name")])),
    # -- read -----------------------------------------------------------------------------------------------
    ("get a missing pod", lambda s: s.get("Pod", "zz"),
     lambda s: _status(404, "NotFound", 'pods "zz" not found', _what("pods", "zz"))),
    ("get a missing Queue", lambda s: s.get("Queue", "zz"),
     lambda s: _status(404, "NotFound", 'queues.scheduling.volcano.sh "zz" not found',
                       _what("queues", "zz", "scheduling.volcano.sh"))),
    ("list with an unknown pod field", lambda s: s.list("Pod", field_selector="spec.foo=x"),
     lambda s: _status(400, "BadRequest", "field label not supported: spec.foo")),
    ("list with a PodGroup spec field", lambda s: s.list("PodGroup", field_selector="spec.queue=x"),
     lambda s: _status(400, "BadRequest", "field label not supported: spec.queue")),
    ("list with a malformed label selector", lambda s: s.list("Pod", label_selector="a in (b"),
     lambda s: _status(400, "BadRequest", "label selector 'a in (b': missing ')' in the values of key 'a'")),
    # -- update (PUT) ---------------------------------------------------------------------------------------
    ("update a stale pod", lambda s: s.update(_stored(s, "Pod", "p", resourceVersion="1")),
     lambda s: _status(409, "Conflict", f'Operation cannot be fulfilled on pods "p": {STALE}', _what("pods", "p"))),
    ("update a stale PodGroup", lambda s: s.update(_stored(s, "PodGroup", "pg", resourceVersion="1")),
     lambda s: _status(409, "Conflict", f'Operation cannot be fulfilled on podgroups.scheduling.volcano.sh "pg": '
                       f"{STALE}", _what("podgroups", "pg", "scheduling.volcano.sh"))),
    ("update a missing pod", lambda s: s.update(_with(POD, name="zz")),
     lambda s: _status(404, "NotFound", 'pods "zz" not found', _what("pods", "zz"))),
    ("update without a name", lambda s: s.update(_with(POD, name=None)),
     lambda s: _invalid("Pod", "", "", [("FieldValueRequired", "Required value: name or generateName is required",
                                         "metadata.name")])),
    ("update naming another uid", lambda s: s.update(_stored(s, "ConfigMap", "cm", uid="other")),
     lambda s: _status(409, "Conflict", 'Operation cannot be fulfilled on configmaps "cm": StorageError: invalid '
                       "object, Code: 4, Key: /registry/configmaps/default/cm, ResourceVersion: 0, AdditionalErrorMsg: "
                       "Precondition failed: UID in precondition: other, UID in object meta: "
                       f"{_uid(s, 'ConfigMap', 'cm')}",
                       _what("configmaps", "cm"))),
    ("update a Queue naming another uid", lambda s: s.update(_stored(s, "Queue", "default", uid="other")),
     lambda s: _status(409, "Conflict", 'Operation cannot be fulfilled on queues.scheduling.volcano.sh "default": '
                       "StorageError: invalid object, Code: 4, Key: /registry/scheduling.volcano.sh/queues/default, "
                       "ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: other, UID "
                       f"in object meta: {_uid(s, 'Queue', 'default')}",
                       _what("queues", "default", "scheduling.volcano.sh"))),
    ("update the status of a missing pod", lambda s: s.update_status(_with(POD, name="zz")),
     lambda s: _status(404, "NotFound", 'pods "zz" not found', _what("pods", "zz"))),
    # -- patch ----------------------------------------------------------------------------------------------
    ("patch a missing pod", lambda s: s.patch("Pod", "zz", {"metadata": {"labels": {"a": "b"}}}),
     lambda s: _status(404, "NotFound", 'pods "zz" not found', _what("pods", "zz"))),
    ("patch with a stale resourceVersion",
     lambda s: s.patch("Pod", "p", {"metadata": {"resourceVersion": "1", "labels": {"a": "b"}}}),
     lambda s: _status(409, "Conflict", f'Operation cannot be fulfilled on pods "p": {STALE}', _what("pods", "p"))),
    ("patch the name", lambda s: s.patch("Pod", "p", {"metadata": {"name": "other"}}),
     lambda s: _status(400, "BadRequest", "the name of the object (other) does not match the name on the URL (p)")),
    ("json patch with an unknown op", lambda s: s.patch("Pod", "p", [{"op": "bogus", "path": "/a"}], patch_type="json"),
     lambda s: _status(422, "Invalid", REJECTED, {})),
    ("json patch removing a missing path",
     lambda s: s.patch("Pod", "p", [{"op": "remove", "path": "/metadata/labels/x"}], patch_type="json"),
     lambda s: _status(422, "Invalid", REJECTED, {})),
    ("json patch whose test fails",
     lambda s: s.patch("ConfigMap", "cm", [{"op": "test", "path": "/data/a", "value": "2"}], patch_type="json"),
     lambda s: _status(422, "Invalid", REJECTED, {})),
    ("json patch that is no list", lambda s: s.patch("Pod", "p", {"op": "add"}, patch_type="json"),
     lambda s: _status(400, "BadRequest", "json: cannot unmarshal object into Go value of type jsonpatch.Patch")),
    ("json patch with an operation that is no object", lambda s: s.patch("Pod", "p", [1], patch_type="json"),
     lambda s: _status(400, "BadRequest", "json: cannot unmarshal number into Go value of type jsonpatch.Operation")),
    ("apply without a field manager",
     lambda s: s.patch("ConfigMap", "cm", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}},
                       patch_type="apply"),
     lambda s: _status(422, "Invalid", 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is '
                       "required for apply patch", {"group": "meta.k8s.io", "kind": "PatchOptions", "causes": [
                           {"reason": "FieldValueRequired", "message": "Required value: is required for apply patch",
                            "field": "fieldManager"}]})),
    # -- delete ---------------------------------------------------------------------------------------------
    ("delete a missing pod", lambda s: s.delete("Pod", "zz"),
     lambda s: _status(404, "NotFound", 'pods "zz" not found', _what("pods", "zz"))),
    ("delete a missing Queue", lambda s: s.delete("Queue", "zz"),
     lambda s: _status(404, "NotFound", 'queues.scheduling.volcano.sh "zz" not found',
                       _what("queues", "zz", "scheduling.volcano.sh"))),
    ("delete with a uid precondition", lambda s: s.delete("Pod", "p", preconditions={"uid": "x"}),
     lambda s: _status(409, "Conflict", 'Operation cannot be fulfilled on pods "p": Precondition failed: UID in '
                       f"precondition: x, UID in object meta: {_uid(s, 'Pod', 'p')}", _what("pods", "p"))),
    ("delete with a resourceVersion precondition",
     lambda s: s.delete("Pod", "p", preconditions={"resourceVersion": "1"}),
     lambda s: _status(409, "Conflict", 'Operation cannot be fulfilled on pods "p": Precondition failed: '
                       f"ResourceVersion in precondition: 1, ResourceVersion in object meta: {_rv(s, 'Pod', 'p')}",
                       _what("pods", "p"))),
    ("delete with an unknown propagation policy", lambda s: s.delete("Pod", "p", propagation_policy="Sideways"),
     lambda s: _status(422, "Invalid", 'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported '
                       'value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"',
                       {"group": "meta.k8s.io", "kind": "DeleteOptions", "causes": [
                           {"reason": "FieldValueNotSupported", "message": 'Unsupported value: "Sideways": supported '
                            'values: "Foreground", "Background", "Orphan", "nil"', "field": "propagationPolicy"}]})),
]


@pytest.mark.parametrize(("request_", "expected"), [(c[1], c[2]) for c in CASES], ids=[c[0] for c in CASES])
def test_bad_request_answers_the_whole_status(request_: Callable[[ApiServer], Any],
                                              expected: Callable[[ApiServer], dict[str, Any]]) -> None:
    server = _server()
    before = server.snapshot()
    with pytest.raises(ApiError) as err:
        request_(server)
    body = err.value.status()
    want = expected(server)
    assert body == want
    assert list(body) == list(want)  # Go's field order: details before code
    assert server.snapshot() == before  # a refused request writes nothing
