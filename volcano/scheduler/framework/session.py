"""The Session: one scheduling cycle over a snapshot, with fresh plugin instances.

``Session(snapshot, conf, registry, ...)`` builds the session model from the
snapshot (tasks, jobs, columnar node table, queues), instantiates every
configured plugin with its arguments and calls ``open``; plugins register
callbacks through ``add_fn(POINT, fn)`` (typed by the ``Point`` constant, gated
by the entry's enable flag, see ``points``) and event handlers through
``add_event_handler``. Plugins keep scratch data in the typed ``state`` (this
session) and ``shared`` (across sessions while the nodes are unchanged), and
report metrics through ``metrics``.
Actions read and change the session only through the helpers here and through
``Statement``. Binds and evictions that actions commit are collected in
``binds`` / ``evictions``; the cache executes them. ``close()`` runs the
plugins' close hooks; ``volcano.scheduler.framework.status`` then derives the
PodGroup/queue/pod status writes.

Size: the class is the framework's one surface for actions and plugins (the
``Session`` of Volcano's ``framework/session.go`` and ``session_plugins.go``):
its open, the orderings, the job-level predicates, the task state moves and
close, each a few lines over the typed points. It runs slightly past the
project's 500-line guide on purpose; the model, the node table, statements and
status derivation already live in their own modules.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from functools import cmp_to_key
from operator import attrgetter
from typing import Any, ParamSpec, TypeVar

import numpy as np
import numpy.typing as npt

from volcano.scheduler.framework.build import build_model
from volcano.scheduler.framework.carry import JobCarry
from volcano.scheduler.framework.conf import PluginOption, SchedulerConf
from volcano.scheduler.framework.job import JobInfo
from volcano.scheduler.framework.metrics import NO_METRICS, MetricsSink
from volcano.scheduler.framework.node import NodeInfo, NodeTable
from volcano.scheduler.framework.plugin import Arguments, Plugin, PluginRegistry
from volcano.scheduler.framework.points import (
    ALLOCATABLE,
    BEST_NODE,
    CATALOGUE,
    JOB_ENQUEUEABLE,
    JOB_ENQUEUED,
    JOB_ORDER,
    JOB_PIPELINED,
    JOB_READY,
    JOB_STARVING,
    JOB_VALID,
    NODE_ORDER,
    OVERUSED,
    PRE_PREDICATE,
    PREDICATE,
    PREEMPTABLE,
    PREEMPTIVE,
    QUEUE_ORDER,
    RECLAIMABLE,
    TASK_ORDER,
    VICTIM_QUEUE_ORDER,
    FloatArray,
    IntArray,
    JobInvalid,
    Point,
    Verdict,
)
from volcano.scheduler.framework.queue import QueueInfo
from volcano.scheduler.framework.resources import Vec
from volcano.scheduler.framework.snapshot import Snapshot
from volcano.scheduler.framework.state import State
from volcano.scheduler.framework.task import TaskInfo, TaskSpec, TaskStatus, default_task_less
from volcano.scheduler.framework.util import PriorityQueue
from volcano.sim.clock import Clock, SimClock
from volcano.sim.trace import Trace

__all__ = ["EventHandler", "Session", "Snapshot"]

S = TaskStatus
P = ParamSpec("P")
A = TypeVar("A")
R = TypeVar("R")
EventHandler = Callable[[TaskInfo], None]
"""Told of a task whose placement changed (see ``Session.add_event_handler``)."""


def _columns(status: TaskStatus) -> int:
    """Which node-table columns a task of ``status`` counts in (``NodeTable.add_task``):
    pipelined (1), used and releasing (2), used and FutureIdle (0)."""
    return 1 if status == S.Pipelined else (2 if status == S.Releasing else 0)


_INDEX = attrgetter("spec.index")
"""A task's pod-name index."""


def _task_sort_key(flat: list[Callable[[TaskSpec], Any]]) -> Callable[[TaskInfo], tuple[Any, ...]]:
    """The sort key of ``Session.sort_tasks``: the task-order keys ``flat`` of the task's spec, then
    its index, creation and uid (with none, one or two keys, a function made for that count)."""
    if not flat:
        return lambda t: ((s := t.spec).index, s.creation, s.uid)
    if len(flat) == 1:
        k0 = flat[0]
        return lambda t: (k0(s := t.spec), s.index, s.creation, s.uid)
    if len(flat) == 2:
        k0, k1 = flat
        return lambda t: (k0(s := t.spec), k1(s), s.index, s.creation, s.uid)
    return lambda t: (*(k(t.spec) for k in flat), t.spec.index, t.spec.creation, t.spec.uid)


_Ordered = TypeVar("_Ordered", JobInfo, QueueInfo)


def _sort_key(flat: list[Callable[[_Ordered], Any]]) -> Callable[[_Ordered], tuple[Any, ...]]:
    """The sort key of ``Session.job_key`` / ``queue_key``: the order keys ``flat`` of the job or
    queue, then its creation and uid (with one to three keys, a function made for that count)."""
    if len(flat) == 1:
        k0 = flat[0]
        return lambda x: (k0(x), x.creation, x.uid)
    if len(flat) == 2:
        k0, k1 = flat
        return lambda x: (k0(x), k1(x), x.creation, x.uid)
    if len(flat) == 3:
        k0, k1, k2 = flat
        return lambda x: (k0(x), k1(x), k2(x), x.creation, x.uid)
    rest: tuple[Callable[[_Ordered], Any], ...] = tuple(flat)
    return lambda x: (*(k(x) for k in rest), x.creation, x.uid)


class Session:
    """One scheduling cycle (see the module docstring)."""

    def __init__(self, snapshot: Snapshot, conf: SchedulerConf, registry: PluginRegistry, *,
                 uid: str = "session-0", now_ms: int = 0, trace: Trace | None = None,
                 component: str = "volcano", clock: Clock | None = None,
                 metrics: MetricsSink = NO_METRICS, reuse: bool = True, carry: JobCarry | None = None) -> None:
        self.uid = uid
        self.reuse = reuse
        """Reuse what earlier sessions parsed from the same immutable objects, and skip work whose
        result is unused (``False``: recompute everything, the reference the property tests compare
        against; the decisions and writes are the same either way)."""
        self.carry = carry
        """The carry this session's jobs were taken from (None: none; see ``framework.carry``)."""
        self.now_ms = now_ms
        self.clock: Clock = clock if clock is not None else SimClock()
        """Formats this session's timestamps (a default simulated clock when none is given)."""
        self.conf = conf
        self.trace = trace
        self.component = component
        self.space = space = snapshot.space
        # Every resource name must be registered before any session-wide vector
        # is sized: task requests first (vectorising registers), then the node
        # table (which registers allocatable names before sizing its columns).
        # The width is fixed from here on; vectors made narrower are padded.
        # (A snapshot whose names are all registered already skips that; ``build_model`` makes
        # the node table, ``self.table``.)
        task_vecs = None
        if not snapshot.registered:
            task_vecs = [spec.vec(space) for spec in snapshot.tasks]
            for node_spec in snapshot.nodes:  # before a carried job's width is compared
                space.register_all(node_spec.allocatable)
        self.table: NodeTable
        self.queues: dict[str, QueueInfo] = {q.name: q for q in snapshot.queues}
        self.default_queue = snapshot.default_queue
        self.jobs: dict[str, JobInfo] = {}
        self.unusable: list[tuple[Mapping[str, Any], BaseException]] = []
        """PodGroups the scheduler could not read (left out; the scheduler reports each as a Warning Event)."""
        build_model(self, snapshot, task_vecs, carry)
        self.nodes: list[NodeInfo] = self.table.nodes
        self.total: Vec = self.table.alloc.sum(axis=0) if len(self.table) else space.zeros()
        self.binds: list[tuple[TaskInfo, str]] = []
        self.evictions: list[tuple[TaskInfo, str]] = []
        self.on_allocate: list[EventHandler] = []
        self.on_deallocate: list[EventHandler] = []
        self.plugins: dict[str, Plugin] = {}
        self.state = State()
        """Typed scratch state for this session (``state.StateKey``)."""
        self.shared = State(snapshot.shared)
        """Typed caches kept across sessions while the node set is unchanged."""
        self.metrics = metrics
        """Where plugins and actions report metrics."""
        self.job_events: list[tuple[JobInfo, str, str, str]] = []
        # Callbacks of every point by name, per tier; heterogeneous, so stored untyped:
        # add_fn and call are the typed doors.
        self._fns: dict[str, list[list[Callable[..., Any]]]] = {
            name: [[] for _ in conf.tiers] for name in CATALOGUE}
        self._current: tuple[int, PluginOption] | None = None
        self._locality: list[bool | Callable[[TaskInfo], bool]] = []
        self._task_keys: list[list[Callable[[TaskSpec], Any]]] | None = [[] for _ in conf.tiers]
        """Task-order keys per tier, in registration order (None: some callback has none)."""
        self._job_keys: list[list[Callable[[JobInfo], Any]]] | None = [[] for _ in conf.tiers]
        """Job-order keys per tier, in registration order (None: some callback has none)."""
        self._queue_keys: list[list[Callable[[QueueInfo], Any]]] | None = [[] for _ in conf.tiers]
        """Queue-order keys per tier, in registration order (None: some callback has none)."""
        self._open_plugins(registry)
        if carry is not None:
            carry.settle()
        self._job_order: tuple[Callable[[JobInfo, JobInfo], int], ...] = tuple(
            fn for tier in self._fns[JOB_ORDER.name] for fn in tier)
        """The JobOrder callbacks in tier walk order (callbacks register only while plugins open)."""

    def _open_plugins(self, registry: PluginRegistry) -> None:
        """Instantiate every configured plugin, tier by tier, and let it register."""
        for ti, tier in enumerate(self.conf.tiers):
            for opt in tier.plugins:
                cls = registry.get(opt.name)
                if cls is None:
                    raise KeyError(f"plugin {opt.name!r} is not in the registry")
                plugin = cls(Arguments(opt.arguments))
                self.plugins[opt.name] = plugin
                self._current = (ti, opt)
                plugin.open(self)
        self._current = None

    # -- registration --------------------------------------------------------------------
    def add_fn(self, point: Point[P, A, Any], fn: Callable[P, A], *,
               row_local: bool | Callable[[TaskInfo], bool] = False,
               key: Callable[[Any], Any] | None = None) -> None:
        """Register ``fn`` for ``point`` on behalf of the plugin being opened
        (ignored when that plugin's entry disables the point's flag).

        ``row_local`` (``PREDICATE`` and ``NODE_ORDER`` only) promises that the
        answer for a node row depends only on that row's node and accounting and
        on the task's ``spec.sched_sig`` (a callable decides per task); a row-local
        predicate answers ``fn(task, rows)`` for those rows only. When every
        callback is row-local for a task, node selection keeps per-signature
        results and re-evaluates only rows changed since
        (``volcano.scheduler.framework.select``).

        ``key`` (``TASK_ORDER``, ``JOB_ORDER`` and ``QUEUE_ORDER`` only) promises that
        ``fn(l, r)`` is negative, zero or positive exactly as ``key(l.spec)`` is less
        than, equal to or greater than ``key(r.spec)`` (task order), or ``key(l)`` than
        ``key(r)`` (job and queue order); when every task-order callback has one,
        ``sort_tasks`` sorts by the keys instead of comparing pairs (see there). A
        job-order key must moreover be a function of the job's own state that changes
        only when one of its tasks moves (status or placement), so that a heap may hold
        the key computed when the job was pushed (``job_key``); a queue-order key, a
        function of the queue's own state that changes only when a task of one of its
        jobs moves (``queue_key``)."""
        if self._current is None:
            raise RuntimeError("add_fn is only valid inside Plugin.open")
        if CATALOGUE.get(point.name) is not point:
            raise ValueError(f"{point.name!r} is not a point of the catalogue")
        if key is not None and point is not TASK_ORDER and point is not JOB_ORDER and point is not QUEUE_ORDER:
            raise ValueError(f"add_fn: key is only valid for {TASK_ORDER.name!r}, {JOB_ORDER.name!r} and "
                             f"{QUEUE_ORDER.name!r}, got it for {point.name!r}")
        tier, opt = self._current
        if opt.enabled(point.flag):
            self._fns[point.name][tier].append(fn)
            if (point is PREDICATE or point is NODE_ORDER) and row_local is not True:
                self._locality.append(row_local)
            if point is TASK_ORDER:
                if key is None:
                    self._task_keys = None
                elif self._task_keys is not None:
                    self._task_keys[tier].append(key)
            if point is JOB_ORDER:
                if key is None:
                    self._job_keys = None
                elif self._job_keys is not None:
                    self._job_keys[tier].append(key)
            if point is QUEUE_ORDER:
                if key is None:
                    self._queue_keys = None
                elif self._queue_keys is not None:
                    self._queue_keys[tier].append(key)

    def rows_local(self, task: TaskInfo) -> bool:
        """Whether every predicate and node-order callback is row-local for ``task``
        and no BestNode callback participates (see ``add_fn``)."""
        for cond in self._locality:
            if not callable(cond) or not cond(task):
                return False
        return not self.has(BEST_NODE)

    def add_event_handler(self, allocate: EventHandler | None = None,
                          deallocate: EventHandler | None = None) -> None:
        """Register handlers fired after a task is allocated/pipelined (``allocate``)
        or evicted/unallocated (``deallocate``)."""
        if allocate is not None:
            self.on_allocate.append(allocate)
        if deallocate is not None:
            self.on_deallocate.append(deallocate)

    def has(self, point: Point[..., Any, Any]) -> bool:
        """Whether any plugin participates in ``point``."""
        return any(self._fns[point.name])

    def call(self, point: Point[P, A, R], *args: P.args, **kwargs: P.kwargs) -> R:
        """Dispatch ``point``: its combiner folds the participating callbacks."""
        return point.fold(self._fns[point.name], *args, **kwargs)

    def timestamp(self) -> str:
        """RFC 3339 time of this session's ``now_ms``, formatted by its clock."""
        return self.clock.timestamp(self.now_ms)

    def record(self, event: str, obj: str = "", detail: str = "") -> None:
        """Append a decision to the trace (if any)."""
        if self.trace is not None:
            self.trace.record(self.now_ms, self.component, event, obj, detail)

    def podgroup_event(self, job: JobInfo, type: str, reason: str, message: str) -> None:
        """Record an event on ``job``'s PodGroup (``type`` ``Normal``/``Warning``).

        Plugins call this where Volcano's ``ssn.RecordPodGroupEvent`` does (e.g.
        an enqueue rejection); the events are returned by session close, in the
        order recorded, and written through the scheduler's event recorder (which
        aggregates repeats into ``count``). The decision is traced as well."""
        self.job_events.append((job, type, reason, message))
        self.record(reason, job.uid, message)

    # -- orderings -------------------------------------------------------------------------
    def job_less(self, left: JobInfo, right: JobInfo) -> bool:
        """JobOrderFn, falling back to creation time then UID."""
        # The first_nonzero combiner inlined over the flattened tiers: heaps call this
        # hundreds of thousands of times per cycle.
        for fn in self._job_order:
            j = fn(left, right)
            if j:
                return bool(j < 0)
        if left.creation != right.creation:
            return left.creation < right.creation
        return left.uid < right.uid

    def job_key(self) -> Callable[[JobInfo], tuple[Any, ...]] | None:
        """A sort key giving ``job_less``'s order, or None (without ``reuse``, or when some
        job-order callback registered no key; see ``add_fn``).

        The key is the tuple (the callbacks' keys in tier walk order, creation, uid):
        the first callback whose keys differ decides, as the first non-zero answer
        does, else creation time, then uid, as ``job_less`` falls back. A job's key
        changes only when its own tasks move, so a heap of jobs none of whose tasks
        move while they wait may order them by the key computed at push."""
        keys = self._job_keys
        if not self.reuse or keys is None:
            return None
        return _sort_key([k for tier in keys for k in tier])

    def queue_key(self) -> Callable[[QueueInfo], tuple[Any, ...]] | None:
        """A sort key giving ``queue_less``'s order, or None (without ``reuse``, or when some
        queue-order callback registered no key; see ``add_fn``).

        The key is the tuple (the callbacks' keys in tier walk order, creation, uid), as
        ``job_key`` is made: the first callback whose keys differ decides, as the first
        non-zero answer does, else creation time, then uid. A queue's key changes only when
        a task of one of its jobs moves, so a heap of queues none of whose jobs' tasks move
        while they wait may order them by the key computed at push."""
        keys = self._queue_keys
        if not self.reuse or keys is None:
            return None
        return _sort_key([k for tier in keys for k in tier])

    def job_compare(self, left: JobInfo, right: JobInfo) -> int:
        """JobOrderFn's raw answer (0 when every plugin abstains)."""
        return self.call(JOB_ORDER, left, right)

    def queue_less(self, left: QueueInfo, right: QueueInfo) -> bool:
        """QueueOrderFn, falling back to creation time then name."""
        j = self.call(QUEUE_ORDER, left, right)
        if j:
            return j < 0
        if left.creation != right.creation:
            return left.creation < right.creation
        return left.uid < right.uid

    def task_less(self, left: TaskInfo, right: TaskInfo) -> bool:
        """TaskOrderFn, falling back to Volcano's default task order."""
        j = self.call(TASK_ORDER, left, right)
        if j:
            return j < 0
        return default_task_less(left.spec, right.spec)

    def victim_queue_less(self, left: QueueInfo, right: QueueInfo, preemptor: QueueInfo) -> bool:
        """VictimQueueOrderFn, else the queue scheduled later goes first."""
        j = self.call(VICTIM_QUEUE_ORDER, left, right, preemptor)
        if j:
            return j < 0
        return not self.queue_less(left, right)

    def victim_less(self, preemptor: TaskInfo) -> Callable[[TaskInfo, TaskInfo], bool]:
        """Volcano's victim order for ``preemptor`` (``BuildVictimsPriorityQueue``,
        reference §4.6): ``less(l, r)`` is True when ``l`` is evicted first.

        Same job: the task ordered later goes first. A victim whose job is not in
        the session goes before one whose job is. Same queue (or a preemptor
        without a session job): the job ordered later goes first, ties by the
        reversed task order. Different queues: ``VictimQueueOrderFn``."""
        pjob = self.job_of(preemptor)

        def less(left: TaskInfo, right: TaskInfo) -> bool:
            lj, rj = self.job_of(left), self.job_of(right)
            if lj is not None and lj is rj:
                return not self.task_less(left, right)
            if (lj is None) != (rj is None):
                return lj is None
            if lj is None or rj is None:
                return not self.task_less(left, right)
            if pjob is None or lj.queue == rj.queue:
                c = self.job_compare(lj, rj)
                if c > 0:
                    return True
                if c < 0:
                    return False
                return not self.task_less(left, right)
            return self.victim_queue_less(self.queues[lj.queue], self.queues[rj.queue], self.queues[pjob.queue])

        return less

    def victim_order(self, preemptor: TaskInfo, victims: Iterable[TaskInfo]) -> list[TaskInfo]:
        """``victims`` in the pop order of Volcano's victim heap for ``preemptor``
        (first evicted first; see ``victim_less``). Plugins that walk candidates in
        that order (capacity's reclaimable) use this."""
        heap: PriorityQueue[TaskInfo] = PriorityQueue(self.victim_less(preemptor), victims)
        return [heap.pop() for _ in range(len(heap))]

    def sorts_by_spec(self) -> bool:
        """Whether ``sort_tasks`` orders tasks by their specs alone, the same way in every session
        of this configuration: with ``reuse``, when every task-order callback has a key (a
        function of the task's spec, ``add_fn``); Volcano's default order reads the specs too."""
        return self.reuse and self._task_keys is not None

    def sort_tasks(self, tasks: Iterable[TaskInfo]) -> list[TaskInfo]:
        """Tasks in task order (the pop order of Volcano's task heap).

        When every task-order callback has a key (``add_fn``) and every task has a
        pod-name index, the order is a sort by the tuple (the keys in tier walk
        order, index, creation, uid): the first non-zero callback decides, else
        Volcano's default order, which for indexed tasks is exactly that tuple's
        tail. Otherwise (or without ``reuse``) tasks are compared pair by pair."""
        keys = self._task_keys
        if self.reuse and keys is not None:
            items = list(tasks)
            if None not in map(_INDEX, items):
                return sorted(items, key=_task_sort_key([k for tier in keys for k in tier]))
            tasks = items

        def cmp(a: TaskInfo, b: TaskInfo) -> int:
            return -1 if self.task_less(a, b) else (1 if self.task_less(b, a) else 0)

        return sorted(tasks, key=cmp_to_key(cmp))

    # -- job-level predicates ---------------------------------------------------------------
    def job_ready(self, job: JobInfo) -> bool:
        """JobReady (AND; no plugin: True)."""
        return self.call(JOB_READY, job)

    def job_pipelined(self, job: JobInfo) -> bool:
        """JobPipelined (tier vote)."""
        return self.call(JOB_PIPELINED, job)

    def job_starving(self, job: JobInfo) -> bool:
        """JobStarving (first tier with a callback)."""
        return self.call(JOB_STARVING, job)

    def job_valid(self, job: JobInfo) -> JobInvalid | None:
        """None when valid, else the first plugin's (reason, message)."""
        return self.call(JOB_VALID, job)

    def job_enqueueable(self, job: JobInfo) -> bool:
        """JobEnqueueable (tier vote)."""
        return self.call(JOB_ENQUEUEABLE, job)

    def job_enqueued(self, job: JobInfo) -> None:
        """JobEnqueued (call all)."""
        self.call(JOB_ENQUEUED, job)

    def overused(self, queue: QueueInfo) -> bool:
        """Overused (OR)."""
        return self.call(OVERUSED, queue)

    def allocatable(self, queue: QueueInfo, task: TaskInfo) -> bool:
        """Allocatable (AND)."""
        return self.call(ALLOCATABLE, queue, task)

    def preemptive(self, queue: QueueInfo, tasks: list[TaskInfo]) -> bool:
        """Preemptive (AND)."""
        return self.call(PREEMPTIVE, queue, tasks)

    def preemptable(self, preemptor: TaskInfo, preemptees: list[TaskInfo]) -> list[TaskInfo]:
        """Victims by the tier-intersection rule ([] when no tier decides)."""
        return self.call(PREEMPTABLE, preemptor, preemptees) or []

    def reclaimable(self, reclaimer: TaskInfo, reclaimees: list[TaskInfo]) -> list[TaskInfo]:
        """Victims by the tier-intersection rule ([] when no tier decides)."""
        return self.call(RECLAIMABLE, reclaimer, reclaimees) or []

    # -- node-level predicates and scores -----------------------------------------------------
    def pre_predicate(self, task: TaskInfo) -> str | None:
        """PrePredicate: the first error, or None."""
        return self.call(PRE_PREDICATE, task)

    def predicate(self, task: TaskInfo) -> Verdict:
        """Predicates over every node row (first failing plugin per node)."""
        verdict = self.call(PREDICATE, task, None)
        return verdict if verdict is not None else Verdict(len(self.table))

    def predicate_rows(self, task: TaskInfo, rows: IntArray) -> npt.NDArray[np.bool_]:
        """Which of ``rows`` pass every predicate (only valid when ``rows_local(task)``)."""
        ok = np.ones(len(rows), dtype=np.bool_)
        for tier in self._fns[PREDICATE.name]:
            for fn in tier:
                v = fn(task, rows)
                if v is not None:
                    ok &= v.ok
        return ok

    def node_scores(self, task: TaskInfo, rows: IntArray) -> FloatArray:
        """Summed node-order scores of ``rows``."""
        return self.call(NODE_ORDER, task, rows)

    def best_node(self, task: TaskInfo, rows: IntArray, scores: FloatArray) -> int | None:
        """BestNodeFn's choice (a row), or None."""
        return self.call(BEST_NODE, task, rows, scores)

    def job_of(self, task: TaskInfo) -> JobInfo | None:
        """The session job of ``task`` (None for tasks outside any session job)."""
        return task.job if task.job is not None and task.job.uid in self.jobs else None

    # -- state changes (used by Statement and by backfill) -----------------------------------
    def _fire(self, handlers: list[EventHandler], task: TaskInfo) -> None:
        for fn in handlers:
            fn(task)

    def _move(self, task: TaskInfo, status: TaskStatus) -> None:
        """Change status, keeping job counts and node accounting right (a move that keeps
        the task in the same accounting columns, e.g. Allocated to Binding, leaves the
        node table untouched)."""
        node = self.table.by_name.get(task.node_name) if task.node_name else None
        if node is not None and task.uid in node.tasks:
            assert task.job is not None
            if _columns(task.status) == _columns(status):  # only the node's task order moves, as below
                del node.tasks[task.uid]
                task.job.set_status(task, status)
                node.tasks[task.uid] = task
                return
            self.table.remove_task(node, task)
            task.job.set_status(task, status)
            self.table.add_task(node, task)
        elif task.job is not None:
            task.job.set_status(task, status)
        else:
            task.status = status

    def do_allocate(self, task: TaskInfo, node: NodeInfo) -> None:
        """Tentatively allocate ``task`` on ``node`` (status Allocated)."""
        assert task.job is not None
        task.job.set_status(task, S.Allocated)
        task.node_name = node.name
        self.table.add_task(node, task)
        self._fire(self.on_allocate, task)

    def undo_allocate(self, task: TaskInfo) -> None:
        """Undo ``do_allocate`` (task back to Pending)."""
        node = self.table.by_name[task.node_name]
        self.table.remove_task(node, task)
        assert task.job is not None
        task.job.set_status(task, S.Pending)
        self._fire(self.on_deallocate, task)
        task.node_name = ""

    def do_pipeline(self, task: TaskInfo, node: NodeInfo, eviction_occurred: bool) -> None:
        """Pipeline ``task`` onto ``node``'s releasing resources."""
        assert task.job is not None
        task.job.set_status(task, S.Pipelined)
        task.node_name = node.name
        task.eviction_occurred = eviction_occurred
        self.table.add_task(node, task)
        self._fire(self.on_allocate, task)

    def undo_pipeline(self, task: TaskInfo) -> None:
        """Undo ``do_pipeline`` (task back to Pending)."""
        self.undo_allocate(task)

    def lift(self, node: NodeInfo, task: TaskInfo) -> None:
        """Take ``task`` off ``node`` for a dry run: its accounting leaves the node
        and the deallocate handlers fire; its status is unchanged. ``put_back`` undoes it."""
        self.table.remove_task(node, task)
        self._fire(self.on_deallocate, task)

    def put_back(self, node: NodeInfo, task: TaskInfo) -> None:
        """Undo ``lift``."""
        self.table.add_task(node, task)
        self._fire(self.on_allocate, task)

    def do_evict(self, task: TaskInfo) -> None:
        """Mark a running/bound task Releasing in the session."""
        self._move(task, S.Releasing)
        self._fire(self.on_deallocate, task)

    def undo_evict(self, task: TaskInfo) -> None:
        """Undo ``do_evict`` (always back to Running, as Volcano does)."""
        self._move(task, S.Running)
        self._fire(self.on_allocate, task)

    def dispatch(self, task: TaskInfo) -> None:
        """Send an Allocated task to the binder (status Binding)."""
        self._move(task, S.Binding)
        self.binds.append((task, task.node_name))
        self.record("Bind", task.key, task.node_name)

    def commit_evict(self, task: TaskInfo, reason: str) -> None:
        """Hand an eviction to the evictor."""
        self.evictions.append((task, reason))
        self.record("Evict", task.key, f"{task.node_name} {reason}")

    def allocate(self, task: TaskInfo, node: NodeInfo) -> None:
        """Direct allocation (backfill): allocate, and when the job is ready
        dispatch every Allocated task of the job."""
        self.do_allocate(task, node)
        job = task.job
        assert job is not None
        if self.job_ready(job):
            for t in job.tasks_in(S.Allocated):
                self.dispatch(t)

    # -- close -------------------------------------------------------------------------------
    def close(self) -> None:
        """Run every plugin's close hook (in configuration order)."""
        for plugin in self.plugins.values():
            plugin.close(self)
