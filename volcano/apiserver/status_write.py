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
and frozen; so a condition write copies and checks the one condition it sets
(``status_with`` checks and freezes a condition of strings once per distinct
content: the pods of a gang that get the same condition share one frozen copy).
The result
is equal to the general path's, key order included, and shares the unchanged
parts with the stored object.

``status_with`` is the same for a writer that names only the properties it
replaces (``ApiServer.update_status_fields``): it looks at those properties
alone, not at the whole status, and builds the result with the same rules (a
kept item by identity, a new flat item checked and frozen, a scalar checked);
anything else it leaves to ``shared_status``. When anything is not proven (an unknown status
type, a value that does not decode or needs the decoder's normalising, a value
too deep to copy) it returns None and the caller takes the general path, which
alone reports errors.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from volcano.api.frozen import FrozenDict, FrozenList, freeze, thaw
from volcano.api.kinds import KindInfo
from volcano.apiserver.patch import merge_into
from volcano.apiserver.validation import status_item_check, status_parts_decode

__all__ = ["merged_status", "shared_status", "status_with", "status_with_names"]

_ABSENT = object()
_LEAVES = frozenset({str, int, float, bool, type(None)})


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
            if type(prior) is FrozenList and (type(value) is list or type(value) is FrozenList):
                check = status_item_check(info, key)
                if check is not None:  # an array of flat items: item by item
                    items = _shared_items(check, prior, value)
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


def merged_status(info: KindInfo, old: FrozenDict, patch: Any) -> FrozenDict | None:
    """The frozen status a JSON merge patch ``patch`` of ``old``'s status subresource stores, when
    ``patch`` is a plain mapping whose one key is ``status``, a mapping: ``shared_status`` of the
    patched status built over ``old``'s own values (``merge_patch`` of the whole object would copy
    them all; the properties the patch names are merged as it merges them), so that only those are
    copied and decoded. Such a patch keeps the metadata as it is stored: the patch verb's checks of
    the patched name, namespace, resourceVersion and uid all pass. None when not proven (another
    patch, a status ``shared_status`` does not prove, a value too deep to copy)."""
    if type(patch) is not dict or len(patch) != 1:
        return None
    fields = patch.get("status")
    before = old.get("status")
    if type(fields) is not dict or type(before) is not FrozenDict:
        return None
    try:
        status = merge_into(dict(before), fields)  # ``merge_patch``'s copy of the target, its own values kept
    except RecursionError:
        return None
    return shared_status(info, old, status)


def _shared_items(check: Any, prior: FrozenList, value: list[Any]) -> FrozenList | None:
    """The frozen list property ``key`` stores for the list ``value`` over the stored ``prior``: the
    items that are ``prior``'s own kept, the others copied, checked (``check``, the property's
    ``status_item_check``) and frozen; None when an item is not proven to decode."""
    own = {id(item) for item in prior}  # ``prior`` holds its items: their ids stay theirs meanwhile
    fresh: dict[int, Any] = {}
    for i, item in enumerate(value):
        if id(item) not in own:
            copy = fresh[i] = thaw(item)
            if not check(copy):
                return None
    return FrozenList([freeze(fresh[i]) if i in fresh else item for i, item in enumerate(value)])


def status_with(info: KindInfo, old: FrozenDict, fields: Mapping[str, Any]) -> FrozenDict | None:
    """``shared_status(info, old, {**old["status"], **fields})`` computed from ``fields`` alone, for
    the properties it proves at once: one that is the stored value itself, a scalar that decodes,
    a list of flat items (over a stored list, or where the status has none) whose items are the
    stored list's own or new plain mappings of scalars that decode. None for anything else (the caller then takes
    ``shared_status`` and the general path)."""
    found = status_with_names(info, old, fields)
    return found[0] if found is not None else None


def status_with_names(info: KindInfo, old: FrozenDict, fields: Mapping[str, Any]
                      ) -> tuple[FrozenDict, tuple[str, ...]] | None:
    """``status_with(info, old, fields)`` and the names of the properties whose values in it are not
    ``old``'s status's own objects (in ``fields``' order; every other property is ``old``'s own)."""
    before = old.get("status")
    if type(before) is not FrozenDict or type(fields) is not dict:
        return None
    changes: dict[str, Any] = {}
    scalars: dict[str, Any] = {}
    for key, value in fields.items():
        prior = before.get(key, _ABSENT)
        t = type(value)
        if type(key) is not str:
            return None
        if prior is value:
            continue
        if t in _LEAVES:
            changes[key] = scalars[key] = value
        elif t is list and (type(prior) is FrozenList or prior is _ABSENT):  # absent: no item is kept
            check = status_item_check(info, key)
            own = prior if type(prior) is FrozenList else ()
            items = _items_over(check, own, value) if check is not None else None
            if items is None:
                return None
            changes[key] = items  # a new list: never ``prior`` itself
        else:
            return None
    if scalars and not status_parts_decode(info, scalars):
        return None
    # ``{**before, **fields}``: ``before``'s keys in place (a value that is ``before``'s own is
    # left as it is), new keys after them in ``fields``' order.
    return FrozenDict(before, **changes), tuple(changes)


def _items_over(check: Any, prior: FrozenList | tuple[()], value: list[Any]) -> FrozenList | None:
    """``_shared_items(check, prior, value)`` when every item is ``prior``'s own or a plain mapping of
    scalars (whose copy and frozen form is ``FrozenDict(item)``); None otherwise or when an item
    does not decode."""
    items: list[Any] = []
    for item in value:
        t = type(item)
        if t is FrozenDict:
            for own in prior:
                if own is item:
                    break
            else:
                return None
            items.append(item)
        elif t is dict:  # a flat mapping of scalars: its copy is frozen as it is
            frozen = _flat_frozen(check, item)
            if frozen is None:
                return None
            items.append(frozen)
        else:
            return None
    return FrozenList(items)


_FLAT: dict[tuple[Any, tuple[tuple[str, str], ...]], FrozenDict] = {}
"""``_flat_frozen``'s answers for mappings of strings: (check, items in order) -> the frozen item."""
_FLAT_SIZE = 4096


def _flat_frozen(check: Any, item: dict[str, Any]) -> FrozenDict | None:
    """``FrozenDict(item)`` when ``check(item)`` passes, else None. A mapping whose keys and values
    are all exactly ``str`` (a pod condition) is checked once per distinct content (keys, values,
    order) and check: later mappings of that content get the same frozen object, which is equal
    to their own frozen form in every way but identity (a frozen value is never edited, so
    readers cannot tell). The scheduler writes one condition content to every pod of a gang."""
    for key, value in item.items():
        if type(value) is not str or type(key) is not str:
            return FrozenDict(item) if check(item) else None
    content = (check, tuple(item.items()))
    frozen = _FLAT.get(content)
    if frozen is None:
        if not check(item):
            return None
        if len(_FLAT) >= _FLAT_SIZE:
            _FLAT.clear()
        frozen = _FLAT[content] = FrozenDict(item)
    return frozen
