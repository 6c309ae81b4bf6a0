"""Loading Kubernetes manifests (YAML or JSON) into plain object dicts.

``load_manifests`` accepts what ``kubectl apply -f`` accepts: YAML text with
``---``-separated documents, a file, a directory (its ``*.yaml``, ``*.yml``
and ``*.json`` files, sorted by name, not recursive), or objects already in
memory (a dict or a list of dicts). Empty documents are skipped and a
``kind: List`` document is expanded into its ``items``.

Validation is structural only: each document must be a mapping with
``apiVersion``, ``kind`` (one this server serves) and ``metadata.name`` or
``metadata.generateName``. Anything else is the API server's business. Every
problem raises ``ManifestError`` naming the source, the 0-based document index
and the field.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import yaml

from volcano.api.frozen import thaw
from volcano.api.kinds import UnknownKindError, kind_for_object

__all__ = ["ManifestError", "load_manifests"]

_SUFFIXES = (".yaml", ".yml", ".json")


class ManifestError(ValueError):
    """A manifest is malformed.

    ``source`` names where it came from (a file path, ``<string>`` or
    ``<object>``), ``index`` is the 0-based document index within that source
    (``None`` when the source itself is unreadable), ``field`` the offending
    field (``None`` for syntax errors or non-mapping documents).
    """

    def __init__(self, source: str, index: int | None, field: str | None, problem: str) -> None:
        where = source if index is None else f"{source}: document {index} (0-based)"
        super().__init__(f"{where}: {problem}")
        self.source = source
        self.index = index
        self.field = field
        self.problem = problem


def _validate(doc: Any, source: str, index: int) -> dict[str, Any]:
    """Return a plain copy of ``doc`` after the structural checks."""
    if not isinstance(doc, Mapping):
        raise ManifestError(source, index, None,
                            f"expected a mapping (a Kubernetes object), got {type(doc).__name__}: {doc!r:.80}")
    for field in ("apiVersion", "kind"):
        value = doc.get(field)
        if value is None or value == "":
            raise ManifestError(source, index, field, f"missing field {field!r}")
        if not isinstance(value, str):
            raise ManifestError(source, index, field, f"field {field!r} must be a string, got {value!r}")
    meta = doc.get("metadata")
    if meta is None:
        raise ManifestError(source, index, "metadata", "missing field 'metadata'")
    if not isinstance(meta, Mapping):
        raise ManifestError(source, index, "metadata", f"field 'metadata' must be a mapping, got {meta!r:.80}")
    name, generate = meta.get("name"), meta.get("generateName")
    for field, value in (("metadata.name", name), ("metadata.generateName", generate)):
        if value is not None and not isinstance(value, str):
            raise ManifestError(source, index, field, f"field {field!r} must be a string, got {value!r}")
    if not name and not generate:
        raise ManifestError(source, index, "metadata.name",
                            "missing field 'metadata.name' (or 'metadata.generateName')")
    out: dict[str, Any] = thaw(doc)
    try:
        kind_for_object(out)
    except UnknownKindError as exc:
        raise ManifestError(source, index, "kind",
                            f"unknown kind {doc['kind']!r} in apiVersion {doc['apiVersion']!r}: {exc}") from None
    return out


def _expand(doc: Any, source: str, index: int) -> Iterator[dict[str, Any]]:
    """Validate ``doc``; a ``v1`` ``List`` yields its validated ``items`` instead."""
    if isinstance(doc, Mapping) and doc.get("kind") == "List" and doc.get("apiVersion") == "v1":
        items = doc.get("items")
        if items is None:
            items = []
        if not isinstance(items, list):
            raise ManifestError(source, index, "items", f"field 'items' of a List must be a list, got {items!r:.80}")
        for i, item in enumerate(items):
            try:
                yield _validate(item, source, index)
            except ManifestError as exc:
                field = f"items[{i}]" + (f".{exc.field}" if exc.field else "")
                raise ManifestError(source, index, field, f"items[{i}]: {exc.problem}") from None
        return
    yield _validate(doc, source, index)


def _yaml_documents(text: str, source: str) -> Iterator[tuple[int, Any]]:
    index = 0
    try:
        for doc in yaml.safe_load_all(text):
            if doc is not None:
                yield index, doc
            index += 1
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        problem = getattr(exc, "problem", None) or str(exc)
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        raise ManifestError(source, index, None, f"YAML syntax error{at}: {problem}") from None


def _json_documents(text: str, source: str) -> Iterator[tuple[int, Any]]:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ManifestError(source, 0, None,
                            f"JSON syntax error at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    if doc is not None:
        yield 0, doc


def _load_file(path: Path) -> list[dict[str, Any]]:
    source = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ManifestError(source, None, None, f"cannot read file: {exc}") from None
    docs = _json_documents(text, source) if path.suffix == ".json" else _yaml_documents(text, source)
    return [obj for index, doc in docs for obj in _expand(doc, source, index)]


def _load_path(path: Path) -> list[dict[str, Any]]:
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.is_file() and p.suffix in _SUFFIXES)
        return [obj for file in files for obj in _load_file(file)]
    if path.is_file():
        return _load_file(path)
    raise ManifestError(str(path), None, None, "no such file or directory")


def _looks_like_path(text: str) -> bool:
    if not text.strip() or "\n" in text or ": " in text:
        return False
    return text.endswith(_SUFFIXES) or Path(text).exists()


def load_manifests(source: str | Path | Mapping[str, Any] | list[Any]) -> list[dict[str, Any]]:
    """Load and structurally validate Kubernetes objects, in document order.

    ``source`` is YAML (or JSON) text, a ``pathlib.Path`` or a one-line string
    path to a file or directory, a dict, or a list of dicts. Returns plain,
    mutable dicts (never aliases of the input). Raises ``ManifestError``.
    """
    if isinstance(source, Path):
        return _load_path(source)
    if isinstance(source, str):
        if _looks_like_path(source):
            return _load_path(Path(source))
        return [obj for index, doc in _yaml_documents(source, "<string>") for obj in _expand(doc, "<string>", index)]
    if isinstance(source, Mapping):
        return list(_expand(source, "<object>", 0))
    if isinstance(source, list | tuple):
        return [obj for index, doc in enumerate(source) if doc is not None
                for obj in _expand(doc, "<list>", index)]
    raise ManifestError("<object>", None, None,
                        f"cannot load manifests from a {type(source).__name__}: expected YAML text, a path, "
                        "a dict or a list of dicts")
