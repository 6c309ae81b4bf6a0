"""Read-only Kubernetes objects.

The store keeps every object deep-frozen and hands the same frozen object to
every reader (get, list, watch, informer caches): no copy per read, and any
attempt to mutate it raises ``TypeError`` at the offending line. A component
that wants to change an object calls ``thaw`` (a deep copy into plain dicts
and lists), edits the copy and writes it back through the client.

``FrozenDict`` and ``FrozenList`` subclass ``dict`` and ``list``, so they
compare equal to plain containers, serialise with ``json`` and PyYAML, and
``copy.deepcopy`` of them yields plain, mutable containers.
"""

from __future__ import annotations

from typing import Any, NoReturn

import yaml

__all__ = ["FrozenDict", "FrozenList", "freeze", "is_frozen", "thaw"]


def _readonly(self: Any, *args: Any, **kwargs: Any) -> NoReturn:
    raise TypeError(
        "objects read from the API server are read-only: thaw() a copy, edit it, and write it back")


class FrozenDict(dict[str, Any]):
    """A dict that refuses mutation (see module docstring)."""

    __slots__ = ()
    __setitem__ = _readonly
    __delitem__ = _readonly
    __ior__ = _readonly
    clear = _readonly
    pop = _readonly
    popitem = _readonly
    setdefault = _readonly
    update = _readonly

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
        copy: dict[str, Any] = thaw(self)
        return copy

    def __copy__(self) -> dict[str, Any]:
        return dict(self)

    def __reduce__(self) -> tuple[Any, ...]:
        return (dict, (dict(self),))

    def __hash__(self) -> int:  # type: ignore[override]
        return id(self)


class FrozenList(list[Any]):
    """A list that refuses mutation (see module docstring)."""

    __slots__ = ()
    __setitem__ = _readonly
    __delitem__ = _readonly
    __iadd__ = _readonly
    __imul__ = _readonly
    append = _readonly
    clear = _readonly
    extend = _readonly
    insert = _readonly
    pop = _readonly
    remove = _readonly
    reverse = _readonly
    sort = _readonly

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        copy: list[Any] = thaw(self)
        return copy

    def __copy__(self) -> list[Any]:
        return list(self)

    def __reduce__(self) -> tuple[Any, ...]:
        return (list, (list(self),))

    def __hash__(self) -> int:  # type: ignore[override]
        return id(self)


_SCALARS = frozenset({str, int, float, bool, type(None)})


_SHARED = _SCALARS | {FrozenDict, FrozenList}
"""What ``freeze`` keeps as it is: it returns these values themselves."""


def freeze(value: Any) -> Any:
    """A deep, read-only copy of a JSON-like value (already-frozen parts are shared).

    This is the store's write path, so it is written for speed: scalars and
    frozen containers are shared whole, without a call.
    """
    t = type(value)
    if t is dict:
        return FrozenDict({k: (v if type(v) in _SHARED else freeze(v)) for k, v in value.items()})
    if t is list:
        return FrozenList([v if type(v) in _SHARED else freeze(v) for v in value])
    if t is FrozenDict or t is FrozenList or t in _SCALARS:
        return value
    if isinstance(value, dict):
        return FrozenDict({k: freeze(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return FrozenList([freeze(v) for v in value])
    return value


def thaw(value: Any) -> Any:
    """A deep, plain, mutable copy of a JSON-like value."""
    t = type(value)
    if t is dict or t is FrozenDict:
        return {k: (v if type(v) in _SCALARS else thaw(v)) for k, v in value.items()}
    if t is list or t is FrozenList:
        return [v if type(v) in _SCALARS else thaw(v) for v in value]
    if t in _SCALARS:
        return value
    if isinstance(value, dict):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [thaw(v) for v in value]
    return value


def is_frozen(value: Any) -> bool:
    """True when ``value`` is a frozen container."""
    return type(value) in (FrozenDict, FrozenList)


def _represent_dict(dumper: yaml.representer.SafeRepresenter, data: FrozenDict) -> yaml.Node:
    return dumper.represent_dict(dict(data))


def _represent_list(dumper: yaml.representer.SafeRepresenter, data: FrozenList) -> yaml.Node:
    return dumper.represent_list(list(data))


for _dumper in (yaml.SafeDumper, yaml.Dumper):
    _dumper.add_representer(FrozenDict, _represent_dict)
    _dumper.add_representer(FrozenList, _represent_list)
