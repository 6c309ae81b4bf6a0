"""A priority queue ordered by a ``less`` function (Volcano's ``util.PriorityQueue``).

Because every session ordering is total (it falls back to creation time and
UID), the pop sequence is deterministic even though a heap is not stable.
With a ``key`` (a sort key giving the same order, computed once per push) the
heap compares keys instead of calling ``less``: the same pop sequence as long as
no element's key changes while it waits in the heap.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable
from typing import Any, Generic, TypeVar

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
    """A binary heap whose ``pop`` returns the element ordered first by ``less``
    (by ``key`` when given: ``less(a, b)`` exactly when ``key(a) < key(b)``, keys of
    distinct elements distinct, and an element's key fixed while it is in the heap)."""

    def __init__(self, less: Callable[[T, T], bool], items: Iterable[T] = (),
                 key: Callable[[T], Any] | None = None) -> None:
        self._less = less
        self._key = key
        self._seq = 0
        self._heap: list[Any] = []
        if key is None:
            self._heap = [_Item(x, less) for x in items]
            heapq.heapify(self._heap)
        else:
            for x in items:
                self.push(x)

    def push(self, value: T) -> None:
        """Add ``value``."""
        if self._key is None:
            heapq.heappush(self._heap, _Item(value, self._less))
        else:
            self._seq += 1  # never decides between distinct keys; keeps values uncompared
            heapq.heappush(self._heap, (self._key(value), self._seq, value))

    def extend(self, values: Iterable[T]) -> None:
        """Add every one of ``values``: the same pops as pushing them one by one (the order is
        total, and with ``key`` keys of distinct elements are distinct, so the pop sequence does
        not depend on the heap's layout), with the heap made once."""
        heap = self._heap
        if self._key is None:
            less = self._less
            heap.extend([_Item(x, less) for x in values])
        else:
            key, seq = self._key, self._seq
            items = [(key(x), seq + i, x) for i, x in enumerate(values, 1)]
            self._seq = seq + len(items)
            heap.extend(items)
        heapq.heapify(heap)

    def pop(self) -> T:
        """Remove and return the first element (IndexError when empty)."""
        item = heapq.heappop(self._heap)
        value: T = item.value if self._key is None else item[2]
        return value

    def __len__(self) -> int:
        return len(self._heap)

    def __bool__(self) -> bool:
        return bool(self._heap)
