"""Strategic merge patch: the order of a merged list.

Upstream orders a merged list by ``$setElementOrder`` (when given), then by the patch's own
order, interleaving the items only the live object has at their live positions
(``normalizeElementOrder`` / ``mergeSortedSlice``); items new to the live list come before the
live ones unless the order says otherwise. Matching is by merge key for lists of maps, by value
(Go ``interface{}`` equality) for lists of scalars.
"""

from __future__ import annotations

from typing import Any

from volcano.apiserver.gojson import kind_of, scalar_equal
from volcano.apiserver.smp_terms import DIRECTIVE, SMPError, bad_arg, no_merge_key

__all__ = ["find_by_key", "normalize_element_order", "normalize_slice_order", "partition", "split_deletes"]


def find_by_key(items: list[Any], key: str, value: Any) -> int:
    """Index of the first map in ``items`` whose ``key`` equals ``value`` (-1 when none)."""
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise SMPError(f"value for key {index} is not a map")
        if key in item and scalar_equal(item[key], value):
            return index
    return -1


def partition(merged: list[Any], present: list[Any], merge_key: str) -> tuple[list[Any], list[Any]]:
    """(items of ``merged`` present in ``present``, the others), by merge key or by value."""
    items: list[Any] = []
    server_only: list[Any] = []
    if not merge_key:
        inside = {(kind_of(v), v) for v in present if not isinstance(v, dict | list)}
        for v in merged:
            (items if not isinstance(v, dict | list) and (kind_of(v), v) in inside else server_only).append(v)
        return items, server_only
    for v in merged:
        if not isinstance(v, dict):
            raise bad_arg("map[string]interface {}", v)
        if merge_key not in v:
            raise no_merge_key(v, merge_key)
        (items if find_by_key(present, merge_key, v[merge_key]) >= 0 else server_only).append(v)
    return items, server_only


def _index(items: list[Any], value: Any, merge_key: str, kind: str) -> int:
    def key(item: Any) -> Any:
        if kind == "map":
            return item.get(merge_key) if isinstance(item, dict) else None
        return item
    wanted = key(value)
    for i, item in enumerate(items):
        if scalar_equal(key(item), wanted):
            return i
    return -1


def split_deletes(items: list[Any]) -> tuple[list[Any], list[Any]]:
    keep: list[Any] = []
    delete: list[Any] = []
    for item in items:
        if not isinstance(item, dict):
            raise bad_arg("map[string]interface {}", item)
        (delete if item.get(DIRECTIVE) == "delete" else keep).append(item)
    return keep, delete


def normalize_slice_order(items: list[Any], order: list[Any], merge_key: str, kind: str) -> list[Any]:
    """Upstream ``normalizeSliceOrder``: sort ``items`` by their position in ``order`` (delete directives last)."""
    delete: list[Any] = []
    if kind == "map":
        for group in (items, order):
            for item in group:
                if not isinstance(item, dict):
                    raise bad_arg("map[string]interface {}", item)
                if merge_key not in item:
                    raise no_merge_key(item, merge_key)
        items, delete = split_deletes(items)
    positions = [_index(order, item, merge_key, kind) for item in items]
    ranked = sorted(range(len(items)), key=lambda i: positions[i] if positions[i] >= 0 else -1)
    return [items[i] for i in ranked] + delete


def normalize_element_order(items: list[Any], server_only: list[Any], patch_order: list[Any],
                             server_order: list[Any], merge_key: str, kind: str) -> list[Any]:
    items = normalize_slice_order(items, patch_order, merge_key, kind)
    server_only = normalize_slice_order(server_only, server_order, merge_key, kind)
    return _merge_sorted(server_only, items, server_order, merge_key, kind)


def _merge_sorted(left: list[Any], right: list[Any], server_order: list[Any], merge_key: str,
                  kind: str) -> list[Any]:
    """Upstream ``mergeSortedSlice``: interleave server-only items into the patch items by live order."""
    out: list[Any] = []
    i = j = 0
    while i < len(left) or j < len(right):
        if i >= len(left):
            out.append(right[j])
            j += 1
        elif j >= len(right):
            out.append(left[i])
            i += 1
        else:
            li = _index(server_order, left[i], merge_key, kind)
            ri = _index(server_order, right[j], merge_key, kind)
            if li >= 0 and ri >= 0 and li < ri:
                out.append(left[i])
                i += 1
            else:
                out.append(right[j])
                j += 1
    return out
