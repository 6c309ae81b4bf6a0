"""JSON merge patch (RFC 7386) over Kubernetes-shaped objects.

``merge_patch(target, patch)`` returns a new plain value: mappings merge
recursively, ``None`` deletes a key, every other value (lists included)
replaces. Frozen inputs are never modified.
"""

from __future__ import annotations

from typing import Any

from volcano.api.frozen import thaw

__all__ = ["merge_into", "merge_patch"]


def merge_patch(target: Any, patch: Any) -> Any:
    """Apply the RFC 7386 merge ``patch`` to ``target``; return the result as plain containers."""
    if not isinstance(patch, dict):
        return thaw(patch)
    return merge_into(thaw(target) if isinstance(target, dict) else {}, patch)


def merge_into(out: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    """Apply the RFC 7386 merge ``patch`` (a mapping) to the mutable mapping ``out`` in place and
    return it: a null removes a key, a mapping merges into the value there (as ``merge_patch``),
    anything else replaces it (a plain copy); keys the patch does not name keep ``out``'s values."""
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        elif isinstance(value, dict):
            out[key] = merge_patch(out.get(key), value)
        else:
            out[key] = thaw(value)
    return out
