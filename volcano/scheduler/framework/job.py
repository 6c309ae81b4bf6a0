"""Jobs as the scheduler sees them: a PodGroup and its member tasks in one session.

``JobInfo`` keeps its status counts and allocated vector current as tasks move
(``add_task`` / ``set_status``) and carries Volcano's gang arithmetic
(``job_info.go``: ready, pipelined, starving, per-role minimums). ``FitErrors``
and ``task_scheduling_reason`` render the messages Volcano writes for tasks that
did not fit.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from volcano.api import accessors as obj
from volcano.api.resources import Resources
from volcano.api.well_known import PREEMPTABLE
from volcano.scheduler.framework.resources import ResourceSpace, scheduler_resources
from volcano.scheduler.framework.state import StateKey
from volcano.scheduler.framework.task import (
    ALLOCATED_STATUSES,
    READY_STATUSES,
    VALID_STATUSES,
    TaskInfo,
    TaskStatus,
    parse_bool,
)

__all__ = ["CLOSE_MEMOS", "REPLAYS", "UNTOUCHED", "CloseMemo", "CloseMemos", "FitErrors", "JobInfo", "PodGroupParse",
           "parse_podgroup", "scheduling_reason", "task_scheduling_reason"]

S = TaskStatus


class FitErrors:
    """Why a task fits no node: a histogram of node reasons (or one explicit error).

    ``error()`` renders Volcano's message: ``0/<N> nodes are unavailable: <count>
    <reason>, ... .`` with N the number of failing nodes and the histogram
    sorted as strings. ``unresolvable`` marks node rows whose failure no
    eviction can fix (preempt and reclaim skip them)."""

    __slots__ = ("_message", "err", "n_nodes", "reasons", "unresolvable")

    def __init__(self, err: str = "") -> None:
        self.err = err
        self.n_nodes = 0
        self.reasons: Counter[str] = Counter()
        self.unresolvable: npt.NDArray[np.bool_] | None = None
        self._message: tuple[str, int, tuple[tuple[str, int], ...], str] | None = None

    def add(self, reason_counts: Mapping[str, int], n_nodes: int) -> None:
        """Record ``n_nodes`` failing nodes with these reason counts."""
        self.n_nodes += n_nodes
        self.reasons.update(reason_counts)

    def error(self) -> str:
        """The message Volcano prints for these fit errors. One ``FitErrors`` is often shared by
        many tasks (the node selection's answer for tasks with equal signatures) and read for
        each of them: the message is kept with the state it was rendered from (``err``,
        ``n_nodes`` and the reasons in order) and rendered again only when that state moved."""
        state = (self.err, self.n_nodes, tuple(self.reasons.items()))
        kept = self._message
        if kept is not None and kept[:3] == state:
            return kept[3]
        if self.err and not self.reasons:
            msg = self.err
        else:
            base = self.err or f"0/{self.n_nodes} nodes are unavailable"
            hist = sorted(f"{count} {reason}" for reason, count in self.reasons.items())
            msg = f"{base}: {', '.join(hist)}."
        self._message = (*state, msg)
        return msg


class PodGroupParse(NamedTuple):
    """What a ``JobInfo`` reads from one PodGroup version (immutable: a session copies the
    mutable parts). ``parse_podgroup`` makes it; the session reuses it while the informer
    hands out the very same PodGroup object."""

    name: str
    namespace: str
    uid: str
    queue: str
    min_available: int
    min_task_member: Mapping[str, int]
    min_resources: Resources | None
    creation: str
    preemptable: bool
    phase: str
    conditions: tuple[Mapping[str, Any], ...]


def parse_podgroup(podgroup: Mapping[str, Any], default_queue: str) -> PodGroupParse:
    """The ``PodGroupParse`` of ``podgroup`` (bad quantities raise, naming the field)."""
    meta = obj.meta(podgroup)
    spec = podgroup.get("spec") or {}
    status = obj.status(podgroup)
    namespace = obj.namespace(podgroup) or "default"
    name = obj.name(podgroup)
    min_resources = scheduler_resources(spec.get("minResources"), field="spec.minResources") \
        if spec.get("minResources") is not None else None
    raw = obj.annotations(podgroup).get(PREEMPTABLE, obj.labels(podgroup).get(PREEMPTABLE))
    return PodGroupParse(
        name=name, namespace=namespace, uid=f"{namespace}/{name}", queue=spec.get("queue") or default_queue,
        min_available=int(spec.get("minMember") or 0),
        min_task_member={k: int(v) for k, v in (spec.get("minTaskMember") or {}).items()},
        min_resources=min_resources, creation=meta.get("creationTimestamp") or "",
        preemptable=bool(parse_bool(raw)) if raw is not None else False, phase=status.get("phase") or "",
        conditions=tuple(status.get("conditions") or ()))


class CloseMemo(NamedTuple):
    """What a session's close derived from a job it left untouched (``JobInfo.untouched``), kept
    on the job while the job is carried (``JobInfo.closed``): the next session's close, finding
    the job untouched again under the same configuration and with the same phase, derives the
    same (the job is then as built from the very same inputs) and reuses it. Memos are values,
    shared between jobs (``status.close_memos``); ``gang`` is set by the gang plugin's close,
    the rest by the status close."""

    conf: Any
    """The session configuration it was derived under (compared by identity)."""
    phase: str
    """The job's phase when it was derived (an action may set it: Inqueue)."""
    gang: tuple[str, int, str] | None
    """The gang plugin's condition: (type, unschedulable tasks, message); None: it set none."""
    quiet: bool | None
    """True: the status close wrote nothing for the job but the event ``said`` (when there is one);
    False: it wrote something; None: not derived."""
    out: tuple[str, int, int, int]
    """The job's PodGroup status phase and running, succeeded and failed counts (when quiet)."""
    alloc: bool
    """Whether the job has a task in an allocated status (its queue's sum reads its vector)."""
    said: str = ""
    """The message of the PodGroup's Unschedulable event the close recorded (a waiting job's, when
    quiet: its PodGroup and its tasks' conditions needed no write); "": none."""
    touch: object = None
    """What the session had done to the job when it was derived (``JobInfo.touch``): ``UNTOUCHED``,
    or the outcome of the futile allocate visit replayed on it (held: its identity stays its own)."""


class CloseMemos:
    """The ``CloseMemo`` values in use, one object per distinct value (a job keeps a reference,
    not a copy: 50,000 running single-pod jobs share a handful). Forgotten in bulk when it
    grows past ``LIMIT`` values (the jobs keep theirs; later ones are just not shared with them)."""

    __slots__ = ("_table",)
    LIMIT = 4096

    def __init__(self) -> None:
        self._table: dict[tuple[Any, ...], CloseMemo] = {}

    def keep(self, conf: Any, phase: str, gang: tuple[str, int, str] | None, quiet: bool | None = None,
             out: tuple[str, int, int, int] = ("", 0, 0, 0), alloc: bool = False, said: str = "",
             touch: object = None) -> CloseMemo:
        """The shared memo of these values (``touch``: ``UNTOUCHED`` when None)."""
        if touch is None:
            touch = UNTOUCHED
        # The memo holds ``conf`` and ``touch``: their ids stay their own.
        key = (id(conf), phase, gang, quiet, out, alloc, said, id(touch))
        memo = self._table.get(key)
        if memo is None:
            if len(self._table) >= self.LIMIT:
                self._table.clear()
            memo = self._table[key] = CloseMemo(conf, phase, gang, quiet, out, alloc, said, touch)
        return memo


CLOSE_MEMOS: StateKey[CloseMemos] = StateKey("job.close_memos", CloseMemos)
"""The carry's ``CloseMemos`` (kept in ``JobCarry.state``, forgotten with the carried jobs)."""

UNTOUCHED = "untouched"
"""``JobInfo.touch`` of a job no action changed (``JobInfo.untouched``)."""

REPLAYS: StateKey[object] = StateKey("job.replays", object)
"""Per session (``Session.state``): a token of its own, which ``JobInfo.replayed`` marks hold."""


class JobInfo:
    """A PodGroup and its member tasks in one session (``parsed``: its ``PodGroupParse``,
    made from ``podgroup`` when not given)."""

    __slots__ = (
        "_be_pending",
        "_best_effort",
        "_moves",
        "_ready",
        "_role_be_pending",
        "_role_status",
        "allocated",
        "closed",
        "conditions",
        "creation",
        "fit_errors",
        "job_fit_errors",
        "memo",
        "min_available",
        "min_resources",
        "min_task_member",
        "name",
        "namespace",
        "phase",
        "podgroup",
        "preemptable",
        "priority",
        "queue",
        "replayed",
        "status_counts",
        "tasks",
        "uid",
    )

    def __init__(self, podgroup: Mapping[str, Any], default_queue: str, priority: int, space: ResourceSpace,
                 parsed: PodGroupParse | None = None) -> None:
        p = parsed if parsed is not None else parse_podgroup(podgroup, default_queue)
        self.podgroup = podgroup
        self.name = p.name
        self.namespace = p.namespace
        self.uid = p.uid
        self.queue: str = p.queue
        self.min_available = p.min_available
        self.min_task_member: dict[str, int] = dict(p.min_task_member)
        self.min_resources = p.min_resources
        self.priority = priority
        self.creation: str = p.creation
        self.preemptable = p.preemptable
        self.phase: str = p.phase
        self.conditions: list[dict[str, Any]] = [dict(c) for c in p.conditions]
        self.tasks: dict[str, TaskInfo] = {}
        self.status_counts: Counter[TaskStatus] = Counter()
        self._be_pending = 0
        self._best_effort = 0
        self._ready = 0
        self._role_status: Counter[tuple[str, TaskStatus]] = Counter()
        self._role_be_pending: Counter[str] = Counter()
        self.allocated = space.zeros()
        self.fit_errors: dict[str, FitErrors] = {}
        self.job_fit_errors = ""
        self.memo: dict[Any, Any] | None = None
        """Values worked out from the job as built (before any task moves), kept while the
        job is reused across sessions (``reuse``); a rebuilt job starts with none (None
        until the first is kept: most jobs of a large cluster never get one)."""
        self._moves = 0
        self.closed: CloseMemo | None = None
        """The last session close's memo of this job (``CloseMemo``; None: none), kept while the
        job is carried; only the gang plugin's close and the status close read and write it."""
        self.replayed: tuple[object, object, int, tuple[FitErrors, ...], tuple[TaskInfo, ...]] | None = None
        """Set by a futile allocate visit replayed on the job as built (``actions.futile``): the
        session's token (``REPLAYS``), the outcome replayed, the job's move count and fit error
        objects right after it (``touch``), and the tasks it gave a transaction (``undo_replay``)."""

    # -- membership and status ------------------------------------------------------------
    def add_task(self, task: TaskInfo) -> None:
        """Add a task (keeps counts and the allocated vector current)."""
        task.job = self
        self.tasks[task.uid] = task
        self.status_counts[task.status] += 1
        self._role_status[task.spec.role, task.status] += 1
        if task.spec.best_effort:
            self._best_effort += 1
            if task.status == S.Pending:
                self._be_pending += 1
                self._role_be_pending[task.spec.role] += 1
        if task.status in READY_STATUSES:
            self._ready += 1
        if task.status in ALLOCATED_STATUSES:
            self.allocated = self.allocated + task.vec

    def set_status(self, task: TaskInfo, status: TaskStatus) -> None:
        """Move ``task`` to ``status`` (counts and allocation follow)."""
        old = task.status
        if old == status:
            return
        self._moves += 1
        self.status_counts[old] -= 1
        self.status_counts[status] += 1
        role = task.spec.role
        self._role_status[role, old] -= 1
        self._role_status[role, status] += 1
        if task.spec.best_effort:
            self._be_pending += (status == S.Pending) - (old == S.Pending)
            self._role_be_pending[role] += (status == S.Pending) - (old == S.Pending)
        self._ready += (status in READY_STATUSES) - (old in READY_STATUSES)
        was, now = old in ALLOCATED_STATUSES, status in ALLOCATED_STATUSES
        if was and not now:
            self.allocated = self.allocated - task.vec
        elif now and not was:
            self.allocated = self.allocated + task.vec
        task.status = status

    @property
    def best_effort_tasks(self) -> int:
        """How many of its tasks request nothing (but the pod slot), whatever their status."""
        return self._best_effort

    @property
    def moved(self) -> bool:
        """Whether any task changed status since the job was built (``set_status``)."""
        return self._moves > 0

    def untouched(self) -> bool:
        """No task of the job moved (``moved``) and no fit error was set on it since it was built
        (with its phase, what a session's actions set on a job)."""
        return self._moves == 0 and not self.fit_errors and not self.job_fit_errors

    def touch(self, token: object) -> object | None:
        """What the session of ``token`` (``REPLAYS``) did to the job, when it is one of two things
        a close can be reused for: nothing (``UNTOUCHED``: ``untouched``), or only the replay of a
        futile allocate visit on the job as built (the outcome replayed, ``replayed``: no task moved
        and no fit error was set since the replay, every task move counting in ``_moves`` and every
        fit error set being a new entry or a new ``FitErrors`` object). None otherwise."""
        if self._moves == 0 and not self.fit_errors and not self.job_fit_errors:
            return UNTOUCHED
        mark = self.replayed
        if mark is None or mark[0] is not token or not self._replay_intact(mark):
            return None
        return mark[1]

    def _replay_intact(self, mark: tuple[object, object, int, tuple[FitErrors, ...], tuple[TaskInfo, ...]]) -> bool:
        """Whether nothing touched the job since the replay ``mark`` records: no task moved (the
        move count is the one right after it), no job fit error, and the same fit error objects."""
        if mark[2] != self._moves or self.job_fit_errors:
            return False
        values, errors = mark[3], self.fit_errors
        return len(errors) == len(values) and all(a is b for a, b in zip(errors.values(), values, strict=True))

    def undo_replay(self) -> bool:
        """Put the job back as built when the only thing done to it since it was built is a
        replayed futile allocate visit (``replayed``, checked as ``touch`` checks it, but for the
        session: the carry clears every mark before the next session). Such a replay moved some
        tasks and back (statuses as built; nodes untouched) and gave the placed tasks a
        transaction (and a cleared ``eviction_occurred``, as built): the transactions are cleared,
        the zero entries the moves left in the counters dropped (building counts up from nothing
        and leaves none; the others keep their order), and the move count zeroed; the allocated
        vector is as built already (int64 sums). Fit errors and the mark are the caller's to
        reset. False (nothing done) when anything else may have touched the job."""
        mark = self.replayed
        if mark is None or not self._replay_intact(mark):
            return False
        for task in mark[4]:
            task.last_txn = None
            task.eviction_occurred = False
        self._drop_zeros()
        self._moves = 0
        return True

    def _drop_zeros(self) -> None:
        """Drop the zero entries of the counters (building counts up from nothing and leaves none;
        the other entries keep their order)."""
        for counter in (self.status_counts, self._role_status, self._role_be_pending):
            zeros = [key for key, n in counter.items() if not n]
            for key in zeros:
                del counter[key]

    def put_back(self, built: Mapping[str, tuple[TaskStatus, str]]) -> None:
        """Put every task back as built: the status and node it was built with (its spec's, or its
        entry in ``built`` by task uid), no transaction context; and the job counted as ``add_task``
        counted it when it was built, at the cost of the tasks whose status differs: each moves back through
        ``set_status`` (exact: the counts are then the built ones, and int64 sums do not depend on
        their order), the zero entries the moves left in the counters are dropped (an entry of a
        status some task was built with is not zero and keeps its place; the others are zero) and
        the move count is zeroed."""
        set_status = self.set_status
        for task in self.tasks.values():
            spec = task.spec
            over = built.get(spec.uid)
            status, node = (spec.status, spec.node_name) if over is None else over
            if task.status != status:
                set_status(task, status)
            task.node_name = node
            task.eviction_occurred = False
            task.last_txn = None
        self._drop_zeros()
        self._moves = 0

    def count(self, statuses: Iterable[TaskStatus]) -> int:
        """Number of tasks in any of ``statuses``."""
        get = self.status_counts.get  # dict.get: no ``Counter.__missing__`` call for an absent status
        total = 0
        for s in statuses:
            total += get(s, 0)
        return total

    def tasks_in(self, *statuses: TaskStatus) -> list[TaskInfo]:
        """Tasks with one of ``statuses``, in insertion order."""
        return [t for t in self.tasks.values() if t.status in statuses]

    # -- gang arithmetic (Volcano job_info.go) ---------------------------------------------
    def ready_task_num(self) -> int:
        """#tasks in Bound, Binding, Running, Allocated, Succeeded (kept current by
        ``add_task`` / ``set_status``)."""
        return self._ready

    def waiting_task_num(self) -> int:
        """#tasks Pipelined."""
        return self.status_counts[S.Pipelined]

    def pending_best_effort_num(self) -> int:
        """#Pending tasks without requests."""
        return self._be_pending

    def valid_task_num(self) -> int:
        """#tasks in a valid status."""
        return self.count(VALID_STATUSES)

    def is_ready(self) -> bool:
        """ReadyTaskNum + PendingBestEffort >= minAvailable."""
        return self._ready + self._be_pending >= self.min_available

    def is_pipelined(self) -> bool:
        """Waiting + Ready + PendingBestEffort >= minAvailable."""
        return self.waiting_task_num() + self.ready_task_num() + self.pending_best_effort_num() >= self.min_available

    def is_starving(self) -> bool:
        """Waiting + Ready < minAvailable."""
        return self.waiting_task_num() + self.ready_task_num() < self.min_available

    def _role_count(self, role: str, statuses: frozenset[TaskStatus], pending_be: bool) -> int:
        """Tasks of ``role`` in ``statuses`` (plus, with ``pending_be``, its pending best-effort
        tasks): O(statuses) from counts kept by ``add_task`` / ``set_status``."""
        counts = self._role_status
        total = sum(counts[role, s] for s in statuses)
        if pending_be and S.Pending not in statuses:
            total += self._role_be_pending[role]
        return total

    def _check_roles(self, statuses: frozenset[TaskStatus], pending_be: bool, skip_zero: bool) -> bool:
        if not self.min_task_member or self.min_available < sum(self.min_task_member.values()):
            return True
        for role, minimum in sorted(self.min_task_member.items()):
            if skip_zero and minimum == 0:
                continue
            if self._role_count(role, statuses, pending_be) < minimum:
                return False
        return True

    def check_task_valid(self) -> bool:
        """Every role has enough valid tasks (skipped when minMember < Σ minTaskMember)."""
        return self._check_roles(VALID_STATUSES, False, True)

    def check_task_ready(self) -> bool:
        """Every role has enough ready tasks (+ pending best-effort ones)."""
        return self._check_roles(READY_STATUSES, True, False)

    def check_task_pipelined(self) -> bool:
        """Every role has enough ready or pipelined tasks."""
        return self._check_roles(READY_STATUSES | {S.Pipelined}, True, False)

    def task_has_fit_errors(self, task: TaskInfo) -> bool:
        """A task of the same non-empty role already failed in this session."""
        role = task.spec.role
        if not role or not self.fit_errors:
            return False
        return any(self.tasks[uid].spec.role == role for uid in self.fit_errors if uid in self.tasks)

    def need_continue_allocating(self) -> bool:
        """Whether allocate should try the job's other tasks after one failed (Volcano's rules)."""
        n = len(self.tasks)
        if self.min_available >= n:
            return False
        failed_roles = {self.tasks[uid].spec.role for uid in self.fit_errors if uid in self.tasks}
        waiting = S.Pending  # read once: an enum member read off its class is slow, and this runs per task
        pending: Counter[str] = Counter(t.spec.role for t in self.tasks.values() if t.status == waiting)
        total_min = sum(self.min_task_member.values())
        if self.min_available < total_min:
            left = sum(c for r, c in pending.items() if r not in failed_roles)
            return self.ready_task_num() + left >= self.min_available
        allocated: Counter[str] = Counter()
        for t in self.tasks.values():
            if t.status in READY_STATUSES or (t.status == waiting and t.best_effort):
                allocated[t.spec.role] += 1
        for role in sorted(failed_roles):
            minimum = self.min_task_member.get(role, 0)
            if minimum > 0 and allocated[role] < minimum:
                return False
        return True

    # -- messages --------------------------------------------------------------------------
    def fit_error(self, origin_order: list[TaskInfo] | None = None) -> str:
        """Volcano's ``job.FitError()`` message (see the module docs of ``status``)."""
        head = "pod group is ready" if self.is_ready() else "pod group is not ready"
        parts = [f"{c} {s.name}" for s, c in self.status_counts.items() if c > 0]
        parts.append(f"{self.min_available} minAvailable")
        msg = head + ", " + ", ".join(sorted(parts))
        reasons: Counter[str] = Counter()  # its order does not matter: the message sorts it
        if self.status_counts[S.Pending]:
            plain = 0  # Pending tasks without a transaction: ``scheduling_reason`` says Unschedulable
            pending = S.Pending
            for t in self.tasks.values():
                if t.status == pending:
                    if t.last_txn is None:
                        plain += 1
                    else:
                        reasons[scheduling_reason(t)] += 1
            if plain:
                reasons["Unschedulable"] += plain
        if reasons:
            msg += "; Pending: " + ", ".join(sorted(f"{c} {r}" for r, c in reasons.items()))
        if self.job_fit_errors:
            msg += ". Origin reason is: " + self.job_fit_errors
        else:
            for t in origin_order if origin_order is not None else self.tasks.values():
                fe = self.fit_errors.get(t.uid)
                if fe is not None:
                    msg += f". Origin reason is {t.name}: {fe.error()}"
                    break
        return msg


_REASONS = {S.Allocated: "Schedulable", S.Pipelined: "Unschedulable", S.Pending: "Unschedulable"}


def scheduling_reason(task: TaskInfo) -> str:
    """``task_scheduling_reason(job, task)[0]`` without rendering the message."""
    status = task.last_txn[0] if task.last_txn is not None else task.status
    return _REASONS.get(status) or status.name


def task_scheduling_reason(job: JobInfo, task: TaskInfo) -> tuple[str, str, str]:
    """(reason, message, nominated node) for a task, from its last transaction or current state."""
    status, node = task.last_txn if task.last_txn is not None else (task.status, task.node_name)
    if status == S.Allocated:
        return ("Schedulable",
                f"Pod {task.key} can possibly be assigned to {node}, once minAvailable is satisfied", "")
    if status == S.Pipelined:
        return ("Unschedulable",
                f"Pod {task.key} can possibly be assigned to {node}, once resource is released and "
                "minAvailable is satisfied", node if task.eviction_occurred else "")
    if status == S.Pending:
        fe = job.fit_errors.get(task.uid)
        return ("Unschedulable", fe.error() if fe is not None else job.job_fit_errors, "")
    return (status.name, job.job_fit_errors, "")
