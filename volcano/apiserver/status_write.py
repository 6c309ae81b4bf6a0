"""The frozen status of a status write that changes a few parts of the stored status.

An in-process writer (the scheduler setting a pod's ``PodScheduled`` condition)
sends back the stored status with one or two properties replaced: every other
property is the stored, frozen value itself. ``shared_status`` builds the status
the general path (``thaw`` the whole status, ``decode_status`` it, ``freeze`` it)
would store, touching only the replaced properties: they are copied, decoded
property by property (``status_parts_decode``) and frozen; the others are the
stored values, which decoded when they were written (the store keeps only
decoded objects, and a built-in kind's status type never changes). A replaced
list property whose schema is an array of one item type (``PodStatus.conditions``)
is built item by item the same way (``status_items_decode``): an item that is one
of the stored list's own items is kept as it is, the others are copied, checked
and frozen; so a condition write copies and checks the one condition it sets.
The result
is equal to the general path's, key order included, and shares the unchanged
parts with the stored object. When anything is not proven (an unknown status
type, a value that does not decode or needs the decoder's normalising, a value
too deep to copy) it returns None and the caller takes the general path, which
alone reports errors.
"""

from __future__ import annotations

from typing import Any

from volcano.api.frozen import FrozenDict, FrozenList, freeze, thaw
from volcano.api.kinds import KindInfo
from volcano.apiserver.validation import status_items_decode, status_parts_decode

__all__ = ["shared_status"]

_ABSENT = object()


def shared_status(info: KindInfo, old: FrozenDict, status: Any) -> FrozenDict | None:
    """The frozen ``status`` a status write of ``status`` over the stored ``old`` stores, sharing
    the properties that are ``old``'s own values; None when not proven (see the module docstring)."""
    before = old.get("status")
    if type(before) is not FrozenDict or (type(status) is not dict and type(status) is not FrozenDict):
        return None
    changed: dict[str, Any] = {}
    lists: dict[str, FrozenList] = {}
    try:
        for key, value in status.items():
            prior = before.get(key, _ABSENT)
            if prior is value:
                continue
            if type(prior) is FrozenList and (type(value) is list or type(value) is FrozenList) \
                    and status_items_decode(info, key, ()):  # an array of flat items: item by item
                items = _shared_items(info, key, prior, value)
                if items is not None:
                    lists[key] = items
                    continue
            changed[key] = thaw(value)
    except RecursionError:
        return None
    if changed and not status_parts_decode(info, changed):
        return None
    return FrozenDict({key: freeze(changed[key]) if key in changed else lists.get(key, value)
                       for key, value in status.items()})


def _shared_items(info: KindInfo, key: str, prior: FrozenList, value: list[Any]) -> FrozenList | None:
    """The frozen list property ``key`` stores for the list ``value`` over the stored ``prior``: the
    items that are ``prior``'s own kept, the others copied, checked and frozen; None when an item is
    not proven to decode (``status_items_decode``)."""
    own = {id(item) for item in prior}  # ``prior`` holds its items: their ids stay theirs meanwhile
    fresh: dict[int, Any] = {}
    for i, item in enumerate(value):
        if id(item) not in own:
            fresh[i] = thaw(item)
    if not status_items_decode(info, key, list(fresh.values())):
        return None
    return FrozenList([freeze(fresh[i]) if i in fresh else item for i, item in enumerate(value)])
