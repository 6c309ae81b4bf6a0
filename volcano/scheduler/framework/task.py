"""Tasks as the scheduler sees them: ``TaskStatus``, the immutable ``TaskSpec``
parse of a pod version and the per-session ``TaskInfo``.

A ``TaskSpec`` is made once per pod version by the cache and shared by every
session; a ``TaskInfo`` carries one session's mutable status, node and
transaction context. Statuses and their derivation from a pod follow Volcano
(``pkg/scheduler/api/helpers.go``, ``job_info.go``).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from enum import IntEnum
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from volcano.api import accessors as obj
from volcano.api.resources import PODS, pod_requests
from volcano.api.well_known import GROUP_NAME, PREEMPTABLE, TASK_PRIORITY, TASK_SPEC
from volcano.scheduler.framework.resources import POD_UNIT, ResourceSpace, Vec, checked

if TYPE_CHECKING:
    from volcano.scheduler.framework.job import JobInfo

__all__ = [
    "ALLOCATED_STATUSES",
    "COMPLETED_STATUSES",
    "PREEMPTABLE_STATUSES",
    "READY_STATUSES",
    "SCHEDULED_STATUSES",
    "VALID_STATUSES",
    "TaskInfo",
    "TaskSpec",
    "TaskStatus",
    "default_task_less",
    "parse_bool",
    "task_status_of",
]



_SHARED: dict[tuple[str, bytes], npt.NDArray[Any]] = {}
"""Read-only arrays by content (dtype and bytes): tasks with equal requests share one
request vector and one ``dims`` array instead of a pair each (memory per pod)."""
_SHARED_MAX = 4096
"""Past this many distinct arrays new ones are kept by their task alone (bounded table)."""


def _shared(array: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """``array`` made read-only, or the equal read-only array already shared (never mutate it)."""
    key = (array.dtype.str, array.tobytes())
    found = _SHARED.get(key)
    if found is not None and found.shape == array.shape:
        return found
    array.setflags(write=False)
    if found is None and len(_SHARED) < _SHARED_MAX:
        _SHARED[key] = array
    return array


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
    phase = obj.phase(pod)
    deleting = bool(obj.meta(pod).get("deletionTimestamp"))
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


def _task_priority(spec: Mapping[str, Any], annotations: Mapping[str, str]) -> int:
    """``spec.priority`` (default 1), overridden by a numeric task-priority annotation."""
    prio = spec.get("priority")
    priority = int(prio) if prio is not None else 1
    if TASK_PRIORITY in annotations:
        text = str(annotations[TASK_PRIORITY]).strip()
        if text.lstrip("+-").isdigit():
            priority = int(text)
    return priority


_NO_STATIC = json.dumps([{}, {}, []])
"""``static_sig`` of a pod without node selector, required node affinity or tolerations."""


def _host_ports(spec: Mapping[str, Any]) -> tuple[tuple[str, int, str], ...]:
    """(protocol, hostPort, hostIP) of every container and init container port with a host port."""
    ports: list[tuple[str, int, str]] = []
    for c in list(spec.get("containers") or []) + list(spec.get("initContainers") or []):
        for p in c.get("ports") or []:
            if p.get("hostPort"):
                ports.append((p.get("protocol") or "TCP", int(p["hostPort"]), p.get("hostIP") or "0.0.0.0"))
    return tuple(ports)


_NONE: tuple[Mapping[str, Any], ...] = ()


def _listed(items: Any) -> Sequence[Mapping[str, Any]]:
    """A list of ``items``, or the shared empty tuple when there are none (never mutated)."""
    return list(items) if items else _NONE


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
        "seq",
        "static_sig",
        "status",
        "terms",
        "tolerations",
        "uid",
    )

    def __init__(self, pod: Mapping[str, Any]) -> None:
        meta = obj.meta(pod)
        spec = pod.get("spec") or {}
        annotations = obj.annotations(pod)
        labels = obj.labels(pod)
        self.pod = pod
        self.name = obj.name(pod)
        self.namespace = obj.namespace(pod) or "default"
        self.key = f"{self.namespace}/{self.name}"
        self.uid: str = meta.get("uid") or f"{self.namespace}-{self.name}"
        group = annotations.get(GROUP_NAME)
        # Interned: the kubelet and the queue controller keep the same PodGroup key (memory per pod).
        self.job_id = sys.intern(f"{self.namespace}/{group}") if group else ""
        self.role: str = annotations.get(TASK_SPEC) or labels.get(TASK_SPEC) or ""
        self.labels: Mapping[str, str] = labels
        req = checked(pod_requests(pod), field="spec.containers[*].resources.requests")
        self.best_effort = req.is_zero()
        self.requests = req + {PODS: POD_UNIT}
        self.priority = _task_priority(spec, annotations)
        self.priority_class: str = spec.get("priorityClassName") or ""
        raw = annotations.get(PREEMPTABLE, labels.get(PREEMPTABLE))
        self.preemptable = True if raw is None else bool(parse_bool(raw))
        self.preemption_never = spec.get("preemptionPolicy") == "Never"
        self.gated = bool(spec.get("schedulingGates"))
        self.node_name: str = spec.get("nodeName") or ""
        self.nominated_node: str = obj.status(pod).get("nominatedNodeName") or ""
        self.scheduler_name: str = spec.get("schedulerName") or "default-scheduler"
        self.creation: str = meta.get("creationTimestamp") or ""
        self.index = _pod_index(self.name)
        self.status = task_status_of(pod)
        # Empty ones are the one shared empty tuple: most pods have none, and at 50,000 pods
        # three empty lists each are some 8 MiB.
        self.tolerations: Sequence[Mapping[str, Any]] = _listed(spec.get("tolerations"))
        affinity = spec.get("affinity") or {}
        pa = affinity.get("podAffinity") or {}
        paa = affinity.get("podAntiAffinity") or {}
        self.pod_affinity: Sequence[Mapping[str, Any]] = _listed(
            pa.get("requiredDuringSchedulingIgnoredDuringExecution"))
        self.pod_anti_affinity: Sequence[Mapping[str, Any]] = _listed(
            paa.get("requiredDuringSchedulingIgnoredDuringExecution"))
        self.terms = bool(pa or paa)
        """Whether the pod carries any pod affinity or anti-affinity term (required or preferred)."""
        self.host_ports = _host_ports(spec)
        node_aff = (affinity.get("nodeAffinity") or {}).get("requiredDuringSchedulingIgnoredDuringExecution")
        selector = spec.get("nodeSelector") or {}
        self.static_sig = json.dumps([selector, node_aff or {}, self.tolerations], sort_keys=True, default=str) \
            if selector or node_aff or self.tolerations else _NO_STATIC
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
        self.seq = -1
        """The pod's place in the scheduler cache's order (set by the cache; -1 outside it)."""

    def vec(self, space: ResourceSpace) -> Vec:
        """The request vector in ``space`` (cached; never mutate it)."""
        if self._vec is None or self._vec_key != len(space):
            self._vec = _shared(space.vector(self.requests))
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
            extra = np.flatnonzero(self._vec[3:]) + 3  # sorted, past the three fixed columns: the union
            self._dims = _shared(np.concatenate((np.array([0, 1, 2], dtype=np.intp), extra.astype(np.intp))))
        return self._dims


class TaskInfo:
    """A task in one session: its spec plus mutable status, node and transaction context."""

    __slots__ = ("eviction_occurred", "job", "last_txn", "node_name", "spec", "status", "uid", "vec")

    def __init__(self, spec: TaskSpec, vec: Vec, status: TaskStatus | None = None,
                 node_name: str | None = None) -> None:
        self.spec = spec
        self.uid: str = spec.uid
        """The pod UID (``spec.uid``, kept as a plain attribute: the hottest read of a session)."""
        self.vec = vec
        self.status = spec.status if status is None else status
        self.node_name = spec.node_name if node_name is None else node_name
        self.eviction_occurred = False
        self.last_txn: tuple[TaskStatus, str] | None = None
        self.job: JobInfo | None = None

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
