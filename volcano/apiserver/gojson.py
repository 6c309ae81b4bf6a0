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

__all__ = ["deep_equal", "go_json", "go_json_float", "go_str", "json_category", "kind_of", "scalar_equal"]


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


def _shortest_digits(value: float) -> tuple[str, int]:
    """The shortest round-trip decimal digits of ``abs(value)`` and the decimal point's position:
    ``abs(value) == 0.<digits> * 10**point`` (``("", 0)`` for zero). Python's ``repr`` and Go's
    ``strconv`` both pick the shortest digits that read back as the same float64, so the digits agree."""
    mantissa, _, exponent = repr(abs(value)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    combined = whole + fraction
    digits = combined.lstrip("0")
    point = len(whole) + int(exponent or 0) - (len(combined) - len(digits))
    digits = digits.rstrip("0")
    return digits, point if digits else 0


def _fixed(digits: str, point: int) -> str:
    """strconv ``'f'`` with the shortest precision: every digit, no exponent."""
    whole = digits[:point].ljust(point, "0") if point > 0 else "0"
    fraction = "0" * max(-point, 0) + digits[max(point, 0):]
    return whole + ("." + fraction if fraction else "")


def _scientific(digits: str, point: int) -> str:
    """strconv ``'e'`` with the shortest precision: ``d.ddde±XX``, the exponent at least two digits."""
    exponent = point - 1 if digits else 0
    head = (digits or "0")[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return f"{head}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"


def _go_float(value: float) -> str:
    """``fmt`` ``%v`` of a float64: strconv ``'g'`` with the shortest digits, which switches to the
    exponent form when the decimal exponent is below -4 or at least 6 (``1e+06``, ``1e-05``, ``0.0001``)."""
    if not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("+Inf" if value > 0 else "-Inf")
    digits, point = _shortest_digits(value)
    sign = "-" if math.copysign(1.0, value) < 0 else ""
    exponent = point - 1
    if digits and (exponent < -4 or exponent >= 6):
        return sign + _scientific(digits, point)
    return sign + _fixed(digits, point)


def go_json_float(value: float) -> str:
    """Go ``encoding/json``'s rendering of a float64 (ES6 number-to-string): strconv ``'f'`` when the
    magnitude is zero or in [1e-6, 1e21), ``'e'`` otherwise with a one-digit negative exponent left
    unpadded (``1e-7``, ``1.5e-10``, ``1e+21``); ``1.0`` is ``1``, ``-0.0`` is ``-0``. Go refuses
    NaN and infinities; here they keep Python's ``NaN``/``Infinity`` spelling (the caller's value
    came from Python's JSON decoder, the only source of them)."""
    if not math.isfinite(value):
        return json.dumps(value)
    digits, point = _shortest_digits(value)
    sign = "-" if math.copysign(1.0, value) < 0 else ""
    magnitude = abs(value)
    if magnitude != 0 and (magnitude < 1e-6 or magnitude >= 1e21):
        text = _scientific(digits, point)
        if text[-4:-1] == "e-0":
            text = text[:-2] + text[-1]
        return sign + text
    return sign + _fixed(digits, point)


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


_FLOAT_HINT = re.compile(r"[0-9][.e]")
"""Every float ``json.dumps`` writes has a digit before a ``.`` or an ``e`` (``1.5``, ``1e-07``); a
text without one holds no float, so only texts with one are checked for floats to re-render."""


def _has_float(value: Any) -> bool:
    if isinstance(value, float):
        return True
    if isinstance(value, dict):
        return any(_has_float(item) for item in value.values())
    if isinstance(value, list | tuple):
        return any(_has_float(item) for item in value)
    return False


def _key_text(key: Any) -> str:
    """A map key as ``json.dumps`` turns it into a string (decoded JSON only ever has strings)."""
    if isinstance(key, str):
        return key
    if isinstance(key, float):
        return go_json_float(key)
    return _ENCODER.encode(key)


def _go_json_floats(value: Any) -> str:
    """``go_json`` for a value holding floats: the same text with every float in Go's spelling."""
    if isinstance(value, float):
        return go_json_float(value)
    if isinstance(value, dict):
        return "{" + ",".join(_ENCODER.encode(_key_text(key)) + ":" + _go_json_floats(item)
                              for key, item in sorted(value.items())) + "}"
    if isinstance(value, list | tuple):
        return "[" + ",".join(_go_json_floats(item) for item in value) + "]"
    return _ENCODER.encode(value)


def go_json(value: Any) -> str:
    """Go ``json.Marshal`` of a decoded JSON value: sorted keys, no spaces, HTML characters escaped,
    floats as Go writes them (``go_json_float``: ``1`` for ``1.0``, ``1e-7``, ``100000000000000000000``)."""
    try:
        text = _ENCODER.encode(value)
    except RecursionError:  # the error (and its kind) ``json.dumps`` itself gives: circular or too deep
        text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    if _FLOAT_HINT.search(text) and _has_float(value):
        text = _go_json_floats(value)
    return text.translate(_HTML) if _ESCAPED.search(text) else text
