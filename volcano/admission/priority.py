"""Kubernetes' Priority admission plugin and PriorityClass validation.

Pods (CREATE): ``spec.priorityClassName`` resolves to ``spec.priority`` and
``spec.preemptionPolicy``. Without a name the global default class applies
(the one with the lowest value when several are marked, name as tie-break),
and its name is written into the pod; with no default class the priority is 0
and the policy ``PreemptLowerPriority``. An unknown class is rejected (403
Forbidden: ``no PriorityClass with name x was found``), as is a pod whose own
``priority`` / ``preemptionPolicy`` disagrees with the class. On UPDATE the
stored values are kept. ``system-cluster-critical`` and
``system-node-critical`` exist even when no object was created for them.

PriorityClasses: ``preemptionPolicy`` defaults to ``PreemptLowerPriority``;
only one class may be the global default; user classes may not use the
``system-`` prefix nor exceed one billion.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from volcano.admission.lookup import ClusterView

__all__ = [
    "DEFAULT_PREEMPTION_POLICY",
    "HIGHEST_USER_PRIORITY",
    "SYSTEM_PRIORITY_CLASSES",
    "PriorityError",
    "admit_pod_priority",
    "default_priority_class",
    "resolve_priority_class",
    "validate_priority_class",
]

DEFAULT_PREEMPTION_POLICY = "PreemptLowerPriority"
"""A PriorityClass's (and pod's) preemption policy when none is given."""

HIGHEST_USER_PRIORITY = 1_000_000_000
"""The highest value a user-defined PriorityClass may have."""

SYSTEM_PRIORITY_CLASSES: dict[str, int] = {
    "system-node-critical": 2_000_001_000,
    "system-cluster-critical": 2_000_000_000,
}
"""The built-in system classes and their values."""


class PriorityError(Exception):
    """Admission refuses the object; ``reason`` is the Forbidden detail Kubernetes gives."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _name(obj: Mapping[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("name") or "")


def _value(pc: Mapping[str, Any]) -> int:
    value = pc.get("value")
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def default_priority_class(view: ClusterView) -> Mapping[str, Any] | None:
    """The global default PriorityClass (lowest value, then name), or None."""
    defaults = [pc for pc in view.priority_classes() if pc.get("globalDefault") is True]
    if not defaults:
        return None
    return min(defaults, key=lambda pc: (_value(pc), _name(pc)))


def resolve_priority_class(name: str, view: ClusterView) -> tuple[int, str] | None:
    """``(value, preemptionPolicy)`` of PriorityClass ``name``, or None when it does not exist."""
    for pc in view.priority_classes():
        if _name(pc) == name:
            return _value(pc), str(pc.get("preemptionPolicy") or DEFAULT_PREEMPTION_POLICY)
    if name in SYSTEM_PRIORITY_CLASSES:
        return SYSTEM_PRIORITY_CLASSES[name], DEFAULT_PREEMPTION_POLICY
    return None


def admit_pod_priority(pod: dict[str, Any], old: Mapping[str, Any] | None, view: ClusterView) -> None:
    """Set ``spec.priority`` / ``spec.preemptionPolicy`` (and the default class name) on ``pod`` in place;
    raise ``PriorityError`` when Kubernetes would refuse the pod."""
    spec = pod.get("spec")
    if not isinstance(spec, dict):
        return
    if old is not None:
        old_spec = old.get("spec") or {}
        for key in ("priority", "preemptionPolicy"):
            if key in old_spec:
                spec[key] = old_spec[key]
            else:
                spec.pop(key, None)
        return
    class_name = str(spec.get("priorityClassName") or "")
    if not class_name:
        default = default_priority_class(view)
        if default is None:
            priority, policy = 0, DEFAULT_PREEMPTION_POLICY
        else:
            priority = _value(default)
            policy = str(default.get("preemptionPolicy") or DEFAULT_PREEMPTION_POLICY)
            spec["priorityClassName"] = _name(default)
    else:
        found = resolve_priority_class(class_name, view)
        if found is None:
            raise PriorityError(f"no PriorityClass with name {class_name} was found")
        priority, policy = found
    given = spec.get("priority")
    if given is not None and given != priority:
        raise PriorityError(f"the integer value of priority ({given}) must not be provided in pod spec; priority "
                            f"admission controller computed {priority} from the given PriorityClass name")
    spec["priority"] = priority
    given_policy = spec.get("preemptionPolicy")
    if given_policy is not None and given_policy != policy:
        raise PriorityError(f"the string value of PreemptionPolicy ({given_policy}) must not be provided in pod "
                            f"spec; priority admission controller computed {policy} from the given "
                            "PriorityClass name")
    spec["preemptionPolicy"] = policy


def validate_priority_class(pc: dict[str, Any], old: Mapping[str, Any] | None,
                            view: ClusterView) -> tuple[list[str], str]:
    """Default ``preemptionPolicy`` in place and check ``pc``. Returns ``(invalid_causes, forbidden_reason)``:
    field errors (422 Invalid) and the Forbidden reason of a second global default ("" when none)."""
    if pc.get("preemptionPolicy") is None:  # upstream defaults a nil policy only; "" is Required
        pc["preemptionPolicy"] = DEFAULT_PREEMPTION_POLICY
    name = _name(pc)
    causes: list[str] = []
    value = pc.get("value", 0)  # a plain int32: an absent value decodes as 0
    if isinstance(value, bool) or not isinstance(value, int):
        causes.append(f"value: Invalid value: {value!r}: must be an integer")
    elif name.startswith("system-"):
        if name not in SYSTEM_PRIORITY_CLASSES:
            causes.append(f"metadata.name: Invalid value: \"{name}\": priority class names with 'system-' "
                          "prefix are reserved")
        elif value != SYSTEM_PRIORITY_CLASSES[name]:
            causes.append(f"value: Invalid value: {value}: value of {name} must be {SYSTEM_PRIORITY_CLASSES[name]}")
    elif value > HIGHEST_USER_PRIORITY:
        causes.append(f"value: Forbidden: maximum allowed value of a user defined priority is {HIGHEST_USER_PRIORITY}")
    if pc.get("preemptionPolicy") not in ("PreemptLowerPriority", "Never"):
        causes.append(f"preemptionPolicy: Unsupported value: \"{pc.get('preemptionPolicy')}\": supported values: "
                      "\"Never\", \"PreemptLowerPriority\"")
    if old is not None:
        if old.get("value") != pc.get("value"):
            causes.append("value: Forbidden: may not be changed in an update.")
        if (old.get("preemptionPolicy") or DEFAULT_PREEMPTION_POLICY) != pc.get("preemptionPolicy"):
            causes.append(f"preemptionPolicy: Invalid value: \"{pc.get('preemptionPolicy')}\": field is immutable")
    forbidden = ""
    if pc.get("globalDefault") is True:
        for other in view.priority_classes():
            if other.get("globalDefault") is True and _name(other) != name:
                forbidden = f"PriorityClass {_name(other)} is already marked as default. Only one default can exist"
                break
    return causes, forbidden
