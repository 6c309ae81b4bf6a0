"""The Job controller's per-Job pod index: O(1) work per pod event, never a rescan of the job.

``JobPodIndex`` holds, for every pod a Volcano Job manages (``job_pod_keys``), two
copies: the informer's (``observe``, called from the pod handler for every watch
event) and, until the informer has caught up with it, the controller's own last
write (``wrote`` after a create, patch or graceful delete; ``removed`` after a
delete the store carried out at once). The pod the controller acts on is the
*effective* copy, with exactly the rules of ``overlay.WriteOverlay``:

* a written copy wins until the informer's ``resource_version`` reaches the
  write's resourceVersion, then the informer's copy (or its absence) is right;
* a removed pod stays hidden until the informer has reached the last version
  the controller knew of it and no longer holds a pod of that name and uid.

Each change of a pod's effective copy updates its Job's aggregates by what the
pod contributed before and contributes now (``_Contrib``), so that a sync
reads counters instead of walking the pods:

* per task, over the pods whose name is ``<job>-<task>-<i>`` with ``i`` below the
  task's replicas (the *desired range*, set by ``TaskPods.set_replicas``): the
  replicas without a pod, terminating pods, phase counts of the others, the
  out-of-sync ones, the ready ones (Succeeded, or Running with every container
  ready); the pods outside the range (*surplus*);
* per task, over all its pods: Succeeded pods and container restarts of
  Running/Pending pods (what the pod handler's TaskCompleted / TaskFailed checks
  read);
* per Job: terminating pods and the other pods by raw phase (what a kill reads).

Writes become visible when the informer's version passes them; ``settle`` applies
that (a heap of pending writes by resourceVersion), and every read calls it first.
Changing a task's replicas repartitions that task once (O(its pods)).
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from volcano.api.accessors import controller_of
from volcano.api.well_known import JOB_NAME, TASK_SPEC
from volcano.apiserver.client import Obj
from volcano.controllers.job.constants import ANN_CONTROLLER_OUT_OF_SYNC, ANN_JOB_VERSION, JOB_API_VERSION, JOB_KIND

__all__ = ["JobPodIndex", "JobPods", "PodInformer", "TaskPods", "job_pod_keys", "phase_label", "pod_restarts"]

_PHASE_KEYS: dict[str, tuple[str, str]] = {p: (p.lower(), p) for p in ("Pending", "Running", "Succeeded", "Failed")}
_UNKNOWN = ("unknown", "Unknown")
_NONE, _WRITTEN, _REMOVED = 0, 1, 2


class PodInformer(Protocol):
    """The part of the pod informer the index reads."""

    resource_version: str

    def get(self, name: str, namespace: str | None = None) -> Obj | None:
        """Cached object or None."""
        ...

    def list(self, namespace: str | None = None) -> list[Obj]:
        """Cached objects."""
        ...


def job_pod_keys(pod: Mapping[str, Any]) -> list[str]:
    """``[<ns>/<job>]`` for a pod the Job controller manages, else ``[]``: its controller
    ownerReference is a Volcano Job and it carries the job-name, task-spec and integer
    job-version annotations, as Volcano filters them."""
    ref = controller_of(pod)
    if ref is None or ref.get("apiVersion") != JOB_API_VERSION or ref.get("kind") != JOB_KIND:
        return []
    meta = pod.get("metadata") or {}
    ann = meta.get("annotations") or {}
    if JOB_NAME not in ann or TASK_SPEC not in ann:
        return []
    try:
        int(ann.get(ANN_JOB_VERSION, ""))
    except (TypeError, ValueError):
        return []
    return [f"{meta.get('namespace', '')}/{ann[JOB_NAME]}"]


def phase_label(pod: Mapping[str, Any]) -> tuple[str, str]:
    """``(counter key, taskStatusCount label)`` of a pod's phase: ``("running", "Running")``;
    an absent or unknown phase is ``("unknown", "Unknown")``."""
    status = pod.get("status")
    return _PHASE_KEYS.get(status.get("phase") if status else None, _UNKNOWN)  # type: ignore[arg-type]


def _rv(obj: Mapping[str, Any] | None) -> int:
    try:
        return int(((obj or {}).get("metadata") or {}).get("resourceVersion") or -1)
    except (TypeError, ValueError):
        return -1


def _uid(obj: Mapping[str, Any] | None) -> str:
    return str(((obj or {}).get("metadata") or {}).get("uid") or "")


@dataclass(frozen=True, slots=True)
class _Contrib:
    """What one pod adds to its Job's aggregates."""

    task: str
    replica: int  # i when the name is <job>-<task>-<i> (canonical decimal), else -1
    terminating: bool
    label: str
    raw_phase: Any
    out_of_sync: bool
    ready: bool
    succeeded: bool
    restarts: int


def _replica(name: str, job: str, task: str) -> int:
    prefix = f"{job}-{task}-"
    if not name.startswith(prefix):
        return -1
    rest = name[len(prefix):]
    if not rest.isdigit() or not rest.isascii() or (len(rest) > 1 and rest[0] == "0"):
        return -1
    return int(rest)


def _contrib(pod: Obj, job: str) -> _Contrib:
    meta = pod["metadata"]
    ann = meta.get("annotations") or {}
    task = str(ann.get(TASK_SPEC, ""))
    status = pod.get("status") or {}
    phase = status.get("phase")
    ready = phase == "Succeeded" or (phase == "Running" and all(
        cs.get("ready") for cs in status.get("containerStatuses") or []))
    return _Contrib(task, _replica(str(meta["name"]), job, task), bool(meta.get("deletionTimestamp")),
                    phase_label(pod)[1], phase, ann.get(ANN_CONTROLLER_OUT_OF_SYNC) == "true", ready,
                    phase == "Succeeded", pod_restarts(pod))


def pod_restarts(pod: Mapping[str, Any]) -> int:
    """Container restarts of a Running or Pending pod (init and regular containers); 0 otherwise."""
    status = pod.get("status") or {}
    if status.get("phase") not in ("Running", "Pending"):
        return 0
    return sum(int(cs.get("restartCount") or 0)
               for cs in list(status.get("initContainerStatuses") or []) + list(status.get("containerStatuses") or []))


def _bump(counter: dict[Any, int], key: Any, delta: int) -> None:
    value = counter.get(key, 0) + delta
    if value:
        counter[key] = value
    else:
        counter.pop(key, None)


@dataclass(slots=True, eq=False)
class TaskPods:
    """One task's pods and its aggregates (see the module docstring)."""

    job: str
    name: str
    replicas: int = -1
    pods: dict[str, _Contrib] = field(default_factory=dict)
    present: dict[int, str] = field(default_factory=dict)
    missing: set[int] = field(default_factory=set)
    surplus: dict[str, None] = field(default_factory=dict)
    terminating: int = 0
    phases: dict[str, int] = field(default_factory=dict)
    out_of_sync: dict[str, int] = field(default_factory=dict)
    ready: int = 0
    succeeded: int = 0
    restarts: int = 0

    def _in_range(self, c: _Contrib) -> bool:
        return 0 <= c.replica < self.replicas

    def _apply(self, name: str, c: _Contrib, sign: int) -> None:
        if c.succeeded:
            self.succeeded += sign
        self.restarts += sign * c.restarts
        if not self._in_range(c):
            if sign > 0:
                self.surplus[name] = None
            else:
                self.surplus.pop(name, None)
            return
        if sign > 0:
            self.present[c.replica] = name
            self.missing.discard(c.replica)
        else:
            self.present.pop(c.replica, None)
            self.missing.add(c.replica)
        if c.ready:
            self.ready += sign
        if c.terminating:
            self.terminating += sign
            return
        _bump(self.phases, c.label, sign)
        if c.out_of_sync:
            if sign > 0:
                self.out_of_sync[name] = c.replica
            else:
                self.out_of_sync.pop(name, None)

    def add(self, name: str, c: _Contrib) -> None:
        """Count pod ``name``."""
        self.pods[name] = c
        self._apply(name, c, 1)

    def remove(self, name: str) -> None:
        """Stop counting pod ``name``."""
        c = self.pods.pop(name, None)
        if c is not None:
            self._apply(name, c, -1)

    def set_replicas(self, replicas: int) -> None:
        """Make ``[0, replicas)`` the desired range (repartitions only when it changes)."""
        if replicas == self.replicas:
            return
        pods = self.pods
        self.pods = {}
        self.present, self.surplus, self.phases, self.out_of_sync = {}, {}, {}, {}
        self.terminating = self.ready = self.succeeded = self.restarts = 0
        self.replicas = replicas
        self.missing = set(range(max(0, replicas)))
        for name, c in pods.items():
            self.add(name, c)

    def missing_sorted(self) -> list[int]:
        """Replica indexes of the desired range without a pod, ascending."""
        return sorted(self.missing)

    def out_of_sync_sorted(self) -> list[str]:
        """Names of the out-of-sync, non-terminating pods of the desired range, by replica index."""
        return sorted(self.out_of_sync, key=self.out_of_sync.__getitem__)

    def surplus_sorted(self) -> list[str]:
        """Names of the pods outside the desired range, sorted."""
        return sorted(self.surplus)

    def succeeded_with(self, pod: Obj) -> int:
        """Succeeded pods of the task, with ``pod`` in place of the task's copy of it."""
        mine = self.pods.get(str(pod["metadata"]["name"]))
        return self.succeeded - (1 if mine is not None and mine.succeeded else 0) + \
            (1 if (pod.get("status") or {}).get("phase") == "Succeeded" else 0)

    def restarts_with(self, pod: Obj) -> int:
        """Container restarts of the task's Running/Pending pods, with ``pod`` in place of its copy."""
        mine = self.pods.get(str(pod["metadata"]["name"]))
        return self.restarts - (mine.restarts if mine is not None else 0) + pod_restarts(pod)

    def counted(self) -> int:
        """Non-terminating pods of the desired range (those the phase counts cover)."""
        return sum(self.phases.values())


@dataclass(slots=True, eq=False)
class JobPods:
    """One Job's pods: the effective copies, per task aggregates and per-Job kill sets."""

    job: str
    objects: dict[str, Obj] = field(default_factory=dict)
    tasks: dict[str, TaskPods] = field(default_factory=dict)
    terminating: int = 0
    live: dict[Any, dict[str, None]] = field(default_factory=dict)
    """Non-terminating pods by raw ``status.phase``."""

    def task(self, name: str) -> TaskPods:
        """The task's pods (an empty record when it has none yet)."""
        tp = self.tasks.get(name)
        if tp is None:
            tp = self.tasks[name] = TaskPods(self.job, name)
        return tp

    def add(self, name: str, obj: Obj, c: _Contrib) -> None:
        """Count pod ``name`` with its contribution ``c``."""
        self.objects[name] = obj
        self.task(c.task).add(name, c)
        if c.terminating:
            self.terminating += 1
        else:
            self.live.setdefault(c.raw_phase, {})[name] = None

    def remove(self, name: str, c: _Contrib) -> None:
        """Stop counting pod ``name`` (which contributed ``c``)."""
        self.objects.pop(name, None)
        tp = self.tasks.get(c.task)
        if tp is not None:
            tp.remove(name)
        if c.terminating:
            self.terminating -= 1
        else:
            bucket = self.live.get(c.raw_phase)
            if bucket is not None:
                bucket.pop(name, None)
                if not bucket:
                    del self.live[c.raw_phase]

    def live_except(self, keep: frozenset[str]) -> list[str]:
        """Names of the non-terminating pods whose phase is not in ``keep``, sorted."""
        out: list[str] = []
        for phase, names in self.live.items():
            if phase not in keep:
                out.extend(names)
        out.sort()
        return out

    def by_task(self) -> dict[str, dict[str, Obj]]:
        """Task name -> pod name -> pod, names sorted (an O(pods) view for tests and tools)."""
        out: dict[str, dict[str, Obj]] = {}
        for name in sorted(self.objects):
            task = self.tasks_of(name)
            out.setdefault(task, {})[name] = self.objects[name]
        return out

    def tasks_of(self, name: str) -> str:
        """The task a counted pod belongs to."""
        obj = self.objects[name]
        return str((obj["metadata"].get("annotations") or {}).get(TASK_SPEC, ""))

    def __len__(self) -> int:
        return len(self.objects)


@dataclass(slots=True, eq=False)
class _Entry:
    namespace: str
    name: str
    seen: Obj | None = None
    mine_kind: int = _NONE
    mine: Obj | None = None
    mine_uid: str = ""
    mine_rv: int = -1
    mine_seq: int = 0
    mine_group: str = ""
    effective: Obj | None = None
    group: str = ""
    contrib: _Contrib | None = None


class JobPodIndex:
    """See the module docstring."""

    def __init__(self, informer: PodInformer) -> None:
        self._informer = informer
        self._entries: dict[tuple[str, str], _Entry] = {}
        self._jobs: dict[str, JobPods] = {}
        self._pending: list[tuple[int, int, tuple[str, str]]] = []
        self._mine_by_group: dict[str, dict[tuple[str, str], None]] = {}
        self._seq = 0
        for pod in informer.list():
            self.observe("ADDED", pod)

    # ------------------------------------------------------------------ inputs
    def observe(self, etype: str, pod: Obj) -> None:
        """An informer event for ``pod`` (the informer's cache already shows it)."""
        meta = pod["metadata"]
        key = (str(meta.get("namespace") or ""), str(meta["name"]))
        entry = self._entries.get(key)
        if entry is None:
            if etype == "DELETED" or not job_pod_keys(pod):
                return
            entry = self._entries[key] = _Entry(*key)
        entry.seen = None if etype == "DELETED" else pod
        self._refresh(entry)
        self.settle()

    def wrote(self, pod: Obj) -> None:
        """The store returned ``pod`` after one of the controller's writes."""
        self._mine(pod, _WRITTEN)

    def removed(self, pod: Obj) -> None:
        """The store removed ``pod`` (same name and uid) after the controller deleted it."""
        self._mine(pod, _REMOVED)

    def forget_job(self, group: str) -> None:
        """Drop the controller's writes on the pods of Job ``group`` (it was deleted)."""
        for key in list(self._mine_by_group.pop(group, {})):
            entry = self._entries.get(key)
            if entry is not None:
                self._clear_mine(entry)
                self._refresh(entry)

    def settle(self) -> None:
        """Let the writes the informer has caught up with give way to its copies."""
        pending = self._pending
        if not pending:
            return
        informer_rv = self._informer_rv()
        while pending and pending[0][0] <= informer_rv:
            _, seq, key = heapq.heappop(pending)
            entry = self._entries.get(key)
            if entry is not None and entry.mine_seq == seq:
                self._refresh(entry)

    # ------------------------------------------------------------------ reads
    def job(self, group: str) -> JobPods:
        """Job ``group``'s pods (``<ns>/<name>``); an empty record when it has none (kept only
        while it has pods, so its desired ranges are set again by the next sync)."""
        self.settle()
        job = self._jobs.get(group)
        return job if job is not None else JobPods(group.partition("/")[2])

    def get(self, namespace: str, name: str) -> Obj | None:
        """The effective copy of one pod (the informer's for pods the index does not track)."""
        self.settle()
        entry = self._entries.get((namespace, name))
        if entry is None:
            return self._informer.get(name, namespace or None)
        return entry.effective

    # ------------------------------------------------------------------ internals
    def _informer_rv(self) -> int:
        try:
            return int(self._informer.resource_version)
        except (TypeError, ValueError):
            return -1

    def _mine(self, pod: Obj, kind: int) -> None:
        meta = pod["metadata"]
        key = (str(meta.get("namespace") or ""), str(meta["name"]))
        entry = self._entries.get(key)
        if entry is None:
            entry = self._entries[key] = _Entry(*key, seen=self._informer.get(key[1], key[0] or None))
        self._clear_mine(entry)
        keys = job_pod_keys(pod)
        self._seq += 1
        entry.mine_kind, entry.mine, entry.mine_uid, entry.mine_rv = kind, pod, _uid(pod), _rv(pod)
        entry.mine_seq, entry.mine_group = self._seq, keys[0] if keys else ""
        self._mine_by_group.setdefault(entry.mine_group, {})[key] = None
        heapq.heappush(self._pending, (entry.mine_rv, self._seq, key))
        self._refresh(entry)

    def _clear_mine(self, entry: _Entry) -> None:
        if entry.mine_kind == _NONE:
            return
        keys = self._mine_by_group.get(entry.mine_group)
        if keys is not None:
            keys.pop((entry.namespace, entry.name), None)
            if not keys:
                del self._mine_by_group[entry.mine_group]
        entry.mine_kind, entry.mine, entry.mine_uid, entry.mine_rv, entry.mine_seq = _NONE, None, "", -1, 0
        entry.mine_group = ""

    def _resolve(self, entry: _Entry) -> Obj | None:
        """The effective copy (WriteOverlay.resolve's rules), dropping a write the informer caught up with."""
        if entry.mine_kind == _NONE:
            return entry.seen
        caught_up = self._informer_rv() >= entry.mine_rv
        if entry.mine_kind == _REMOVED:
            if not caught_up or (entry.seen is not None and _uid(entry.seen) == entry.mine_uid):
                return None
            self._clear_mine(entry)
            return entry.seen
        if caught_up:
            self._clear_mine(entry)
            return entry.seen
        return entry.mine

    def _refresh(self, entry: _Entry) -> None:
        effective = self._resolve(entry)
        if effective is entry.effective and entry.contrib is not None:
            return
        if entry.contrib is not None:
            job = self._jobs.get(entry.group)
            if job is not None:
                job.remove(entry.name, entry.contrib)
                if not job.objects:
                    del self._jobs[entry.group]
        entry.effective, entry.group, entry.contrib = effective, "", None
        if effective is not None:
            keys = job_pod_keys(effective)
            if keys:
                group = keys[0]
                job = self._jobs.get(group)
                if job is None:
                    job = self._jobs[group] = JobPods(group.partition("/")[2])
                entry.group, entry.contrib = group, _contrib(effective, job.job)
                job.add(entry.name, effective, entry.contrib)
        if effective is None and entry.seen is None and entry.mine_kind == _NONE:
            del self._entries[(entry.namespace, entry.name)]
