"""JSON merge patch (RFC 7386) over Kubernetes-shaped objects.

``merge_patch(target, patch)`` returns a new plain value: mappings merge
recursively, ``None`` deletes a key, every other value (lists included)
replaces. Frozen inputs are never modified.
"""

from __future__ import annotations

from typing import Any

from volcano.api.frozen import thaw

__all__ = ["merge_patch"]


def merge_patch(target: Any, patch: Any) -> Any:
    """Apply the RFC 7386 merge ``patch`` to ``target``; return the result as plain containers."""
    if not isinstance(patch, dict):
        return thaw(patch)
    out: dict[str, Any] = thaw(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        elif isinstance(value, dict):
            out[key] = merge_patch(out.get(key), value)
        else:
            out[key] = thaw(value)
    return out
