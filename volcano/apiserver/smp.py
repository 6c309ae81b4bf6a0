"""Strategic merge patch (``application/strategic-merge-patch+json``): applying a patch.

``strategic_merge_patch(original, patch, schema)`` follows Kubernetes' rules (apimachinery
``strategicpatch``) with the field metadata of ``volcano.apiserver.patchmeta``:

* maps merge recursively and ``null`` deletes a key, as in a JSON merge patch;
* a list whose field has ``patchStrategy: merge`` merges element-wise: maps by ``patchMergeKey``
  (``containers`` by ``name``, ``ports`` by ``containerPort``), scalars as a set; any other list is
  replaced whole (``tolerations``, ``args``);
* directives: ``$patch: replace`` (map or list replaced instead of merged), ``$patch: delete``
  (map removed; list element with that merge key removed), ``$retainKeys`` (keys not listed are
  cleared), ``$setElementOrder/<list>`` (final order of a merged list),
  ``$deleteFromPrimitiveList/<list>`` (scalars removed from a merged list of scalars).

Element order follows upstream: ``$setElementOrder`` first, then the patch's order, then the live
object's. Errors are ``SMPError`` with the HTTP code the API server answers (400 for malformed
directives, 422 for lists of lists and ``$retainKeys`` mismatches, 500 for what upstream does not
classify, such as a missing merge key) and upstream's message. ``merge_map`` is the shared core
that ``volcano.apiserver.smp_diff`` also uses to combine patches client-side.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from volcano.api.frozen import is_frozen, thaw
from volcano.apiserver.gojson import deep_equal, go_str, kind_of, scalar_equal
from volcano.apiserver.patchmeta import Schema
from volcano.apiserver.smp_order import (
    find_by_key,
    normalize_element_order,
    partition,
    split_deletes,
)
from volcano.apiserver.smp_terms import (
    BAD_JSON_DOC,
    BAD_PRIMITIVE_LIST,
    BAD_RETAIN_KEYS,
    BAD_SET_ELEMENT_ORDER,
    DELETE_FROM_PRIMITIVE_LIST,
    DIRECTIVE,
    NO_LIST_OF_LISTS,
    RETAIN_KEYS,
    SET_ELEMENT_ORDER,
    SMPError,
    bad_arg,
    no_merge_key,
)

__all__ = ["MergeOptions", "SMPError", "discard_nulls", "merge_map", "slice_element_kind", "strategic_merge_patch"]

@dataclass(frozen=True, slots=True)
class MergeOptions:
    """``merge_parallel_list``: apply ``$deleteFromPrimitiveList`` / ``$setElementOrder`` (server
    side) rather than carry them (combining patches); ``ignore_unmatched_nulls``: drop nulls that
    delete nothing."""

    merge_parallel_list: bool = True
    ignore_unmatched_nulls: bool = True


SERVER = MergeOptions(True, True)


def strategic_merge_patch(original: dict[str, Any], patch: dict[str, Any], schema: Schema) -> dict[str, Any]:
    """Apply the strategic merge ``patch`` to ``original``; returns a new plain dict (inputs untouched)."""
    if not isinstance(original, dict) or not isinstance(patch, dict):
        raise SMPError(BAD_JSON_DOC, 400)
    out = merge_map(thaw(original), thaw(patch), schema, SERVER)
    discard_nulls(out)  # nulls vanish when the API server decodes the result into its typed object
    return out


def merge_map(original: dict[str, Any] | None, patch: dict[str, Any], schema: Schema,
              options: MergeOptions) -> dict[str, Any]:
    """Upstream ``mergeMap``: merge ``patch`` into ``original`` (both are modified)."""
    if DIRECTIVE in patch:
        return _map_directive(patch[DIRECTIVE], patch)
    if original is None:
        original = {}
    _apply_retain_keys(original, patch, options)
    _merge_set_element_order(original, patch, schema, options)
    for key, patch_value in list(patch.items()):
        key, delete_list, skip = _deletion_list_key(key, original, patch_value, options)
        if skip:
            continue
        if patch_value is None:
            original.pop(key, None)
            if options.ignore_unmatched_nulls:
                continue
        if key not in original or kind_of(original[key]) != kind_of(patch_value):
            if not delete_list:
                _take_patch_value(original, key, patch_value, options)
            continue
        meta = schema.lookup(key)
        current = original[key]
        if isinstance(current, dict):
            original[key] = _merge_map_field(current, patch_value, meta.sub, meta.strategy, options)
        elif isinstance(current, list):
            original[key] = _merge_slice_field(current, patch_value, meta.sub, meta.strategy, meta.merge_key,
                                               delete_list, options)
        else:
            _take_patch_value(original, key, patch_value, options)
    return original


def _take_patch_value(original: dict[str, Any], key: str, value: Any, options: MergeOptions) -> None:
    if options.ignore_unmatched_nulls:
        discard_nulls(value)
    kept, keep = remove_directives(value)
    if keep:
        original[key] = kept
    else:
        original.pop(key, None)


def _map_directive(directive: Any, patch: dict[str, Any]) -> dict[str, Any]:
    if directive == "replace":
        del patch[DIRECTIVE]
        return patch
    if directive == "delete":
        return {}
    raise SMPError(f"unknown patch type: {go_str(directive)} in map: {go_str(patch)}")


def _deletion_list_key(key: str, original: dict[str, Any], value: Any,
                       options: MergeOptions) -> tuple[str, bool, bool]:
    """(key to merge into, whether it is a ``$deleteFromPrimitiveList``, whether to skip it)."""
    if not key.startswith(DELETE_FROM_PRIMITIVE_LIST):
        return key, False, False
    if not options.merge_parallel_list:
        original[key] = value
        return key, False, True
    return extract_key(key, DELETE_FROM_PRIMITIVE_LIST), True, False


def extract_key(key: str, prefix: str) -> str:
    """The list name after ``<prefix>/``."""
    head, sep, rest = key.partition("/")
    if not sep or head != prefix:
        if prefix == DELETE_FROM_PRIMITIVE_LIST:
            raise SMPError(BAD_PRIMITIVE_LIST, 400)
        raise SMPError(BAD_SET_ELEMENT_ORDER, 400)
    return rest


def discard_nulls(value: Any) -> None:
    """Remove every null-valued key, recursively (upstream ``discardNullValuesFromPatch``); read-only
    (stored) parts are left as they are."""
    if is_frozen(value):
        return
    if isinstance(value, dict):
        for key in [k for k, v in value.items() if v is None]:
            del value[key]
        for v in value.values():
            discard_nulls(v)
    elif isinstance(value, list):
        for v in value:
            discard_nulls(v)


def remove_directives(value: Any) -> tuple[Any, bool]:
    """Upstream ``removeDirectives``: (value without directive maps, whether to keep it at all)."""
    if isinstance(value, dict):
        if DIRECTIVE in value:
            return None, False
        for key in list(value):
            kept, keep = remove_directives(value[key])
            if keep:
                value[key] = kept
            else:
                del value[key]
        return value, True
    if isinstance(value, list):
        out = []
        for item in value:
            kept, keep = remove_directives(item)
            if keep:
                out.append(kept)
        return out, True
    return value, True


def _apply_retain_keys(original: dict[str, Any], patch: dict[str, Any], options: MergeOptions) -> None:
    if RETAIN_KEYS not in patch:
        return
    retain = patch.pop(RETAIN_KEYS)
    if not options.merge_parallel_list:
        if RETAIN_KEYS in original:
            if not deep_equal(original[RETAIN_KEYS], retain):
                raise SMPError(f"{go_str(original[RETAIN_KEYS])} and {go_str(retain)} are not deep equal: this may "
                               "happen when calculating the 3-way diff patch")
        else:
            original[RETAIN_KEYS] = retain
        return
    if not isinstance(retain, list):
        raise SMPError(BAD_RETAIN_KEYS, 400)
    keep = {k for k in retain if isinstance(k, str)}
    for key, value in patch.items():
        if value is None or key.startswith((DELETE_FROM_PRIMITIVE_LIST, SET_ELEMENT_ORDER)):
            continue
        if key not in keep:
            raise SMPError(BAD_RETAIN_KEYS, 400)
    for key in [k for k in original if k not in keep]:
        del original[key]


def _merge_set_element_order(original: dict[str, Any], patch: dict[str, Any], schema: Schema,
                             options: MergeOptions) -> None:
    """Upstream ``mergePatchIntoOriginal``: merge each list that has a ``$setElementOrder`` and order it."""
    for key in [k for k in patch if k.startswith(SET_ELEMENT_ORDER)]:
        order = patch.pop(key)
        if not options.merge_parallel_list:
            if key in original:
                if not deep_equal(original[key], order):
                    raise SMPError(BAD_SET_ELEMENT_ORDER, 400)
            else:
                original[key] = order
        if not isinstance(order, list):
            raise bad_arg("[]interface {}", order)
        name = extract_key(key, SET_ELEMENT_ORDER)
        found_original, found_patch = name in original, name in patch
        original_list: Any = original.get(name)
        patch_list: Any = patch.get(name)
        if found_original and not isinstance(original_list, list):
            raise bad_arg("[]interface {}", original_list)
        if found_patch and not isinstance(patch_list, list):
            raise bad_arg("[]interface {}", patch_list)
        meta = schema.lookup(name)
        _validate_set_order(patch_list or [], order, meta.merge_key)
        if not found_original and not found_patch:
            continue
        merged: list[Any]
        if found_original and not found_patch:
            merged = original_list
        elif not found_original:
            merged = remove_directives(patch_list)[0]
        else:
            merged = _merge_slice_field(original_list, patch_list, meta.sub, meta.strategy, meta.merge_key,
                                        False, options)
        items, server_only = partition(merged, order, meta.merge_key)
        kind = slice_element_kind(original_list or [], patch_list or [])
        original[name] = normalize_element_order(items, server_only, order, original_list or [],
                                                  meta.merge_key, kind)
        patch.pop(name, None)


def _validate_set_order(patch_list: list[Any], order: list[Any], merge_key: str) -> None:
    if not order or not patch_list:
        return
    items = split_deletes(patch_list)[0] if merge_key else patch_list
    p = s = 0
    while p < len(items) and s < len(order):
        if isinstance(items[p], dict) and DIRECTIVE in items[p]:
            p += 1
            continue
        if _key_equal(items[p], order[s], merge_key):
            p += 1
        s += 1
    if p < len(items) and s >= len(order):
        raise SMPError(f"The order in patch list:\n{go_str(patch_list)}\n doesn't match {SET_ELEMENT_ORDER} list:\n"
                       f"{go_str(order)}\n")


def _key_equal(left: Any, right: Any, merge_key: str) -> bool:
    if not merge_key:
        return scalar_equal(left, right) if not isinstance(left, dict | list) else left is right
    for side in (left, right):
        if not isinstance(side, dict):
            raise bad_arg("map[string]interface {}", side)
        if merge_key not in side:
            raise no_merge_key(side, merge_key)
    return scalar_equal(left[merge_key], right[merge_key])


def _merge_map_field(original: Any, patch: Any, schema: Schema, strategy: str, options: MergeOptions) -> dict[str, Any]:
    if not isinstance(original, dict):
        raise bad_arg("map[string]interface {}", original)
    if not isinstance(patch, dict):
        raise bad_arg("map[string]interface {}", patch)
    if strategy != "replace":
        return merge_map(original, patch, schema, options)
    return patch


def _merge_slice_field(original: Any, patch: Any, schema: Schema, strategy: str, merge_key: str,
                       delete_list: bool, options: MergeOptions) -> list[Any]:
    if not isinstance(original, list):
        raise bad_arg("[]interface {}", original)
    if not isinstance(patch, list):
        raise bad_arg("[]interface {}", patch)
    if strategy == "merge" or delete_list:
        return _merge_slice(original, patch, schema, merge_key, options, delete_list)
    return patch


def slice_element_kind(*lists: list[Any], unify_numbers: bool = False) -> str:
    """The common element kind of ``lists`` (``map`` or a scalar kind); errors as upstream."""
    kind = ""
    for items in lists:
        for item in items:
            current = kind_of(item, unify_numbers)
            if not kind:
                kind = current
                if kind == "slice":
                    raise SMPError(NO_LIST_OF_LISTS, 422)
            elif kind != current:
                raise SMPError("list element types are not identical: " + go_str(list(lists)))
    if not kind:
        raise SMPError("no elements in any of the given slices")
    return kind


def _merge_slice(original: list[Any], patch: list[Any], schema: Schema, merge_key: str, options: MergeOptions,
                 delete_list: bool) -> list[Any]:
    if not original and not patch:
        return original
    kind = slice_element_kind(original, patch)
    if kind != "map":
        if options.merge_parallel_list and delete_list:
            gone = {(kind_of(v), v) for v in patch if not isinstance(v, dict | list)}
            return [v for v in original if (kind_of(v), v) not in gone]
        merged = _dedupe_scalars(original + patch)
        items, server_only = partition(merged, patch, merge_key)
        return normalize_element_order(items, server_only, patch, original, merge_key, kind)
    if not merge_key:
        raise SMPError(f"cannot merge lists without merge key for {schema.name}")
    return _merge_map_slice(original, patch, merge_key, schema, options)


def _merge_map_slice(original: list[Any], patch: list[Any], merge_key: str, schema: Schema,
                     options: MergeOptions) -> list[Any]:
    """Merge a list of maps by key. Upstream edits the live list in place the way Go slices do
    (deletions shift its elements left, appends write past the shortened length until the capacity,
    equal to the length, is used up), and ``$setElementOrder`` later orders by that edited list; the
    same in-place edits are reproduced here so the resulting order is upstream's."""
    plain: list[Any] = []
    replace = False
    n = len(original)
    for item in patch:
        if DIRECTIVE not in item:
            plain.append(item)
            continue
        directive = item[DIRECTIVE]
        if directive == "delete":
            if merge_key not in item:
                raise no_merge_key(item, merge_key)
            while (k := find_by_key(original[:n], merge_key, item[merge_key])) >= 0:
                original[k:n - 1] = original[k + 1:n]
                n -= 1
        elif directive == "replace":
            replace = True
        elif directive == "merge":
            raise SMPError("merging lists cannot yet be specified in the patch")
        else:
            raise SMPError(f"unknown patch type: {go_str(directive)} in map: {go_str(item)}")
    if replace:
        original, n, plain = plain, len(plain), []
    buf, length, aliased = original, n, True
    for item in plain:
        if merge_key not in item:
            raise no_merge_key(item, merge_key)
        index = find_by_key(buf[:length], merge_key, item[merge_key])
        if index >= 0:
            buf[index] = merge_map(buf[index], item, schema, options)
        elif aliased and length < len(buf):
            buf[length] = item
            length += 1
        else:
            if aliased:
                buf, aliased = buf[:length], False
            buf.append(item)
            length += 1
    items, server_only = partition(buf[:length], plain, merge_key)
    return normalize_element_order(items, server_only, plain, original[:n], merge_key, "map")


def _dedupe_scalars(items: list[Any]) -> list[Any]:
    """Upstream ``deduplicateScalars``: a later duplicate is replaced by the last element."""
    s = list(items)
    length = len(s) - 1
    i = 0
    while i < length:
        j = i + 1
        while j <= length:
            if scalar_equal(s[i], s[j]):
                s[j] = s[length]
                s = s[:length]
                length -= 1
                j -= 1
            j += 1
        i += 1
    return s
