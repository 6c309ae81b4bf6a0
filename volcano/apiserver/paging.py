"""Chunked lists: ``limit`` and ``continue`` as kube-apiserver answers them.

A page holds at most ``limit`` objects in (namespace, name) order. When more
remain, the list's metadata carries ``continue`` (an opaque token naming the
resourceVersion of the first page and the last key returned) and
``remainingItemCount`` (omitted when a selector filters the list, as on a real
server). Every page reports the first page's resourceVersion.

Deliberate difference: a real server serves every page from the snapshot of
the first one (etcd keeps history); this store has none, so a later page shows
the objects as they are when it is requested, still in key order after the
last key returned. A malformed token is 400 BadRequest.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterable
from typing import Any

from volcano.apiserver.errors import bad_request

__all__ = ["Page", "decode_continue", "encode_continue", "paginate"]


def encode_continue(resource_version: int, last_key: tuple[str, str]) -> str:
    """The ``continue`` token for the page after ``last_key`` of a list served at ``resource_version``."""
    raw = json.dumps({"v": "meta.k8s.io/v1", "rv": resource_version, "start": list(last_key)},
                     separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode_continue(token: str) -> tuple[int, tuple[str, str]]:
    """``(resourceVersion, last key)`` of a ``continue`` token; 400 when it is not one of ours."""
    try:
        padded = token + "=" * (-len(token) % 4)
        data = json.loads(base64.urlsafe_b64decode(padded.encode()))
        rv, start = data["rv"], data["start"]
        if data.get("v") != "meta.k8s.io/v1" or not isinstance(rv, int) or rv < 0 or not isinstance(start, list) \
                or len(start) != 2 or not all(isinstance(s, str) for s in start):
            raise ValueError(token)
    except (ValueError, KeyError, TypeError, binascii.Error, UnicodeDecodeError):
        raise bad_request(f"continue key is not valid: {token!r}") from None
    return rv, (start[0], start[1])


class Page:
    """One page of a list: its items and what the list metadata should say."""

    __slots__ = ("items", "metadata")

    def __init__(self, items: list[Any], metadata: dict[str, Any]) -> None:
        self.items = items
        self.metadata = metadata


def paginate(objects: Iterable[Any], resource_version: int, *, limit: int | None, continue_: str | None,
             filtered: bool) -> Page:
    """The page of ``objects`` (sorted by namespace, name) that ``limit`` and ``continue_`` select.

    ``filtered`` says a selector was applied (then ``remainingItemCount`` is not reported)."""
    start: tuple[str, str] | None = None
    rv = resource_version
    if continue_:
        rv, start = decode_continue(continue_)
    items: list[Any] = []
    remaining = 0
    last: tuple[str, str] | None = None
    for obj in objects:
        meta = obj["metadata"]
        key = (meta.get("namespace", ""), meta["name"])
        if start is not None and key <= start:
            continue
        if limit and len(items) >= limit:
            remaining += 1
            continue
        items.append(obj)
        last = key
    metadata: dict[str, Any] = {"resourceVersion": str(rv)}
    if remaining and last is not None:
        metadata["continue"] = encode_continue(rv, last)
        if not filtered:
            metadata["remainingItemCount"] = remaining
    return Page(items, metadata)
