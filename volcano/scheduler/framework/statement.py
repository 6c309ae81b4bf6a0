"""Statement: tentative allocate / pipeline / evict operations, then commit or discard.

Operations apply to the session at once (later decisions see them). ``commit``
makes them real: Allocate ops are dispatched to the binder, Evict ops to the
evictor, Pipeline ops stay in-session. ``discard`` first stores each affected
task's current context as its last transaction, then undoes the operations in
reverse order (an undone eviction always returns the task to Running, as
Volcano's ``unevict`` does). ``settle`` is the rule the eviction actions share:
commit when the job got what it needed, else discard.

A ``quiet`` statement (allocate's visits of row-local gangs, ``actions.allocate``)
places tasks without firing the session's allocate event handlers: ``release``
fires them afterwards, task by task in placement order, as the placements would
have (the caller keeps whatever the handlers would answer in between, e.g.
ALLOCATABLE, itself), and a quiet ``discard`` undoes the placements without
firing either side: the handlers never saw them. That is exact where the
handlers keep integer sums that a placement and its undo return to where they
were (the built-in plugins' allocations), as the futile-visit memo assumes.

A ``deferred`` quiet statement moreover leaves its placements out of the node table
until ``write`` (the task's status, node and the job's counts move at once): allocate's
node selection answers from its own lookahead meanwhile (``select.Lookahead.hold``: the
fit errors of a task that fits nowhere are worked out over the table shifted by them) and
has them written before it reads the table otherwise; ``release`` and ``commit`` write
them first, and a ``discard`` undoes the unwritten ones without touching the table. The
table then goes through the same states wherever it is read.
"""

from __future__ import annotations

from typing import NamedTuple

from volcano.scheduler.framework.node import NodeInfo
from volcano.scheduler.framework.session import Session
from volcano.scheduler.framework.task import TaskInfo, TaskStatus

S = TaskStatus

_FEW = 16
"""A quiet discard takes up to this many placements off the table one by one (``remove_task``), more
in one ``remove_tasks``: the same table either way."""

__all__ = ["Operation", "Statement"]


class Operation(NamedTuple):
    """One recorded operation: kind (allocate, pipeline, evict), task, node name, reason."""

    kind: str
    task: TaskInfo
    node: str
    reason: str


class Statement:
    """A transaction over a session (see the module docstring)."""

    def __init__(self, ssn: Session, *, quiet: bool = False, deferred: bool = False) -> None:
        assert quiet or not deferred
        self.ssn = ssn
        self.ops: list[Operation] = []
        self.quiet = quiet
        """Placements fire no event handlers until ``release`` (see the module docstring)."""
        self.deferred = deferred
        """Placements reach the node table only at ``write`` (see the module docstring)."""
        self._unwritten: list[tuple[NodeInfo, TaskInfo]] = []
        """The placements not written to the node table yet, in order (the last ones of ``ops``)."""

    def allocate(self, task: TaskInfo, node: NodeInfo) -> None:
        """Allocate ``task`` on ``node`` in the session."""
        if self.quiet:
            self._place(task, node, S.Allocated)
        else:
            self.ssn.do_allocate(task, node)
        self.ops.append(Operation("allocate", task, node.name, ""))

    def pipeline(self, task: TaskInfo, node: NodeInfo, eviction_occurred: bool = False) -> None:
        """Pipeline ``task`` onto ``node``."""
        if self.quiet:
            self._place(task, node, S.Pipelined, eviction_occurred)
        else:
            self.ssn.do_pipeline(task, node, eviction_occurred)
        self.ops.append(Operation("pipeline", task, node.name, ""))

    def _place(self, task: TaskInfo, node: NodeInfo, status: TaskStatus, eviction_occurred: bool = False) -> None:
        """``Session.do_allocate`` / ``do_pipeline`` without the event handlers."""
        assert task.job is not None
        task.job.set_status(task, status)
        task.node_name = node.name
        if status == S.Pipelined:
            task.eviction_occurred = eviction_occurred
        if self.deferred:
            self._unwritten.append((node, task))
        else:
            self.ssn.table.add_task(node, task)

    def write(self) -> None:
        """Write the placements not written yet to the node table, in placement order."""
        unwritten = self._unwritten
        if unwritten:
            add_task = self.ssn.table.add_task
            for node, task in unwritten:
                add_task(node, task)
            self._unwritten = []

    def release(self) -> None:
        """Fire the allocate event handlers a quiet statement held back, task by task in
        placement order; the statement is an ordinary one from then on."""
        if not self.quiet:
            return
        self.write()
        self.deferred = False
        self.quiet = False
        handlers = self.ssn.on_allocate
        for op in self.ops:
            for fn in handlers:
                fn(op.task)

    def evict(self, task: TaskInfo, reason: str) -> None:
        """Mark ``task`` Releasing; evicted for ``reason`` on commit."""
        self.ssn.do_evict(task)
        self.ops.append(Operation("evict", task, task.node_name, reason))

    def merge(self, other: Statement) -> None:
        """Move ``other``'s operations into this statement."""
        self.ops.extend(other.ops)
        other.ops = []

    @property
    def evicts(self) -> int:
        """Number of evictions recorded."""
        return sum(1 for op in self.ops if op.kind == "evict")

    def commit(self) -> None:
        """Dispatch allocations to the binder and evictions to the evictor."""
        self.write()
        ssn = self.ssn
        for op in self.ops:
            op.task.last_txn = None
            if op.kind == "allocate":
                ssn.dispatch(op.task)
            elif op.kind == "evict":
                ssn.commit_evict(op.task, op.reason)
        self.ops = []

    def settle(self, keep: bool, *, action: str) -> bool:
        """Commit when ``keep``, else discard; returns ``keep``. A committed statement
        that evicts counts as one eviction transaction of ``action`` (``ssn.metrics``)."""
        if keep:
            if self.evicts:
                self.ssn.metrics.count_eviction_transaction(action)
            self.commit()
        else:
            self.discard()
        return keep

    def discard(self) -> None:
        """Record last transactions, then undo every operation in reverse order."""
        ssn = self.ssn
        for op in self.ops:
            op.task.last_txn = (op.task.status, op.task.node_name)
        if self.quiet:
            self._unplace()
            return
        for op in reversed(self.ops):
            if op.kind == "allocate":
                ssn.undo_allocate(op.task)
            elif op.kind == "pipeline":
                ssn.undo_pipeline(op.task)
            else:
                ssn.undo_evict(op.task)
        self.ops = []

    def _unplace(self) -> None:
        """A quiet discard: ``Session.undo_allocate`` of every placement in reverse order, without
        the event handlers, the node table's columns restored in one step (the placements not
        written to it, the last ones, leave it untouched)."""
        table = self.ssn.table
        by_name = table.by_name
        placed = []
        for op in reversed(self.ops):
            task = op.task
            placed.append((by_name[task.node_name], task))
        written = placed[len(self._unwritten):]
        if len(written) > _FEW:
            table.remove_tasks(written)
        else:  # ``remove_tasks``'s vector set-up costs more than a few rows' updates
            for node, task in written:
                table.remove_task(node, task)
        self._unwritten = []
        for _, task in placed:
            assert task.job is not None
            task.job.set_status(task, S.Pending)
            task.node_name = ""
        self.ops = []
