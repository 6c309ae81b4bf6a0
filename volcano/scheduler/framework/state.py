"""Typed scratch state for plugins and framework helpers (Kubernetes' ``CycleState`` idea).

A ``StateKey[T]`` names one slot and says how to make its first value; a
``State`` holds the values, keyed by the key objects themselves (identity), so
two modules can never collide on a string and every read is typed::

    >>> from volcano.scheduler.framework.state import State, StateKey
    >>> SEEN: StateKey[list[str]] = StateKey("example.seen", list)
    >>> state = State()
    >>> state.get(SEEN).append("a")
    >>> state.get(SEEN)
    ['a']
    >>> state.set(SEEN, ["b"])
    >>> state.get(SEEN)
    ['b']
    >>> SEEN in state, state.peek(StateKey("example.other", dict))
    (True, None)

The session has two: ``Session.state`` lives for one session; ``Session.shared``
lives across sessions while the node set is unchanged (the scheduler cache hands
the same backing store to every snapshot until a node changes), for caches of
node-static answers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar, cast

__all__ = ["State", "StateKey"]

T = TypeVar("T")


class StateKey(Generic[T]):
    """One typed slot: a name (for messages) and the factory of its first value.
    Declare keys once, at module level; keys compare by identity."""

    __slots__ = ("factory", "name")

    def __init__(self, name: str, factory: Callable[[], T]) -> None:
        self.name = name
        self.factory = factory

    def __repr__(self) -> str:
        return f"StateKey({self.name!r})"


class State:
    """Values by ``StateKey`` (see the module docstring). ``store`` is the backing
    dict, shared with whoever passed it (the cross-session cache); by default a new one."""

    __slots__ = ("_store",)

    def __init__(self, store: dict[Any, Any] | None = None) -> None:
        self._store: dict[Any, Any] = store if store is not None else {}

    def get(self, key: StateKey[T]) -> T:
        """The value of ``key``, made by its factory on first use."""
        try:
            return cast(T, self._store[key])
        except KeyError:
            value = self._store[key] = key.factory()
            return value

    def set(self, key: StateKey[T], value: T) -> None:
        """Replace the value of ``key``."""
        self._store[key] = value

    def peek(self, key: StateKey[T]) -> T | None:
        """The value of ``key`` if it was ever made, else None (nothing is made)."""
        return cast("T | None", self._store.get(key))

    def __contains__(self, key: object) -> bool:
        return key in self._store
