"""What kube-apiserver does to a write before admission webhooks and storage see it.

The server runs these steps itself, at the point of the request flow a real
API server runs them::

    decode (400) -> defaults -> mutating admission -> validate (422) -> validating admission -> storage

``decode``
    The object must decode into its kind's type: right JSON types,
    ``int32``/``int64`` in range, quantities that parse, RFC 3339 times
    (``openapi``, from Kubernetes' published OpenAPI definitions; a custom
    resource's metadata likewise). Failure is 400 BadRequest, worded as the real
    server words it: ``Pod in version "v1" cannot be handled as a Pod: <why>``.
``apply_defaults``
    Kubernetes' built-in defaults (``defaults``) and a CRD's structural
    ``default:`` values (``crd``).
``validate``
    Kubernetes' validation of built-in kinds (``cluster``, ``pod``,
    ``scheduling``, ``workloads``, ``config``, ``pvc``) and a CRD's ``openAPIV3Schema`` (``crd``);
    on update also what may not change (``pod_update``: a Pod's spec is
    immutable but for images, deadlines, tolerations and scheduling gates;
    ``scheduling``: a PriorityClass's value and policy; ``pvc``: a
    PersistentVolumeClaim's spec but for a few fields). Failure is 422
    Invalid with one ``StatusCause`` (``reason``, ``field``, ``message``) per
    error.
``check_update_uid``
    A write's ``metadata.uid``, when given, must be the stored object's: an
    update (PUT) carries it as a precondition (409 Conflict), a patch that
    changes it is 422 Invalid (``metadata.uid: ... field is immutable``).
``prepare_for_create``
    The status of a new object is reset, as each kind's create strategy does
    (a Pod's to ``phase: Pending``; a Node keeps the status its kubelet
    registers with).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

from volcano.api.frozen import FrozenDict, FrozenList, thaw
from volcano.api.kinds import KindInfo, UnknownKindError, kind_for_object
from volcano.apiserver.errors import ApiError
from volcano.apiserver.validation.cluster import metadata_errors, namespace_errors, node_errors, node_status_errors
from volcano.apiserver.validation.config import (
    config_map_errors,
    config_map_update_errors,
    secret_errors,
    secret_update_errors,
)
from volcano.apiserver.validation.crd import apply_defaults as apply_crd_defaults
from volcano.apiserver.validation.crd import has_crd_schema, schema_errors
from volcano.apiserver.validation.defaults import (
    default_pod,
    default_pod_template,
    default_priority_class,
    default_secret,
)
from volcano.apiserver.validation.field import FieldError, invalid_error
from volcano.apiserver.validation.objectmeta import check_patched_uid, check_update_uid
from volcano.apiserver.validation.openapi import (
    TYPE_TESTS,
    DecodeError,
    decode_errors,
    definition_name,
    definitions,
    is_rfc3339,
    item_definition,
    part_validators,
    status_decode_errors,
    status_definition_name,
)
from volcano.apiserver.validation.pod import pod_annotation_errors, pod_spec_errors
from volcano.apiserver.validation.pod_update import pod_update_errors
from volcano.apiserver.validation.pvc import default_pvc, prepare_pvc, pvc_errors, pvc_update_errors
from volcano.apiserver.validation.scheduling import priority_class_errors, priority_class_update_errors
from volcano.apiserver.validation.workloads import batch_job_errors, controller_errors, controller_status_errors

__all__ = [
    "apply_defaults",
    "check_patched_uid",
    "check_update_uid",
    "decode",
    "decode_status",
    "depth_error",
    "has_status_rules",
    "prepare_for_create",
    "problem",
    "status_item_check",
    "status_items_decode",
    "status_parts_decode",
    "too_deep",
    "validate",
    "validate_status",
]

_Rule = Callable[[Mapping[str, Any]], list[FieldError]]

_VALID_POD_SPECS: dict[str, bool] = {}
"""``repr`` of pod specs that passed ``pod_spec_errors`` (a pure function of the spec's value);
bounded by ``_PARTS_SIZE``. Pods of one workload share their spec but for a few fields."""


def _pod_rule(obj: Mapping[str, Any]) -> list[FieldError]:
    """``pod_spec_errors`` of the pod's spec, remembered for specs that passed: a spec equal by
    ``repr`` (types and key order included) to one that passed passes too."""
    spec = obj.get("spec")
    if type(spec) is not dict and type(spec) is not FrozenDict:
        return pod_spec_errors(spec, "spec", for_pod=True)
    try:
        key = repr(spec)
    except RecursionError:
        return pod_spec_errors(spec, "spec", for_pod=True)
    if key in _VALID_POD_SPECS:
        return []
    errors = pod_spec_errors(spec, "spec", for_pod=True)
    if not errors:
        if len(_VALID_POD_SPECS) >= _PARTS_SIZE:
            _VALID_POD_SPECS.clear()
        _VALID_POD_SPECS[key] = True
    return errors


_RULES: dict[str, _Rule] = {
    "Pod": lambda obj: pod_annotation_errors(obj) + _pod_rule(obj),  # ValidatePodSpecificAnnotations first
    "Node": node_errors,
    "Namespace": namespace_errors,
    "ReplicaSet.apps": lambda obj: controller_errors("ReplicaSet", obj),
    "Deployment.apps": lambda obj: controller_errors("Deployment", obj),
    "StatefulSet.apps": lambda obj: controller_errors("StatefulSet", obj),
    "ReplicationController": lambda obj: controller_errors("ReplicationController", obj),
    "Job.batch": batch_job_errors,
    "PriorityClass.scheduling.k8s.io": priority_class_errors,
    "ConfigMap": config_map_errors,
    "Secret": secret_errors,
    "PersistentVolumeClaim": pvc_errors,
}
"""Kind key -> its validation (beyond metadata)."""

_UpdateRule = Callable[[Mapping[str, Any], Mapping[str, Any]], list[FieldError]]

_UPDATE_RULES: dict[str, _UpdateRule] = {
    "Pod": pod_update_errors,
    "PriorityClass.scheduling.k8s.io": priority_class_update_errors,
    "ConfigMap": config_map_update_errors,
    "Secret": secret_update_errors,
    "PersistentVolumeClaim": pvc_update_errors,
}
"""Kind key -> what an update of a stored object may not change (``new``, ``old``)."""

_STATUS_RULES: dict[str, _Rule] = {
    "Node": node_status_errors,
    "Deployment.apps": lambda obj: controller_status_errors("Deployment", obj),
    "ReplicaSet.apps": lambda obj: controller_status_errors("ReplicaSet", obj),
    "StatefulSet.apps": lambda obj: controller_status_errors("StatefulSet", obj),
    "ReplicationController": lambda obj: controller_status_errors("ReplicationController", obj),
}

_DEFAULTS: dict[str, Callable[[dict[str, Any]], None]] = {
    "Pod": default_pod,
    "PriorityClass.scheduling.k8s.io": default_priority_class,
    "ReplicaSet.apps": default_pod_template,
    "Deployment.apps": default_pod_template,
    "StatefulSet.apps": default_pod_template,
    "ReplicationController": default_pod_template,
    "Job.batch": default_pod_template,
    "Secret": default_secret,
    "PersistentVolumeClaim": default_pvc,
}

_KEEPS_STATUS = frozenset({"Node"})
"""Kinds whose create keeps the status sent (a kubelet registers its node with its capacity)."""


def _name(obj: Mapping[str, Any]) -> str:
    meta = obj.get("metadata")
    return str(meta.get("name") or meta.get("generateName") or "") if isinstance(meta, Mapping) else ""


MAX_DEPTH = 100
"""Deepest nesting of objects and arrays accepted (Go's decoder allows 10,000; Python's stack does not)."""


def too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether ``value`` nests objects and arrays deeper than ``limit`` (checked without recursion)."""
    stack = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        if type(node) is dict:
            stack.extend((v, depth + 1) for v in node.values() if type(v) in (dict, list))
        elif type(node) is list:
            stack.extend((v, depth + 1) for v in node if type(v) in (dict, list))
    return False


_PARTS: dict[tuple[str, str, str], bool] = {}
"""Decode verdicts of property values seen before: (definition, property, ``repr`` of the value) ->
True (within depth and decodes). Only acceptances are kept; bounded by ``_PARTS_SIZE``."""
_PARTS_SIZE = 4096
_LEAF_PARTS: dict[tuple[str, str, type, Any], bool] = {}
"""Scalar property values that decoded (``apiVersion``, ``kind``, ...): (definition, property, type,
value) -> True; bounded by ``_PARTS_SIZE``."""
_UNSHARED = frozenset({"metadata"})
"""Properties whose values are never the same twice (names, uids): checked without the memo."""
_LEAVES = frozenset({str, int, float, bool, type(None)})


_PLAIN_META_TEXTS = frozenset({"name", "generateName", "namespace", "uid", "resourceVersion"})
"""ObjectMeta properties whose type is ``string`` (or null), with no format."""
_PLAIN_META_MAPS = frozenset({"labels", "annotations"})
"""ObjectMeta properties whose type is an object of ``string`` (or null) values."""


_PLAIN_META_TIMES = frozenset({"creationTimestamp", "deletionTimestamp"})
"""ObjectMeta properties that are RFC 3339 times (``string``, format ``k8s-time``)."""
_PLAIN_META_INTS = frozenset({"generation", "deletionGracePeriodSeconds"})
"""ObjectMeta properties that are ``int64``."""
_INT64 = (-(2**63), 2**63 - 1)


def plain_metadata(meta: Any) -> bool:
    """Whether ``meta`` is a metadata mapping that provably decodes as ``ObjectMeta``: only string
    properties (``name``, ``namespace``, ...) holding ``str``, times holding RFC 3339 ``str``,
    ``generation`` an ``int`` in range, ``labels``/``annotations`` holding ``str`` to ``str`` dicts
    and ``finalizers`` a list of ``str`` (two levels deep at most). False means "not proven"."""
    if type(meta) is not dict and type(meta) is not FrozenDict:
        return False
    for key, value in meta.items():
        if key in _PLAIN_META_TEXTS:
            if type(value) is not str:
                return False
        elif key in _PLAIN_META_TIMES:
            if type(value) is not str or not is_rfc3339(value):
                return False
        elif key in _PLAIN_META_INTS:
            if type(value) is not int or not _INT64[0] <= value <= _INT64[1]:
                return False
        elif key == "finalizers":
            if type(value) is not list and type(value) is not FrozenList:
                return False
            for item in value:
                if type(item) is not str:
                    return False
        elif key in _PLAIN_META_MAPS:
            if type(value) is not dict and type(value) is not FrozenDict:
                return False
            for k, v in value.items():
                if type(k) is not str or type(v) is not str:
                    return False
        else:
            return False
    return True


def _decodes_by_parts(info: KindInfo, obj: Any) -> bool:
    """True when ``obj`` provably decodes and is within ``MAX_DEPTH``: checked property by property
    (``part_validators``), each value within one level less of depth, the verdict for a value
    equal by ``repr`` (type and order included: ``1``, ``1.0``, ``True`` and ``"1"`` differ) to
    one seen before taken from ``_PARTS``. False means "not proven": the caller decodes in full,
    which alone reports errors and normalises values."""
    if type(obj) is not dict:
        return False
    def_name = definition_name(info)
    checks = part_validators(def_name)
    if checks is None:
        return False
    return _parts_decode(def_name, checks, obj)


def _parts_decode(def_name: str, checks: Mapping[str, Callable[[Any], bool]], parts: Mapping[str, Any]) -> bool:
    """``_decodes_by_parts`` for the properties ``parts`` of a ``def_name`` value (plain values,
    each checked within ``MAX_DEPTH - 1``), with ``checks`` its ``part_validators``."""
    for prop, value in parts.items():
        check = checks.get(prop)
        if type(value) in _LEAVES:
            if check in TYPE_TESTS:  # a type test: cheaper than the memo (whose entries it would churn)
                if not check(value):
                    return False
            elif check is not None:
                leaf = (def_name, prop, type(value), value)  # the type too: 1, 1.0 and True are equal
                if leaf not in _LEAF_PARTS:
                    if not check(value):
                        return False
                    if len(_LEAF_PARTS) >= _PARTS_SIZE:
                        _LEAF_PARTS.clear()
                    _LEAF_PARTS[leaf] = True
            continue
        if prop in _UNSHARED:
            if plain_metadata(value):  # the schema's verdict, without running it
                continue
            if too_deep(value, MAX_DEPTH - 1) or (check is not None and not check(value)):
                return False
            continue
        try:
            key = (def_name, prop, repr(value))
        except RecursionError:
            return False
        if key in _PARTS:
            continue
        if too_deep(value, MAX_DEPTH - 1) or (check is not None and not check(value)):
            return False
        if len(_PARTS) >= _PARTS_SIZE:
            _PARTS.clear()
        _PARTS[key] = True
    return True


def status_parts_decode(info: KindInfo, parts: Mapping[str, Any]) -> bool:
    """Whether a status write whose ``status`` differs from the stored one only in the properties
    ``parts`` (plain values; the others are the stored, decoded values themselves) provably passes
    ``decode_status``: each of ``parts`` decodes as that property of the kind's status type and is
    within depth (``_decodes_by_parts``' rule: a status type that is only ``type`` and ``properties``
    checks nothing across properties). False means "not proven": the caller runs ``decode_status``,
    which alone reports errors and normalises values."""
    def_name = status_definition_name(info)
    if def_name is None:
        return False
    checks = part_validators(def_name)
    return checks is not None and _parts_decode(def_name, checks, parts)


def status_items_decode(info: KindInfo, prop: str, items: Sequence[Any]) -> bool:
    """Whether every value of ``items`` (plain values) provably decodes as an item of the array
    property ``prop`` of the kind's status type, within depth where the status is written
    (``status.<prop>[i]``). The property's schema must be only an array ``type`` and an ``items``
    reference (``item_definition``), so that the array decodes exactly when each item does; each
    item must be a mapping of scalar values checked property by property (``_parts_decode``).
    False means "not proven": the caller decodes the whole status, which alone reports errors
    and normalises values. With no ``items``: whether the property is such an array at all."""
    check = status_item_check(info, prop)
    if check is None:
        return False
    return all(check(item) for item in items)


_ITEM_CHECKS: dict[tuple[str, str, str, str], Callable[[Any], bool] | None] = {}
"""``status_item_check`` by (group, version, kind, property): the definitions are fixed."""


def status_item_check(info: KindInfo, prop: str) -> Callable[[Any], bool] | None:
    """The check ``status_items_decode`` runs on each item of the status property ``prop``
    (True: the item provably decodes), or None when ``prop`` is not an array of flat items of a
    status type checked property by property. Looked up once per kind and property."""
    key = (info.group, info.version, info.kind, prop)
    try:
        return _ITEM_CHECKS[key]
    except KeyError:
        pass
    found: Callable[[Any], bool] | None = None
    def_name = status_definition_name(info)
    item_name = item_definition(def_name, prop) \
        if def_name is not None and part_validators(def_name) is not None else None  # else checks across
    checks = part_validators(item_name) if item_name is not None else None
    if item_name is not None and checks is not None \
            and definitions()[item_name].get("type") in ("object", ["object", "null"]):
        found = partial(_flat_item_decodes, item_name, checks)
    _ITEM_CHECKS[key] = found
    return found


def _flat_item_decodes(item_name: str, checks: Mapping[str, Callable[[Any], bool]], item: Any) -> bool:
    """Whether ``item`` is a plain mapping of scalars whose properties decode as ``item_name``'s."""
    if type(item) is not dict:
        return False
    for value in item.values():
        if type(value) not in _LEAVES:
            return False
    return _parts_decode(item_name, checks, item)


def decode(info: KindInfo, obj: dict[str, Any]) -> None:
    """Raise 400 BadRequest when ``obj`` does not decode as ``info``'s type (see the module docstring).
    Integral floats in integer fields become ints in place. An object whose properties each
    decode (``_decodes_by_parts``, with its memo of values seen before) is accepted at once."""
    try:
        if _decodes_by_parts(info, obj):
            return
        err = DecodeError("json: exceeded max depth", "", None) if too_deep(obj) else decode_errors(info, obj)
    except RecursionError:
        err = DecodeError("json: exceeded max depth", "", None)
    if err is not None:
        raise _decode_error(info, _name(obj), err)


def decode_status(info: KindInfo, old: Mapping[str, Any], status: Any) -> None:
    """Like ``decode`` for a status write of ``old``: ``status`` must decode as the kind's status type."""
    try:
        err = DecodeError("json: exceeded max depth", "status", None) if too_deep(status) \
            else status_decode_errors(info, status)
    except RecursionError:
        err = DecodeError("json: exceeded max depth", "status", None)
    if err is not None:
        raise _decode_error(info, _name(old), err)


def depth_error(info: KindInfo, name: str) -> ApiError:
    """The 400 BadRequest for an object nested deeper than the server decodes (``json: exceeded max depth``);
    for writes that meet the depth before decoding (copying a body, applying a patch)."""
    return _decode_error(info, name, DecodeError("json: exceeded max depth", "", None))


def _decode_error(info: KindInfo, name: str, err: DecodeError) -> ApiError:
    """The 400 a body that does not decode as ``info``'s type gets: kube-apiserver's
    ``transformDecodeError`` makes it with ``NewBadRequest``, so the Status has a message and no
    ``details`` (``name`` is unused: the message names the field instead)."""
    del name
    message = f'{info.kind} in version "{info.version}" cannot be handled as a {info.kind}: {err.message}'
    return ApiError(400, "BadRequest", message)


def apply_defaults(info: KindInfo, obj: dict[str, Any]) -> None:
    """Apply Kubernetes' built-in defaults, or the CRD's structural defaults, to ``obj`` in place."""
    fn = _DEFAULTS.get(info.key)
    if fn is not None:
        fn(obj)
    elif has_crd_schema(info.key):
        apply_crd_defaults(info.key, obj)


def prepare_for_create(info: KindInfo, obj: dict[str, Any]) -> None:
    """Reset the status of a new object as its create strategy does."""
    if not info.has_status or info.key in _KEEPS_STATUS:
        return
    if info.key == "Pod":
        obj["status"] = {"phase": "Pending"}
    elif info.key == "Namespace":
        obj["status"] = {"phase": "Active"}
    elif info.key == "PersistentVolumeClaim":
        prepare_pvc(obj)
    else:
        obj.pop("status", None)


def validate(info: KindInfo, obj: Mapping[str, Any], old: Mapping[str, Any] | None = None) -> None:
    """Raise 422 Invalid listing every validation error of ``obj`` (metadata, then the kind's rules);
    with ``old`` (the stored object an update replaces) also what the kind's update rules forbid."""
    errors: list[FieldError | str] = list(metadata_errors(obj))
    rule = _RULES.get(info.key)
    if rule is not None:
        errors.extend(rule(obj))
    elif has_crd_schema(info.key):
        errors.extend(schema_errors(info.key, obj))
    update_rule = _UPDATE_RULES.get(info.key) if old is not None else None
    if update_rule is not None and old is not None:
        errors.extend(update_rule(obj, old))
    if errors:
        raise invalid_error(info.key, _name(obj), errors)


def has_status_rules(info: KindInfo) -> bool:
    """Whether ``validate_status`` checks anything for ``info`` (else it accepts every object)."""
    return info.key in _STATUS_RULES or has_crd_schema(info.key)


def validate_status(info: KindInfo, obj: Mapping[str, Any]) -> None:
    """Raise 422 Invalid for a status write whose object breaks the kind's status rules or CRD schema."""
    errors: list[FieldError | str] = []
    rule = _STATUS_RULES.get(info.key)
    if rule is not None:
        errors.extend(rule(obj))
    elif has_crd_schema(info.key):
        errors.extend(schema_errors(info.key, obj, part="status"))
    if errors:
        raise invalid_error(info.key, _name(obj), errors)


def problem(obj: Mapping[str, Any]) -> str | None:
    """Why ``obj`` would not be accepted by this server now, naming the field and the value (the first
    decoding or validation error), or None when it would be. For components that meet an object they
    cannot use (written before validation existed, or straight to storage)."""
    try:
        info = kind_for_object(dict(obj))
    except (UnknownKindError, TypeError, AttributeError) as exc:
        return str(exc)
    copy: dict[str, Any] = thaw(obj)
    try:
        err = decode_errors(info, copy)
    except RecursionError:
        return "nested too deeply"
    if err is not None:
        return f"field {err.field or '(root)'}: value {err.value!r}: {err.message}"
    try:
        apply_defaults(info, copy)
        validate(info, copy)
    except ApiError as exc:
        causes = exc.details.get("causes") or [{"message": exc.message}]
        first = causes[0]
        return f"field {first.get('field', '(root)')}: {first.get('message', '')}"
    except (ValueError, TypeError, KeyError, AttributeError):
        return "malformed object"
    return None
