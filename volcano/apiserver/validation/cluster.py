"""Kubernetes' validation of cluster objects and of every object's metadata.

* metadata (every kind): label keys and values, annotation keys and total size
  (``ValidateObjectMeta``; names are checked by the store);
* Namespace: the name is an RFC 1123 label, not just a subdomain;
* Node: taints (key, value, effect required and supported, unique by key and
  effect), and ``status.capacity``/``status.allocatable`` quantities not
  negative.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from volcano.api.frozen import FrozenDict
from volcano.api.quantity import to_milli
from volcano.apiserver.validation.field import DUPLICATE, FieldError, Shown, invalid, not_supported, required
from volcano.apiserver.validation.names import (
    annotations_errors,
    dns1123_label_errors,
    label_value_errors,
    labels_errors,
    qualified_name_errors,
)

__all__ = ["metadata_errors", "namespace_errors", "node_errors", "node_status_errors"]

_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def _mapping(value: Any) -> Mapping[str, Any]:
    if type(value) is dict or type(value) is FrozenDict:  # the common case, without the ABC check
        return value
    return value if isinstance(value, Mapping) else {}


def metadata_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    """Label and annotation errors of ``obj``'s metadata."""
    meta = _mapping(obj.get("metadata"))
    errs = labels_errors(meta.get("labels"), "metadata.labels")
    errs.extend(annotations_errors(meta.get("annotations"), "metadata.annotations"))
    return errs


def namespace_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    """A namespace's name must be an RFC 1123 label."""
    name = _mapping(obj.get("metadata")).get("name")
    if not isinstance(name, str) or not name:
        return []
    return [invalid("metadata.name", name, e) for e in dns1123_label_errors(name)]


def node_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    """A node's taints and status resources."""
    errs: list[FieldError] = []
    seen: set[tuple[str, str]] = set()
    taints = _mapping(obj.get("spec")).get("taints")
    for i, taint in enumerate(taints if isinstance(taints, list | tuple) else ()):
        taint = _mapping(taint)
        path = f"spec.taints[{i}]"
        key, value, effect = str(taint.get("key") or ""), str(taint.get("value") or ""), taint.get("effect") or ""
        errs.extend(invalid(f"{path}.key", key, e) for e in qualified_name_errors(key))  # ValidateLabelName
        value_errors = label_value_errors(value)
        if value_errors:
            errs.append(invalid(f"{path}.value", value, ";".join(value_errors)))
        if not effect:
            errs.append(required(f"{path}.effect"))
        elif effect not in _EFFECTS:
            errs.append(not_supported(f"{path}.effect", effect, _EFFECTS))
        if (key, effect) in seen:
            errs.append(FieldError(DUPLICATE, path, Shown(f'core.Taint{{Key:"{key}", Value:"{value}", '
                                                          f'Effect:"{effect}", TimeAdded:<nil>}}'),
                                   "taints must be unique by key and effect pair"))
            continue
        seen.add((key, effect))
    errs.extend(node_status_errors(obj))
    return errs


def node_status_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    """``status.capacity`` and ``status.allocatable`` quantities must not be negative."""
    status = _mapping(obj.get("status"))
    errs: list[FieldError] = []
    for part in ("capacity", "allocatable"):
        values = _mapping(status.get(part))
        for name in sorted(values, key=str):
            try:
                negative = to_milli(values[name]) < 0
            except (ValueError, TypeError):
                continue  # decoding reports malformed quantities
            if negative:
                errs.append(invalid(f"status.{part}.{name}", str(values[name]), "must be greater than or equal to 0"))
    return errs
