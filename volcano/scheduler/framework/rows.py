"""Node rows carried from one session to the next, updated by what changed.

A session's node table as built is a function of the node specs (in order), the space
width and the placed tasks: every task of a session job, and every pod of no session job
(an *orphan*), whose built status is not completed and whose built node is a known node,
on that node's row, the rows' task dicts in cache order (``TaskSpec.seq``), the columns
summed. With a ``JobCarry`` and the cache's task groups (``Snapshot.members``) the
scheduler keeps that table as built (``RowCarry.table``, never handed to a session) and,
at the next session, takes out the placements of the jobs that were built anew or left
and of the orphans that changed, and puts in the new ones, each at its place by ``seq``;
the session gets a copy (``NodeTable.copy``). Columns are integer sums, so the order
of the updates does not matter; the task dicts are kept in ``seq`` order.

Everything carried is checked before use: the node specs must be the very same objects
in the same order and the width the same, and every placement taken out must be found
where it was put; otherwise the table is built afresh from every task (the reference
path does that every session). A property test compares the carried table with a built
one column by column and row by row.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from operator import attrgetter
from typing import TYPE_CHECKING

import numpy as np

from volcano.scheduler.framework.carry import JobCarry, Kept, Override
from volcano.scheduler.framework.node import NodeInfo, NodeTable
from volcano.scheduler.framework.state import State
from volcano.scheduler.framework.task import COMPLETED_STATUSES, TaskInfo, TaskSpec, TaskStatus

if TYPE_CHECKING:
    from volcano.scheduler.framework.session import Session
    from volcano.scheduler.framework.snapshot import Snapshot

__all__ = ["RowCarry", "open_rows"]

S = TaskStatus
_SEQ = attrgetter("spec.seq")
Orphans = dict[str, tuple[TaskSpec, "Override | None", TaskInfo]]
"""Pods of no session job by uid: the spec and override a task was built from, and the task."""
_Gone = tuple[TaskInfo, TaskStatus, str]
"""A placement to take out: the task, and the status and node it was built with."""


class _Stale(Exception):
    """The carried rows do not hold what they should: build them afresh."""


class RowCarry:
    """The node table as built for the last session, and what it was built from."""

    __slots__ = ("by_name", "marks", "orphans", "specs", "table", "width", "working")

    def __init__(self, table: NodeTable, specs: list[object], width: int, orphans: Orphans) -> None:
        self.table = table
        """The table as built (never handed to a session)."""
        self.specs = specs
        """The node specs it was built for, in order."""
        self.width = width
        """The space width it was built for."""
        self.orphans = orphans
        """The orphans placed in it (and every other orphan of the last session)."""
        self.working = [NodeInfo(node.spec, node.row) for node in table.nodes]
        """The ``NodeInfo`` objects sessions get (a session's rows are valid until the next one opens)."""
        self.by_name = {node.name: node for node in self.working}
        """``working`` by node name."""
        self.marks: set[int] = set()
        """The rows of ``working`` whose task dicts a session wrote since the last copy (``NodeTable.copy``;
        sessions write into a row's dict, never replace it)."""


def _columns(status: TaskStatus) -> int:
    return 1 if status == S.Pipelined else (2 if status == S.Releasing else 0)


def _built(spec: TaskSpec, over: Override | None) -> tuple[TaskStatus, str]:
    """The status and node a task of ``spec`` is built with under ``over``."""
    return (spec.status, spec.node_name) if over is None else over


def _kept_placements(kept: Kept) -> Iterable[_Gone]:
    """Every task of a carried job with the status and node it was built with."""
    tasks = kept.job.tasks
    overrides = kept.overrides
    for spec in kept.specs:
        status, node = _built(spec, overrides.get(spec.uid))
        yield tasks[spec.uid], status, node


def _orphans(ssn: Session, snapshot: Snapshot, members: Mapping[str, list[TaskSpec]],
             old: Orphans) -> tuple[Orphans, list[_Gone], list[TaskInfo]]:
    """This session's orphans (tasks taken from ``old`` when built from the same spec and override,
    put back as built), the old placements to take out and the new tasks to put in."""
    jobs = ssn.jobs
    space = ssn.space
    fit = space.fit
    overrides = snapshot.overrides
    out: Orphans = {}
    gone: list[_Gone] = []
    added: list[TaskInfo] = []
    for jid, specs in members.items():
        if jid in jobs:
            continue
        for spec in specs:
            over = overrides.get(spec.uid)
            hit = old.get(spec.uid)
            if hit is not None and hit[0] is spec and hit[1] == over:
                task = hit[2]
                task.status, task.node_name = _built(spec, over)
                task.eviction_occurred = False
                task.last_txn = None
                task.job = None
            else:
                task = TaskInfo(spec, fit(spec.vec(space)), *(over or (None, None)))
                if hit is not None:
                    gone.append((hit[2], *_built(hit[0], hit[1])))
                added.append(task)
            out[spec.uid] = (spec, over, task)
    for uid, (spec, over, task) in old.items():
        if uid not in out:
            gone.append((task, *_built(spec, over)))
    return out, gone, added


def _insert(table: NodeTable, node: NodeInfo, task: TaskInfo, moved: set[int]) -> None:
    """Put ``task`` on ``node`` at its place by ``seq`` and account it (its row noted in ``moved``)."""
    moved.add(node.row)
    tasks = node.tasks
    if tasks and next(reversed(tasks.values())).spec.seq > task.spec.seq:
        node.tasks = {t.uid: t for t in sorted([*tasks.values(), task], key=_SEQ)}
    else:
        tasks[task.uid] = task
    table.account(node.row, task.vec, task.status, 1)
    if task.spec.terms:
        table.count(node.row, task.spec, 1)


def _remove(table: NodeTable, node: NodeInfo, task: TaskInfo, status: TaskStatus, moved: set[int]) -> None:
    """Take ``task`` (placed with ``status``) off ``node`` (its row noted in ``moved``)."""
    if node.tasks.get(task.uid) is not task:
        raise _Stale(task.uid)
    moved.add(node.row)
    del node.tasks[task.uid]
    table.account(node.row, task.vec, status, -1)
    if task.spec.terms:
        table.count(node.row, task.spec, -1)


def _update(rows: RowCarry, gone: list[_Gone], added: list[TaskInfo]) -> set[int]:
    """Take the ``gone`` placements out of the carried table and put the ``added`` tasks in
    (a task on the same row in the same columns with the same request and place is swapped in
    place); the rows changed."""
    moved: set[int] = set()
    table = rows.table
    by_name = table.by_name
    leaving: dict[str, tuple[NodeInfo, TaskInfo, TaskStatus]] = {}
    for task, status, name in gone:
        if name and status not in COMPLETED_STATUSES:
            node = by_name.get(name)
            if node is not None:
                leaving[task.uid] = (node, task, status)
    for task in added:
        if not task.node_name or task.status in COMPLETED_STATUSES:
            continue
        node = by_name.get(task.node_name)
        if node is None:
            continue
        old = leaving.pop(task.uid, None)
        if old is not None:
            was, prev, status = old
            if was is node and _columns(status) == _columns(task.status) and prev.spec.seq == task.spec.seq \
                    and np.array_equal(prev.vec, task.vec):
                if node.tasks.get(task.uid) is not prev:
                    raise _Stale(task.uid)
                node.tasks[task.uid] = task
                moved.add(node.row)
                if prev.spec.terms:
                    table.count(node.row, prev.spec, -1)
                if task.spec.terms:
                    table.count(node.row, task.spec, 1)
                continue
            _remove(table, was, prev, status, moved)
        _insert(table, node, task, moved)
    for node, task, status in leaving.values():
        _remove(table, node, task, status, moved)
    return moved


def _build(ssn: Session, snapshot: Snapshot, orphans: Orphans) -> RowCarry:
    """The table as built from every task in snapshot order (the reference path's placement)."""
    table = NodeTable(snapshot.nodes, ssn.space, State(snapshot.shared))
    by_name = table.by_name
    jobs = ssn.jobs
    placed: list[tuple[NodeInfo, TaskInfo]] = []
    for spec in snapshot.tasks:
        owner = jobs.get(spec.job_id) if spec.job_id else None
        task = owner.tasks[spec.uid] if owner is not None else orphans[spec.uid][2]
        if task.node_name and task.status not in COMPLETED_STATUSES:
            node = by_name.get(task.node_name)
            if node is not None:
                placed.append((node, task))
    table.add_tasks(placed)
    table.changes = []
    return RowCarry(table, list(snapshot.nodes), len(ssn.space), orphans)


def open_rows(ssn: Session, snapshot: Snapshot, members: Mapping[str, list[TaskSpec]], carry: JobCarry) -> None:
    """Give ``ssn`` its node table (``ssn.table``) as built, from the rows ``carry`` kept updated by
    the jobs it replaced or dropped this session and the orphans that changed, or built afresh
    (see the module docstring). The session's jobs must have been taken from ``carry``."""
    rows: RowCarry | None = carry.rows
    fresh = rows is None or rows.width != len(ssn.space) or rows.specs != snapshot.nodes
    moved: set[int] | None = None
    orphans, gone, added = _orphans(ssn, snapshot, members, rows.orphans if rows is not None else {})
    if rows is not None and not fresh:
        for old, new in carry.replaced:
            if old is not None:
                gone.extend(_kept_placements(old))
            added.extend(new.job.tasks.values())
        for old in carry.dropped:
            gone.extend(_kept_placements(old))
        try:
            moved = _update(rows, gone, added)
            rows.orphans = orphans
            carry.rows_updated += 1
        except _Stale:
            fresh = True
    if fresh or rows is None:
        rows = carry.rows = _build(ssn, snapshot, orphans)
        carry.rows_built += 1
        moved = None
    ssn.table = rows.table.copy(rows.working, rows.by_name, moved, rows.marks)
