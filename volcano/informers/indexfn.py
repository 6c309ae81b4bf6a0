"""Index functions that tell, in O(1), when an update cannot move an object in their index.

Most watch events are status writes: the API server replaces the object but shares every
unchanged part (``spec``, ``metadata``'s ``labels``, ``ownerReferences``...) with the version
before it, by identity. An index function that reads only such parts gets the same inputs for
both versions, so its values cannot change; ``Informer._reindex`` then leaves the index as it
is without calling the function twice. ``GuardedIndex`` pairs an index function with that test
(``unchanged(old, new)``); the test must imply that ``fn(new)`` equals ``fn(old)`` and that
neither call raises (so skipping them skips no ``UnusableObjects`` report either).

``STATUS_BLIND`` names the tests that hold for every status-only write the server states
(``volcano.apiserver.changes``: the same ``spec``, a ``FrozenDict`` or none, and a
``FrozenDict`` ``metadata`` with the same values but the resourceVersion): for such an
event the informer does not even run them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from volcano.api.frozen import FrozenDict

__all__ = ["STATUS_BLIND", "GuardedIndex", "IndexGuard", "same_owner_refs", "same_spec"]

Obj = Any
IndexGuard = Callable[[Obj, Obj], bool]
"""``unchanged(old, new)``: True only when the index function gives both the same values, raising for neither."""

_DICTS = (dict, FrozenDict)


class GuardedIndex:
    """An index function (``fn(obj) -> list[str]``) with its ``unchanged`` test; it reads, and
    is reported as (``__qualname__``), the function it wraps."""

    def __init__(self, fn: Callable[[Obj], list[str]], unchanged: IndexGuard) -> None:
        self.fn = fn
        self.unchanged = unchanged
        functools.update_wrapper(self, fn)

    def __call__(self, obj: Obj) -> list[str]:
        """The index values of ``obj``."""
        return self.fn(obj)


def same_owner_refs(old: Obj, new: Obj) -> bool:
    """Both objects have a mapping ``metadata`` holding the same ``ownerReferences`` object (or
    none): exact for a function of ``accessors.controller_of`` that raises on no reference list."""
    om, nm = old.get("metadata"), new.get("metadata")
    return type(om) in _DICTS and type(nm) in _DICTS and om.get("ownerReferences") is nm.get("ownerReferences")


def same_spec(old: Obj, new: Obj) -> bool:
    """Both objects hold the same ``spec`` object, a mapping or None (a function reading
    ``(obj.get("spec") or {}).get(...)`` cannot raise on it)."""
    spec = old.get("spec")
    return spec is new.get("spec") and (spec is None or type(spec) in _DICTS)


STATUS_BLIND: frozenset[IndexGuard] = frozenset({same_owner_refs, same_spec})
"""The ``GuardedIndex`` tests that hold for any status-only write (see the module docstring)."""
