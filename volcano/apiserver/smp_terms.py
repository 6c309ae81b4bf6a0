"""Strategic merge patch's vocabulary, shared by ``smp``, ``smp_order`` and ``smp_diff``: the
directive keys, and ``SMPError`` with upstream's messages and the HTTP code the API server answers
for each (``mergepatch.Err*``: 400 for malformed directives, 422 for lists of lists, 500 otherwise).
"""

from __future__ import annotations

from typing import Any

from volcano.apiserver.gojson import go_str, kind_of

__all__ = [
    "BAD_JSON_DOC",
    "BAD_PRIMITIVE_LIST",
    "BAD_RETAIN_KEYS",
    "BAD_SET_ELEMENT_ORDER",
    "DELETE_FROM_PRIMITIVE_LIST",
    "DIRECTIVE",
    "NO_LIST_OF_LISTS",
    "RETAIN_KEYS",
    "SET_ELEMENT_ORDER",
    "SMPError",
    "bad_arg",
    "no_merge_key",
]

DIRECTIVE = "$patch"
RETAIN_KEYS = "$retainKeys"
DELETE_FROM_PRIMITIVE_LIST = "$deleteFromPrimitiveList"
SET_ELEMENT_ORDER = "$setElementOrder"


class SMPError(Exception):
    """A strategic merge patch failed; ``code`` is the HTTP status the API server answers."""

    def __init__(self, message: str, code: int = 500) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


BAD_JSON_DOC = "invalid JSON document"
NO_LIST_OF_LISTS = "lists of lists are not supported"
BAD_PRIMITIVE_LIST = "invalid patch format of primitive list"
BAD_RETAIN_KEYS = "invalid patch format of retainKeys"
BAD_SET_ELEMENT_ORDER = "invalid patch format of setElementOrder list"


def bad_arg(expected: str, actual: Any) -> SMPError:
    """Upstream's ``ErrBadArgType``."""
    actual_type = {"map": "map[string]interface {}", "slice": "[]interface {}", "nil": "<nil>"}.get(
        kind_of(actual), kind_of(actual))
    return SMPError(f"expected a {expected}, but received a {actual_type}")


def no_merge_key(item: dict[str, Any], key: str) -> SMPError:
    """Upstream's ``ErrNoMergeKey``."""
    return SMPError(f"map: {go_str(item)} does not contain declared merge key: {key}")
