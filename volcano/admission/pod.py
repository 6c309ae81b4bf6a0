"""Volcano's Pod validating webhook (``validatepod.volcano.sh``, CREATE).

Only pods whose ``schedulerName`` is one of Volcano's scheduler names are
checked. The disruption-budget annotations ``volcano.sh/jdb-min-available``
and ``volcano.sh/jdb-max-unavailable`` must each be a positive integer or a
percentage between 1% and 99%, and at most one of them may be set.

The mutating pod webhook changes nothing unless an admission configuration
(resource groups) is loaded, which this testbed does not model.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from volcano.apiserver.validation.field import go_value
from volcano.apiserver.validation.names import go_list

__all__ = ["JDB_MAX_UNAVAILABLE", "JDB_MIN_AVAILABLE", "validate_pod_create"]

JDB_MIN_AVAILABLE = "volcano.sh/jdb-min-available"
"""Annotation: minimum available pods of the job's disruption budget."""

JDB_MAX_UNAVAILABLE = "volcano.sh/jdb-max-unavailable"
"""Annotation: maximum unavailable pods of the job's disruption budget."""

_INT_RE = re.compile(r"^[+-]?[0-9]+$")


def _atoi_error(text: str) -> str:
    return f"strconv.Atoi: parsing {go_value(text)}: invalid syntax"


def _int_or_percentage_error(key: str, value: str) -> str:
    """intstr.Parse semantics: an integer string is an int, anything else a string (percentage)."""
    if _INT_RE.match(value) and -(2**31) <= int(value) < 2**31:
        if int(value) <= 0:
            return f"invalid value <{go_value(value)}> for {key}, it must be a positive integer"
        return ""
    digits = value.replace("%", "")
    if not _INT_RE.match(digits):
        return f"invalid value {_atoi_error(digits)} for {key}"
    number = int(digits)
    if not -(2**63) <= number < 2**63:  # strconv.Atoi parses into a 64-bit int
        return f"invalid value strconv.Atoi: parsing {go_value(digits)}: value out of range for {key}"
    if number <= 0 or number >= 100:
        return (f"invalid value <{go_value(value)}> for {key}, it must be a valid percentage which between "
                "1% ~ 99%")
    return ""


def validate_pod_create(pod: Mapping[str, Any], scheduler_names: Iterable[str] = ("volcano",)) -> str:
    """The denial message of ``validatepod.volcano.sh`` for creating ``pod`` ("" when admitted)."""
    spec = pod.get("spec") or {}
    if str(spec.get("schedulerName") or "") not in set(scheduler_names):
        return ""
    annotations = (pod.get("metadata") or {}).get("annotations") or {}
    present: list[str] = []
    for key in (JDB_MIN_AVAILABLE, JDB_MAX_UNAVAILABLE):
        if key not in annotations:
            continue
        error = _int_or_percentage_error(key, str(annotations[key]))
        if error:
            return error
        present.append(key)
    if len(present) > 1:
        return f"not allow configure multiple annotations <{go_list(present)}> at same time"
    return ""
