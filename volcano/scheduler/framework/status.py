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
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from volcano.api import accessors
from volcano.api.resources import Resources
from volcano.scheduler.framework.model import (
    ALLOCATED_STATUSES,
    COMPLETED_STATUSES,
    SCHEDULED_STATUSES,
    JobInfo,
    TaskInfo,
    TaskStatus,
    task_scheduling_reason,
)
from volcano.scheduler.framework.session import Session

__all__ = ["Event", "SessionOutcome", "close_session", "job_status", "pod_group_phase", "status_changed",
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


@dataclass
class SessionOutcome:
    """Everything a session close asks to write."""

    podgroups: list[tuple[JobInfo, dict[str, Any]]] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    pod_conditions: list[tuple[TaskInfo, dict[str, Any], str]] = field(default_factory=list)
    queues: dict[str, dict[str, str]] = field(default_factory=dict)
    statuses: dict[str, dict[str, Any]] = field(default_factory=dict)


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
    out = [dict(c) for c in conditions]
    for i, old in enumerate(out):
        if old.get("type") == cond["type"]:
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


def close_session(ssn: Session) -> SessionOutcome:
    """Run plugin close hooks and compute every status write (see module docstring)."""
    ssn.close()
    out = SessionOutcome()
    for job, etype, reason, message in ssn.job_events:
        out.events.append(Event("PodGroup", job.namespace, job.name, etype, reason, message))
    for job in ssn.jobs.values():
        new = job_status(job, ssn.uid)
        out.statuses[job.uid] = new
        old = accessors.status(job.podgroup)
        update = not old or status_changed(new, old)
        if update:
            out.podgroups.append((job, new))
        waiting = new["phase"] in ("Pending", "Inqueue", "Unknown")
        # Only a waiting job's event and its unplaced tasks' conditions read the task order
        # and the fit message: a job with neither skips both (both are pure).
        needed = waiting or job.count(_UNPLACED) > 0 or not ssn.reuse
        ordered = ssn.sort_tasks(job.tasks.values()) if needed else []
        fit = job.fit_error(ordered) if needed else ""
        if waiting:
            pending = job.status_counts[S.Pending]
            out.events.append(Event("PodGroup", job.namespace, job.name, "Warning", "Unschedulable",
                                    f"{pending}/{len(job.tasks)} tasks in gang unschedulable: {fit}"))
        elif update:
            out.events.append(Event("PodGroup", job.namespace, job.name, "Normal", "Scheduled",
                                    "pod group is ready"))
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
    allocated: dict[str, Any] = {name: ssn.space.zeros() for name in ssn.queues}
    has_root = "root" in ssn.queues
    for job in ssn.jobs.values():
        # job.allocated is the sum of its tasks' vectors in ALLOCATED_STATUSES (kept by JobInfo);
        # without reuse, the reference sums the tasks one by one.
        if not job.count(ALLOCATED_STATUSES):
            continue
        vecs = [ssn.space.fit(job.allocated)] if ssn.reuse else \
            [ssn.space.fit(t.vec) for t in job.tasks.values() if t.status in ALLOCATED_STATUSES]
        for vec in vecs:
            _add_up(allocated, ssn, job.queue, vec, has_root)
    for name, vec in sorted(allocated.items()):
        res = ssn.space.to_resources(vec)
        current = accessors.status(ssn.queues[name].obj).get("allocated") or {}
        if Resources.from_k8s(current, field="status.allocated") != res:
            out.queues[name] = res.to_k8s()
    return out
