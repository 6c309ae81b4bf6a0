"""The JSONPath subset ``kubectl wait --for=jsonpath=...`` is used with, as pure functions.

``parse_wait_jsonpath("{.status.phase}=Running")`` splits kubectl's argument into the
expression and the expected value (None when only presence is asked for, as in
``--for=jsonpath='{.status.readyReplicas}'``); the braces are optional, as kubectl adds them.
``find(obj, expr)`` returns every value the expression selects, in document order.
``wait_check(jsonpath=... | condition=... | delete=True)`` is one ``--for=`` condition as a
function of the object: ``obj -> (met, what was seen)``.

Supported steps: ``.field``, ``['field']``, ``[n]`` (negative counts from the end), ``[*]``
and ``.*``, and filters ``[?(@.path)]``, ``[?(@.path=="v")]``, ``[?(@.path!="v")]`` (the
literal quoted, or a number, ``true``, ``false``), enough for the paths the Kubernetes and
Volcano documentation wait on, such as ``{.status.conditions[?(@.type=="Ready")].status}``.
Anything else is a ``JsonPathError`` naming the expression and the position.

``text(value)`` renders a selected value as kubectl prints it for comparison: strings as
they are, booleans ``true``/``false``, numbers without a trailing ``.0``, objects and lists as
compact JSON.

>>> parse_wait_jsonpath("{.status.state.phase}=Running")
('{.status.state.phase}', 'Running')
>>> find({"status": {"conditions": [{"type": "Ready", "status": "True"}]}},
...      '{.status.conditions[?(@.type=="Ready")].status}')
['True']
>>> text(3.0), text(True)
('3', 'true')
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["JsonPathError", "find", "parse_wait_jsonpath", "text", "wait_check"]


class JsonPathError(ValueError):
    """The expression is outside the supported subset, or malformed."""


_NAME = re.compile(r"[A-Za-z_$][\w\-$]*")
_FILTER = re.compile(r"""\?\(@((?:\.[\w\-$]+)*)\s*(?:(==|!=)\s*('[^']*'|"[^"]*"|-?\d+(?:\.\d+)?|true|false))?\s*\)""")


def parse_wait_jsonpath(arg: str) -> tuple[str, str | None]:
    """``(expression, expected value or None)`` from kubectl's ``--for=jsonpath=`` argument."""
    if not isinstance(arg, str) or not arg.strip():
        raise JsonPathError(f"jsonpath: expected '{{.path}}=value' or '{{.path}}', got {arg!r}")
    arg = arg.strip()
    depth = 0
    for i, ch in enumerate(arg):
        if ch in "{[(":
            depth += 1
        elif ch in "}])":
            depth -= 1
        elif ch == "=" and depth == 0:
            expr, value = arg[:i], arg[i + 1:]
            _steps(expr)
            return expr, value
    _steps(arg)
    return arg, None


def _strip(expr: str) -> str:
    expr = expr.strip()
    if expr.startswith("{") and expr.endswith("}"):
        expr = expr[1:-1].strip()
    if not expr.startswith((".", "[")):
        expr = "." + expr
    return expr


def _steps(expr: str) -> list[tuple[str, Any]]:
    """The expression as ``(op, arg)`` steps: ``field``, ``index``, ``all``, ``filter``."""
    body, i = _strip(expr), 0
    out: list[tuple[str, Any]] = []
    while i < len(body):
        if body.startswith(".*", i):
            out.append(("all", None))
            i += 2
        elif body[i] == ".":
            match = _NAME.match(body, i + 1)
            if match is None:
                raise JsonPathError(f"jsonpath {expr!r}: expected a field name at position {i + 1}")
            out.append(("field", match.group()))
            i = match.end()
        elif body[i] == "[":
            end = body.find("]", i)
            if end < 0:
                raise JsonPathError(f"jsonpath {expr!r}: unclosed '[' at position {i}")
            if body[i + 1:i + 2] == "?":
                end = body.find(")]", i)
                match = _FILTER.fullmatch(body, i + 1, end + 1) if end >= 0 else None
                if match is None:
                    raise JsonPathError(f"jsonpath {expr!r}: unsupported filter at position {i}")
                out.append(("filter", (match.group(1), match.group(2), match.group(3))))
                i = end + 2
                continue
            out.append(_bracket(expr, body[i + 1:end], i))
            i = end + 1
        else:
            raise JsonPathError(f"jsonpath {expr!r}: unexpected {body[i]!r} at position {i}")
    return out


def _bracket(expr: str, inner: str, at: int) -> tuple[str, Any]:
    inner = inner.strip()
    if inner == "*":
        return ("all", None)
    if len(inner) >= 2 and inner[0] == inner[-1] and inner[0] in "'\"":
        return ("field", inner[1:-1])
    if re.fullmatch(r"-?\d+", inner):
        return ("index", int(inner))
    raise JsonPathError(f"jsonpath {expr!r}: unsupported subscript [{inner}] at position {at}")


def _literal(token: str) -> Any:
    if token[0] in "'\"":
        return token[1:-1]
    if token in ("true", "false"):
        return token == "true"
    return float(token) if "." in token else int(token)


def _get_path(obj: Any, path: str) -> tuple[bool, Any]:
    for name in [p for p in path.split(".") if p]:
        if not isinstance(obj, dict) or name not in obj:
            return False, None
        obj = obj[name]
    return True, obj


def _keep(item: Any, flt: tuple[str, str | None, str | None]) -> bool:
    path, op, token = flt
    present, value = _get_path(item, path)
    if op is None or token is None:
        return present and value is not None
    same = present and _equal(value, _literal(token))
    return same if op == "==" else not same


def _equal(value: Any, literal: Any) -> bool:
    if isinstance(literal, bool) or isinstance(value, bool):
        return value is literal
    return bool(value == literal)


def _step(values: list[Any], op: str, arg: Any) -> list[Any]:
    out: list[Any] = []
    for value in values:
        if op == "field":
            if isinstance(value, dict) and arg in value:
                out.append(value[arg])
        elif op == "index":
            if isinstance(value, list) and -len(value) <= arg < len(value):
                out.append(value[arg])
        elif op == "all":
            out.extend(value.values() if isinstance(value, dict) else value if isinstance(value, list) else ())
        elif isinstance(value, list):
            out.extend(item for item in value if _keep(item, arg))
    return out


def find(obj: Any, expr: str) -> list[Any]:
    """Every value ``expr`` selects in ``obj`` (an empty list when the path is absent)."""
    values = [obj]
    for op, arg in _steps(expr):
        values = _step(values, op, arg)
    return values


def text(value: Any) -> str:
    """``value`` as kubectl renders it when comparing with ``--for=jsonpath=...=value``."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, int | float) or value is None:
        return json.dumps(value)
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def wait_check(*, jsonpath: str | None = None, condition: str | None = None,
               delete: bool = False) -> Callable[[Mapping[str, Any]], tuple[bool, str]]:
    """``obj -> (met, what was seen)`` for one ``kubectl wait --for=`` condition: ``jsonpath``
    (``{.path}=value``, or ``{.path}`` for presence), ``condition`` (``Type`` or ``Type=Status``,
    the type compared case-insensitively) or ``delete`` (never met while the object exists).
    ``ValueError`` unless exactly one is given, or when the path selects more than one value."""
    if sum((jsonpath is not None, condition is not None, bool(delete))) != 1:
        raise ValueError("give exactly one of jsonpath=, condition= or delete=True")
    if delete:
        return lambda obj: (False, "the object still exists")
    if jsonpath is not None:
        expr, want = parse_wait_jsonpath(jsonpath_arg := jsonpath)

        def by_path(obj: Mapping[str, Any]) -> tuple[bool, str]:
            found = find(obj, expr)
            if len(found) > 1:
                raise ValueError(f"jsonpath {jsonpath_arg!r} matches more than one value: {found!r}")
            if not found:
                return False, f"{expr} absent"
            got = text(found[0])
            return (want is None or got == want), f"{expr}={got}"
        return by_path
    assert condition is not None
    ctype, _, cstatus = condition.partition("=")
    if not ctype:
        raise ValueError(f"condition must be 'Type' or 'Type=Status', got {condition!r}")
    cstatus = cstatus or "True"

    def by_condition(obj: Mapping[str, Any]) -> tuple[bool, str]:
        conds = [c for c in ((obj.get("status") or {}).get("conditions") or [])
                 if str(c.get("type", "")).lower() == ctype.lower()]
        if not conds:
            return False, f"no condition {ctype}"
        got = str(conds[-1].get("status"))
        return got == cstatus, f"condition {ctype}={got}"
    return by_condition
