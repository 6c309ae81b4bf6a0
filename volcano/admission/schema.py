"""CRD structural-schema defaults and checks for Volcano's kinds (Job, PodGroup, Queue).

A real API server applies a CRD's ``default:`` values when it decodes the
request (before any mutating webhook) and validates the object against the
schema after mutating admission and before validating admission. Since
Volcano v1.14 several of the Job checks its webhook used to make live only in
the schema (``spec.minAvailable >= 0``, task name pattern, ...), so these
messages are what clients see.

Go clients omit zero values of ``omitempty`` fields, so an integer field
holding 0 (``spec.maxRetry``, ``spec.minAvailable``, ``spec.weight``) or an
empty string is treated as absent, and gets the schema default if it has one.

Messages follow kube-openapi's validation errors, e.g.
``spec.minAvailable: Invalid value: -1: spec.minAvailable in body should be
greater than or equal to 0``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "DNS1123_LABEL",
    "DNS1123_SUBDOMAIN",
    "apply_crd_defaults",
    "go_value",
    "validate_crd_schema",
]

DNS1123_LABEL = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
"""The pattern of a DNS-1123 label (task names)."""

DNS1123_SUBDOMAIN = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
"""The pattern of a DNS-1123 subdomain (queue and priority class names)."""

_TOPOLOGY = ("none", "best-effort", "restricted", "single-numa-node")
_MODES = ("hard", "soft")
_QUEUE_STATES = ("Open", "Closed", "Closing", "Unknown")
_DEQUEUE = ("fifo", "traverse")


def go_value(value: Any) -> str:
    """``value`` as Go's ``%v``/``%q`` shows it in a field error: strings quoted, numbers bare."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return str(value)


@dataclass(frozen=True, slots=True)
class _Field:
    """One scalar field: its type and constraints."""

    type: str  # "integer" | "string" | "boolean"
    minimum: int | None = None
    maximum: int | None = None
    min_length: int | None = None
    max_length: int | None = None
    pattern: str | None = None
    enum: tuple[str, ...] | None = None
    required: bool = False


class _Checker:
    """Collects schema errors in field order."""

    def __init__(self) -> None:
        self.errors: list[str] = []

    def field(self, parent: Any, key: str, path: str, spec: _Field) -> None:
        """Check ``parent[key]`` (absent values pass unless required)."""
        if not isinstance(parent, Mapping):
            return
        if key not in parent or parent[key] is None:
            if spec.required:
                self.errors.append(f"{path}: Required value")
            return
        value = parent[key]
        if spec.type == "integer":
            if isinstance(value, bool) or not isinstance(value, int):
                self.errors.append(f"{path}: Invalid value: {go_value(value)}: {path} in body must be of type "
                                   f"integer: {go_value(type_name(value))}")
                return
            if spec.minimum is not None and value < spec.minimum:
                self.errors.append(f"{path}: Invalid value: {value}: {path} in body should be greater than or "
                                   f"equal to {spec.minimum}")
            if spec.maximum is not None and value > spec.maximum:
                self.errors.append(f"{path}: Invalid value: {value}: {path} in body should be less than or "
                                   f"equal to {spec.maximum}")
            return
        if spec.type == "boolean":
            if not isinstance(value, bool):
                self.errors.append(f"{path}: Invalid value: {go_value(value)}: {path} in body must be of type "
                                   f"boolean: {go_value(type_name(value))}")
            return
        if not isinstance(value, str):
            self.errors.append(f"{path}: Invalid value: {go_value(value)}: {path} in body must be of type "
                               f"string: {go_value(type_name(value))}")
            return
        if spec.max_length is not None and len(value.encode()) > spec.max_length:
            self.errors.append(f"{path}: Too long: may not be more than {spec.max_length} bytes")
        if spec.min_length is not None and len(value) < spec.min_length:
            self.errors.append(f"{path}: Invalid value: {go_value(value)}: {path} in body should be at least "
                               f"{spec.min_length} chars long")
        if spec.pattern is not None and value and re.search(spec.pattern, value) is None:
            self.errors.append(f"{path}: Invalid value: {go_value(value)}: {path} in body should match "
                               f"'{spec.pattern}'")
        if spec.enum is not None and value not in spec.enum:
            supported = ", ".join(go_value(v) for v in spec.enum)
            self.errors.append(f"{path}: Unsupported value: {go_value(value)}: supported values: {supported}")

    def mapping(self, parent: Any, key: str, path: str) -> Mapping[str, Any] | None:
        """``parent[key]`` when it is an object; a type error (and None) when it is something else."""
        if not isinstance(parent, Mapping) or parent.get(key) is None:
            return None
        value = parent[key]
        if not isinstance(value, Mapping):
            self.errors.append(f"{path}: Invalid value: {go_value(type_name(value))}: {path} in body must be of "
                               f'type object: {go_value(type_name(value))}')
            return None
        return value

    def array(self, parent: Any, key: str, path: str) -> list[Any]:
        """``parent[key]`` when it is a list ([] when absent; a type error when something else)."""
        if not isinstance(parent, Mapping) or parent.get(key) is None:
            return []
        value = parent[key]
        if not isinstance(value, list | tuple):
            self.errors.append(f"{path}: Invalid value: {go_value(type_name(value))}: {path} in body must be of "
                               f'type array: {go_value(type_name(value))}')
            return []
        return list(value)


def type_name(value: Any) -> str:
    """The JSON type name of ``value`` as the schema validator reports it."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, list | tuple):
        return "array"
    return "null" if value is None else type(value).__name__


def _network_topology(c: _Checker, parent: Any, path: str) -> None:
    nt = c.mapping(parent, "networkTopology", f"{path}.networkTopology")
    if nt is None:
        return
    c.field(nt, "mode", f"{path}.networkTopology.mode", _Field("string", enum=_MODES))
    c.field(nt, "highestTierAllowed", f"{path}.networkTopology.highestTierAllowed", _Field("integer", minimum=0))
    c.field(nt, "highestTierName", f"{path}.networkTopology.highestTierName", _Field("string", max_length=253))


def _policies(c: _Checker, parent: Any, path: str) -> None:
    for i, policy in enumerate(c.array(parent, "policies", f"{path}.policies")):
        p = f"{path}.policies[{i}]"
        if not isinstance(policy, Mapping):
            c.errors.append(f"{p}: Invalid value: {go_value(type_name(policy))}: {p} in body must be of type object: "
                            f"{go_value(type_name(policy))}")
            continue
        # Event names are left to the webhook ("invalid policy event"), as upstream's e2e expects.
        c.field(policy, "event", f"{p}.event", _Field("string"))
        for j, event in enumerate(c.array(policy, "events", f"{p}.events")):
            c.field({"event": event}, "event", f"{p}.events[{j}]", _Field("string"))
        c.field(policy, "action", f"{p}.action", _Field("string"))
        c.field(policy, "exitCode", f"{p}.exitCode", _Field("integer"))
        c.field(policy, "timeout", f"{p}.timeout", _Field("string"))


def _job(c: _Checker, obj: Mapping[str, Any]) -> None:
    spec = c.mapping(obj, "spec", "spec")
    if spec is None:
        return
    c.field(spec, "schedulerName", "spec.schedulerName", _Field("string", max_length=63))
    c.field(spec, "minAvailable", "spec.minAvailable", _Field("integer", minimum=0))
    for i, vol in enumerate(c.array(spec, "volumes", "spec.volumes")):
        p = f"spec.volumes[{i}]"
        if isinstance(vol, Mapping):
            c.field(vol, "mountPath", f"{p}.mountPath",
                    _Field("string", min_length=1, pattern="^[^:]+$", required=True))
            c.field(vol, "volumeClaimName", f"{p}.volumeClaimName", _Field("string", max_length=253))
    for i, task in enumerate(c.array(spec, "tasks", "spec.tasks")):
        p = f"spec.tasks[{i}]"
        if not isinstance(task, Mapping):
            c.errors.append(f"{p}: Invalid value: {go_value(type_name(task))}: {p} in body must be of type object: "
                            f"{go_value(type_name(task))}")
            continue
        c.field(task, "name", f"{p}.name", _Field("string", max_length=63, pattern=DNS1123_LABEL))
        c.field(task, "replicas", f"{p}.replicas", _Field("integer", minimum=0))
        c.field(task, "minAvailable", f"{p}.minAvailable", _Field("integer", minimum=0))
        c.field(task, "maxRetry", f"{p}.maxRetry", _Field("integer", minimum=0))
        c.field(task, "topologyPolicy", f"{p}.topologyPolicy", _Field("string", enum=_TOPOLOGY))
        c.mapping(task, "template", f"{p}.template")
        _policies(c, task, p)
        pp = c.mapping(task, "partitionPolicy", f"{p}.partitionPolicy")
        if pp is not None:
            c.field(pp, "totalPartitions", f"{p}.partitionPolicy.totalPartitions",
                    _Field("integer", minimum=1, required=True))
            c.field(pp, "partitionSize", f"{p}.partitionPolicy.partitionSize",
                    _Field("integer", minimum=1, required=True))
            c.field(pp, "minPartitions", f"{p}.partitionPolicy.minPartitions", _Field("integer", minimum=0))
    _policies(c, spec, "spec")
    c.mapping(spec, "plugins", "spec.plugins")
    c.field(spec, "queue", "spec.queue", _Field("string", max_length=253, pattern=DNS1123_SUBDOMAIN))
    c.field(spec, "maxRetry", "spec.maxRetry", _Field("integer", minimum=0))
    c.field(spec, "ttlSecondsAfterFinished", "spec.ttlSecondsAfterFinished", _Field("integer", minimum=0))
    c.field(spec, "priorityClassName", "spec.priorityClassName",
            _Field("string", max_length=253, pattern=DNS1123_SUBDOMAIN))
    c.field(spec, "minSuccess", "spec.minSuccess", _Field("integer", minimum=1))
    _network_topology(c, spec, "spec")


def _podgroup(c: _Checker, obj: Mapping[str, Any]) -> None:
    spec = c.mapping(obj, "spec", "spec")
    if spec is not None:
        c.field(spec, "minMember", "spec.minMember", _Field("integer", minimum=0))
        c.field(spec, "queue", "spec.queue", _Field("string", max_length=253, pattern=DNS1123_SUBDOMAIN))
        c.field(spec, "priorityClassName", "spec.priorityClassName", _Field("string", max_length=253))
        c.mapping(spec, "minResources", "spec.minResources")
        c.mapping(spec, "minTaskMember", "spec.minTaskMember")
        _network_topology(c, spec, "spec")
        for i, sub in enumerate(c.array(spec, "subGroupPolicy", "spec.subGroupPolicy")):
            p = f"spec.subGroupPolicy[{i}]"
            if isinstance(sub, Mapping):
                c.field(sub, "name", f"{p}.name", _Field("string", max_length=253))
                c.field(sub, "subGroupSize", f"{p}.subGroupSize", _Field("integer", minimum=1))
                c.field(sub, "minSubGroups", f"{p}.minSubGroups", _Field("integer", minimum=0))
                _network_topology(c, sub, p)
    status = c.mapping(obj, "status", "status")
    if status is not None:
        c.field(status, "phase", "status.phase",
                _Field("string", enum=("Pending", "Running", "Unknown", "Inqueue", "Completed")))


def _queue(c: _Checker, obj: Mapping[str, Any]) -> None:
    spec = c.mapping(obj, "spec", "spec")
    if spec is not None:
        c.field(spec, "weight", "spec.weight", _Field("integer", minimum=1, maximum=65535))
        c.field(spec, "reclaimable", "spec.reclaimable", _Field("boolean"))
        c.field(spec, "type", "spec.type", _Field("string", max_length=253))
        c.field(spec, "parent", "spec.parent", _Field("string", max_length=253, pattern=DNS1123_SUBDOMAIN))
        c.field(spec, "priority", "spec.priority", _Field("integer", minimum=0))
        c.field(spec, "dequeueStrategy", "spec.dequeueStrategy", _Field("string", enum=_DEQUEUE))
        for key in ("capability", "deserved"):
            c.mapping(spec, key, f"spec.{key}")
        guarantee = c.mapping(spec, "guarantee", "spec.guarantee")
        if guarantee is not None:
            c.mapping(guarantee, "resource", "spec.guarantee.resource")
    status = c.mapping(obj, "status", "status")
    if status is not None:
        c.field(status, "state", "status.state", _Field("string", enum=_QUEUE_STATES))


_VALIDATORS: dict[str, Callable[[_Checker, Mapping[str, Any]], None]] = {
    "Job.batch.volcano.sh": _job,
    "PodGroup.scheduling.volcano.sh": _podgroup,
    "Queue.scheduling.volcano.sh": _queue,
}


def validate_crd_schema(kind_key: str, obj: Mapping[str, Any]) -> list[str]:
    """Every schema violation of ``obj`` (a ``kind_key`` object) as ``<path>: <detail>``; [] when valid
    or when the kind has no schema here."""
    check = _VALIDATORS.get(kind_key)
    if check is None:
        return []
    c = _Checker()
    check(c, obj)
    return c.errors


def _absent(parent: Mapping[str, Any], key: str) -> bool:
    value = parent.get(key)
    return value is None or value == "" or (isinstance(value, int) and not isinstance(value, bool) and value == 0)


def _default_network_topology(parent: dict[str, Any]) -> None:
    nt = parent.get("networkTopology")
    if isinstance(nt, dict) and not nt.get("mode"):
        nt["mode"] = "hard"


def apply_crd_defaults(kind_key: str, obj: dict[str, Any]) -> None:
    """Fill the CRD schema's ``default:`` values into ``obj`` in place (absent or zero-valued fields)."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return
    if kind_key == "Job.batch.volcano.sh":
        if _absent(spec, "queue"):
            spec["queue"] = "default"
        if _absent(spec, "maxRetry"):
            spec["maxRetry"] = 3
        _default_network_topology(spec)
    elif kind_key == "PodGroup.scheduling.volcano.sh":
        if _absent(spec, "queue"):
            spec["queue"] = "default"
        _default_network_topology(spec)
        for sub in spec.get("subGroupPolicy") or ():
            if isinstance(sub, dict):
                if _absent(sub, "subGroupSize"):
                    sub["subGroupSize"] = 1
                _default_network_topology(sub)
    elif kind_key == "Queue.scheduling.volcano.sh":
        if _absent(spec, "weight"):
            spec["weight"] = 1
        if _absent(spec, "dequeueStrategy"):
            spec["dequeueStrategy"] = "traverse"
