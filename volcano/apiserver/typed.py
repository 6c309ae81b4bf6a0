"""Structured-merge-diff's operations on objects, as server-side apply uses them.

Every function walks a plain JSON value together with its ``patchmeta.Schema``: maps are granular
(one path per key) unless the field is ``atomic``; lists are granular by key (``list_type="map"``),
by value (``"set"``) or atomic. Empty maps and lists count as leaves, as upstream.

* ``field_set(value, schema)``: the paths a value sets (upstream ``ToFieldSet``): every leaf, every
  list item, every empty map and null.
* ``merge(live, config, schema)``: ``config`` laid over ``live`` (upstream ``Merge``): config's
  leaves win, maps merge per key, list-maps per item in upstream's interleaved order.
* ``compare(old, new, schema)``: ``(added, modified, removed)`` path sets (upstream ``Compare``);
  a map or list that appears or disappears is itself added or removed.
* ``remove_paths(value, paths, schema)``: ``value`` without those fields and items (subtrees go with
  them).

``TypedError`` reports a value the schema rejects (a list-map item missing its key, a duplicate
item in applied configuration).
"""

from __future__ import annotations

from typing import Any

from volcano.apiserver.fieldpath import Path, PathElement, hashable, path_string
from volcano.apiserver.gojson import go_json, kind_of
from volcano.apiserver.patchmeta import FieldMeta, Schema

__all__ = ["TypedError", "check_no_duplicates", "compare", "field_set", "merge", "remove_paths"]

_MISSING: Any = object()


class TypedError(ValueError):
    """A value that does not fit its schema."""


def _element_meta(meta: FieldMeta) -> FieldMeta:
    return FieldMeta(schema=meta.schema)


def _struct_meta(schema: Schema) -> FieldMeta:
    return FieldMeta(schema=schema)


def item_element(meta: FieldMeta, item: Any, index: int, path: Path) -> PathElement:
    """The path element of a list item (key fields for a list-map, the value for a set)."""
    if meta.list_type == "set":
        return ("v", hashable(item))
    if item is None:
        raise TypedError(f"{path_string(path)}: element {index}: associative list with keys may not have a null "
                         "element")
    if not isinstance(item, dict):
        raise TypedError(f"{path_string(path)}: element {index}: associative list with keys may not have non-map "
                         "elements")
    fields = []
    for name in meta.map_keys:
        if name in item:
            fields.append((name, hashable(item[name])))
        elif name in meta.key_defaults:
            fields.append((name, meta.key_defaults[name]))
        else:
            raise TypedError(f"{path_string(path)}: element {index}: associative list with keys has an element "
                             f"that omits key field {go_json(name)} (and doesn't have default value)")
    return ("k", tuple(sorted(fields)))


def _granular(meta: FieldMeta, value: Any) -> bool:
    """Whether ``value`` is walked per key or item (not atomic, not a scalar)."""
    if isinstance(value, dict):
        return not meta.atomic
    if isinstance(value, list):
        return meta.list_type != "atomic"
    return False


# -- field sets ------------------------------------------------------------------------------------------
def field_set(value: dict[str, Any], schema: Schema) -> set[Path]:
    """The paths ``value`` sets (see module docstring)."""
    out: set[Path] = set()
    _fs_map(value, schema, (), out)
    return out


def _fs_value(value: Any, meta: FieldMeta, path: Path, out: set[Path]) -> None:
    if isinstance(value, dict) and not meta.atomic:
        _fs_map(value, meta.sub, path, out)
    elif isinstance(value, list) and meta.list_type != "atomic":
        _fs_list(value, meta, path, out)
    else:
        out.add(path)


def _fs_map(value: dict[str, Any], schema: Schema, path: Path, out: set[Path]) -> None:
    for key, child in value.items():
        child_path = (*path, ("f", key))
        _fs_value(child, schema.lookup(key), child_path, out)
        if child is None or (isinstance(child, dict) and not child):
            out.add(child_path)


def _fs_list(items: list[Any], meta: FieldMeta, path: Path, out: set[Path]) -> None:
    pes = [item_element(meta, item, i, path) for i, item in enumerate(items)]
    seen: set[PathElement] = set()
    dups: set[PathElement] = set()
    for pe in pes:
        if pe in seen and pe not in dups:
            dups.add(pe)
            out.add((*path, pe))
        seen.add(pe)
    element = _element_meta(meta)
    for item, pe in zip(items, pes):
        if pe in dups:
            continue
        _fs_value(item, element, (*path, pe), out)
        out.add((*path, pe))


def check_no_duplicates(value: dict[str, Any], schema: Schema) -> None:
    """Upstream ``ObjectToTyped`` without ``AllowDuplicates``, as an applied object is converted: a keyed or set
    list holding two items of one key raises ``TypedError`` (``.spec.containers: duplicate entries for key
    [name="c"]``); a live object may hold duplicates (``field_set`` tolerates them)."""
    _dups_in_map(value, schema, ())


def _dups_in_value(value: Any, meta: FieldMeta, path: Path) -> None:
    if isinstance(value, dict) and not meta.atomic:
        _dups_in_map(value, meta.sub, path)
    elif isinstance(value, list) and meta.list_type != "atomic":
        seen: set[PathElement] = set()
        element = _element_meta(meta)
        for index, item in enumerate(value):
            pe = item_element(meta, item, index, path)
            if pe in seen:
                raise TypedError(f"{path_string(path)}: duplicate entries for key {path_string((pe,))}")
            seen.add(pe)
            _dups_in_value(item, element, (*path, pe))


def _dups_in_map(value: dict[str, Any], schema: Schema, path: Path) -> None:
    for key, child in value.items():
        _dups_in_value(child, schema.lookup(key), (*path, ("f", key)))


# -- merge -----------------------------------------------------------------------------------------------
def merge(live: dict[str, Any], config: dict[str, Any], schema: Schema) -> dict[str, Any]:
    """``config`` merged over ``live`` (see module docstring); inputs are not modified."""
    out = _merge_value(live, config, _struct_meta(schema), ())
    return out if isinstance(out, dict) else {}


def _merge_value(lhs: Any, rhs: Any, meta: FieldMeta, path: Path) -> Any:
    if rhs is _MISSING:
        return lhs
    if lhs is _MISSING:
        return rhs
    if lhs == rhs and kind_of(lhs) == kind_of(rhs):
        return lhs  # nothing to merge: keep the live value (shared, not copied)
    if isinstance(lhs, dict) and isinstance(rhs, dict) and (lhs or rhs) and not meta.atomic:
        out: dict[str, Any] = {}
        for key in [*lhs, *(k for k in rhs if k not in lhs)]:
            merged = _merge_value(lhs.get(key, _MISSING), rhs.get(key, _MISSING), meta.sub.lookup(key),
                                  (*path, ("f", key)))
            if merged is not _MISSING:
                out[key] = merged
        return out
    if isinstance(lhs, list) and isinstance(rhs, list) and (lhs or rhs) and meta.list_type != "atomic":
        return _merge_list(lhs, rhs, meta, path)
    return rhs


def _merge_list(lhs: list[Any], rhs: list[Any], meta: FieldMeta, path: Path) -> list[Any]:
    """Upstream's list merge: live items keep their place, applied items are interleaved in applied order."""
    rpes = [item_element(meta, item, i, path) for i, item in enumerate(rhs)]
    observed_r: dict[PathElement, Any] = {}
    for pe, item in zip(rpes, rhs):
        if pe in observed_r:
            raise TypedError(f"{path_string(path)}: duplicate entries for key {path_string((pe,))}")
        observed_r[pe] = item
    lpes = [item_element(meta, item, i, path) for i, item in enumerate(lhs)]
    observed_l: dict[PathElement, Any] = {}
    for pe, item in zip(lpes, lhs):
        observed_l[pe] = _MISSING if pe in observed_l else item
    shared = [pe for pe in rpes if pe in observed_l]
    next_shared = shared.pop(0) if shared else None
    merged_r: set[PathElement] = set()
    element = _element_meta(meta)
    out: list[Any] = []

    def add(left: Any, right: Any, pe: PathElement) -> None:
        value = _merge_value(left, right, element, (*path, pe))
        if value is not _MISSING:
            out.append(value)

    li = ri = 0
    while li < len(lpes) or ri < len(rpes):
        if li < len(lpes) and ri < len(rpes):
            pe = lpes[li]
            if pe == rpes[ri]:
                merged_r.add(pe)
                add(observed_l[pe], observed_r[pe], pe)
                li += 1
                ri += 1
                next_shared = shared.pop(0) if shared else None
                continue
            if pe in observed_r and next_shared is not None and next_shared != pe:
                li += 1
                continue
        if li < len(lpes):
            pe = lpes[li]
            if pe not in observed_r:
                add(lhs[li], _MISSING, pe)
                li += 1
                continue
            if pe in merged_r:
                li += 1
        if ri < len(rpes):
            pe = rpes[ri]
            merged_r.add(pe)
            add(observed_l.get(pe, _MISSING), observed_r[pe], pe)
            ri += 1
            if next_shared is not None and next_shared == pe:
                next_shared = shared.pop(0) if shared else None
    return out


# -- compare ---------------------------------------------------------------------------------------------
def compare(old: dict[str, Any], new: dict[str, Any], schema: Schema) -> tuple[set[Path], set[Path], set[Path]]:
    """``(added, modified, removed)`` from ``old`` to ``new`` (see module docstring)."""
    result: tuple[set[Path], set[Path], set[Path]] = (set(), set(), set())
    _cmp_value(old, new, _struct_meta(schema), (), result)
    return result


def _cmp_value(lhs: Any, rhs: Any, meta: FieldMeta, path: Path, res: tuple[set[Path], set[Path], set[Path]]) -> None:
    added, modified, removed = res
    if lhs is not _MISSING and rhs is not _MISSING and lhs == rhs:
        return  # equal subtrees hold no change (the common case: most of an object is untouched)
    present = [v for v in (lhs, rhs) if v is not _MISSING]
    walk_map = all(isinstance(v, dict) for v in present) and not meta.atomic and any(present)
    walk_list = all(isinstance(v, list) for v in present) and meta.list_type != "atomic" and any(present)
    if walk_map:
        left = lhs if lhs is not _MISSING else {}
        right = rhs if rhs is not _MISSING else {}
        for key in [*left, *(k for k in right if k not in left)]:
            _cmp_value(left.get(key, _MISSING), right.get(key, _MISSING), meta.sub.lookup(key),
                       (*path, ("f", key)), res)
    elif walk_list:
        _cmp_list(lhs if lhs is not _MISSING else [], rhs if rhs is not _MISSING else [], meta, path, res)
    elif lhs is not _MISSING and rhs is not _MISSING:
        if lhs != rhs:
            modified.add(path)
        return
    if lhs is _MISSING:
        added.add(path)
    elif rhs is _MISSING:
        removed.add(path)


def _cmp_list(lhs: list[Any], rhs: list[Any], meta: FieldMeta, path: Path,
              res: tuple[set[Path], set[Path], set[Path]]) -> None:
    added, modified, removed = res
    order: list[PathElement] = []
    lvals: dict[PathElement, list[Any]] = {}
    rvals: dict[PathElement, list[Any]] = {}
    for values, items in ((lvals, lhs), (rvals, rhs)):
        for i, item in enumerate(items):
            pe = item_element(meta, item, i, path)
            if pe not in lvals and pe not in rvals:
                order.append(pe)
            values.setdefault(pe, []).append(item)
    element = _element_meta(meta)
    for pe in order:
        left, right = lvals.get(pe, []), rvals.get(pe, [])
        item_path = (*path, pe)
        if len(left) <= 1 and len(right) <= 1:
            _cmp_value(left[0] if left else _MISSING, right[0] if right else _MISSING, element, item_path, res)
        elif len(left) >= 2 and len(right) >= 2:
            if go_json(left) != go_json(right):
                modified.add(item_path)
        elif len(left) >= 2:
            if right:
                _cmp_value(_MISSING, right[0], element, item_path, res)
            removed.add(item_path)
        else:
            if left:
                _cmp_value(left[0], _MISSING, element, item_path, res)
            added.add(item_path)


# -- removal ---------------------------------------------------------------------------------------------
def remove_paths(value: dict[str, Any], paths: set[Path], schema: Schema) -> dict[str, Any]:
    """``value`` without the fields and items in ``paths`` (a new value; a map or list left empty by
    the removal becomes null, as upstream, and the caller drops nulls)."""
    trie: dict[PathElement, Any] = {}
    for path in paths:
        level = trie
        for i, pe in enumerate(path):
            node = level.setdefault(pe, [False, {}])
            if i == len(path) - 1:
                node[0] = True
            level = node[1]
    out = _remove(value, _struct_meta(schema), trie, ())
    return out if isinstance(out, dict) else {}


def _remove(value: Any, meta: FieldMeta, trie: dict[PathElement, Any], path: Path) -> Any:
    if not trie or not _granular(meta, value) or not value:
        return value
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, child in value.items():
            node = trie.get(("f", key))
            if node is None:
                out[key] = child
            elif not node[0]:
                out[key] = _remove(child, meta.sub.lookup(key), node[1], (*path, ("f", key)))
        return out or None
    items: list[Any] = []
    element = _element_meta(meta)
    for i, item in enumerate(value):
        pe = item_element(meta, item, i, path)
        node = trie.get(pe)
        if node is None:
            items.append(item)
        elif not node[0]:
            items.append(_remove(item, element, node[1], (*path, pe)))
    return items or None

