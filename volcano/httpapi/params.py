"""Query parameters and request options, read as kube-apiserver reads them.

A malformed value is a 400 ``BadRequest`` naming the parameter and the value.
``DeleteOptions`` come from the DELETE body and from the query (the body wins
where both are given, as kubectl sends them in the body).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from volcano.apiserver.deletion import check_delete_options
from volcano.apiserver.errors import bad_request

__all__ = ["DeleteOptions", "Query", "parse_query"]


def parse_query(raw: bytes) -> dict[str, str]:
    """The query string as a mapping (the first value of a repeated parameter wins)."""
    out: dict[str, str] = {}
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise bad_request("the query string is not valid UTF-8") from None
    for key, value in parse_qsl(text, keep_blank_values=True):
        out.setdefault(key, value)
    return out


class Query:
    """Typed access to a request's query parameters."""

    def __init__(self, values: Mapping[str, str]) -> None:
        self.values = values

    def get(self, name: str) -> str | None:
        """The raw value, or None when absent."""
        return self.values.get(name)

    def text(self, name: str) -> str | None:
        """The value, None when absent or empty."""
        value = self.values.get(name)
        return value or None

    def flag(self, name: str) -> bool:
        """A boolean parameter (``true``/``1``); anything else but ``false``/``0``/empty is 400."""
        value = self.values.get(name)
        if value is None or value in ("", "false", "False", "0"):
            return False
        if value in ("true", "True", "1"):
            return True
        raise bad_request(f"invalid value {value!r} for query parameter {name!r}: must be true or false")

    def integer(self, name: str, *, minimum: int = 0) -> int | None:
        """An integer parameter at least ``minimum``, None when absent or empty."""
        value = self.values.get(name)
        if value is None or value == "":
            return None
        try:
            number = int(value)
        except ValueError:
            raise bad_request(f"invalid value {value!r} for query parameter {name!r}: must be an integer") from None
        if number < minimum:
            raise bad_request(f"invalid value {value!r} for query parameter {name!r}: must be >= {minimum}")
        return number

    def dry_run(self) -> bool:
        """``dryRun=All`` (True), absent (False); any other value is 400 as on a real server."""
        value = self.values.get("dryRun")
        if value is None or value == "":
            return False
        if value == "All":
            return True
        raise bad_request(f'dryRun: Unsupported value: "{value}": supported values: "All"')


@dataclass(frozen=True, slots=True)
class DeleteOptions:
    """What a DELETE asks for: grace period, propagation, preconditions, dry run."""

    grace_period_seconds: int | None = None
    propagation_policy: str | None = None
    preconditions: dict[str, Any] | None = None
    dry_run: bool = False

    @classmethod
    def read(cls, query: Query, body: Any) -> DeleteOptions:
        """Options from the query and a ``DeleteOptions`` body (None when the body is empty)."""
        if body is not None and not isinstance(body, dict):
            raise bad_request(f"DeleteOptions must be a JSON object, got {type(body).__name__}")
        opts = body or {}
        grace = opts.get("gracePeriodSeconds", query.integer("gracePeriodSeconds"))
        if grace is not None and (isinstance(grace, bool) or not isinstance(grace, int)):
            raise bad_request(f"gracePeriodSeconds: invalid value {grace!r}: must be an integer")
        policy = opts.get("propagationPolicy", query.text("propagationPolicy"))
        orphan = opts.get("orphanDependents")
        if orphan is None and query.get("orphanDependents") is not None:
            orphan = query.flag("orphanDependents")
        check_delete_options(policy, orphan)
        if orphan is not None:
            policy = "Orphan" if orphan else "Background"
        pre = opts.get("preconditions")
        if pre is not None and not isinstance(pre, dict):
            raise bad_request(f"preconditions must be a JSON object, got {type(pre).__name__}")
        dry = opts.get("dryRun")
        if dry is not None:
            if dry != ["All"] and dry != []:
                raise bad_request(f'dryRun: Unsupported value: {dry!r}: supported values: "All"')
            dry_run = dry == ["All"]
        else:
            dry_run = query.dry_run()
        return cls(grace, policy, pre or None, dry_run)
