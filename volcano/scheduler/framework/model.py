"""The session model: tasks, jobs, nodes and queues as the scheduler sees them.

``TaskSpec`` / ``NodeSpec`` / ``QueueInfo`` are immutable parses of the API
objects (made once per object version by the cache and shared by every
session). ``TaskInfo`` and ``JobInfo`` carry the per-session, mutable state
(status, node, fit errors), and ``NodeTable`` keeps every node's accounting in
numpy columns (allocatable, used, releasing, pipelined, pod count) so that
fit tests and scores over all nodes are vector operations.

Task statuses and their derivation from a pod follow Volcano
(``pkg/scheduler/api/helpers.go``, ``job_info.go``, ``node_info.go``).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from enum import IntEnum
from typing import Any

import numpy as np
import numpy.typing as npt

from volcano.api.resources import PODS, node_allocatable, pod_requests
from volcano.api.well_known import GROUP_NAME, PREEMPTABLE, TASK_PRIORITY, TASK_SPEC
from volcano.scheduler.framework.resources import POD_UNIT, ResourceSpace, Vec, scheduler_resources

__all__ = [
    "ALLOCATED_STATUSES",
    "COMPLETED_STATUSES",
    "PREEMPTABLE_STATUSES",
    "READY_STATUSES",
    "SCHEDULED_STATUSES",
    "VALID_STATUSES",
    "FitErrors",
    "JobInfo",
    "NodeInfo",
    "NodeSpec",
    "NodeTable",
    "QueueInfo",
    "TaskInfo",
    "TaskSpec",
    "TaskStatus",
    "parse_bool",
    "task_status_of",
]



class TaskStatus(IntEnum):
    """A task's status in the scheduler (Volcano's bit-flag values)."""

    Pending = 1
    Allocated = 2
    Pipelined = 4
    Binding = 8
    Bound = 16
    Running = 32
    Releasing = 64
    Succeeded = 128
    Failed = 256
    Unknown = 512


S = TaskStatus
ALLOCATED_STATUSES = frozenset({S.Bound, S.Binding, S.Running, S.Allocated})
"""Statuses that hold node resources and count as the job's allocation."""
READY_STATUSES = ALLOCATED_STATUSES | {S.Succeeded}
"""Statuses that count towards gang readiness."""
VALID_STATUSES = ALLOCATED_STATUSES | {S.Succeeded, S.Pipelined, S.Pending}
"""Statuses that count towards gang validity."""
SCHEDULED_STATUSES = frozenset({S.Running, S.Bound, S.Failed, S.Succeeded})
"""Statuses that count as scheduled for the PodGroup phase."""
COMPLETED_STATUSES = frozenset({S.Failed, S.Succeeded})
"""Terminal statuses."""
PREEMPTABLE_STATUSES = frozenset({S.Bound, S.Running})
"""Statuses a preemption victim may have."""


def parse_bool(value: Any) -> bool | None:
    """Go's ``strconv.ParseBool``: None when unparsable."""
    if isinstance(value, bool):
        return value
    text = str(value)
    if text in ("1", "t", "T", "true", "TRUE", "True"):
        return True
    if text in ("0", "f", "F", "false", "FALSE", "False"):
        return False
    return None


def task_status_of(pod: Mapping[str, Any]) -> TaskStatus:
    """A pod's initial task status from its phase, deletionTimestamp and nodeName."""
    phase = (pod.get("status") or {}).get("phase") or ""
    deleting = bool((pod.get("metadata") or {}).get("deletionTimestamp"))
    if phase == "Running":
        return S.Releasing if deleting else S.Running
    if phase == "Pending":
        if deleting:
            return S.Releasing
        return S.Bound if (pod.get("spec") or {}).get("nodeName") else S.Pending
    if phase == "Succeeded":
        return S.Succeeded
    if phase == "Failed":
        return S.Failed
    return S.Unknown


def _pod_index(name: str) -> int | None:
    parts = name.split("-")
    if len(parts) < 3:
        return None
    try:
        return int(parts[-1])
    except ValueError:
        return None


class TaskSpec:
    """The immutable parse of one pod version (shared by all sessions)."""

    __slots__ = (
        "_dims",
        "_vec",
        "_vec_key",
        "best_effort",
        "creation",
        "gated",
        "host_ports",
        "index",
        "job_id",
        "key",
        "labels",
        "name",
        "namespace",
        "node_name",
        "nominated_node",
        "pod",
        "pod_affinity",
        "pod_anti_affinity",
        "preemptable",
        "preemption_never",
        "priority",
        "priority_class",
        "requests",
        "role",
        "sched_sig",
        "scheduler_name",
        "static_sig",
        "status",
        "tolerations",
        "uid",
    )

    def __init__(self, pod: Mapping[str, Any]) -> None:
        meta = pod.get("metadata") or {}
        spec = pod.get("spec") or {}
        annotations = meta.get("annotations") or {}
        labels = meta.get("labels") or {}
        self.pod = pod
        self.name: str = meta.get("name", "")
        self.namespace: str = meta.get("namespace") or "default"
        self.key = f"{self.namespace}/{self.name}"
        self.uid: str = meta.get("uid") or f"{self.namespace}-{self.name}"
        group = annotations.get(GROUP_NAME)
        self.job_id = f"{self.namespace}/{group}" if group else ""
        self.role: str = annotations.get(TASK_SPEC) or labels.get(TASK_SPEC) or ""
        self.labels: Mapping[str, str] = labels
        req = pod_requests(pod)
        self.best_effort = req.is_zero()
        self.requests = req + {PODS: POD_UNIT}
        prio = spec.get("priority")
        priority = int(prio) if prio is not None else 1
        if TASK_PRIORITY in annotations:
            text = str(annotations[TASK_PRIORITY]).strip()
            if text.lstrip("+-").isdigit():
                priority = int(text)
        self.priority = priority
        self.priority_class: str = spec.get("priorityClassName") or ""
        raw = annotations.get(PREEMPTABLE, labels.get(PREEMPTABLE))
        self.preemptable = True if raw is None else bool(parse_bool(raw))
        self.preemption_never = spec.get("preemptionPolicy") == "Never"
        self.gated = bool(spec.get("schedulingGates"))
        self.node_name: str = spec.get("nodeName") or ""
        self.nominated_node: str = (pod.get("status") or {}).get("nominatedNodeName") or ""
        self.scheduler_name: str = spec.get("schedulerName") or "default-scheduler"
        self.creation: str = meta.get("creationTimestamp") or ""
        self.index = _pod_index(self.name)
        self.status = task_status_of(pod)
        self.tolerations: list[Mapping[str, Any]] = list(spec.get("tolerations") or [])
        affinity = spec.get("affinity") or {}
        pa = affinity.get("podAffinity") or {}
        paa = affinity.get("podAntiAffinity") or {}
        self.pod_affinity: list[Mapping[str, Any]] = list(
            pa.get("requiredDuringSchedulingIgnoredDuringExecution") or [])
        self.pod_anti_affinity: list[Mapping[str, Any]] = list(
            paa.get("requiredDuringSchedulingIgnoredDuringExecution") or [])
        ports: list[tuple[str, int, str]] = []
        for c in list(spec.get("containers") or []) + list(spec.get("initContainers") or []):
            for p in c.get("ports") or []:
                if p.get("hostPort"):
                    ports.append((p.get("protocol") or "TCP", int(p["hostPort"]), p.get("hostIP") or "0.0.0.0"))
        self.host_ports = tuple(ports)
        node_aff = (affinity.get("nodeAffinity") or {}).get("requiredDuringSchedulingIgnoredDuringExecution")
        self.static_sig = json.dumps([spec.get("nodeSelector") or {}, node_aff or {}, self.tolerations],
                                     sort_keys=True, default=str)
        preferred = (affinity.get("nodeAffinity") or {}).get("preferredDuringSchedulingIgnoredDuringExecution")
        self.sched_sig: tuple[Any, ...] = (
            self.static_sig, json.dumps(preferred, sort_keys=True, default=str) if preferred else "",
            tuple(sorted(self.requests.items())), self.host_ports)
        """Everything a row-local predicate or score reads from the task: selectors, node
        affinity (required and preferred), tolerations, requests and host ports. Tasks
        with equal signatures get equal row-local verdicts and scores."""
        self._vec: Vec | None = None
        self._vec_key = -1
        self._dims: npt.NDArray[np.intp] | None = None

    def vec(self, space: ResourceSpace) -> Vec:
        """The request vector in ``space`` (cached; never mutate it)."""
        if self._vec is None or self._vec_key != len(space):
            self._vec = space.vector(self.requests)
            self._vec.setflags(write=False)
            self._vec_key = len(space)
            self._dims = None
        return self._vec

    def dims(self) -> npt.NDArray[np.intp]:
        """Columns Volcano compares for this task: cpu, memory, pods and every
        requested scalar (the non-zero columns of ``vec``, which must have been
        built; padding a vector never adds one). Cached; never mutate it."""
        if self._dims is None:
            if self._vec is None:
                raise RuntimeError(f"task {self.key}: dims() before vec(space)")
            self._dims = np.union1d(np.array([0, 1, 2], dtype=np.intp), np.flatnonzero(self._vec)).astype(np.intp)
            self._dims.setflags(write=False)
        return self._dims


class TaskInfo:
    """A task in one session: its spec plus mutable status, node and transaction context."""

    __slots__ = ("eviction_occurred", "job", "last_txn", "node_name", "spec", "status", "vec")

    def __init__(self, spec: TaskSpec, vec: Vec, status: TaskStatus | None = None,
                 node_name: str | None = None) -> None:
        self.spec = spec
        self.vec = vec
        self.status = spec.status if status is None else status
        self.node_name = spec.node_name if node_name is None else node_name
        self.eviction_occurred = False
        self.last_txn: tuple[TaskStatus, str] | None = None
        self.job: JobInfo | None = None

    @property
    def uid(self) -> str:
        """The pod UID."""
        return self.spec.uid

    @property
    def name(self) -> str:
        """The pod name."""
        return self.spec.name

    @property
    def namespace(self) -> str:
        """The pod namespace."""
        return self.spec.namespace

    @property
    def key(self) -> str:
        """``namespace/name``."""
        return self.spec.key

    @property
    def best_effort(self) -> bool:
        """True when the pod requests nothing (but the pod slot)."""
        return self.spec.best_effort

    @property
    def priority(self) -> int:
        """Task priority (pod priority, default 1, annotation override)."""
        return self.spec.priority

    def __repr__(self) -> str:
        return f"Task({self.key}, {self.status.name}, {self.node_name!r})"


def default_task_less(left: TaskSpec, right: TaskSpec) -> bool:
    """Volcano's default task order: pod-name index, then creation, then UID."""
    if left.index is not None and right.index is not None and left.index != right.index:
        return left.index < right.index
    if left.creation != right.creation:
        return left.creation < right.creation
    return left.uid < right.uid


class FitErrors:
    """Why a task fits no node: a histogram of node reasons (or one explicit error).

    ``error()`` renders Volcano's message: ``0/<N> nodes are unavailable: <count>
    <reason>, ... .`` with N the number of failing nodes and the histogram
    sorted as strings. ``unresolvable`` marks node rows whose failure no
    eviction can fix (preempt and reclaim skip them)."""

    __slots__ = ("err", "n_nodes", "reasons", "unresolvable")

    def __init__(self, err: str = "") -> None:
        self.err = err
        self.n_nodes = 0
        self.reasons: Counter[str] = Counter()
        self.unresolvable: npt.NDArray[np.bool_] | None = None

    def add(self, reason_counts: Mapping[str, int], n_nodes: int) -> None:
        """Record ``n_nodes`` failing nodes with these reason counts."""
        self.n_nodes += n_nodes
        self.reasons.update(reason_counts)

    def error(self) -> str:
        """The message Volcano prints for these fit errors."""
        if self.err and not self.reasons:
            return self.err
        base = self.err or f"0/{self.n_nodes} nodes are unavailable"
        hist = sorted(f"{count} {reason}" for reason, count in self.reasons.items())
        return f"{base}: {', '.join(hist)}."


class QueueInfo:
    """A Queue as the scheduler sees it (immutable parse)."""

    __slots__ = ("capability", "creation", "deserved", "guarantee", "name", "obj", "parent", "priority",
                 "reclaimable", "state", "uid", "weight")

    def __init__(self, obj: Mapping[str, Any]) -> None:
        meta = obj.get("metadata") or {}
        spec = obj.get("spec") or {}
        self.obj = obj
        self.name: str = meta.get("name", "")
        self.uid = self.name
        self.creation: str = meta.get("creationTimestamp") or ""
        self.weight = int(spec.get("weight") or 1)
        self.priority = int(spec.get("priority") or 0)
        self.capability = scheduler_resources(spec.get("capability"), field="spec.capability") \
            if spec.get("capability") else None
        gres = (spec.get("guarantee") or {}).get("resource")
        self.guarantee = scheduler_resources(gres, field="spec.guarantee.resource") if gres else None
        self.deserved = scheduler_resources(spec.get("deserved"), field="spec.deserved") \
            if spec.get("deserved") else None
        self.reclaimable = spec.get("reclaimable") is not False
        self.parent: str = spec.get("parent") or ""
        self.state: str = (obj.get("status") or {}).get("state") or ""


class JobInfo:
    """A PodGroup and its member tasks in one session."""

    __slots__ = (
        "_be_pending",
        "_ready",
        "allocated",
        "conditions",
        "creation",
        "fit_errors",
        "job_fit_errors",
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
        "status_counts",
        "tasks",
        "uid",
    )

    def __init__(self, podgroup: Mapping[str, Any], default_queue: str, priority: int, space: ResourceSpace) -> None:
        meta = podgroup.get("metadata") or {}
        spec = podgroup.get("spec") or {}
        status = podgroup.get("status") or {}
        self.podgroup = podgroup
        self.name: str = meta.get("name", "")
        self.namespace: str = meta.get("namespace") or "default"
        self.uid = f"{self.namespace}/{self.name}"
        self.queue: str = spec.get("queue") or default_queue
        self.min_available = int(spec.get("minMember") or 0)
        self.min_task_member: dict[str, int] = {k: int(v) for k, v in (spec.get("minTaskMember") or {}).items()}
        self.min_resources = scheduler_resources(spec.get("minResources"), field="spec.minResources") \
            if spec.get("minResources") is not None else None
        self.priority = priority
        self.creation: str = meta.get("creationTimestamp") or ""
        annotations = meta.get("annotations") or {}
        raw = annotations.get(PREEMPTABLE, (meta.get("labels") or {}).get(PREEMPTABLE))
        self.preemptable = bool(parse_bool(raw)) if raw is not None else False
        self.phase: str = status.get("phase") or ""
        self.conditions: list[dict[str, Any]] = [dict(c) for c in status.get("conditions") or []]
        self.tasks: dict[str, TaskInfo] = {}
        self.status_counts: Counter[TaskStatus] = Counter()
        self._be_pending = 0
        self._ready = 0
        self.allocated = space.zeros()
        self.fit_errors: dict[str, FitErrors] = {}
        self.job_fit_errors = ""

    # -- membership and status ------------------------------------------------------------
    def add_task(self, task: TaskInfo) -> None:
        """Add a task (keeps counts and the allocated vector current)."""
        task.job = self
        self.tasks[task.uid] = task
        self.status_counts[task.status] += 1
        if task.status == S.Pending and task.spec.best_effort:
            self._be_pending += 1
        if task.status in READY_STATUSES:
            self._ready += 1
        if task.status in ALLOCATED_STATUSES:
            self.allocated = self.allocated + task.vec

    def set_status(self, task: TaskInfo, status: TaskStatus) -> None:
        """Move ``task`` to ``status`` (counts and allocation follow)."""
        old = task.status
        if old == status:
            return
        self.status_counts[old] -= 1
        self.status_counts[status] += 1
        if task.spec.best_effort:
            self._be_pending += (status == S.Pending) - (old == S.Pending)
        self._ready += (status in READY_STATUSES) - (old in READY_STATUSES)
        was, now = old in ALLOCATED_STATUSES, status in ALLOCATED_STATUSES
        if was and not now:
            self.allocated = self.allocated - task.vec
        elif now and not was:
            self.allocated = self.allocated + task.vec
        task.status = status

    def count(self, statuses: Iterable[TaskStatus]) -> int:
        """Number of tasks in any of ``statuses``."""
        counts = self.status_counts
        total = 0
        for s in statuses:
            total += counts[s]
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

    def _role_counts(self, statuses: frozenset[TaskStatus], pending_be: bool) -> Counter[str]:
        out: Counter[str] = Counter()
        for t in self.tasks.values():
            if t.status in statuses or (pending_be and t.status == S.Pending and t.best_effort):
                out[t.spec.role] += 1
        return out

    def _check_roles(self, statuses: frozenset[TaskStatus], pending_be: bool, skip_zero: bool) -> bool:
        if not self.min_task_member or self.min_available < sum(self.min_task_member.values()):
            return True
        counts = self._role_counts(statuses, pending_be)
        for role, minimum in sorted(self.min_task_member.items()):
            if skip_zero and minimum == 0:
                continue
            if counts[role] < minimum:
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
        pending: Counter[str] = Counter(t.spec.role for t in self.tasks.values() if t.status == S.Pending)
        total_min = sum(self.min_task_member.values())
        if self.min_available < total_min:
            left = sum(c for r, c in pending.items() if r not in failed_roles)
            return self.ready_task_num() + left >= self.min_available
        allocated: Counter[str] = Counter()
        for t in self.tasks.values():
            if t.status in READY_STATUSES or (t.status == S.Pending and t.best_effort):
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
        reasons: Counter[str] = Counter()
        for t in self.tasks.values():
            if t.status == S.Pending:
                reasons[task_scheduling_reason(self, t)[0]] += 1
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


class NodeSpec:
    """The immutable parse of one Node version."""

    __slots__ = ("allocatable", "labels", "name", "obj", "taints", "unschedulable")

    def __init__(self, obj: Mapping[str, Any]) -> None:
        meta = obj.get("metadata") or {}
        spec = obj.get("spec") or {}
        self.obj = obj
        self.name: str = meta.get("name", "")
        self.labels: Mapping[str, str] = meta.get("labels") or {}
        self.taints: list[Mapping[str, Any]] = list(spec.get("taints") or [])
        self.unschedulable = bool(spec.get("unschedulable"))
        self.allocatable = node_allocatable(obj)


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


class NodeTable:
    """Columnar node accounting for one session.

    Rows follow node order (creation order in the cache). ``idle = alloc − used``
    and ``fidle = idle + releasing − pipelined`` (Volcano's FutureIdle) are kept
    current on every add/remove, so fit tests over all nodes are one vector
    comparison. ``pods`` counts every pod on the node, including releasing ones
    (the predicates plugin's pod-number check)."""

    def __init__(self, specs: list[NodeSpec], space: ResourceSpace) -> None:
        # Vectorising registers every allocatable name first, so the columns are
        # sized for all of them (a node may bring a name no task has used yet).
        vecs = [space.vector(s.allocatable) for s in specs]
        n, r = len(specs), len(space)
        self.space = space
        self.nodes = [NodeInfo(s, i) for i, s in enumerate(specs)]
        self.by_name = {node.name: node for node in self.nodes}
        self.alloc = np.zeros((n, r), dtype=np.int64)
        for i, vec in enumerate(vecs):
            self.alloc[i, : vec.shape[0]] = vec
        self.used = np.zeros((n, r), dtype=np.int64)
        self.releasing = np.zeros((n, r), dtype=np.int64)
        self.pipelined = np.zeros((n, r), dtype=np.int64)
        self.idle = self.alloc.copy()
        self.fidle = self.alloc.copy()
        self.pods = np.zeros(n, dtype=np.int64)
        self.max_pods = self.alloc[:, space.index[PODS]] // POD_UNIT
        self.changes: list[int] = []
        """Every row whose accounting changed, in order (appended by ``add_task`` /
        ``remove_task``): caches of row-local results re-evaluate only the rows
        changed since they were last synced."""

    def __len__(self) -> int:
        return len(self.nodes)

    def add_task(self, node: NodeInfo, task: TaskInfo) -> None:
        """Account ``task`` (by its current status) on ``node``."""
        row, vec = node.row, task.vec
        self.changes.append(row)
        if task.status == S.Pipelined:
            self.pipelined[row] += vec
            self.fidle[row] -= vec
        else:
            self.used[row] += vec
            self.idle[row] -= vec
            if task.status == S.Releasing:
                self.releasing[row] += vec
            else:
                self.fidle[row] -= vec
            self.pods[row] += 1
        node.tasks[task.uid] = task

    def remove_task(self, node: NodeInfo, task: TaskInfo) -> None:
        """Undo ``add_task`` for the task's current status."""
        if node.tasks.pop(task.uid, None) is None:
            return
        row, vec = node.row, task.vec
        self.changes.append(row)
        if task.status == S.Pipelined:
            self.pipelined[row] -= vec
            self.fidle[row] += vec
        else:
            self.used[row] -= vec
            self.idle[row] += vec
            if task.status == S.Releasing:
                self.releasing[row] -= vec
            else:
                self.fidle[row] += vec
            self.pods[row] -= 1
