"""A priority queue ordered by a ``less`` function (Volcano's ``util.PriorityQueue``).

Because every session ordering is total (it falls back to creation time and
UID), the pop sequence is deterministic even though a heap is not stable.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable
from typing import Generic, TypeVar

__all__ = ["PriorityQueue"]

T = TypeVar("T")


class _Item(Generic[T]):
    __slots__ = ("less", "value")

    def __init__(self, value: T, less: Callable[[T, T], bool]) -> None:
        self.value = value
        self.less = less

    def __lt__(self, other: _Item[T]) -> bool:
        return self.less(self.value, other.value)


class PriorityQueue(Generic[T]):
    """A binary heap whose ``pop`` returns the element ordered first by ``less``."""

    def __init__(self, less: Callable[[T, T], bool], items: Iterable[T] = ()) -> None:
        self._less = less
        self._heap = [_Item(x, less) for x in items]
        heapq.heapify(self._heap)

    def push(self, value: T) -> None:
        """Add ``value``."""
        heapq.heappush(self._heap, _Item(value, self._less))

    def pop(self) -> T:
        """Remove and return the first element (IndexError when empty)."""
        return heapq.heappop(self._heap).value

    def __len__(self) -> int:
        return len(self._heap)

    def __bool__(self) -> bool:
        return bool(self._heap)
