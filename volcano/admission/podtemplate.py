"""The subset of Kubernetes' PodTemplate validation Volcano's job webhook relies on.

Volcano validates each task's pod template with Kubernetes' own validator
(after applying Kubernetes' defaults to a copy) and prints every error as
``<path>: <detail>``. This module checks the parts that matter for a fake
cluster: containers present, container names (required, RFC 1123 label,
unique across containers and init containers), restart
policy, and parseable resource quantities with requests not above limits.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from volcano.apiserver.validation.names import dns1123_label_errors
from volcano.admission.schema import go_value
from volcano.api.quantity import QuantityError, to_milli

__all__ = ["pod_template_errors"]

_RESTART = ("Always", "OnFailure", "Never")


def _resources_errors(container: Mapping[str, Any], path: str) -> list[str]:
    errs: list[str] = []
    res = container.get("resources") or {}
    if not isinstance(res, Mapping):
        return [f"{path}.resources: Invalid value: {go_value(str(res))}: must be an object"]
    parsed: dict[str, dict[str, int]] = {}
    for part in ("limits", "requests"):
        values = res.get(part) or {}
        parsed[part] = {}
        if not isinstance(values, Mapping):
            errs.append(f"{path}.resources.{part}: Invalid value: {go_value(str(values))}: must be a map")
            continue
        for name in sorted(values):
            try:
                milli = to_milli(values[name])
            except (QuantityError, TypeError, ValueError):
                errs.append(f"{path}.resources.{part}[{name}]: Invalid value: {go_value(str(values[name]))}: "
                            "quantities must match the regular expression "
                            "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
                continue
            if milli < 0:
                errs.append(f"{path}.resources.{part}[{name}]: Invalid value: {go_value(str(values[name]))}: "
                            "must be greater than or equal to 0")
            parsed[part][name] = milli
    for name in sorted(parsed["requests"]):
        limit = parsed["limits"].get(name)
        if limit is not None and parsed["requests"][name] > limit:
            req = (res.get("requests") or {})[name]
            errs.append(f"{path}.resources.requests: Invalid value: {go_value(str(req))}: must be less than or "
                        f"equal to {name} limit of {(res.get('limits') or {})[name]}")
    return errs


def pod_template_errors(template: Any) -> list[str]:
    """Errors of a task's pod ``template`` (PodTemplateSpec), paths rooted at ``template``."""
    if not isinstance(template, Mapping):
        return ["template.spec.containers: Required value"]
    spec = template.get("spec")
    if not isinstance(spec, Mapping):
        return ["template.spec.containers: Required value"]
    errs: list[str] = []
    seen: set[str] = set()
    containers = spec.get("containers") or []
    if not isinstance(containers, list | tuple) or not containers:
        errs.append("template.spec.containers: Required value")
        containers = []
    groups = (("initContainers", spec.get("initContainers") or []), ("containers", containers))
    for group, items in groups:
        if not isinstance(items, list | tuple):
            errs.append(f"template.spec.{group}: Invalid value: {go_value(str(items))}: must be a list")
            continue
        for i, container in enumerate(items):
            path = f"template.spec.{group}[{i}]"
            if not isinstance(container, Mapping):
                errs.append(f"{path}: Invalid value: {go_value(str(container))}: must be an object")
                continue
            name = container.get("name")
            if not name:
                errs.append(f"{path}.name: Required value")
            elif not isinstance(name, str) or dns1123_label_errors(name):
                shown = name if isinstance(name, str) else str(name)
                for e in dns1123_label_errors(shown) or ["must be a string"]:
                    errs.append(f"{path}.name: Invalid value: {go_value(shown)}: {e}")
            elif name in seen:
                errs.append(f"{path}.name: Duplicate value: {go_value(name)}")
            else:
                seen.add(name)
            errs.extend(_resources_errors(container, path))
    restart = spec.get("restartPolicy") or "Always"
    if restart not in _RESTART:
        supported = ", ".join(go_value(v) for v in _RESTART)
        errs.append(f"template.spec.restartPolicy: Unsupported value: {go_value(str(restart))}: "
                    f"supported values: {supported}")
    return errs
