"""The frozen status of a status write that changes a few parts of the stored status.

An in-process writer (the scheduler setting a pod's ``PodScheduled`` condition)
sends back the stored status with one or two properties replaced: every other
property is the stored, frozen value itself. ``shared_status`` builds the status
the general path (``thaw`` the whole status, ``decode_status`` it, ``freeze`` it)
would store, touching only the replaced properties: they are copied, decoded
property by property (``status_parts_decode``) and frozen; the others are the
stored values, which decoded when they were written (the store keeps only
decoded objects, and a built-in kind's status type never changes). The result
is equal to the general path's, key order included, and shares the unchanged
parts with the stored object. When anything is not proven (an unknown status
type, a value that does not decode or needs the decoder's normalising, a value
too deep to copy) it returns None and the caller takes the general path, which
alone reports errors.
"""

from __future__ import annotations

from typing import Any

from volcano.api.frozen import FrozenDict, freeze, thaw
from volcano.api.kinds import KindInfo
from volcano.apiserver.validation import status_parts_decode

__all__ = ["shared_status"]

_ABSENT = object()


def shared_status(info: KindInfo, old: FrozenDict, status: Any) -> FrozenDict | None:
    """The frozen ``status`` a status write of ``status`` over the stored ``old`` stores, sharing
    the properties that are ``old``'s own values; None when not proven (see the module docstring)."""
    before = old.get("status")
    if type(before) is not FrozenDict or (type(status) is not dict and type(status) is not FrozenDict):
        return None
    changed: dict[str, Any] = {}
    try:
        for key, value in status.items():
            if before.get(key, _ABSENT) is not value:
                changed[key] = thaw(value)
    except RecursionError:
        return None
    if changed and not status_parts_decode(info, changed):
        return None
    return FrozenDict({key: freeze(changed[key]) if key in changed else value for key, value in status.items()})
