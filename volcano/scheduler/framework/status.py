"""Session close: PodGroup status, events, pod conditions and queue allocation.

``close_session(ssn)`` runs the plugins' close hooks and derives what Volcano
writes at the end of a cycle (``session.go``, ``job_updater.go``,
``cache.RecordJobStatusEvent``, ``updateQueueStatus``), as data: the caller
(the scheduler cache, or a test) applies it.

PodGroup phase (``pod_group_phase``): Unknown when a task runs while gang
marked the job unschedulable in this session; else with scheduled = Running +
Bound + Failed + Succeeded + Releasing-with-node: Completed when scheduled ≥
minMember and all scheduled completed, Running when scheduled ≥ minMember,
otherwise Pending, except that Inqueue stays Inqueue.

``close_session`` = the plugins' close hooks, then ``session_outcome`` (pure: it
reads the closed session and changes nothing). With ``Session.reuse`` the
outcome is derived in one pass per job (``_close_jobs``): the same arithmetic
with the counts read once, the change test on stripped conditions, and the
queue sums per queue instead of per job; without it, by the plain reading
(``_close_jobs_reference``, ``job_status``, ``status_changed``). A property
test compares the two outcomes at every session of random clusters.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, NamedTuple

import numpy as np

from volcano.api import accessors
from volcano.api.frozen import FrozenDict
from volcano.api.quantity import format_milli
from volcano.api.resources import Resources
from volcano.scheduler.framework.job import CLOSE_MEMOS, REPLAYS, UNTOUCHED, CloseMemo, CloseMemos
from volcano.scheduler.framework.model import (
    ALLOCATED_STATUSES,
    COMPLETED_STATUSES,
    SCHEDULED_STATUSES,
    JobInfo,
    TaskInfo,
    TaskStatus,
    task_scheduling_reason,
)
from volcano.scheduler.framework.plugin import Plugin
from volcano.scheduler.framework.session import Session
from volcano.scheduler.framework.state import StateKey

__all__ = ["FIT_MESSAGES", "Event", "SessionOutcome", "Statuses", "close_memos", "close_session", "fit_messages",
           "job_status", "origin_order", "pod_group_phase", "session_outcome", "set_condition", "status_changed",
           "updated_conditions"]

S = TaskStatus
_UNPLACED = (S.Allocated, S.Pending, S.Pipelined)
"""Statuses of tasks that get a ``PodScheduled=False`` condition at close."""


class Event(NamedTuple):
    """An event to record: involved object (kind, namespace, name), type, reason, message."""

    kind: str
    namespace: str
    name: str
    type: str
    reason: str
    message: str


class Statuses(Mapping[str, dict[str, Any]]):
    """Every job's PodGroup status at close, by job uid in session order. A job whose close was
    reused (``CloseMemo``) is written down as its memo and its conditions at close, and its
    status dict is made only when the mapping is first read: the scheduler never reads it."""

    __slots__ = ("_items", "_made", "replayed", "reused")

    def __init__(self) -> None:
        self._items: dict[str, Any] = {}
        self._made = True
        self.reused = 0
        """How many jobs' closes were reused (``later``): a count for tests and profiles."""
        self.replayed = 0
        """How many of those were of jobs a replayed futile allocate visit touched (``JobInfo.touch``)."""

    def __setitem__(self, uid: str, status: dict[str, Any]) -> None:
        self._items[uid] = status

    def later(self, uid: str, memo: CloseMemo, conditions: tuple[Mapping[str, Any], ...]) -> None:
        """Note the status of a job whose close was reused: its memo's phase and counts, and
        ``conditions`` (the job's, at close)."""
        self._items[uid] = (memo, conditions)
        self._made = False
        self.reused += 1

    def _all(self) -> dict[str, dict[str, Any]]:
        items = self._items
        if not self._made:
            for uid, value in items.items():
                if type(value) is tuple:
                    memo, conditions = value
                    phase, running, succeeded, failed = memo.out
                    items[uid] = _status_dict(phase, running, succeeded, failed, conditions)  # the order stands
            self._made = True
        return items

    def __getitem__(self, uid: str) -> dict[str, Any]:
        return self._all()[uid]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return f"Statuses({self._all()!r})"


@dataclass
class SessionOutcome:
    """Everything a session close asks to write (``statuses``: every job's status, see ``Statuses``)."""

    podgroups: list[tuple[JobInfo, dict[str, Any]]] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    pod_conditions: list[tuple[TaskInfo, dict[str, Any], str]] = field(default_factory=list)
    queues: dict[str, dict[str, str]] = field(default_factory=dict)
    statuses: Mapping[str, dict[str, Any]] = field(default_factory=Statuses)


def pod_group_phase(job: JobInfo, session_uid: str) -> str:
    """The phase Volcano computes at close (see the module docstring)."""
    if job.status_counts[S.Running] > 0 and any(
            c.get("type") == "Unschedulable" and c.get("status") == "True" and c.get("transitionID") == session_uid
            for c in job.conditions):
        return "Unknown"
    releasing = sum(1 for t in job.tasks.values() if t.status == S.Releasing and t.node_name) \
        if job.status_counts[S.Releasing] else 0
    scheduled = job.count(SCHEDULED_STATUSES) + releasing
    if scheduled >= job.min_available:
        return "Completed" if scheduled == job.count(COMPLETED_STATUSES) else "Running"
    return "Inqueue" if job.phase == "Inqueue" else "Pending"


def job_status(job: JobInfo, session_uid: str) -> dict[str, Any]:
    """The PodGroup ``status`` to write (zero counters omitted, as omitempty does)."""
    out: dict[str, Any] = {"phase": pod_group_phase(job, session_uid)}
    for key, st in (("running", S.Running), ("succeeded", S.Succeeded), ("failed", S.Failed)):
        if job.status_counts[st]:
            out[key] = job.status_counts[st]
    if job.conditions:
        out["conditions"] = [dict(c) for c in job.conditions]
    return out


_TIMES = frozenset({"lastTransitionTime", "transitionID"})
_MISSING = object()


def _cond_differs(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Whether conditions ``a`` and ``b`` differ in a key or value other than ``lastTransitionTime``
    and ``transitionID`` (values compared as a tuple compares them: identical, else equal)."""
    n = 0
    for k, v in a.items():
        if k in _TIMES:
            continue
        n += 1
        w = b.get(k, _MISSING)
        if w is not v and w != v:
            return True
    return n != sum(1 for k in b if k not in _TIMES)


def status_changed(new: Mapping[str, Any], old: Mapping[str, Any]) -> bool:
    """Volcano's change test: any field but conditions differs, or conditions
    differ pairwise ignoring lastTransitionTime and transitionID."""
    for key in ("phase", "running", "succeeded", "failed"):
        a, b = new.get(key), old.get(key)
        if a != b and (a or 0) != (b or 0):  # equal values are equal after ``or 0`` too
            return True
    nc, oc = list(new.get("conditions") or []), list(old.get("conditions") or [])
    if len(nc) != len(oc):
        return True
    # Equal conditions have equal keys: only unequal pairs need the key comparison.
    return any(a != b and _cond_differs(a, b) for a, b in zip(nc, oc, strict=True))


def _pod_condition_changed(task: TaskInfo, cond: Mapping[str, Any]) -> bool:
    for c in accessors.status(task.spec.pod).get("conditions") or []:
        if c.get("type") == cond["type"]:
            return any(c.get(k) != cond[k] for k in ("status", "reason", "message"))
    return True


def updated_conditions(conditions: list[Mapping[str, Any]], cond: Mapping[str, Any], now: str) -> list[dict[str, Any]]:
    """``conditions`` with ``cond`` set, as Kubernetes' ``UpdatePodCondition`` sets it: the first
    condition of ``cond``'s type is replaced where it stands (a new type is appended), and its
    ``lastTransitionTime`` is kept while the status does not change (``now`` otherwise)."""
    return set_condition([dict(c) for c in conditions], cond, now)  # type: ignore[return-value]


def set_condition(out: list[Mapping[str, Any]], cond: Mapping[str, Any], now: str) -> list[Mapping[str, Any]]:
    """Set ``cond`` in the list ``out`` in place as ``updated_conditions`` describes (the condition
    set is a new dict; the others are left as they are) and return ``out``."""
    kind = cond["type"]
    for i, old in enumerate(out):
        if old.get("type") == kind:
            new = dict(cond)
            if old.get("status") != cond["status"]:
                new["lastTransitionTime"] = now
            elif "lastTransitionTime" in old:
                new["lastTransitionTime"] = old["lastTransitionTime"]
            out[i] = new
            return out
    out.append({**cond, "lastTransitionTime": now})
    return out


def _add_up(allocated: dict[str, Any], ssn: Session, queue: str, vec: Any, has_root: bool) -> None:
    """Add ``vec`` to ``queue`` and, with a ``root`` queue, to each ancestor up to it."""
    name: str | None = queue
    seen: set[str] = set()
    while name is not None and name in allocated and name not in seen:
        seen.add(name)
        allocated[name] = allocated[name] + vec
        if not has_root or name == "root":
            break
        name = ssn.queues[name].parent or "root"


def close_memos(ssn: Session) -> CloseMemos | None:
    """The shared ``CloseMemo`` values of ``ssn``'s carry (None without ``reuse`` or a carry:
    its jobs are built anew, none keeps a memo; None too when a plugin's close hook may change
    jobs in ways the memo does not follow, ``_hooks_keep_memos``)."""
    if not ssn.reuse or ssn.carry is None or not _hooks_keep_memos(ssn, ssn.carry.state.get(_HOOKS)):
        return None
    return ssn.carry.state.get(CLOSE_MEMOS)


def _hooks_keep_memos(ssn: Session, known: dict[tuple[type, ...], bool]) -> bool:
    """Every close hook of ``ssn``'s plugins is the base class's (which does nothing) or one whose
    class declares ``close_keeps_memo`` (the gang plugin's); ``known``: the answers by plugin
    classes (a function of the classes alone)."""
    classes = tuple(type(plugin) for plugin in ssn.plugins.values())
    answer = known.get(classes)
    if answer is None:
        answer = known[classes] = all(_keeps_memo(cls) for cls in classes)
    return answer


def _keeps_memo(cls: type) -> bool:
    owner = next(c for c in cls.__mro__ if "close" in vars(c))
    return owner is Plugin or bool(vars(owner).get("close_keeps_memo", False))


_HOOKS: StateKey[dict[tuple[type, ...], bool]] = StateKey("status.hooks_keep_memos", dict)


def close_session(ssn: Session) -> SessionOutcome:
    """Run plugin close hooks and compute every status write (see module docstring)."""
    ssn.close()
    return session_outcome(ssn)


def session_outcome(ssn: Session) -> SessionOutcome:
    """Every status write of the closed session ``ssn`` (its plugins' close hooks have run);
    reads the session and changes nothing in it."""
    out = SessionOutcome(statuses=Statuses())
    for job, etype, reason, message in ssn.job_events:
        out.events.append(Event("PodGroup", job.namespace, job.name, etype, reason, message))
    if ssn.reuse:
        _close_jobs(ssn, out)
    else:
        _close_jobs_reference(ssn, out)
        _queue_allocated_reference(ssn, out)
    return out


def _close_jobs_reference(ssn: Session, out: SessionOutcome) -> None:
    """Each job's status, its PodGroup write when changed, its events and its tasks' conditions."""
    statuses = out.statuses
    assert isinstance(statuses, Statuses)
    for job in ssn.jobs.values():
        new = job_status(job, ssn.uid)
        statuses[job.uid] = new
        old = accessors.status(job.podgroup)
        update = not old or status_changed(new, old)
        if update:
            out.podgroups.append((job, new))
        waiting = new["phase"] in ("Pending", "Inqueue", "Unknown")
        ordered = ssn.sort_tasks(job.tasks.values())
        fit = job.fit_error(ordered)
        if waiting:
            pending = job.status_counts[S.Pending]
            out.events.append(Event("PodGroup", job.namespace, job.name, "Warning", "Unschedulable",
                                    f"{pending}/{len(job.tasks)} tasks in gang unschedulable: {fit}"))
        elif update:
            out.events.append(Event("PodGroup", job.namespace, job.name, "Normal", "Scheduled",
                                    "pod group is ready"))
        _task_conditions(out, job, ordered, fit)


def _task_conditions(out: SessionOutcome, job: JobInfo, ordered: list[TaskInfo], fit: str) -> None:
    """The ``PodScheduled=False`` condition (and FailedScheduling event) of each unplaced task
    whose pod does not carry it already, in task order."""
    for task in ordered:
        if task.status not in _UNPLACED or task.spec.gated:
            continue
        reason, msg, nominated = task_scheduling_reason(job, task)
        if not msg:
            msg = fit or "all nodes are unavailable"
        cond = {"type": "PodScheduled", "status": "False", "reason": reason, "message": msg}
        nominate = bool(nominated) and nominated != task.spec.nominated_node
        if _pod_condition_changed(task, cond) or nominate:
            out.events.append(Event("Pod", task.namespace, task.name, "Warning", "FailedScheduling", msg))
            out.pod_conditions.append((task, cond, nominated if nominate else ""))


def origin_order(ssn: Session, job: JobInfo) -> list[TaskInfo]:
    """Tasks in task order for ``JobInfo.fit_error``, which reads only the first one with a fit
    error: with ``reuse``, just the tasks that have one, sorted (task order is a total order, so a
    sort of some tasks keeps their relative order in the sort of all)."""
    if not ssn.reuse:
        return ssn.sort_tasks(job.tasks.values())
    if job.job_fit_errors or not job.fit_errors:
        return []
    return ssn.sort_tasks(t for t in job.tasks.values() if t.uid in job.fit_errors)


FIT_MESSAGES: StateKey[dict[str, str]] = StateKey("status.fit_messages", dict)
"""Per session (``Session.state``): each job's ``JobInfo.fit_error`` message in task order as the
gang plugin's close worked it out, by job uid (``fit_messages``)."""


def fit_messages(ssn: Session) -> dict[str, str] | None:
    """The fit messages the gang plugin's close worked out (``FIT_MESSAGES``), when they still hold
    at the status close: with ``reuse``, and when every close hook is the base one or gang's
    (``_hooks_keep_memos``: no hook moves a task after gang's read them). None otherwise."""
    if not ssn.reuse:
        return None
    fits = ssn.state.peek(FIT_MESSAGES)
    if not fits:
        return None
    known = ssn.carry.state.get(_HOOKS) if ssn.carry is not None else {}
    return fits if _hooks_keep_memos(ssn, known) else None


def _condition_differs(pod: Mapping[str, Any], reason: str, message: str) -> bool:
    """``_pod_condition_changed`` for the condition ``PodScheduled=False`` with ``reason`` and
    ``message``."""
    status: Any = pod.get("status")
    conditions = status.get("conditions") if type(status) in _DICTS else accessors.status(pod).get("conditions")
    for c in conditions or ():
        if c.get("type") == "PodScheduled":
            return bool(c.get("status") != "False" or c.get("reason") != reason or c.get("message") != message)
    return True


def _changed_conditions(ssn: Session, out: SessionOutcome, job: JobInfo, fit: str) -> None:
    """``_task_conditions(out, job, ssn.sort_tasks(job.tasks.values()), fit)``: each unplaced
    task's condition worked out and compared in the job's own order, and only the tasks to write
    sorted (a sort of some tasks keeps their relative order in the sort of all), so that a job
    whose pods all carry their conditions already is not sorted. A Pending task's message from
    its fit errors is rendered once per ``FitErrors`` object (the tasks of one signature share
    one; its message is a function of its state, which the close does not move). A Pending task
    without a transaction (most of a large waiting gang's) takes a path of its own, with
    ``task_scheduling_reason`` and ``_condition_differs`` inlined. The tasks given the same
    reason and message share one condition dict (a written condition is never edited: the
    scheduler sets a copy of it in the pod's list, ``set_condition``)."""
    fallback = fit or "all nodes are unavailable"
    rendered: dict[int, str] = {}
    writes: dict[str, tuple[str, str, str]] = {}
    fit_errors, job_error = job.fit_errors, job.job_fit_errors
    plain = job_error or fallback  # a Pending task's without a transaction or a fit error of its own
    pending = S.Pending
    for task in job.tasks.values():
        status = task.status
        if status == pending and task.last_txn is None:  # the common case, inlined
            spec = task.spec
            if spec.gated:
                continue
            fe = fit_errors.get(task.uid) if fit_errors else None
            if fe is None:
                msg = plain
            else:
                msg = rendered.get(id(fe), "")
                if not msg:
                    msg = rendered[id(fe)] = fe.error()
                if not msg:
                    msg = fallback
            # ``_condition_differs(spec.pod, "Unschedulable", msg)``, inlined
            pod = spec.pod
            pod_status: Any = pod.get("status")
            conditions = pod_status.get("conditions") if type(pod_status) in _DICTS \
                else accessors.status(pod).get("conditions")
            for c in conditions or ():
                if c.get("type") == "PodScheduled":
                    if c.get("status") != "False" or c.get("reason") != "Unschedulable" or c.get("message") != msg:
                        writes[task.uid] = ("Unschedulable", msg, "")
                    break
            else:
                writes[task.uid] = ("Unschedulable", msg, "")
            continue
        if status not in _UNPLACED or task.spec.gated:
            continue
        reason, msg, nominated = task_scheduling_reason(job, task)
        if not msg:
            msg = fallback
        spec = task.spec
        nominate = bool(nominated) and nominated != spec.nominated_node
        if nominate or _condition_differs(spec.pod, reason, msg):
            writes[task.uid] = (reason, msg, nominated if nominate else "")
    if not writes:
        return
    tasks = job.tasks
    ordered = ssn.sort_tasks([tasks[uid] for uid in writes]) if len(writes) > 1 else [tasks[next(iter(writes))]]
    events, conditions = out.events, out.pod_conditions
    made: dict[tuple[str, str], dict[str, Any]] = {}
    for task in ordered:
        reason, msg, nominated = writes[task.uid]
        spec = task.spec
        events.append(_event(("Pod", spec.namespace, spec.name, "Warning", "FailedScheduling", msg)))
        cond = made.get((reason, msg))
        if cond is None:
            cond = made[reason, msg] = {"type": "PodScheduled", "status": "False", "reason": reason, "message": msg}
        conditions.append((task, cond, nominated))


_event: Callable[[tuple[str, str, str, str, str, str]], Event] = partial(tuple.__new__, Event)
"""``Event(*fields)`` without the named tuple's Python-level ``__new__`` (one per condition write)."""


def _queue_allocated_reference(ssn: Session, out: SessionOutcome) -> None:
    """Each queue's ``status.allocated`` when it changed: its jobs' allocated tasks, summed task by
    task up the queue tree."""
    allocated: dict[str, Any] = {name: ssn.space.zeros() for name in ssn.queues}
    has_root = "root" in ssn.queues
    for job in ssn.jobs.values():
        for t in job.tasks.values():
            if t.status in ALLOCATED_STATUSES:
                _add_up(allocated, ssn, job.queue, ssn.space.fit(t.vec), has_root)
    _queue_writes(ssn, out, allocated)


def _queue_writes(ssn: Session, out: SessionOutcome, allocated: dict[str, Any],
                  kept: dict[str, tuple[Any, Any, Any]] | None = None) -> None:
    """The ``status.allocated`` write of each queue whose ``allocated`` sum differs from its own.
    With ``kept`` (the carry's, ``QUEUES_UNWRITTEN``): a queue found to need no write is noted
    with the resource space, its ``status.allocated`` (an immutable informer mapping) and the sum,
    and needs none while all three are the same (the verdict reads nothing else)."""
    space = ssn.space
    for name, vec in sorted(allocated.items()):
        current = accessors.status(ssn.queues[name].obj).get("allocated") or _NO_ALLOCATED
        if kept is not None:
            hit = kept.get(name)
            if hit is not None and hit[0] is space and hit[1] is current and np.array_equal(hit[2], vec):
                continue
        res = space.to_resources(vec)
        written = queue_allocated_list(res)
        if Resources.from_k8s(current, field="status.allocated") != res or written.keys() != current.keys():
            out.queues[name] = written
        elif kept is not None and type(current) is FrozenDict:
            kept[name] = (space, current, vec.copy())


def queue_allocated_list(res: Resources) -> dict[str, str]:
    """A queue's ``status.allocated`` as upstream's ``ConvertRes2ResList`` writes it: cpu (milli,
    DecimalSI) and memory (bytes, BinarySI) always, at zero too; every other resource, ``pods``
    included, as a DecimalSI quantity. Sorted by name."""
    items = {name: format_milli(res.get(name), binary=name == "memory") for name in res}
    items.setdefault("cpu", "0")
    items.setdefault("memory", "0")
    return dict(sorted(items.items()))


_NO_ALLOCATED = FrozenDict()
QUEUES_UNWRITTEN: StateKey[dict[str, tuple[Any, Any, Any]]] = StateKey("status.queues_unwritten", dict)
"""The queues the last closes found needing no ``status.allocated`` write (``_queue_writes``),
kept in ``JobCarry.state``."""


# -- the one-pass derivation (``Session.reuse``) ------------------------------------------------
_WAITING = frozenset({"Pending", "Inqueue", "Unknown"})
_TIMES_CLEARED = {"lastTransitionTime": None, "transitionID": None}
_DICTS = (dict, FrozenDict)
_COUNTED = ("phase", "running", "succeeded", "failed")


def _unschedulable_now(conditions: list[dict[str, Any]], uid: str) -> bool:
    for c in conditions:
        if c.get("type") == "Unschedulable" and c.get("status") == "True" and c.get("transitionID") == uid:
            return True
    return False


def _conditions_differ(nc: Any, oc: Any) -> bool:
    """``status_changed``'s condition test: the lists differ in length, or a pair differs in a key
    or value other than the two times (each pair compared as dicts with both times set alike:
    equal exactly when equal but for the times)."""
    nc, oc = list(nc or ()), list(oc or ())
    if len(nc) != len(oc):
        return True
    for a, b in zip(nc, oc, strict=True):
        if a != b:
            if type(a) is not dict or type(b) not in _DICTS:
                if _cond_differs(a, b):
                    return True
            elif {**a, **_TIMES_CLEARED} != {**b, **_TIMES_CLEARED}:
                return True
    return False


def _close_jobs(ssn: Session, out: SessionOutcome) -> None:
    """``_close_jobs_reference`` and ``_queue_allocated_reference`` in one pass per job (see the
    module docstring): the counts are read once; a job with nothing waiting (not waiting, no
    unplaced task) skips the fit message, which only its event and its tasks' conditions read
    (the others take it from the gang plugin's close when it worked it out, ``fit_messages``, and
    sort only the tasks that have a fit error for it, ``origin_order``; their tasks' conditions
    are ``_changed_conditions``); its allocation is its ``JobInfo.allocated`` (the sum of its tasks' vectors
    in ``ALLOCATED_STATUSES``), gathered per queue. A job whose memo says the last close of the
    same job, touched alike (``JobInfo.touch``: untouched both times, or touched only by the
    replay of the same futile allocate visit both times), wrote nothing (but, when waiting, its
    Unschedulable event, recorded again from the memo) is passed over (``_reused``)."""
    uid = ssn.uid
    statuses = out.statuses
    assert isinstance(statuses, Statuses)
    podgroups, events = out.podgroups, out.events
    per_queue: dict[str, list[Any]] = {}
    memos = close_memos(ssn)
    fits = fit_messages(ssn)
    conf = ssn.conf
    token = ssn.state.get(REPLAYS) if memos is not None else None
    for job in ssn.jobs.values():
        memo = job.closed if memos is not None else None
        if memo is not None and memo.conf is conf and memo.phase == job.phase \
                and (touch := job.touch(token)) is not None and memo.touch is touch:
            if memo.quiet and _reused(job, memo, uid, statuses, per_queue):
                if memo.touch is not UNTOUCHED:
                    statuses.replayed += 1
                if memo.said:
                    events.append(Event("PodGroup", job.namespace, job.name, "Warning", "Unschedulable", memo.said))
                continue
        else:
            memo = None
        get = job.status_counts.get
        running, succeeded, failed = get(S.Running, 0), get(S.Succeeded, 0), get(S.Failed, 0)
        new = _new_status(job, uid, running, succeeded, failed)
        statuses[job.uid] = new
        old = job.podgroup.get("status")
        if type(old) is not FrozenDict:
            old = accessors.status(job.podgroup)
        update = not old or _changed(new, old)
        if update:
            podgroups.append((job, new))
        alloc = get(S.Bound, 0) + get(S.Binding, 0) + running + get(S.Allocated, 0) > 0
        if alloc:
            per_queue.setdefault(job.queue, []).append(job.allocated)
        waiting = new["phase"] in _WAITING
        if not waiting and not get(S.Allocated, 0) + get(S.Pending, 0) + get(S.Pipelined, 0) > 0:
            if memo is not None and memos is not None:
                job.closed = memos.keep(conf, memo.phase, memo.gang, not update,
                                        (new["phase"], running, succeeded, failed), alloc, touch=memo.touch)
            if update:
                events.append(Event("PodGroup", job.namespace, job.name, "Normal", "Scheduled",
                                    "pod group is ready"))
            continue
        fit = fits.get(job.uid) if fits is not None else None
        if fit is None:
            fit = job.fit_error(origin_order(ssn, job))
        said = ""
        if waiting:
            said = f"{get(S.Pending, 0)}/{len(job.tasks)} tasks in gang unschedulable: {fit}"
            events.append(Event("PodGroup", job.namespace, job.name, "Warning", "Unschedulable", said))
        elif update:
            events.append(Event("PodGroup", job.namespace, job.name, "Normal", "Scheduled", "pod group is ready"))
        written = len(out.pod_conditions)
        _changed_conditions(ssn, out, job, fit)
        if memo is not None and memos is not None:
            phase = new["phase"]
            if not update and len(out.pod_conditions) == written and phase != "Unknown":
                # Wrote nothing but the Unschedulable event (a waiting job's): the next close of
                # the job, untouched again, says the same (``_reused``).
                job.closed = memos.keep(conf, memo.phase, memo.gang, True, (phase, running, succeeded, failed),
                                        alloc, said, memo.touch)
            elif memo.quiet is not False:
                job.closed = memos.keep(conf, memo.phase, memo.gang, False, touch=memo.touch)
    _queue_allocated(ssn, out, per_queue)


def _reused(job: JobInfo, memo: CloseMemo, uid: str, statuses: Statuses, per_queue: dict[str, list[Any]]) -> bool:
    """Pass over ``job``, untouched, whose ``memo`` (same configuration and phase) says its close
    wrote nothing: unless its status would read Unknown now (a Running task and an Unschedulable
    condition of this session's uid), its status is the memo's with its conditions now, and only
    its allocation is gathered. Exact: the job is as built from the same inputs as then, the gang
    plugin set the memo's condition again, and the close reads the session's time and uid only
    through that condition's ``lastTransitionTime`` and ``transitionID`` (which the change test
    strips) and the Unknown test (made here). A waiting job's event message and its tasks'
    conditions are functions of the job as built too (untouched: no fit error, no transaction,
    the same pods), so the tasks that needed no condition then need none now, and the caller
    records the memo's event (``CloseMemo.said``) again.

    The same holds for a job touched only by a replayed futile allocate visit, both times of the
    very same recorded outcome (``CloseMemo.touch``, ``JobInfo.touch``) on the job as built from
    the same inputs: what the close reads of the job is then the same both times. It reads the
    task statuses and counts (a replay moves tasks and back: the counts are as built), each
    task's last transaction, ``eviction_occurred``, node and nominated node (as built, but for
    the placed tasks' transactions and cleared ``eviction_occurred``, the outcome's), the fit
    errors in their order and their messages (copies of the outcome's, rendered from their own
    state), ``job_fit_errors`` (none), ``minAvailable``, the phase (compared), the conditions
    (the parse's and gang's, the verdict the memo's), the PodGroup's status and the pods'
    conditions (the same objects: the job was carried with the same inputs), and task order
    (the configuration's, compared)."""
    conditions = job.conditions
    if memo.out[1] and conditions:  # ``_unschedulable_now``, inlined: this runs for most jobs
        for c in conditions:
            if c.get("type") == "Unschedulable" and c.get("status") == "True" and c.get("transitionID") == uid:
                return False
    statuses.later(job.uid, memo, tuple(conditions))
    if memo.alloc:
        per_queue.setdefault(job.queue, []).append(job.allocated)
    return True


def _new_status(job: JobInfo, uid: str, running: int, succeeded: int, failed: int) -> dict[str, Any]:
    """``job_status(job, uid)``, given the job's Running, Succeeded and Failed counts."""
    get = job.status_counts.get
    conditions = job.conditions
    if running > 0 and conditions and _unschedulable_now(conditions, uid):
        phase = "Unknown"
    else:
        scheduled = running + get(S.Bound, 0) + failed + succeeded
        if get(S.Releasing, 0):
            scheduled += sum(1 for t in job.tasks.values() if t.status == S.Releasing and t.node_name)
        if scheduled >= job.min_available:
            phase = "Completed" if scheduled == failed + succeeded else "Running"
        else:
            phase = "Inqueue" if job.phase == "Inqueue" else "Pending"
    return _status_dict(phase, running, succeeded, failed, conditions)


def _status_dict(phase: str, running: int, succeeded: int, failed: int,
                 conditions: Sequence[Mapping[str, Any]] | None) -> dict[str, Any]:
    """A PodGroup ``status``: the phase, the counts that are not zero and copies of the conditions."""
    new: dict[str, Any] = {"phase": phase}
    if running:
        new["running"] = running
    if succeeded:
        new["succeeded"] = succeeded
    if failed:
        new["failed"] = failed
    if conditions:
        new["conditions"] = [dict(c) for c in conditions]
    return new


def _changed(new: dict[str, Any], old: Mapping[str, Any]) -> bool:
    """``status_changed(new, old)`` for a ``new`` built by ``_new_status`` (its conditions a list of
    dicts): the same comparisons, with conditions compared by ``_conditions_differ``."""
    for key in _COUNTED:
        a, b = new.get(key), old.get(key)
        if a != b and (a or 0) != (b or 0):
            return True
    return _conditions_differ(new.get("conditions"), old.get("conditions"))


def _queue_allocated(ssn: Session, out: SessionOutcome, per_queue: dict[str, list[Any]]) -> None:
    """``_queue_allocated_reference`` from the allocated vectors of each queue's jobs: summed per
    queue first, then up the tree (int64 sums, the same in any order)."""
    space = ssn.space
    allocated: dict[str, Any] = {name: space.zeros() for name in ssn.queues}
    has_root = "root" in ssn.queues
    for q, vecs in per_queue.items():
        if q not in allocated:
            continue
        try:  # vectors of one width (as nearly always): summed as they are, the sum padded
            total = vecs[0] if len(vecs) == 1 else np.array(vecs).sum(axis=0, dtype=np.int64)
        except ValueError:  # some built when the space was narrower: each padded first
            total = np.stack([space.fit(v) for v in vecs]).sum(axis=0, dtype=np.int64)
        _add_up(allocated, ssn, q, space.fit(total), has_root)
    _queue_writes(ssn, out, allocated, ssn.carry.state.get(QUEUES_UNWRITTEN) if ssn.carry is not None else None)
