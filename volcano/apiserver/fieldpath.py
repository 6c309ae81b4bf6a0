"""Field paths and field sets, and their ``FieldsV1`` encoding in ``metadata.managedFields``.

A path names one field of an object: a tuple of path elements, each one of

* ``("f", name)``: a field of a map (``f:spec``);
* ``("k", ((key, value), ...))``: an item of a list-map, by its key fields sorted by name
  (``k:{"name":"nginx"}``);
* ``("v", value)``: an item of a set-list, by value (``v:"finalizer"``);
* ``("i", index)``: an item of a list by position (``i:0``).

A field set is a plain ``set`` of paths. ``to_fields_v1`` renders it as Kubernetes' ``FieldsV1``
trie (``{"f:spec": {"f:replicas": {}}}``, ``"."`` marking a node that is itself in the set),
elements sorted as structured-merge-diff sorts them; ``from_fields_v1`` parses it back;
``path_string`` renders a path as conflict messages print it (``.spec.containers[name="c"].image``).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable
from typing import Any

from volcano.apiserver.gojson import go_json

__all__ = [
    "FieldsV1Error",
    "Path",
    "PathElement",
    "ensure_named_fields",
    "from_fields_v1",
    "hashable",
    "iteration_key",
    "path_string",
    "restrict",
    "to_fields_v1",
]

PathElement = tuple[str, Any]
Path = tuple[PathElement, ...]


class FieldsV1Error(ValueError):
    """A ``fieldsV1`` value that does not parse."""


def _value_rank(value: Any) -> tuple[Any, ...]:
    """structured-merge-diff's total order of values: numbers < strings < bools < lists < maps < null."""
    if value is None:
        return (5,)
    if isinstance(value, bool):
        return (2, value)
    if isinstance(value, int | float):
        return (0, float(value))
    if isinstance(value, str):
        return (1, value)
    return (3, go_json(value))


@functools.lru_cache(maxsize=4096)
def _element_rank(pe: PathElement) -> tuple[Any, ...]:
    kind, body = pe
    if kind == "f":
        return (0, body)
    if kind == "k":
        return (1, tuple((name, _value_rank(value)) for name, value in body))
    if kind == "v":
        return (2, _value_rank(body))
    return (3, body)


def iteration_key(path: Path) -> tuple[tuple[int, tuple[Any, ...]], ...]:
    """The sort key that orders paths as structured-merge-diff's ``Set.Iterate`` visits them (the order
    of an apply conflict's paths): level by level, a set's members (paths ending at that level) before
    its children (longer paths), each by the element order ``to_fields_v1`` sorts by (so list-map keys
    compare as values: ``containerPort=8080`` before ``containerPort=10000``)."""
    last = len(path) - 1
    return tuple((0 if i == last else 1, _element_rank(pe)) for i, pe in enumerate(path))


@functools.lru_cache(maxsize=4096)
def _encode_element(pe: PathElement) -> str:
    kind, body = pe
    if kind == "f":
        return "f:" + body
    if kind == "k":
        return "k:" + go_json({name: _plain(value) for name, value in body})
    if kind == "v":
        return "v:" + go_json(_plain(body))
    return f"i:{body}"


@functools.lru_cache(maxsize=4096)
def _decode_element(text: str) -> PathElement:
    kind, sep, body = text.partition(":")
    if not sep or kind not in ("f", "k", "v", "i"):
        raise FieldsV1Error(f"unknown path element {text!r}")
    try:
        if kind == "f":
            return ("f", body)
        if kind == "i":
            return ("i", int(body))
        value = json.loads(body)
    except ValueError as exc:
        raise FieldsV1Error(f"bad path element {text!r}: {exc}") from None
    if kind == "v":
        return ("v", hashable(value))
    if not isinstance(value, dict):
        raise FieldsV1Error(f"key path element {text!r} is not an object")
    return ("k", tuple(sorted((name, hashable(v)) for name, v in value.items())))


class _Json(str):
    """A list or map used as a key value, kept hashable as its JSON text."""

    __slots__ = ()


def hashable(value: Any) -> Any:
    """``value`` as a set member: scalars as they are, lists and maps as their JSON text."""
    if isinstance(value, dict | list):
        return _Json(go_json(value))
    return value


def _plain(value: Any) -> Any:
    return json.loads(value) if isinstance(value, _Json) else value


def _trie(paths: Iterable[Path]) -> dict[PathElement, Any]:
    """Nested ``{pe: [member, children]}``."""
    root: dict[PathElement, Any] = {}
    for path in paths:
        level = root
        for i, pe in enumerate(path):
            node = level.get(pe)
            if node is None:
                node = level[pe] = [False, {}]
            if i == len(path) - 1:
                node[0] = True
            level = node[1]
    return root


def _emit(level: dict[PathElement, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for pe in sorted(level, key=_element_rank):
        member, children = level[pe]
        body: dict[str, Any] = {}
        if children:
            if member:
                body["."] = {}
            body.update(_emit(children))
        out[_encode_element(pe)] = body
    return out


def to_fields_v1(paths: Iterable[Path]) -> dict[str, Any]:
    """The ``fieldsV1`` trie of a field set (empty set: ``{}``)."""
    return _emit(_trie(paths))


def from_fields_v1(fields: Any) -> set[Path]:
    """The field set a ``fieldsV1`` trie encodes; ``FieldsV1Error`` when it is malformed."""
    if not isinstance(fields, dict):
        raise FieldsV1Error("fieldsV1 must be an object")
    out: set[Path] = set()

    def walk(node: dict[str, Any], prefix: Path) -> None:
        for text, child in node.items():
            if text == ".":
                if prefix:
                    out.add(prefix)
                continue
            if not isinstance(child, dict):
                raise FieldsV1Error(f"value of {text!r} must be an object")
            path = (*prefix, _decode_element(text))
            if not child:
                out.add(path)
            else:
                walk(child, path)

    walk(fields, ())
    return out


def _to_string(value: Any) -> str:
    value = _plain(value)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, int | float):
        return str(value)
    return go_json(value)


def path_string(path: Path) -> str:
    """A path as structured-merge-diff prints it: ``.spec.containers[name="c"].image``."""
    parts: list[str] = []
    for kind, body in path:
        if kind == "f":
            parts.append("." + body)
        elif kind == "k":
            parts.append("[" + ",".join(f"{name}={_to_string(value)}" for name, value in body) + "]")
        elif kind == "v":
            parts.append(f"[={_to_string(body)}]")
        else:
            parts.append(f"[{body}]")
    return "".join(parts)


def ensure_named_fields(paths: set[Path]) -> set[Path]:
    """``paths`` plus every field (``f:`` element) that has a descendant in it (upstream
    ``EnsureNamedFieldsAreMembers``: removing an owned struct removes it whole)."""
    out = set(paths)
    for path in paths:
        for end in range(1, len(path)):
            if path[end - 1][0] == "f":
                out.add(path[:end])
    return out


def restrict(paths: set[Path], prefix: PathElement, keep: bool) -> set[Path]:
    """The paths under ``prefix`` (``keep``) or all the others (not ``keep``)."""
    return {p for p in paths if (bool(p) and p[0] == prefix) == keep}
