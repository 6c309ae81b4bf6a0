"""Statement: tentative allocate / pipeline / evict operations, then commit or discard.

Operations apply to the session at once (later decisions see them). ``commit``
makes them real: Allocate ops are dispatched to the binder, Evict ops to the
evictor, Pipeline ops stay in-session. ``discard`` first stores each affected
task's current context as its last transaction, then undoes the operations in
reverse order (an undone eviction always returns the task to Running, as
Volcano's ``unevict`` does). ``settle`` is the rule the eviction actions share:
commit when the job got what it needed, else discard.
"""

from __future__ import annotations

from typing import NamedTuple

from volcano.scheduler.framework.node import NodeInfo
from volcano.scheduler.framework.session import Session
from volcano.scheduler.framework.task import TaskInfo

__all__ = ["Operation", "Statement"]


class Operation(NamedTuple):
    """One recorded operation: kind (allocate, pipeline, evict), task, node name, reason."""

    kind: str
    task: TaskInfo
    node: str
    reason: str


class Statement:
    """A transaction over a session (see the module docstring)."""

    def __init__(self, ssn: Session) -> None:
        self.ssn = ssn
        self.ops: list[Operation] = []

    def allocate(self, task: TaskInfo, node: NodeInfo) -> None:
        """Allocate ``task`` on ``node`` in the session."""
        self.ssn.do_allocate(task, node)
        self.ops.append(Operation("allocate", task, node.name, ""))

    def pipeline(self, task: TaskInfo, node: NodeInfo, eviction_occurred: bool = False) -> None:
        """Pipeline ``task`` onto ``node``."""
        self.ssn.do_pipeline(task, node, eviction_occurred)
        self.ops.append(Operation("pipeline", task, node.name, ""))

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
        for op in reversed(self.ops):
            if op.kind == "allocate":
                ssn.undo_allocate(op.task)
            elif op.kind == "pipeline":
                ssn.undo_pipeline(op.task)
            else:
                ssn.undo_evict(op.task)
        self.ops = []
