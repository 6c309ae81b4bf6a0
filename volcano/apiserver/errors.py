"""API errors, shaped like Kubernetes' ``metav1.Status``.

One exception type, ``ApiError``, carries the HTTP ``code`` and the Status
``reason`` exactly as a real API server reports them, so callers (and a
future HTTP facade) can branch on them the same way kubectl does.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "CONFLICT_MESSAGE",
    "ApiError",
    "already_exists",
    "bad_request",
    "conflict",
    "forbidden",
    "gone",
    "invalid",
    "not_found",
    "status_cause",
    "too_many_requests",
]


CONFLICT_MESSAGE = "the object has been modified; please apply your changes to the latest version and try again"
"""Kubernetes' message for a stale resourceVersion."""


class ApiError(Exception):
    """An API request failed. ``code`` is the HTTP status, ``reason`` the Status reason."""

    def __init__(self, code: int, reason: str, message: str, details: dict[str, Any] | None = None, *,
                 empty_details: bool = False) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.details = details or {}
        self.empty_details = empty_details

    def status(self) -> dict[str, Any]:
        """The error as a ``metav1.Status`` object, its fields in Go's order (``details`` before
        ``code``). ``details`` is left out when empty, unless ``empty_details`` says the server sends
        an empty one (``NewGenericServerResponse`` always fills the pointer: ``"details":{}``)."""
        out: dict[str, Any] = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                               "message": self.message, "reason": self.reason}
        if self.details or self.empty_details:
            out["details"] = dict(self.details)
        out["code"] = self.code
        return out

    def __repr__(self) -> str:
        return f"ApiError({self.code}, {self.reason!r}, {self.message!r})"


def _what(resource: str, name: str) -> dict[str, Any]:
    """``StatusDetails`` of an error about ``resource`` (``deployments.apps``, ``Job.batch.volcano.sh``,
    ``pods``) ``name``: the name, the group when there is one, and the resource or kind without it, as
    Kubernetes' ``NewNotFound``/``NewInvalid``/... fill them from the qualified resource or kind."""
    kind, _, group = resource.partition(".")
    return {"name": name, "group": group, "kind": kind} if group else {"name": name, "kind": kind}


def not_found(resource: str, name: str) -> ApiError:
    """404 NotFound: ``pods "x" not found``."""
    return ApiError(404, "NotFound", f'{resource} "{name}" not found', _what(resource, name))


def already_exists(resource: str, name: str) -> ApiError:
    """409 AlreadyExists: ``pods "x" already exists``."""
    return ApiError(409, "AlreadyExists", f'{resource} "{name}" already exists', _what(resource, name))


def conflict(resource: str, name: str, why: str) -> ApiError:
    """409 Conflict: ``Operation cannot be fulfilled on pods "x": <why>``."""
    return ApiError(409, "Conflict", f'Operation cannot be fulfilled on {resource} "{name}": {why}',
                    _what(resource, name))


_CAUSE_TITLES = (("Invalid value", "FieldValueInvalid"), ("Required value", "FieldValueRequired"),
                 ("Unsupported value", "FieldValueNotSupported"), ("Duplicate value", "FieldValueDuplicate"),
                 ("Forbidden", "FieldValueForbidden"), ("Too long", "FieldValueTooLong"),
                 ("Not found", "FieldValueNotFound"), ("Too many", "FieldValueTooMany"))


def status_cause(text: str) -> dict[str, str]:
    """A ``metav1.StatusCause`` from a field error printed as ``<field>: <Title>[: <detail>]``: ``reason``
    from the title (``FieldValueInvalid``, ...), ``field`` and ``message`` (the text after the field)."""
    for title, reason in _CAUSE_TITLES:
        marker = f": {title}"
        at = text.find(marker)
        end = at + len(marker)
        if at > 0 and (end == len(text) or text[end] == ":"):
            return {"reason": reason, "message": text[at + 2:], "field": text[:at]}
    return {"reason": "FieldValueInvalid", "message": text}


def invalid(kind: str, name: str, causes: list[str]) -> ApiError:
    """422 Invalid: ``Job.batch.volcano.sh "x" is invalid: <causes>``, one StatusCause per cause (each
    ``<field>: <body>``; repeated causes are reported once, as Kubernetes' error aggregate does)."""
    unique = list(dict.fromkeys(causes))
    # Kubernetes' field.ErrorList aggregate: one cause alone, several as "[a, b]".
    msg = f'{kind} "{name}" is invalid: ' + (unique[0] if len(unique) == 1 else "[" + ", ".join(unique) + "]")
    return ApiError(422, "Invalid", msg, {**_what(kind, name), "causes": [status_cause(c) for c in unique]})


def forbidden(resource: str, name: str, why: str) -> ApiError:
    """403 Forbidden."""
    return ApiError(403, "Forbidden", f'{resource} "{name}" is forbidden: {why}', _what(resource, name))


def gone(message: str) -> ApiError:
    """410 Expired: a watch's resourceVersion is too old (``too old resource version``), reported with
    reason ``Expired`` as kube-apiserver's watch cache reports it (``NewResourceExpired``)."""
    return ApiError(410, "Expired", message)


def bad_request(message: str) -> ApiError:
    """400 BadRequest."""
    return ApiError(400, "BadRequest", message)


def too_many_requests(message: str) -> ApiError:
    """429 TooManyRequests (an eviction blocked by a disruption budget)."""
    return ApiError(429, "TooManyRequests", message)
