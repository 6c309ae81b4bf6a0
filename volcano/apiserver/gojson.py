"""JSON values the way Kubernetes' Go code renders and compares them.

Patch and apply error messages quote values with Go's ``fmt`` ``%v`` (``map[name:a]``, ``<nil>``),
``kubectl`` writes the last-applied annotation with Go's ``encoding/json`` (sorted keys, compact,
``<``/``>``/``&`` escaped, trailing newline), and Go's ``interface{}`` equality tells ``1`` from
``1.0`` and ``true`` from ``1``. These helpers reproduce exactly those three behaviours.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

__all__ = ["deep_equal", "go_json", "go_str", "json_category", "kind_of", "scalar_equal"]


def json_category(value: Any) -> str:
    """The JSON category of a decoded value: ``null``, ``bool``, ``int``, ``float``, ``string``,
    ``map``, ``list``, or ``other`` for anything JSON cannot hold. Every naming of JSON types (Go's,
    JSON Schema's, the YAML decoder's) is a table over these."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "map"
    if isinstance(value, list | tuple):
        return "list"
    return "other"


_GO_TYPES = {"null": "nil", "bool": "bool", "map": "map", "list": "slice", "string": "string", "int": "int64"}


def kind_of(value: Any, unify_numbers: bool = False) -> str:
    """The Go dynamic type of a decoded JSON value: ``map``, ``slice``, ``string``, ``bool``, ``nil``,
    ``int64``/``float64`` (both ``float64`` with ``unify_numbers``, as plain ``json.Unmarshal`` decodes)."""
    category = json_category(value)
    if category == "int" and unify_numbers:
        return "float64"
    return _GO_TYPES.get(category, "float64")


def scalar_equal(a: Any, b: Any, unify_numbers: bool = False) -> bool:
    """Go ``interface{}`` equality of two scalars (same dynamic type and value)."""
    return kind_of(a, unify_numbers) == kind_of(b, unify_numbers) and a == b


def deep_equal(a: Any, b: Any, unify_numbers: bool = False) -> bool:
    """Go ``reflect.DeepEqual`` of two decoded JSON values."""
    if isinstance(a, dict):
        if not isinstance(b, dict) or len(a) != len(b):
            return False
        return all(k in b and deep_equal(v, b[k], unify_numbers) for k, v in a.items())
    if isinstance(a, list):
        if not isinstance(b, list) or len(a) != len(b):
            return False
        return all(deep_equal(x, y, unify_numbers) for x, y in zip(a, b))
    return scalar_equal(a, b, unify_numbers)


def _go_float(value: float) -> str:
    if math.isfinite(value) and value == int(value) and abs(value) < 1e21:
        return str(int(value))
    text = repr(value)
    if "e" in text:
        mantissa, exp = text.split("e")
        sign = "-" if exp.startswith("-") else "+"
        text = f"{mantissa}e{sign}{exp.lstrip('+-').rjust(2, '0')}"
    return text


def go_str(value: Any) -> str:
    """``fmt.Sprintf("%v", value)`` of a decoded JSON value (maps print with sorted keys)."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "map[" + " ".join(f"{k}:{go_str(value[k])}" for k in sorted(value)) + "]"
    if isinstance(value, list):
        return "[" + " ".join(go_str(v) for v in value) + "]"
    if isinstance(value, float):
        return _go_float(value)
    return str(value)


_HTML = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"})
_ESCAPED = re.compile("[<>&\u2028\u2029]")
_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, check_circular=False)
"""``json.dumps``' encoder for ``go_json``, built once; without the circular-reference bookkeeping
(a value that nests too deeply, or contains itself, is encoded again with it: see ``go_json``)."""


def go_json(value: Any) -> str:
    """Go ``json.Marshal`` of a decoded JSON value: sorted keys, no spaces, HTML characters escaped."""
    try:
        text = _ENCODER.encode(value)
    except RecursionError:  # the error (and its kind) ``json.dumps`` itself gives: circular or too deep
        text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return text.translate(_HTML) if _ESCAPED.search(text) else text
