"""Fast deep copies for the store's write path.

``frozen_copy`` is ``volcano.api.frozen.freeze`` and ``plain_copy`` is
``thaw``, specialised for the JSON-like values the store handles: scalars are
shared without a function call, already-frozen containers are shared by
``frozen_copy``. Results are equal to what ``freeze``/``thaw`` return.
"""

from __future__ import annotations

from typing import Any

from volcano.api.frozen import FrozenDict, FrozenList, freeze, thaw

__all__ = ["frozen_copy", "plain_copy"]

_SCALARS = frozenset({str, int, float, bool, type(None)})


def frozen_copy(value: Any) -> Any:
    """A deep, read-only copy of ``value`` (frozen parts are shared, not copied)."""
    t = type(value)
    if t is dict:
        return FrozenDict({k: (v if type(v) in _SCALARS else frozen_copy(v)) for k, v in value.items()})
    if t is list:
        return FrozenList([v if type(v) in _SCALARS else frozen_copy(v) for v in value])
    if t is FrozenDict or t is FrozenList or t in _SCALARS:
        return value
    return freeze(value)


def plain_copy(value: Any) -> Any:
    """A deep, plain, mutable copy of ``value``."""
    t = type(value)
    if t is dict or t is FrozenDict:
        return {k: (v if type(v) in _SCALARS else plain_copy(v)) for k, v in value.items()}
    if t is list or t is FrozenList:
        return [v if type(v) in _SCALARS else plain_copy(v) for v in value]
    if t in _SCALARS:
        return value
    return thaw(value)
