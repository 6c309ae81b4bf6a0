"""``RowTasks`` (a carried node row's task dict) notes every write (and its row in the table's marks),
so a row copy that was not written still equals the row it was copied from (``NodeTable.copy``
keeps such copies, and with marks looks at no other row)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from volcano.scheduler.framework.node import NodeInfo, NodeSpec, NodeTable, RowTasks
from volcano.scheduler.framework.resources import ResourceSpace
from volcano.scheduler.framework.task import TaskInfo, TaskSpec

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


def test_a_write_notes_the_row_in_the_marks() -> None:
    marks: set[int] = set()
    row = RowTasks({"a": 1}, marks, 7)  # type: ignore[dict-item]
    assert not marks and row.get("a") == 1
    row.pop("a")
    assert marks == {7} and row.dirty


def test_a_copy_with_marks_renews_only_the_rows_moved_or_written() -> None:
    """``NodeTable.copy`` with marks looks at the rows moved or written only; the others keep the
    copy they hold, which equals the table's row."""
    space = ResourceSpace()
    specs = [NodeSpec({"metadata": {"name": f"n{i}"}, "status": {"allocatable": {"cpu": "4", "pods": "10"}}})
             for i in range(4)]
    table = NodeTable(specs, space)
    tasks = [TaskInfo(spec, spec.vec(space)) for spec in (TaskSpec({
        "metadata": {"name": f"p-x-{i}", "namespace": "ns", "uid": f"u{i}"},
        "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}], "nodeName": f"n{i}"},
        "status": {"phase": "Running"}}) for i in range(4))]
    for task, node in zip(tasks, table.nodes, strict=True):
        table.add_task(node, task)
    working = [NodeInfo(spec, i) for i, spec in enumerate(specs)]
    by_name = {n.name: n for n in working}
    marks: set[int] = set()
    table.copy(working, by_name, None, marks)
    first = [n.tasks for n in working]
    assert all(isinstance(t, RowTasks) and t.marks is marks for t in first)
    del working[1].tasks["u1"]  # a session's write
    assert marks == {1}
    table.copy(working, by_name, {2}, marks)
    assert not marks
    assert [n.tasks is t for n, t in zip(working, first, strict=True)] == [True, False, False, True]
    assert [list(n.tasks) for n in working] == [list(n.tasks) for n in table.nodes]
