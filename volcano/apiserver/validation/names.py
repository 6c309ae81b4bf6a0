"""Kubernetes name validation (``k8s.io/apimachinery/pkg/util/validation``) with its messages.

Each function returns the list of problems (empty when the value is valid),
worded as Kubernetes words them, because Volcano's webhooks print these lists
with Go's ``%v`` (``[a b]``, see ``go_list``).
"""

from __future__ import annotations

import re

__all__ = ["dns1123_label_errors", "dns1123_subdomain_errors", "go_list", "qualified_name_errors"]

_QUALIFIED_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_QUALIFIED_RE = re.compile(f"^{_QUALIFIED_NAME_FMT}$")
_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_LABEL_RE = re.compile(f"^{_LABEL_FMT}$")
_SUBDOMAIN_FMT = _LABEL_FMT + "(\\." + _LABEL_FMT + ")*"
_SUBDOMAIN_RE = re.compile(f"^{_SUBDOMAIN_FMT}$")


def _regex_error(msg: str, fmt: str, *examples: str) -> str:
    shown = " or ".join(f"'{e}'," for e in examples)
    return f"{msg} (e.g. {shown} regex used for validation is '{fmt}')"


def _max_len(length: int) -> str:
    return f"must be no more than {length} characters"


def go_list(items: list[str]) -> str:
    """A Go ``[]string`` printed with ``%v``: ``[a b]``."""
    return "[" + " ".join(items) + "]"


def dns1123_label_errors(value: str) -> list[str]:
    """Problems with ``value`` as an RFC 1123 label (at most 63 characters)."""
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
    if name and not _QUALIFIED_RE.match(name):
        errs.append("name part " + _regex_error(
            "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
            "alphanumeric character", _QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc"))
    return errs
