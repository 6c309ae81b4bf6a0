"""Field errors, as ``k8s.io/apimachinery/pkg/util/validation/field`` shapes them.

A ``FieldError`` is one problem with one field: its type (``Invalid value``,
``Required value``, ``Unsupported value``, ...), the field path
(``spec.containers[0].name``), the value at fault and a detail. It prints as
Kubernetes prints it (``spec.containers[0].name: Invalid value: "A": <detail>``)
and becomes one ``StatusCause`` (``reason`` ``FieldValueInvalid``, ``field``,
``message``) of a 422 Invalid error (``invalid_error``).

Values print as Go's ``ErrorBody`` prints them: strings quoted (``%q``), numbers
and booleans bare, anything else through ``go_value``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from volcano.apiserver.errors import ApiError
from volcano.apiserver.errors import invalid as invalid_api_error
from volcano.apiserver.gojson import json_category

__all__ = [
    "DUPLICATE",
    "FORBIDDEN",
    "INVALID",
    "NOT_SUPPORTED",
    "OMIT",
    "REQUIRED",
    "TOO_LONG",
    "TYPE_INVALID",
    "FieldError",
    "Shown",
    "diff_lines",
    "go_value",
    "invalid_error",
    "json_type_name",
]

INVALID = "FieldValueInvalid"
REQUIRED = "FieldValueRequired"
NOT_SUPPORTED = "FieldValueNotSupported"
DUPLICATE = "FieldValueDuplicate"
FORBIDDEN = "FieldValueForbidden"
TOO_LONG = "FieldValueTooLong"
TYPE_INVALID = "FieldValueTypeInvalid"

_TITLES = {
    INVALID: "Invalid value",
    REQUIRED: "Required value",
    NOT_SUPPORTED: "Unsupported value",
    DUPLICATE: "Duplicate value",
    FORBIDDEN: "Forbidden",
    TOO_LONG: "Too long",
    TYPE_INVALID: "Invalid value",
}
# Types whose body never shows the value (field.ErrorBody).
_NO_VALUE = frozenset({REQUIRED, FORBIDDEN, TOO_LONG})


class _Omit:
    """Marker: the error shows no value (Go's ``field.OmitValueType``)."""

    def __repr__(self) -> str:
        return "OMIT"


OMIT: Any = _Omit()
"""Pass as ``value`` when the message must not show one."""


@dataclass(frozen=True, slots=True)
class Shown:
    """A bad value given as the text Go would print for it (``map[string]string{...}``)."""

    text: str


def go_value(value: Any) -> str:
    """``value`` as Go's ``%v``/``%q`` shows it in a field error: strings quoted, numbers bare."""
    if type(value) is Shown:
        return value.text
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if value is None:
        return "null"
    if isinstance(value, Mapping):
        inner = ", ".join(f"{go_value(str(k))}:{go_value(v)}" for k, v in value.items())
        return "map[string]interface {}{" + inner + "}"
    if isinstance(value, list | tuple):
        return "[]interface {}{" + ", ".join(go_value(v) for v in value) + "}"
    return str(value)


_SCHEMA_TYPES = {"null": "null", "bool": "boolean", "int": "integer", "float": "number", "string": "string",
                 "map": "object", "list": "array"}


def json_type_name(value: Any) -> str:
    """The JSON type name of ``value`` as schema validators report it (``integer``, ``object``, ...)."""
    return _SCHEMA_TYPES.get(json_category(value)) or type(value).__name__


@dataclass(frozen=True, slots=True)
class FieldError:
    """One field error: ``type`` (a ``FieldValue*`` reason), ``field`` path, bad ``value``, ``detail``."""

    type: str
    field: str
    value: Any = OMIT
    detail: str = ""

    def body(self) -> str:
        """The message without the field path (Go's ``ErrorBody``; a StatusCause's message)."""
        title = _TITLES.get(self.type, self.type)
        if self.type in _NO_VALUE or self.value is OMIT:
            text = title
        else:
            text = f"{title}: {go_value(self.value)}"
        return f"{text}: {self.detail}" if self.detail else text

    def __str__(self) -> str:
        return f"{self.field}: {self.body()}"


def invalid(field: str, value: Any, detail: str) -> FieldError:
    """``field.Invalid``."""
    return FieldError(INVALID, field, value, detail)


def required(field: str, detail: str = "") -> FieldError:
    """``field.Required``."""
    return FieldError(REQUIRED, field, OMIT, detail)


def not_supported(field: str, value: Any, supported: Iterable[str]) -> FieldError:
    """``field.NotSupported``: ``Unsupported value: "x": supported values: "a", "b"``."""
    return FieldError(NOT_SUPPORTED, field, value, "supported values: " + ", ".join(go_value(v) for v in supported))


def duplicate(field: str, value: Any) -> FieldError:
    """``field.Duplicate``."""
    return FieldError(DUPLICATE, field, value)


def forbidden(field: str, detail: str) -> FieldError:
    """``field.Forbidden``."""
    return FieldError(FORBIDDEN, field, OMIT, detail)


def too_long(field: str, limit: int) -> FieldError:
    """``field.TooLong`` as kube-openapi words it for schema checks."""
    return FieldError(TOO_LONG, field, OMIT, f"may not be more than {limit} bytes")


def invalid_error(kind_key: str, name: str, errors: Iterable[FieldError | str]) -> ApiError:
    """422 Invalid: ``<Kind.group> "<name>" is invalid: <errors>``, one StatusCause per distinct error."""
    return invalid_api_error(kind_key, name, [str(e) for e in errors])


def diff_lines(old: Any, new: Any) -> list[str]:
    """The changed leaves of two canonical specs as an immutable-update error lists them:
    ``- \t<path>: <old>`` then ``+ \t<path>: <new>`` (a side that is absent is left out), maps by
    sorted key, lists of one length element by element; a quantity (``semantic``'s
    ``("quantity", milli)`` pair) shows in milli-units, anything else as Go prints it."""
    out: list[str] = []
    _diff(old, new, "", out)
    return out


def _diff(old: Any, new: Any, path: str, out: list[str]) -> None:
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(set(old) | set(new), key=str):
            _diff(old.get(key), new.get(key), f"{path}.{key}" if path else str(key), out)
    elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for i, (a, b) in enumerate(zip(old, new, strict=True)):
            _diff(a, b, f"{path}[{i}]", out)
    elif old != new:
        if old is not None:
            out.append(f"- \t{path}: {_shown(old)}")
        if new is not None:
            out.append(f"+ \t{path}: {_shown(new)}")


def _shown(value: Any) -> str:
    if isinstance(value, tuple) and len(value) == 2 and value[0] == "quantity":
        return f"{value[1]}m"
    return go_value(value)
