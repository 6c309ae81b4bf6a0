"""Strategic merge patch: computing patches (what ``kubectl apply`` sends for built-in kinds).

``create_two_way_merge_patch(original, modified, schema)`` returns the patch that turns
``original`` into ``modified``; ``create_three_way_merge_patch(original, modified, current, schema)``
is kubectl's client-side apply patch: the changes from the live object (``current``) to the new
manifest (``modified``) without deletions, plus the deletions from the last-applied configuration
(``original``) to ``modified``. Both follow apimachinery ``strategicpatch`` exactly, including its
directives (``$setElementOrder`` for merged lists, ``$patch: delete`` for removed elements,
``$deleteFromPrimitiveList`` for removed scalars, ``$retainKeys`` for ``retainKeys`` fields) and
its numbers-as-``float64`` view of JSON. With ``overwrite=False`` a change made on the server since
the last apply that the patch would undo is a ``PatchConflict``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from volcano.api.frozen import thaw
from volcano.apiserver.gojson import deep_equal, go_str, kind_of, scalar_equal
from volcano.apiserver.patchmeta import Schema
from volcano.apiserver.smp import MergeOptions, merge_map, slice_element_kind
from volcano.apiserver.smp_order import normalize_slice_order
from volcano.apiserver.smp_terms import (
    DELETE_FROM_PRIMITIVE_LIST,
    DIRECTIVE,
    RETAIN_KEYS,
    SET_ELEMENT_ORDER,
    SMPError,
    bad_arg,
    no_merge_key,
)

__all__ = ["PatchConflict", "create_three_way_merge_patch", "create_two_way_merge_patch", "maps_have_conflicts"]


class PatchConflict(SMPError):
    """The three-way patch would undo a change made on the server (``overwrite=False``)."""


@dataclass(frozen=True, slots=True)
class _Diff:
    set_element_order: bool = False
    ignore_changes: bool = False
    ignore_deletions: bool = False
    retain_keys: bool = False


def create_two_way_merge_patch(original: dict[str, Any], modified: dict[str, Any], schema: Schema) -> dict[str, Any]:
    """The strategic merge patch that yields ``modified`` when applied to ``original``."""
    return _diff_maps(thaw(original), thaw(modified), schema, _Diff(set_element_order=True))


def create_three_way_merge_patch(original: dict[str, Any] | None, modified: dict[str, Any],
                                 current: dict[str, Any], schema: Schema, *, overwrite: bool = True) -> dict[str, Any]:
    """kubectl's client-side apply patch (see module docstring); ``{}`` when nothing changes."""
    original_map = thaw(original) if original else {}
    modified_map = thaw(modified)
    current_map = thaw(current)
    delta = _diff_maps(current_map, modified_map, schema, _Diff(set_element_order=True, ignore_deletions=True))
    deletions = _diff_maps(original_map, modified_map, schema, _Diff(set_element_order=True, ignore_changes=True))
    patch = merge_map(deletions, delta, schema, MergeOptions(False, False))
    if not overwrite:
        changed = _diff_maps(original_map, current_map, schema, _Diff())
        if maps_have_conflicts(patch, changed, schema):
            raise PatchConflict(f"patch:\n{go_str(patch)}\nconflicts with changes made from original to current:\n"
                                f"{go_str(changed)}\n", 409)
    return patch


def _diff_maps(original: dict[str, Any], modified: dict[str, Any], schema: Schema, opts: _Diff) -> dict[str, Any]:
    patch: dict[str, Any] = {}
    retain: list[Any] = []
    for key, new in modified.items():
        if opts.retain_keys and new is not None:
            retain.append(key)
        if key not in original:
            if not opts.ignore_changes:
                patch[key] = new
            continue
        old = original[key]
        if key == DIRECTIVE:
            if not isinstance(old, str) or not isinstance(new, str):
                raise SMPError(f"invalid value for special key: {DIRECTIVE}")
            if old != new:
                patch[DIRECTIVE] = new
            continue
        if kind_of(old, True) != kind_of(new, True):
            if not opts.ignore_changes:
                patch[key] = new
            continue
        if isinstance(old, dict):
            _map_diff(key, old, new, patch, schema, opts)
        elif isinstance(old, list):
            _slice_diff(key, old, new, patch, schema, opts)
        elif not opts.ignore_changes and not scalar_equal(old, new, True):
            patch[key] = new
    if not opts.ignore_deletions:
        for key in original:
            if key not in modified:
                patch[key] = None
    if retain and (patch or any(v is not None and k not in modified for k, v in original.items())):
        patch[RETAIN_KEYS] = sort_scalars(retain)
    return patch


def _map_diff(key: str, old: dict[str, Any], new: dict[str, Any], patch: dict[str, Any], schema: Schema,
              opts: _Diff) -> None:
    meta = schema.lookup(key)
    if meta.strategy == "replace":
        if not opts.ignore_changes:
            patch[key] = new
        return
    value = _diff_maps(old, new, meta.sub, replace(opts, retain_keys=meta.retain_keys))
    if value:
        patch[key] = value


def _slice_diff(key: str, old: list[Any], new: list[Any], patch: dict[str, Any], schema: Schema,
                opts: _Diff) -> None:
    meta = schema.lookup(key)
    if meta.strategy != "merge":
        if not opts.ignore_changes and not deep_equal(old, new, True):
            patch[key] = new
        return
    add, delete, order = _diff_lists(old, new, meta.sub, meta.merge_key, replace(opts, retain_keys=meta.retain_keys))
    if add:
        patch[key] = add
    if delete:
        patch[f"{DELETE_FROM_PRIMITIVE_LIST}/{key}"] = delete
    if order:
        patch[f"{SET_ELEMENT_ORDER}/{key}"] = order


def _diff_lists(original: list[Any], modified: list[Any], schema: Schema, merge_key: str,
                opts: _Diff) -> tuple[list[Any], list[Any], list[Any]]:
    if not original:
        if not modified or opts.ignore_changes:
            return [], [], []
        return modified, [], []
    kind = slice_element_kind(original, modified, unify_numbers=True)
    order: list[Any] = []
    if kind == "map":
        add, delete = _diff_lists_of_maps(original, modified, schema, merge_key, opts)
        add = normalize_slice_order(add, modified, merge_key, kind)
        same_order = _order_same(original, modified, merge_key)
        add = add + delete
        if opts.set_element_order and ((not opts.ignore_changes and (add or not same_order))
                                       or (not opts.ignore_deletions and add)):
            order = [{merge_key: item[merge_key]} for item in modified]
        return add, [], order
    add, delete = _diff_lists_of_scalars(original, modified, opts)
    add = normalize_slice_order(add, modified, merge_key, kind)
    if opts.set_element_order and ((not opts.ignore_deletions and delete)
                                   or (not opts.ignore_changes and not deep_equal(original, modified, True))):
        order = modified
    return add, delete, order


def _order_same(original: list[Any], modified: list[Any], merge_key: str) -> bool:
    if len(original) != len(modified):
        return False
    for left, right in zip(original, modified):
        for side in (left, right):
            if not isinstance(side, dict):
                raise bad_arg("map[string]interface {}", side)
            if merge_key not in side:
                raise no_merge_key(side, merge_key)
        if not scalar_equal(left[merge_key], right[merge_key], True):
            return False
    return True


def sort_scalars(items: list[Any]) -> list[Any]:
    """Sort ``items`` in place by their ``%v`` text, as upstream's ``sortScalars`` does; returns them."""
    items.sort(key=go_str)
    return items


def _dedupe(items: list[Any]) -> list[Any]:
    out: list[Any] = []
    for item in items:
        if not any(scalar_equal(item, seen, True) for seen in out):
            out.append(item)
    return out


def _diff_lists_of_scalars(original: list[Any], modified: list[Any], opts: _Diff) -> tuple[list[Any], list[Any]]:
    old = sort_scalars(original)  # upstream sorts the original list in place
    new = sorted(modified, key=go_str)
    add: list[Any] = []
    delete: list[Any] = []
    i = j = 0
    while i < len(old) or j < len(new):
        old_text = go_str(old[i]) if i < len(old) else None
        new_text = go_str(new[j]) if j < len(new) else None
        if old_text is not None and new_text is not None and old_text == new_text:
            i += 1
            j += 1
        elif old_text is None or (new_text is not None and old_text > new_text):
            if not opts.ignore_changes:
                add.append(new[j])
            j += 1
        else:
            if not opts.ignore_deletions:
                delete.append(old[i])
            i += 1
    return add, _dedupe(delete)


def _sorted_by_key(items: list[Any], merge_key: str) -> list[dict[str, Any]]:
    for item in items:
        if not isinstance(item, dict):
            raise bad_arg("map[string]interface {}", item)
    return sorted(items, key=lambda item: go_str(item.get(merge_key)))


def _key_of(item: dict[str, Any], merge_key: str) -> Any:
    if merge_key not in item:
        raise no_merge_key(item, merge_key)
    return item[merge_key]


def _diff_lists_of_maps(original: list[Any], modified: list[Any], schema: Schema, merge_key: str,
                        opts: _Diff) -> tuple[list[Any], list[Any]]:
    old = _sorted_by_key(original, merge_key)
    new = _sorted_by_key(modified, merge_key)
    patch: list[Any] = []
    delete: list[Any] = []
    i = j = 0
    while i < len(old) or j < len(new):
        old_key = _key_of(old[i], merge_key) if i < len(old) else None
        new_key = _key_of(new[j], merge_key) if j < len(new) else None
        old_text = go_str(old_key) if i < len(old) else None
        new_text = go_str(new_key) if j < len(new) else None
        if old_text is not None and old_text == new_text:
            value = _diff_maps(old[i], new[j], schema, opts)
            if value:
                value[merge_key] = new_key
                patch.append(value)
            i += 1
            j += 1
        elif old_text is None or (new_text is not None and old_text > new_text):
            if not opts.ignore_changes:
                patch.append(new[j])
            j += 1
        else:
            if not opts.ignore_deletions:
                delete.append({merge_key: old_key, DIRECTIVE: "delete"})
            i += 1
    return patch, delete


def maps_have_conflicts(left: dict[str, Any], right: dict[str, Any], schema: Schema) -> bool:
    """Upstream ``MergingMapsHaveConflicts``: whether two patches change a key differently."""
    return _fields_conflict(left, right, schema, "", "")


def _fields_conflict(left: Any, right: Any, schema: Schema, strategy: str, merge_key: str) -> bool:
    if isinstance(left, dict):
        if not isinstance(right, dict):
            return True
        has_left, has_right = DIRECTIVE in left, DIRECTIVE in right
        if (has_left or has_right) and (has_left != has_right or left[DIRECTIVE] != right[DIRECTIVE]):
            return True
        if strategy == "replace":
            return False
        return _map_conflicts(left, right, schema)
    if isinstance(left, list):
        if not isinstance(right, list):
            return True
        return _slice_conflicts(left, right, schema, strategy, merge_key)
    return not scalar_equal(left, right, True)


def _map_conflicts(left: dict[str, Any], right: dict[str, Any], schema: Schema) -> bool:
    for key, value in left.items():
        if key in (DIRECTIVE, RETAIN_KEYS) or key not in right:
            continue
        meta = schema.lookup(key)
        nested = isinstance(value, dict | list)
        if _fields_conflict(value, right[key], meta.sub if nested else schema,
                            meta.strategy if nested else "", meta.merge_key):
            return True
    return False


def _slice_conflicts(left: list[Any], right: list[Any], schema: Schema, strategy: str, merge_key: str) -> bool:
    kind = slice_element_kind(left, right, unify_numbers=True)
    if strategy == "merge":
        if kind != "map":
            return False
        left_map = {go_str(_key_of(item, merge_key)): item for item in left}
        right_map = {go_str(_key_of(item, merge_key)): item for item in right}
        return any(_fields_conflict(v, right_map[k], schema, "", "") for k, v in left_map.items() if k in right_map)
    if len(left) != len(right):
        return True
    if kind != "map":
        left, right = sorted(_dedupe(left), key=go_str), sorted(_dedupe(right), key=go_str)
    return any(_fields_conflict(a, b, schema, "", "") for a, b in zip(left, right))
