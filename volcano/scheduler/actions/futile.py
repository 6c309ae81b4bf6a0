"""Futile allocate visits, replayed: a gang that did not fit is not placed again on the same cluster.

Allocate visits every admitted job with pending tasks each cycle, as Volcano does;
a gang that cannot become ready (nor pipelined) has its tentative placements
discarded (``allocate_for_tasks``), and on a busy cluster the same gang is tried,
placed task by task and discarded again every cycle. What such a visit leaves is
small and observable: each placed task's last transaction (status and node,
which become its PodScheduled message), ``eviction_occurred`` cleared on the
pipelined ones, the fit errors of the tasks that found no node (in the order
recorded), and the job marked as moved (``JobInfo.moved``). Everything else it
did is undone exactly: the node table's integer columns, the job's counters,
and the allocation the plugins' event handlers keep (integer sums).

A visit is a deterministic function of what it reads, so ``FutileMemo`` keeps,
per job, the last discarded visit's outcome with a key of those inputs, and a
later visit whose key is equal replays the outcome instead of placing again:

* the session's shape: the scheduler configuration (identity), the resource
  space's width and the node specs (identity, in node order);
* the node table: a BLAKE2b digest of its accounting columns (used, idle,
  FutureIdle, releasing, pipelined, pod counts, allocatable, pod limits);
* the job: its ``minAvailable`` and per-role minimums, each task's spec
  (identity), status and node in task order, and the tasks the visit takes in
  the order it takes them;
* its queue as the ALLOCATABLE callbacks read it: the queue's state and the
  proportion plugin's allocation (non-zero amounts) and deserved share for it.

The memo applies only where that list is everything the visit reads: with
``Session.reuse``; when every plugin of the session is one of the built-in
plugins whose allocate-time callbacks read only the above (priority, gang,
conformance, overcommit, drf without hierarchy, predicates, proportion,
nodeorder, binpack); when the job had no fit error before the visit; and when
each task the visit takes carries no pod affinity terms and no host ports and
is row-local (``Session.rows_local``): its predicates and scores then read only
node specs and accounting columns, and placing it changes no plugin's
affinity or port view. Entries live in the session's ``shared`` store (dropped
whenever a node changes) and are forgotten when their job leaves the session,
or when a visit of the job does not end discarded.
"""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Hashable, Iterable
from typing import Any

import numpy as np

from volcano.scheduler.framework.model import FitErrors, JobInfo, QueueInfo, TaskInfo, TaskSpec, TaskStatus
from volcano.scheduler.framework.session import Session
from volcano.scheduler.framework.state import StateKey
from volcano.scheduler.plugins.binpack import BinpackPlugin
from volcano.scheduler.plugins.conformance import ConformancePlugin
from volcano.scheduler.plugins.drf import DrfPlugin
from volcano.scheduler.plugins.gang import GangPlugin
from volcano.scheduler.plugins.nodeorder import NodeorderPlugin
from volcano.scheduler.plugins.overcommit import OvercommitPlugin
from volcano.scheduler.plugins.predicates import PredicatesPlugin
from volcano.scheduler.plugins.priority import PriorityPlugin
from volcano.scheduler.plugins.proportion import ProportionPlugin

__all__ = ["FUTILE_VISITS", "FutileMemo", "Outcome"]

S = TaskStatus

_KNOWN = (PriorityPlugin, GangPlugin, ConformancePlugin, OvercommitPlugin, DrfPlugin, PredicatesPlugin,
          ProportionPlugin, NodeorderPlugin, BinpackPlugin)
"""Plugins whose allocate-time reads the key covers (see the module docstring)."""

Placed = tuple[str, TaskStatus, str]
"""(task uid, status, node) of one tentative placement, in placement order."""


class Outcome:
    """What a discarded visit left: placements, fit errors (insertion order), tasks taken."""

    __slots__ = ("errors", "placed", "taken")

    def __init__(self, placed: list[Placed], errors: list[tuple[str, FitErrors]], taken: int) -> None:
        self.placed = placed
        self.errors = errors
        self.taken = taken


class _Entry:
    """One job's last discarded visit: its key, the objects the key names by identity, its outcome."""

    __slots__ = ("conf", "key", "nodes", "outcome", "reps", "specs")

    def __init__(self, conf: object, nodes: list[Any], specs: tuple[Any, ...],
                 key: tuple[tuple[Hashable, ...], tuple[Hashable, ...]], reps: tuple[int, ...],
                 outcome: Outcome) -> None:
        self.conf = conf
        self.nodes = nodes
        self.specs = specs
        self.key = key
        self.reps = reps
        """Positions of the first task of each signature among the tasks taken."""
        self.outcome = outcome


FUTILE_VISITS: StateKey[dict[str, _Entry]] = StateKey("allocate.futile-visits", dict)
"""Per job uid, its last discarded allocate visit (kept across sessions while the nodes are unchanged)."""


def _same_parse(a: TaskSpec, b: TaskSpec) -> bool:
    """Whether ``b`` is ``a`` with only a new pod version from a bind or a status write (the
    cache's ``rebound``: every parsed slot copied, node, status and nominated node read again).
    ``sched_sig`` and ``requests`` are objects each parse makes anew, so sharing both means one
    parse; the slots read again are compared by value."""
    return a.sched_sig is b.sched_sig and a.requests is b.requests and a.uid == b.uid \
        and a.nominated_node == b.nominated_node and a.status == b.status and a.node_name == b.node_name


def _copy(fe: FitErrors) -> FitErrors:
    out = FitErrors(fe.err)
    out.n_nodes = fe.n_nodes
    out.reasons.update(fe.reasons)
    out.unresolvable = None if fe.unresolvable is None else fe.unresolvable.copy()
    return out


class FutileMemo:
    """The memo of one allocate action (see the module docstring)."""

    def __init__(self, ssn: Session) -> None:
        self.ssn = ssn
        self.enabled = ssn.reuse and all(
            type(p) in _KNOWN and (type(p) is not DrfPlugin or getattr(p, "tree", None) is None)
            for p in ssn.plugins.values())
        self.entries: dict[str, _Entry] = ssn.shared.get(FUTILE_VISITS) if self.enabled else {}
        self._digest: tuple[int, bytes] = (-1, b"")
        self._specs: list[Any] | None = None
        self._reps: tuple[int, ...] = ()
        self.replayed = 0
        """Visits replayed in this action (a count for tests and profiles)."""

    # -- the key ------------------------------------------------------------------------------
    def _table_digest(self) -> bytes:
        table = self.ssn.table
        at = len(table.changes)
        if self._digest[0] == at:
            return self._digest[1]
        h = hashlib.blake2b(digest_size=32)
        for col in (table.alloc, table.used, table.idle, table.fidle, table.releasing, table.pipelined,
                    table.pods, table.max_pods):
            h.update(np.ascontiguousarray(col).tobytes())
            h.update(repr(col.shape).encode())
        self._digest = (at, h.digest())
        return self._digest[1]

    def _queue_key(self, queue: QueueInfo) -> Hashable:
        parts: list[Hashable] = [queue.name, queue.state]
        for plugin in self.ssn.plugins.values():
            if type(plugin) is ProportionPlugin:
                attr = plugin.attrs.get(queue.name)
                parts.append(None if attr is None else (
                    tuple(sorted((k, v) for k, v in attr.allocated.items() if v)),
                    tuple(sorted(attr.quota.deserved.items()))))
        return tuple(parts)

    def _eligible(self, job: JobInfo, taken: Iterable[TaskInfo]) -> tuple[int, ...] | None:
        """Whether the visit can be recorded: the positions in ``taken`` of the first task of each
        signature (all row-local), or None."""
        if job.fit_errors or job.job_fit_errors:
            return None
        seen: set[Hashable] = set()
        reps: list[int] = []
        ssn = self.ssn
        for i, task in enumerate(taken):
            spec = task.spec
            if spec.terms or spec.host_ports:
                return None
            if spec.sched_sig not in seen:
                if not ssn.rows_local(task):
                    return None
                seen.add(spec.sched_sig)
                reps.append(i)
        return tuple(reps)

    def _outer_key(self, queue: QueueInfo) -> tuple[Hashable, ...]:
        """The key's parts outside the job (checked first: they change most often)."""
        return (len(self.ssn.space), self._table_digest(), self._queue_key(queue))

    def _job_key(self, job: JobInfo, taken: tuple[TaskInfo, ...]) -> tuple[Hashable, ...]:
        states = tuple((t.status, t.node_name) for t in job.tasks.values())
        return (job.uid, job.min_available, tuple(sorted(job.min_task_member.items())), states,
                tuple(t.uid for t in taken))

    def _same_shape(self, entry: _Entry, job: JobInfo, taken: tuple[TaskInfo, ...]) -> bool:
        """The entry's node specs are these very objects, its task specs the same parses."""
        ssn = self.ssn
        if entry.nodes is not self._node_specs():
            if len(entry.nodes) != len(ssn.table) or not all(
                    a is n.spec for a, n in zip(entry.nodes, ssn.table.nodes, strict=True)):
                return False
            entry.nodes = self._node_specs()
        specs = entry.specs
        now = [t.spec for t in job.tasks.values()]
        now.extend(t.spec for t in taken)
        if len(specs) != len(now):
            return False
        renewed = False
        for a, b in zip(specs, now, strict=True):
            if a is not b:
                if not _same_parse(a, b):
                    return False
                renewed = True
        if renewed:
            entry.specs = tuple(now)
        return True

    def _node_specs(self) -> list[Any]:
        """The session's node specs in node order (one list per action)."""
        if self._specs is None:
            self._specs = [n.spec for n in self.ssn.table.nodes]
        return self._specs

    # -- replay and record ----------------------------------------------------------------------
    def replay(self, job: JobInfo, queue: QueueInfo, tasks: deque[TaskInfo]) -> bool:
        """Replay the job's last discarded visit when this one would read the same inputs; True
        when replayed (the visit is then over, discarded, as the recorded one was)."""
        entry = self.entries.get(job.uid) if self.enabled else None
        if entry is None:
            return False
        if entry.conf is not self.ssn.conf or job.fit_errors or job.job_fit_errors \
                or entry.key[0] != self._outer_key(queue):
            return False
        taken = tuple(tasks)
        if entry.key[1] != self._job_key(job, taken) or not self._same_shape(entry, job, taken):
            return False
        # The same parses as recorded (so no terms or host ports); row-locality is the session's.
        if not all(self.ssn.rows_local(taken[i]) for i in entry.reps):
            return False
        out = entry.outcome
        first: dict[tuple[str, TaskStatus], TaskInfo] = {}
        for uid, status, node in out.placed:
            task = job.tasks[uid]
            task.last_txn = (status, node)
            if status == S.Pipelined:
                task.eviction_occurred = False
            first.setdefault((task.spec.role, status), task)
        # The visit moved these tasks and back: the job's counters are as they were, and it has moved.
        for (_, status), task in first.items():
            job.set_status(task, status)
            job.set_status(task, S.Pending)
        for uid, fe in out.errors:
            job.fit_errors[uid] = _copy(fe)
        for _ in range(out.taken):
            tasks.popleft()
        self.replayed += 1
        return True

    def begin(self, job: JobInfo, tasks: deque[TaskInfo]) -> tuple[TaskInfo, ...] | None:
        """Before a visit: the tasks it may take (its input), or None when it cannot be recorded."""
        if not self.enabled:
            return None
        taken = tuple(tasks)
        reps = self._eligible(job, taken)
        if reps is None:
            return None
        self._reps = reps
        return taken

    def record(self, job: JobInfo, queue: QueueInfo, taken: tuple[TaskInfo, ...] | None,
               placed: list[Placed] | None, left: int) -> None:
        """After a visit that began with ``taken``: keep its outcome when it was discarded
        (``placed``: its placements; None when it was not discarded); ``left``: tasks not taken."""
        if not self.enabled:
            return
        if taken is None or placed is None:
            self.entries.pop(job.uid, None)
            return
        errors = list(job.fit_errors.items())
        specs = tuple(t.spec for t in job.tasks.values()) + tuple(t.spec for t in taken)
        self.entries[job.uid] = _Entry(self.ssn.conf, self._node_specs(), specs,
                                       (self._outer_key(queue), self._job_key(job, taken)), self._reps,
                                       Outcome(list(placed), [(u, _copy(fe)) for u, fe in errors],
                                               len(taken) - left))

    def retain(self, uids: Iterable[str]) -> None:
        """Forget the entries of jobs not among ``uids`` (jobs that left the session)."""
        if self.enabled and self.entries:
            keep = set(uids)
            for uid in [u for u in self.entries if u not in keep]:
                del self.entries[uid]
