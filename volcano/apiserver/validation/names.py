"""Kubernetes name validation (``k8s.io/apimachinery/pkg/util/validation``) with its messages.

Each function returns the list of problems (empty when the value is valid),
worded as Kubernetes words them, because Volcano's webhooks print these lists
with Go's ``%v`` (``[a b]``, see ``go_list``).

Each text's answer is computed once (names, label keys and values repeat across objects);
every call returns a fresh list.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from volcano.apiserver.validation.field import OMIT, TOO_LONG, FieldError, invalid

__all__ = [
    "annotations_errors",
    "dns1123_label_errors",
    "dns1123_subdomain_errors",
    "go_list",
    "label_value_errors",
    "labels_errors",
    "qualified_name_errors",
]

_QUALIFIED_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_QUALIFIED_RE = re.compile(f"^{_QUALIFIED_NAME_FMT}$")
_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_LABEL_RE = re.compile(f"^{_LABEL_FMT}$")
_SUBDOMAIN_FMT = _LABEL_FMT + "(\\." + _LABEL_FMT + ")*"
_SUBDOMAIN_RE = re.compile(f"^{_SUBDOMAIN_FMT}$")


def _regex_error(msg: str, fmt: str, *examples: str) -> str:
    """apimachinery's ``RegexError``: each example is followed by ``", "`` and joined with ``" or "``,
    so two examples read ``'a',  or 'b', `` (two spaces)."""
    shown = "".join((" or " if i else "") + f"'{e}', " for i, e in enumerate(examples))
    return f"{msg} (e.g. {shown}regex used for validation is '{fmt}')"


def _max_len(length: int) -> str:
    return f"must be no more than {length} characters"


def go_list(items: list[str]) -> str:
    """A Go ``[]string`` printed with ``%v``: ``[a b]``."""
    return "[" + " ".join(items) + "]"


def dns1123_label_errors(value: str) -> list[str]:
    """Problems with ``value`` as an RFC 1123 label (at most 63 characters)."""
    return list(_dns1123_label_errors(value)) if type(value) is str else _dns1123_label_errors_uncached(value)


@lru_cache(maxsize=8192)
def _dns1123_label_errors(value: str) -> tuple[str, ...]:
    return tuple(_dns1123_label_errors_uncached(value))


def _dns1123_label_errors_uncached(value: str) -> list[str]:
    errs = []
    if len(value) > 63:
        errs.append(_max_len(63))
    if not _LABEL_RE.match(value):
        errs.append(_regex_error("a lowercase RFC 1123 label must consist of lower case alphanumeric characters "
                                 "or '-', and must start and end with an alphanumeric character",
                                 _LABEL_FMT, "my-name", "123-abc"))
    return errs


def dns1123_subdomain_errors(value: str) -> list[str]:
    """Problems with ``value`` as an RFC 1123 subdomain (at most 253 characters)."""
    return list(_dns1123_subdomain_errors(value)) if type(value) is str else _dns1123_subdomain_errors_uncached(value)


@lru_cache(maxsize=8192)
def _dns1123_subdomain_errors(value: str) -> tuple[str, ...]:
    return tuple(_dns1123_subdomain_errors_uncached(value))


def _dns1123_subdomain_errors_uncached(value: str) -> list[str]:
    errs = []
    if len(value) > 253:
        errs.append(_max_len(253))
    if not _SUBDOMAIN_RE.match(value):
        errs.append(_regex_error("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
                                 "characters, '-' or '.', and must start and end with an alphanumeric character",
                                 _SUBDOMAIN_FMT, "example.com"))
    return errs


def qualified_name_errors(value: str) -> list[str]:
    """Problems with ``value`` as a qualified name (``[prefix/]name``, name part at most 63 characters)."""
    return list(_qualified_name_errors(value)) if type(value) is str else _qualified_name_errors_uncached(value)


@lru_cache(maxsize=8192)
def _qualified_name_errors(value: str) -> tuple[str, ...]:
    return tuple(_qualified_name_errors_uncached(value))


def _qualified_name_errors_uncached(value: str) -> list[str]:
    errs: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            errs.extend("prefix part " + e for e in dns1123_subdomain_errors(prefix))
    else:
        return ["a qualified name " + _regex_error(
            "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
            "alphanumeric character", _QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"]
    if not name:
        errs.append("name part must be non-empty")
    elif len(name) > 63:
        errs.append("name part " + _max_len(63))
    if not _QUALIFIED_RE.match(name):  # an empty name part fails the pattern too, as in Go
        errs.append("name part " + _regex_error(
            "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
            "alphanumeric character", _QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc"))
    return errs


_LABEL_VALUE_FMT = "(" + _QUALIFIED_NAME_FMT + ")?"
_LABEL_VALUE_RE = re.compile(f"^{_LABEL_VALUE_FMT}$")
_ANNOTATIONS_LIMIT = 256 * 1024


def label_value_errors(value: str) -> list[str]:
    """Problems with ``value`` as a label value (empty, or at most 63 characters of a qualified name part)."""
    return list(_label_value_errors(value)) if type(value) is str else _label_value_errors_uncached(value)


@lru_cache(maxsize=8192)
def _label_value_errors(value: str) -> tuple[str, ...]:
    return tuple(_label_value_errors_uncached(value))


def _label_value_errors_uncached(value: str) -> list[str]:
    errs = []
    if len(value) > 63:
        errs.append(_max_len(63))
    if not _LABEL_VALUE_RE.match(value):
        errs.append(_regex_error("a valid label must be an empty string or consist of alphanumeric characters, "
                                 "'-', '_' or '.', and must start and end with an alphanumeric character",
                                 _LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return errs


def _clean_labels(labels: Mapping[Any, Any]) -> bool:
    """Whether every key of ``labels`` is a ``str`` qualified name and every value a ``str`` label value
    (the remembered answers; anything else, a subclass of ``str`` included, is "not proven")."""
    for key, value in labels.items():
        if type(key) is not str or type(value) is not str or _qualified_name_errors(key) \
                or _label_value_errors(value):
            return False
    return True


def labels_errors(labels: Any, path: str) -> list[FieldError]:
    """``ValidateLabels``: every key a qualified name, every value a label value (errors name ``path``)."""
    if not labels or not isinstance(labels, Mapping):
        return []
    if _clean_labels(labels):
        return []
    errs: list[FieldError] = []
    for key in sorted(labels, key=str):
        errs.extend(invalid(path, key, e) for e in qualified_name_errors(str(key)))
        value = labels[key]
        if isinstance(value, str):
            errs.extend(invalid(path, value, e) for e in label_value_errors(value))
    return errs


def annotations_errors(annotations: Any, path: str) -> list[FieldError]:
    """``ValidateAnnotations``: keys are qualified names (checked lower-cased), at most 256 KiB in total."""
    if not annotations or not isinstance(annotations, Mapping):
        return []
    total = 0
    for key, value in annotations.items():  # the usual case first: str keys that pass, str values
        if type(key) is not str or type(value) is not str or _qualified_name_errors(key.lower()):
            break
        total += len(key) + len(value)
    else:
        if total <= _ANNOTATIONS_LIMIT:
            return []
    errs: list[FieldError] = []
    total = 0
    for key in sorted(annotations, key=str):
        errs.extend(invalid(path, key, e) for e in qualified_name_errors(str(key).lower()))
        total += len(str(key)) + len(str(annotations[key]))
    if total > _ANNOTATIONS_LIMIT:
        errs.append(FieldError(TOO_LONG, path, OMIT, f"must have at most {_ANNOTATIONS_LIMIT} bytes"))
    return errs
