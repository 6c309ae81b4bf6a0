"""``RowTasks`` (a carried node row's task dict) notes every write, so a row copy that was not
written still equals the row it was copied from (``NodeTable.copy`` keeps such copies)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from volcano.scheduler.framework.node import RowTasks

_WRITES: list[Callable[[RowTasks], Any]] = [
    lambda d: d.__setitem__("c", 3),
    lambda d: d.__delitem__("a"),
    lambda d: d.pop("a"),
    lambda d: d.pop("zz", None),
    lambda d: d.popitem(),
    lambda d: d.clear(),
    lambda d: d.setdefault("c", 3),
    lambda d: d.update({"c": 3}),
    lambda d: d.__ior__({"c": 3}),
]


@pytest.mark.parametrize("write", _WRITES)
def test_every_write_marks_the_row_dirty(write: Callable[[RowTasks], Any]) -> None:
    row = RowTasks({"a": 1, "b": 2})  # type: ignore[dict-item]
    assert not row.dirty and list(row) == ["a", "b"]
    write(row)
    assert row.dirty


def test_reads_and_copies_leave_it_clean() -> None:
    row = RowTasks({"a": 1, "b": 2})  # type: ignore[dict-item]
    assert row.get("a") == 1 and "b" in row and list(row.values()) == [1, 2] and dict(row) == {"a": 1, "b": 2}
    copy = RowTasks(row)
    assert not row.dirty and not copy.dirty and list(copy) == ["a", "b"]


def test_every_mutating_dict_method_is_overridden() -> None:
    """A dict method added to RowTasks' base that writes must be overridden too."""
    mutators = {"__setitem__", "__delitem__", "__ior__", "pop", "popitem", "clear", "setdefault", "update"}
    for name in mutators:
        assert name in RowTasks.__dict__, name
    assert set(dir(dict)) - set(dir(object)) - mutators <= {
        "__class_getitem__", "__contains__", "__getitem__", "__iter__", "__len__", "__or__", "__reversed__",
        "__ror__", "copy", "fromkeys", "get", "items", "keys", "values"}
