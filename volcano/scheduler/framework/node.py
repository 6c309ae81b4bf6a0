"""Nodes as the scheduler sees them: the immutable ``NodeSpec`` parse, the
per-session ``NodeInfo`` and the columnar ``NodeTable`` that keeps every node's
accounting in numpy columns, so fit tests and scores over all nodes are vector
operations (Volcano ``node_info.go``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from volcano.api import accessors
from volcano.api.resources import PODS, node_allocatable
from volcano.scheduler.framework.resources import POD_UNIT, ResourceSpace, Vec, checked
from volcano.scheduler.framework.state import State, StateKey
from volcano.scheduler.framework.task import TaskInfo, TaskSpec, TaskStatus

__all__ = ["NodeInfo", "NodeSpec", "NodeTable", "RowTasks", "node_images"]

S = TaskStatus


def node_images(obj: Mapping[str, Any]) -> tuple[tuple[str, int], ...]:
    """The (name, size in bytes) pairs a Node's ``status.images`` lists, in listing order (an image
    with several names gives one pair per name; the input of ImageLocality's image state summary)."""
    out: list[tuple[str, int]] = []
    for image in (obj.get("status") or {}).get("images") or ():
        size = int(image.get("sizeBytes") or 0)
        out.extend((str(name), size) for name in image.get("names") or ())
    return tuple(out)


class NodeSpec:
    """The immutable parse of one Node version."""

    __slots__ = ("allocatable", "images", "labels", "name", "obj", "taints", "unschedulable")

    def __init__(self, obj: Mapping[str, Any]) -> None:
        spec = obj.get("spec") or {}
        self.obj = obj
        self.name = accessors.name(obj)
        self.labels: Mapping[str, str] = accessors.labels(obj)
        self.taints: list[Mapping[str, Any]] = list(spec.get("taints") or [])
        self.unschedulable = bool(spec.get("unschedulable"))
        self.allocatable = checked(node_allocatable(obj), field="status.allocatable")
        self.images = node_images(obj)


class RowTasks(dict[str, TaskInfo]):
    """The tasks on one node row of a carried table (uid -> task) that note being written
    (``dirty``, and the row in ``marks`` when given): every method that changes a dict notes
    it, so a session's copy of a row that is not dirty still equals the row it was copied
    from (``NodeTable.copy``)."""

    __slots__ = ("dirty", "marks", "row")

    def __init__(self, items: Any = (), marks: set[int] | None = None, row: int = -1) -> None:
        super().__init__(items)
        self.dirty = False
        self.marks = marks
        """The rows written since the copy that made this one (shared by a table's rows; None: none)."""
        self.row = row

    def _note(self) -> None:
        self.dirty = True
        if self.marks is not None:
            self.marks.add(self.row)

    def __setitem__(self, key: str, value: TaskInfo) -> None:
        self._note()
        super().__setitem__(key, value)

    def __delitem__(self, key: str) -> None:
        self._note()
        super().__delitem__(key)

    def __ior__(self, other: Any) -> RowTasks:  # type: ignore[override,misc]
        self._note()
        return super().__ior__(other)

    def pop(self, *args: Any) -> Any:
        self._note()
        return super().pop(*args)

    def popitem(self) -> tuple[str, TaskInfo]:
        self._note()
        return super().popitem()

    def clear(self) -> None:
        self._note()
        super().clear()

    def setdefault(self, *args: Any) -> Any:
        self._note()
        return super().setdefault(*args)

    def update(self, *args: Any, **kwargs: Any) -> None:
        self._note()
        super().update(*args, **kwargs)


class NodeInfo:
    """A node in one session: its row in the ``NodeTable`` and the tasks on it."""

    __slots__ = ("name", "row", "spec", "tasks")

    def __init__(self, spec: NodeSpec, row: int) -> None:
        self.spec = spec
        self.name = spec.name
        self.row = row
        self.tasks: dict[str, TaskInfo] = {}

    def __repr__(self) -> str:
        return f"Node({self.name})"


_AllocCache = tuple[int, list[NodeSpec], npt.NDArray[np.int64]]
_ALLOC: StateKey[_AllocCache | None] = StateKey("node-table.alloc", lambda: None)
"""The allocatable matrix of the last node set: (space width, the specs, the matrix)."""


def _alloc_matrix(specs: list[NodeSpec], space: ResourceSpace, cache: State | None) -> npt.NDArray[np.int64]:
    """A fresh (writable) allocatable matrix of ``specs`` in ``space``.

    Vectorising registers every allocatable name first, so the columns are sized
    for all of them (a node may bring a name no task has used yet). With ``cache``
    (a session's cross-session store, emptied whenever a node changes) the matrix
    is built once per node set and space width and copied afterwards; the copy is
    made only when the cached specs are these very objects, in this order."""
    if cache is not None:
        hit = cache.peek(_ALLOC)
        if hit is not None and hit[0] == len(space) and len(hit[1]) == len(specs) \
                and all(a is b for a, b in zip(hit[1], specs, strict=True)):
            return hit[2].copy()
    vecs = [space.vector(s.allocatable) for s in specs]
    alloc = np.zeros((len(specs), len(space)), dtype=np.int64)
    for i, vec in enumerate(vecs):
        alloc[i, : vec.shape[0]] = vec
    if cache is not None:
        cache.set(_ALLOC, (len(space), list(specs), alloc.copy()))
    return alloc


class NodeTable:
    """Columnar node accounting for one session.

    Rows follow node order (creation order in the cache). ``idle = alloc − used``
    and ``fidle = idle + releasing − pipelined`` (Volcano's FutureIdle) are kept
    current on every add/remove, so fit tests over all nodes are one vector
    comparison. ``pods`` counts every pod on the node, including releasing ones
    (the predicates plugin's pod-number check)."""

    def __init__(self, specs: list[NodeSpec], space: ResourceSpace,
                 cache: State | None = None) -> None:
        self.space = space
        self.alloc = _alloc_matrix(specs, space, cache)
        n, r = self.alloc.shape
        self.nodes = [NodeInfo(s, i) for i, s in enumerate(specs)]
        self.by_name = {node.name: node for node in self.nodes}
        self.block = np.zeros((n, 5 * r + 1), dtype=np.int64)
        """Every row's changing accounting side by side: used, idle, FutureIdle, pipelined,
        releasing (``r`` columns each) and pods; the named columns are views of it."""
        self.block[:, r:2 * r] = self.alloc
        self.block[:, 2 * r:3 * r] = self.alloc
        self._views()
        self.max_pods = self.alloc[:, space.index[PODS]] // POD_UNIT
        self._deltas: dict[tuple[bytes, int], npt.NDArray[np.int64]] = {}
        self.changes: list[int] = []
        """Every row whose accounting changed, in order (appended by ``add_task`` /
        ``remove_task``): caches of row-local results re-evaluate only the rows
        changed since they were last synced."""
        self.with_terms = 0
        """An upper bound on the tasks on the nodes that carry pod affinity or anti-affinity
        terms (``TaskSpec.terms``): every insertion of such a task counts one up, every
        removal one down, so 0 means there is none (and a scan for them finds nothing)."""
        self.with_anti = 0
        """The same bound for tasks with required pod anti-affinity terms."""
        self.anti_rows: dict[int, int] = {}
        """Per row, the same bound for that row alone (rows without such a task absent)."""

    def __len__(self) -> int:
        return len(self.nodes)

    def _views(self) -> None:
        """Point the named columns at their parts of ``block``."""
        block = self.block
        r = (block.shape[1] - 1) // 5
        self.used = block[:, 0:r]
        self.idle = block[:, r:2 * r]
        self.fidle = block[:, 2 * r:3 * r]
        self.pipelined = block[:, 3 * r:4 * r]
        self.releasing = block[:, 4 * r:5 * r]
        self.pods = block[:, 5 * r]

    def delta(self, vec: Vec, status: TaskStatus) -> npt.NDArray[np.int64]:
        """What ``add_task`` adds to a row of ``block`` for a task of ``status`` with request
        ``vec`` (one array per request and kind of status, kept; never write it)."""
        kind = 1 if status == S.Pipelined else (2 if status == S.Releasing else 0)
        key = (vec.tobytes(), kind)
        out = self._deltas.get(key)
        if out is None:
            zero = np.zeros_like(vec)
            pods = np.array([0 if kind == 1 else 1], dtype=np.int64)
            if kind == 1:
                parts = (zero, zero, -vec, vec, zero)
            elif kind == 2:
                parts = (vec, -vec, zero, zero, vec)
            else:
                parts = (vec, -vec, -vec, zero, zero)
            out = self._deltas[key] = np.concatenate((*parts, pods)).astype(np.int64)
        return out

    def add_task(self, node: NodeInfo, task: TaskInfo) -> None:
        """Account ``task`` (by its current status) on ``node``."""
        row = node.row
        self.changes.append(row)
        self.block[row] += self.delta(task.vec, task.status)
        node.tasks[task.uid] = task
        if task.spec.terms:
            self.count(row, task.spec, 1)

    def count(self, row: int, spec: TaskSpec, step: int) -> None:
        """Move ``with_terms`` (and ``with_anti`` and ``anti_rows``) by ``step`` for a task with terms
        on ``row``."""
        self.with_terms += step
        if spec.pod_anti_affinity:
            self.with_anti += step
            left = self.anti_rows.get(row, 0) + step
            if left:
                self.anti_rows[row] = left
            else:
                del self.anti_rows[row]

    def add_tasks(self, placed: list[tuple[NodeInfo, TaskInfo]]) -> None:
        """``add_task`` for each pair, in order, with the accounting summed in a few vector
        operations (integer sums: the same columns as one by one)."""
        if not placed:
            return
        n = len(placed)
        rows = np.fromiter((node.row for node, _ in placed), dtype=np.intp, count=n)
        vecs = np.stack([task.vec for _, task in placed])
        pipe = np.fromiter((task.status == S.Pipelined for _, task in placed), dtype=np.bool_, count=n)
        rel = np.fromiter((task.status == S.Releasing for _, task in placed), dtype=np.bool_, count=n)
        for node, task in placed:
            node.tasks[task.uid] = task
            if task.spec.terms:
                self.count(node.row, task.spec, 1)
        self.changes.extend(rows.tolist())
        if pipe.any():
            np.add.at(self.pipelined, rows[pipe], vecs[pipe])
            np.subtract.at(self.fidle, rows[pipe], vecs[pipe])
        held = ~pipe
        np.add.at(self.used, rows[held], vecs[held])
        np.subtract.at(self.idle, rows[held], vecs[held])
        if rel.any():
            np.add.at(self.releasing, rows[rel], vecs[rel])
        busy = held & ~rel
        np.subtract.at(self.fidle, rows[busy], vecs[busy])
        np.add.at(self.pods, rows[held], 1)

    def remove_task(self, node: NodeInfo, task: TaskInfo) -> None:
        """Undo ``add_task`` for the task's current status."""
        gone = node.tasks.pop(task.uid, None)
        if gone is None:
            return
        row, vec = node.row, task.vec
        if gone.spec.terms:
            self.count(row, gone.spec, -1)
        self.changes.append(row)
        self.block[row] -= self.delta(vec, task.status)

    def remove_tasks(self, placed: list[tuple[NodeInfo, TaskInfo]]) -> None:
        """``remove_task`` for each pair, in order, with the accounting summed in a few vector
        operations (integer sums: the same columns as one by one)."""
        gone: list[tuple[int, TaskInfo]] = []
        for node, task in placed:
            was = node.tasks.pop(task.uid, None)
            if was is None:
                continue
            if was.spec.terms:
                self.count(node.row, was.spec, -1)
            gone.append((node.row, task))
        if not gone:
            return
        rows = [row for row, _ in gone]
        self.changes.extend(rows)
        delta = self.delta
        np.subtract.at(self.block, rows, np.stack([delta(task.vec, task.status) for _, task in gone]))

    def account(self, row: int, vec: Vec, status: TaskStatus, sign: int) -> None:
        """The accounting of ``add_task`` (``sign`` 1) or ``remove_task`` (-1) for a task of
        ``status`` with request ``vec`` on ``row``, without touching the row's tasks or ``changes``."""
        if status == S.Pipelined:
            self.pipelined[row] += sign * vec
            self.fidle[row] -= sign * vec
        else:
            self.used[row] += sign * vec
            self.idle[row] -= sign * vec
            if status == S.Releasing:
                self.releasing[row] += sign * vec
            else:
                self.fidle[row] -= sign * vec
            self.pods[row] += sign

    def copy(self, nodes: list[NodeInfo], by_name: dict[str, NodeInfo], moved: set[int] | None,
             marks: set[int] | None = None) -> NodeTable:
        """A table with this one's accounting (every column copied) over ``nodes``: one
        ``NodeInfo`` per row of the same specs, each given a copy of this table's task dict for
        its row (``RowTasks``), or keeping the copy it holds when that one was made from this
        table's row (``moved``: the rows of this table changed since, None: every row), and was
        not written since (``by_name``: ``nodes`` by name). ``changes`` starts empty.

        ``marks``: the set the copies note their writes in (emptied here). Given along with
        ``moved``, the caller promises that the last copy over ``nodes`` was made with the same
        ``marks`` and that nothing replaced a row's task dict since (sessions write into them):
        then only the rows in ``moved`` or ``marks`` are looked at."""
        table = NodeTable.__new__(NodeTable)
        table.space = self.space
        table.alloc = self.alloc.copy()
        table.block = self.block.copy()
        table._views()
        table.max_pods = self.max_pods.copy()
        table._deltas = {}
        if moved is not None and marks is not None and len(nodes) == len(self.nodes):
            stale = sorted(moved | marks)
            marks.clear()
            mine_nodes = self.nodes
            for row in stale:
                nodes[row].tasks = RowTasks(mine_nodes[row].tasks, marks, row)
        else:
            if marks is not None:
                marks.clear()
            for node, mine in zip(nodes, self.nodes, strict=True):
                held = node.tasks
                if moved is None or not isinstance(held, RowTasks) or held.dirty or node.row in moved \
                        or held.marks is not marks:
                    node.tasks = RowTasks(mine.tasks, marks, node.row)
        table.nodes = nodes
        table.by_name = by_name
        table.changes = []
        table.with_terms, table.with_anti = self.with_terms, self.with_anti
        table.anti_rows = dict(self.anti_rows)
        return table
