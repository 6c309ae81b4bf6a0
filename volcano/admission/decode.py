"""What Volcano's webhooks decode: a Job's, PodGroup's or Queue's ``spec`` into its Go type.

Each Volcano webhook unmarshals the object of its AdmissionReview into the Go
struct (``DecodeJob``, ``DecodePodGroup``, ``DecodeQueue``) before any rule
runs, and denies the request with the decoder's error when that fails. The API
server calls the mutating webhooks before it validates a custom resource
against its CRD schema, so a wrongly typed field (``minAvailable: 1.5``,
``queue: 5``) is refused by the first webhook with Go's message, not by the
schema::

    json: cannot unmarshal number 1.5 into Go struct field JobSpec.spec.minAvailable of type int32

``spec_decode_error(kind_key, obj)`` is that message, or None when the spec
decodes. It follows the CRD schema (``crd_schemas``) for the JSON shape and the
tables below for the Go names: the struct holding the field, the dotted JSON
path from the object's root (no indices or map keys, as the decoder prints it)
and the target type. Like the Go decoder it ignores unknown fields and nulls,
reports the first mismatch in document order, and takes an integral float
(``2.0``) as the integer the API server forwards (``2``; it is replaced in
place, so the rules and the schema see ``2``). Not decoded
here: a task's pod ``template`` (the server decodes it as a
``PodTemplateSpec``) and quantities (their own unmarshaller accepts numbers
and strings alike; the schema's pattern refuses the rest).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from volcano.apiserver.validation.crd_schemas import CRD_SCHEMAS
from volcano.apiserver.validation.openapi import json_kind

__all__ = ["spec_decode_error"]

_INT32 = (-(2**31), 2**31 - 1)

_SELECTOR = {"selector": "v1.LabelSelector", "selector.matchExpressions": "[]v1.LabelSelectorRequirement",
             "selector.matchExpressions[]": "v1.LabelSelectorRequirement",
             "selector.matchExpressions[].operator": "v1.LabelSelectorOperator",
             "selector.matchLabels": "map[string]string"}
_TOPOLOGY = {"networkTopology": "NetworkTopologySpec", "networkTopology.mode": "NetworkTopologyMode"}
_POLICY = {"": "LifecyclePolicy", "action": "v1alpha1.Action", "event": "v1alpha1.Event",
           "events": "[]v1alpha1.Event", "events[]": "v1alpha1.Event"}


def _prefixed(prefix: str, table: Mapping[str, str], package: str = "") -> dict[str, str]:
    """``table`` moved under ``prefix``; a bare struct name gets ``package``."""
    return {f"{prefix}.{k}" if k else prefix: (v if "." in v or v.startswith(("[]", "map")) else package + v)
            for k, v in table.items()}


_JOB: dict[str, str] = {
    "spec": "v1alpha1.JobSpec", "spec.plugins": "map[string][]string", "spec.tasks": "[]v1alpha1.TaskSpec",
    "spec.tasks[]": "v1alpha1.TaskSpec", "spec.policies": "[]v1alpha1.LifecyclePolicy",
    "spec.tasks[].policies": "[]v1alpha1.LifecyclePolicy", "spec.volumes": "[]v1alpha1.VolumeSpec",
    "spec.volumes[]": "v1alpha1.VolumeSpec", "spec.tasks[].topologyPolicy": "v1alpha1.NumaPolicy",
    "spec.tasks[].dependsOn": "v1alpha1.DependsOn", "spec.tasks[].dependsOn.iteration": "v1alpha1.Iteration",
    "spec.tasks[].partitionPolicy": "v1alpha1.PartitionPolicySpec",
    "spec.volumes[].volumeClaim": "v1.PersistentVolumeClaimSpec",
    "spec.volumes[].volumeClaim.accessModes": "[]v1.PersistentVolumeAccessMode",
    "spec.volumes[].volumeClaim.accessModes[]": "v1.PersistentVolumeAccessMode",
    "spec.volumes[].volumeClaim.volumeMode": "v1.PersistentVolumeMode",
    "spec.volumes[].volumeClaim.dataSource": "v1.TypedLocalObjectReference",
    "spec.volumes[].volumeClaim.dataSourceRef": "v1.TypedObjectReference",
    "spec.volumes[].volumeClaim.resources": "v1.VolumeResourceRequirements",
    **_prefixed("spec.volumes[].volumeClaim", _SELECTOR),
    **_prefixed("spec.policies[]", _POLICY, "v1alpha1."), **_prefixed("spec.tasks[].policies[]", _POLICY, "v1alpha1."),
    **_prefixed("spec", _TOPOLOGY, "v1alpha1."), **_prefixed("spec.tasks[].partitionPolicy", _TOPOLOGY, "v1alpha1."),
}
_PODGROUP: dict[str, str] = {
    "spec": "v1beta1.PodGroupSpec", "spec.minTaskMember": "map[string]int32",
    "spec.subGroupPolicy": "[]v1beta1.SubGroupPolicySpec", "spec.subGroupPolicy[]": "v1beta1.SubGroupPolicySpec",
    **_prefixed("spec", _TOPOLOGY, "v1beta1."), **_prefixed("spec.subGroupPolicy[]", _TOPOLOGY, "v1beta1."),
    **{k.replace("selector", "labelSelector", 1): v for k, v in _prefixed("spec.subGroupPolicy[]", _SELECTOR).items()},
}
_QUEUE: dict[str, str] = {
    "spec": "v1beta1.QueueSpec", "spec.affinity": "v1beta1.Affinity",
    "spec.affinity.nodeGroupAffinity": "v1beta1.NodeGroupAffinity",
    "spec.affinity.nodeGroupAntiAffinity": "v1beta1.NodeGroupAntiAffinity", "spec.guarantee": "v1beta1.Guarantee",
    "spec.extendClusters": "[]v1beta1.Cluster", "spec.extendClusters[]": "v1beta1.Cluster",
    "spec.dequeueStrategy": "v1beta1.DequeueStrategy",
}
_GO_TYPES = {"Job.batch.volcano.sh": _JOB, "PodGroup.scheduling.volcano.sh": _PODGROUP,
             "Queue.scheduling.volcano.sh": _QUEUE}


def _go_type(table: Mapping[str, str], path: str, schema: Mapping[str, Any]) -> str:
    """The Go type decoded at schema ``path`` (``spec.tasks[].replicas``)."""
    if path in table:
        return table[path]
    kind = schema.get("type")
    if kind == "integer":
        return "int32" if schema.get("format") == "int32" else "int"
    if kind == "array":
        return "[]" + _go_type(table, path + "[]", schema.get("items") or {})
    if kind == "object":
        extra = schema.get("additionalProperties")
        if isinstance(extra, Mapping) and "anyOf" in extra:
            return "v1.ResourceList"
        return "map[string]" + _go_type(table, path + "{}", extra) if isinstance(extra, Mapping) \
            else "map[string]interface {}"
    return {"string": "string", "boolean": "bool", "number": "float64"}.get(str(kind), "interface {}")


def _mismatch(schema: Mapping[str, Any], value: Any) -> str | None:
    """How ``value`` fails to decode into ``schema``'s type (the message's value part), or None."""
    kind = schema.get("type")
    if value is None or kind is None:
        return None
    if kind == "integer":
        if isinstance(value, bool) or not isinstance(value, int | float):
            return json_kind(value)
        if isinstance(value, float) and not value.is_integer():
            return f"number {value!r}"
        if schema.get("format") == "int32" and not _INT32[0] <= value <= _INT32[1]:
            return f"number {int(value)}"
        return None
    expected = {"string": str, "boolean": bool, "object": Mapping, "array": list | tuple}.get(str(kind))
    if expected is None or (isinstance(value, expected) and not (kind != "boolean" and isinstance(value, bool))):
        return None
    return json_kind(value)


def _as_int(schema: Mapping[str, Any], value: Any) -> Any:
    """An integral float in an integer field as the int the API server forwards (``2.0`` -> ``2``)."""
    if schema.get("type") == "integer" and isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _walk(table: Mapping[str, str], schema: Mapping[str, Any], value: Any, path: str, fields: tuple[str, ...],
          struct: str) -> str | None:
    if "x-k8s-definition" in schema or "anyOf" in schema:
        return None
    what = _mismatch(schema, value)
    if what is not None:
        return (f"json: cannot unmarshal {what} into Go struct field {struct}.{'.'.join(fields)} "
                f"of type {_go_type(table, path, schema)}")
    if value is None:
        return None
    kind = schema.get("type")
    if kind == "array":
        items = schema.get("items") or {}
        for index, item in enumerate(value):
            value[index] = _as_int(items, item)
            err = _walk(table, items, value[index], path + "[]", fields, struct)
            if err:
                return err
        return None
    if kind != "object":
        return None
    props = schema.get("properties")
    if isinstance(props, Mapping):
        inner = _go_type(table, path, schema).rpartition(".")[2]
        for key in list(value):
            if key in props:
                value[key] = _as_int(props[key], value[key])
                err = _walk(table, props[key], value[key], f"{path}.{key}", (*fields, key), inner)
                if err:
                    return err
        return None
    extra = schema.get("additionalProperties")
    if isinstance(extra, Mapping):
        for key in list(value):
            value[key] = _as_int(extra, value[key])
            err = _walk(table, extra, value[key], path + "{}", fields, struct)
            if err:
                return err
    return None


_ACCEPTED: dict[tuple[str, str], bool] = {}
"""Specs of the small-spec kinds (``_MEMO_KINDS``) that decoded and that the decode left as they
were, by (kind key, ``repr``); bounded by ``_ACCEPTED_SIZE``. The decode is a pure function of
the spec's value, and ``repr`` tells every JSON type apart (``1``, ``1.0``, ``True``, ``"1"``)."""
_ACCEPTED_SIZE = 4096
_MEMO_KINDS = frozenset({"PodGroup.scheduling.volcano.sh", "Queue.scheduling.volcano.sh"})
"""Kinds whose specs are small and written again and again (a Job's spec holds pod templates: its
``repr`` would cost more than the decode it saves)."""


def spec_decode_error(kind_key: str, obj: dict[str, Any]) -> str | None:
    """The Go decoder's error for ``obj``'s ``spec`` (a Volcano Job, PodGroup or Queue), or None.
    Integral floats in integer fields of the spec become ints in place on the way. A PodGroup's
    or Queue's spec equal by ``repr`` to one accepted unchanged before is accepted at once."""
    table = _GO_TYPES.get(kind_key)
    spec_schema = (CRD_SCHEMAS.get(kind_key) or {}).get("properties", {}).get("spec")
    if table is None or not isinstance(spec_schema, Mapping) or "spec" not in obj:
        return None
    root = kind_key.split(".", 1)[0]
    spec = obj["spec"]
    if kind_key not in _MEMO_KINDS or type(spec) is not dict:
        return _walk(table, spec_schema, spec, "spec", ("spec",), root)
    try:
        key = (kind_key, repr(spec))
    except RecursionError:
        return _walk(table, spec_schema, spec, "spec", ("spec",), root)
    if key in _ACCEPTED:
        return None
    err = _walk(table, spec_schema, spec, "spec", ("spec",), root)
    if err is None and repr(spec) == key[1]:
        if len(_ACCEPTED) >= _ACCEPTED_SIZE:
            _ACCEPTED.clear()
        _ACCEPTED[key] = True
    return err
