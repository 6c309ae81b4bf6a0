"""Kubernetes' validation of ``scheduling.k8s.io/v1`` PriorityClass (``pkg/apis/scheduling/validation``).

Create and update:

* a name with the ``system-`` prefix must be one of the built-in system
  classes with its exact value and ``globalDefault: false``
  (``metadata.name: Forbidden: priority class names with 'system-' prefix are
  reserved for system use only. error: <why>``);
* any other class has ``value`` at most 1,000,000,000
  (``value: Forbidden: maximum allowed value of a user defined priority is
  1000000000``);
* ``preemptionPolicy`` is ``PreemptLowerPriority`` or ``Never``.

Update only: ``value`` may not change (``value: Forbidden: may not be changed
in an update.``) nor may ``preemptionPolicy`` (``field is immutable``).

That only one class is the global default is not API validation but the
Priority admission plugin's rule (403 Forbidden), checked in
``volcano.admission.priority``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from volcano.apiserver.validation.field import FieldError, forbidden, invalid, not_supported, required

__all__ = [
    "HIGHEST_USER_DEFINABLE_PRIORITY",
    "PREEMPTION_POLICIES",
    "SYSTEM_PRIORITY_CLASSES",
    "priority_class_errors",
    "priority_class_update_errors",
]

HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000
"""The highest ``value`` of a PriorityClass whose name has no ``system-`` prefix."""

SYSTEM_PRIORITY_CLASSES: dict[str, int] = {
    "system-node-critical": 2_000_001_000,
    "system-cluster-critical": 2_000_000_000,
}
"""The system classes (``globalDefault: false``) and their values."""

PREEMPTION_POLICIES = ("Never", "PreemptLowerPriority")
"""Supported ``preemptionPolicy`` values, sorted as Kubernetes lists them."""

_SYSTEM_PREFIX = "system-"


def _value(pc: Mapping[str, Any]) -> int:
    value = pc.get("value")
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _system_class_problem(name: str, value: int, global_default: bool) -> str | None:
    """Why ``name`` is not a known system class with these fields (``IsKnownSystemPriorityClass``)."""
    want = SYSTEM_PRIORITY_CLASSES.get(name)
    if want is None:
        return f"{name} is not a known system priority class"
    if value != want:
        return f"value of {name} PriorityClass must be {want}"
    if global_default:
        return f"globalDefault of {name} PriorityClass must be false"
    return None


def priority_class_errors(pc: Mapping[str, Any]) -> list[FieldError]:
    """``ValidatePriorityClass`` (beyond metadata) of a defaulted PriorityClass."""
    meta = pc.get("metadata")
    name = str(meta.get("name") or "") if isinstance(meta, Mapping) else ""
    value = _value(pc)
    errs: list[FieldError] = []
    if name.startswith(_SYSTEM_PREFIX):
        why = _system_class_problem(name, value, pc.get("globalDefault") is True)
        if why is not None:
            errs.append(forbidden("metadata.name", f"priority class names with '{_SYSTEM_PREFIX}' prefix are "
                                                   f"reserved for system use only. error: {why}"))
    elif value > HIGHEST_USER_DEFINABLE_PRIORITY:
        errs.append(forbidden("value", "maximum allowed value of a user defined priority is "
                                       f"{HIGHEST_USER_DEFINABLE_PRIORITY}"))
    policy = pc.get("preemptionPolicy")
    if policy is not None:
        if policy == "":
            errs.append(required("preemptionPolicy"))
        elif policy not in PREEMPTION_POLICIES:
            errs.append(not_supported("preemptionPolicy", policy, PREEMPTION_POLICIES))
    return errs


def priority_class_update_errors(new: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    """``ValidatePriorityClassUpdate``: ``value`` and ``preemptionPolicy`` are immutable."""
    errs: list[FieldError] = []
    if _value(new) != _value(old):
        errs.append(forbidden("value", "may not be changed in an update."))
    if new.get("preemptionPolicy") != old.get("preemptionPolicy"):
        errs.append(invalid("preemptionPolicy", new.get("preemptionPolicy"), "field is immutable"))
    return errs
