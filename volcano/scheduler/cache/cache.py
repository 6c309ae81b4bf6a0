"""SchedulerCache: what the scheduler knows, fed by informers.

Pods (of this scheduler, or already bound), Nodes, PodGroups, Queues and
PriorityClasses arrive through informer handlers; each object version is
parsed once (``TaskSpec``/``NodeSpec``/``QueueInfo``) and kept in insertion
order, so a per-cycle ``snapshot()`` is a cheap assembly of already-parsed
parts (incremental: only changed objects are re-parsed). Binds in flight and
evictions sent are remembered as overrides until the informer shows their
effect, as Volcano's cache ignores stale pod updates during a bind.

``generation`` counts every change of what a snapshot is made of (each informer
delivery, each bind or eviction remembered): a scheduler whose last cycle did
nothing and sees the same generation knows its next cycle would do nothing too.

Each snapshot also tells what changed since the one before it (``Snapshot.delta``,
a ``CacheDelta``): the PodGroups replaced, created or deleted, or whose job priority
moved (by cache key), those created since (in cache order: a suffix of it), and the
job ids whose member pods or overrides changed. A session carrying its jobs from the
last snapshot's session visits only those (``framework.build``).

The echo of the scheduler's own ``PodScheduled`` condition write (``expect_echo``), a
version of the pod that changes only its conditions, is taken in place: the cached
``TaskSpec`` reads the new pod and its job is not marked changed. When the pod informer
knows the event's status change (``Informer.change``) the echo is told by it
(``stated_echo``) instead of by comparing the two versions (``conditions_echo``).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable, Mapping
from operator import attrgetter
from typing import Any, TypeGuard

from volcano.api import accessors
from volcano.api.frozen import FrozenDict
from volcano.apiserver.changes import StatusChange
from volcano.informers import InformerFactory
from volcano.scheduler.framework.model import NodeSpec, QueueInfo, TaskSpec, TaskStatus, task_status_of
from volcano.scheduler.framework.resources import ResourceSpace
from volcano.scheduler.framework.session import Snapshot
from volcano.scheduler.framework.snapshot import CacheDelta, object_key

__all__ = ["SchedulerCache"]

Obj = dict[str, Any]


_key = object_key
_DELTA_CAP = 256
"""Changes between two snapshots beyond which (plus a quarter of the PodGroups) a snapshot tells
none: the next session takes every job, and a burst of arrivals keeps no dirty sets."""


_SEQ = attrgetter("seq")


def _same_but(a: Mapping[str, Any], b: Mapping[str, Any], skip: frozenset[str]) -> bool:
    """Whether mappings ``a`` and ``b`` hold the same keys and values (by identity, else equality),
    the keys in ``skip`` aside."""
    if a is b:
        return True
    # Copies of both with every ``skip`` key set to None compare equal exactly then: dict equality
    # is the same key sets and values identical or equal, and runs in C (faster than a loop
    # here, even with the two short-lived copies, for the handful of keys of a pod's parts).
    blank = _BLANKS.get(skip)
    if blank is None:
        blank = dict.fromkeys(skip)
    c, d = dict(a), dict(b)
    c.update(blank)
    d.update(blank)
    return c == d


_SPEC_SKIP = frozenset({"nodeName"})
_META_SKIP = frozenset({"resourceVersion", "managedFields"})
_TOP_SKIP = frozenset({"spec", "metadata", "status"})
_BLANKS = {skip: dict.fromkeys(skip) for skip in (_SPEC_SKIP, _META_SKIP, _TOP_SKIP)}


def _cloner(cls: type) -> Callable[[Any], Any]:
    """A function returning a copy of an instance of the slotted class ``cls`` (every slot, none
    computed again): one generated assignment per slot, as a hand-written copy would read, so a
    slot added to ``cls`` is copied too."""
    slots: tuple[str, ...] = cls.__slots__  # type: ignore[attr-defined]
    body = "".join(f"    t.{name} = s.{name}\n" for name in slots)
    namespace: dict[str, Any] = {"new": cls.__new__, "cls": cls}
    exec(f"def clone(s):\n    t = new(cls)\n{body}    return t\n", namespace)  # names from __slots__ only
    fn: Callable[[Any], Any] = namespace["clone"]
    return fn


_clone_task = _cloner(TaskSpec)
_DICTS = (dict, FrozenDict)


def _is_map(value: object) -> TypeGuard[Mapping[str, Any]]:
    """``isinstance(value, Mapping)``, the common exact types first."""
    return type(value) in _DICTS or isinstance(value, Mapping)


def rebound(spec: TaskSpec, pod: Obj) -> TaskSpec | None:
    """``TaskSpec(pod)`` without parsing ``pod`` again, when ``pod`` is ``spec.pod`` changed only in
    what a bind or a status write changes: ``spec.nodeName``, ``status`` (the scheduler's own
    ``PodScheduled`` condition, a nominated node, the kubelet's phase) and ``metadata``'s
    ``resourceVersion`` and ``managedFields``. Every field is copied from ``spec`` but the pod and
    the three read from those parts (``node_name``, ``status``, ``nominated_node``), which are read
    again (``status`` only when the phase or the node moved: a condition rewritten keeps it); a
    property test compares every field with a fresh parse. None when ``pod`` differs in
    anything else. Parts the store shared with the previous version (the same frozen ``spec`` after
    a status write) compare by identity, in O(1)."""
    old = spec.pod
    old_spec, new_spec = old.get("spec"), pod.get("spec")
    old_meta, new_meta = old.get("metadata"), pod.get("metadata")
    if not (_is_map(old_spec) and _is_map(new_spec) and _is_map(old_meta) and _is_map(new_meta)):
        return None
    if not _same_but(old, pod, _TOP_SKIP):
        return None
    if not ((old_spec is new_spec or _same_but(old_spec, new_spec, _SPEC_SKIP))
            and _same_but(old_meta, new_meta, _META_SKIP)):
        return None
    task: TaskSpec = _clone_task(spec)
    task.pod = pod
    node_name = task.node_name = new_spec.get("nodeName") or ""
    old_status: Any = old.get("status")
    new_status: Any = pod.get("status")
    task.nominated_node = (new_status.get("nominatedNodeName") if type(new_status) in _DICTS
                           else accessors.status(pod).get("nominatedNodeName")) or ""
    if node_name == spec.node_name and type(old_status) in _DICTS and type(new_status) in _DICTS:
        phase = new_status.get("phase")
        if type(phase) is str and phase == old_status.get("phase"):
            # ``task_status_of`` reads the phase (a string: no ``state`` fallback), the
            # deletionTimestamp (``metadata`` compared equal above) and the node name, all as
            # before: ``spec.status`` (a TaskSpec's status is its pod's, never set after) holds
            return task
    task.status = task_status_of(pod)
    return task


def conditions_echo(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """Whether ``new`` is ``old`` with only ``status.conditions`` and ``metadata.resourceVersion``
    changed, its ``spec`` the very same object (what a status write of a pod's conditions stores:
    ``volcano.apiserver.status_write``). Each part is compared as one dict built and compared in C
    (a value the store shared compares by identity). A ``TaskSpec`` parsed from ``new`` then equals
    the one parsed from ``old`` in every field but ``pod``: none reads the conditions."""
    old_meta, new_meta = old.get("metadata"), new.get("metadata")
    old_status, new_status = old.get("status"), new.get("status")
    if type(old_meta) is not FrozenDict or type(new_meta) is not FrozenDict or type(old_status) is not FrozenDict \
            or type(new_status) is not FrozenDict or new.get("spec") is not old.get("spec"):
        return False
    return new == {**old, "metadata": new_meta, "status": new_status} \
        and new_meta == {**old_meta, "resourceVersion": new_meta.get("resourceVersion")} \
        and new_status == {**old_status, "conditions": new_status.get("conditions")}


_CONDITIONS = frozenset({"conditions"})


def stated_echo(change: StatusChange | None, new: Mapping[str, Any]) -> bool:
    """True only when ``conditions_echo(old, new)`` holds, for the ``old`` that ``change`` (the
    server's status change of the event bringing ``new``: ``volcano.apiserver.changes``) is relative
    to, told without comparing: the write changed at most ``status.conditions`` and ``new`` holds
    conditions (the key ``conditions_echo`` compares). False says nothing (None: nothing stated;
    a property replaced by an equal value): the caller compares."""
    return change is not None and change <= _CONDITIONS and "conditions" in new["status"]


class SchedulerCache:
    """See the module docstring."""

    def __init__(self, informers: InformerFactory, *, scheduler_names: Iterable[str] = ("volcano",),
                 default_queue: str = "default") -> None:
        self.scheduler_names = frozenset(scheduler_names)
        self.default_queue = default_queue
        self.space = ResourceSpace()
        self.pods: dict[str, TaskSpec] = {}
        self.nodes: dict[str, NodeSpec] = {}
        self.queues: dict[str, QueueInfo] = {}
        self.priority_classes: dict[str, Obj] = {}
        self.binding: dict[str, str] = {}
        self.releasing: set[str] = set()
        self.generation = 0
        """Bumped by every change a snapshot could see (see the module docstring)."""
        self._shared: dict[Any, Any] = {}
        self._groups: dict[str, list[TaskSpec]] = {}
        """The pods by job id ("" for none), each list in ``pods`` order (``TaskSpec.seq``); a list
        handed out by ``snapshot`` is never changed after (the next change copies it first)."""
        self._handed: dict[str, list[TaskSpec]] = {}
        """The groups the last snapshot handed out (``_writable`` copies those before a change)."""
        self._unique: bool | None = True
        """Whether no two pods share a uid (None: not known since a pod came with a uid; the next
        snapshot works it out)."""
        self._seq = 0
        self.podgroups: dict[str, Obj] = {}
        self._priorities: dict[str, int] = {}
        """The job priority of each PodGroup whose priority is not 0 (by key), kept current."""
        self._default_pc: Obj | None = None
        """The global default PriorityClass (``_global_default``), worked out when a class changes."""
        self._epoch = 0
        """Snapshots taken (the next one's ``CacheDelta.epoch``)."""
        self._pg_dirty: dict[str, None] = {}
        """PodGroup keys replaced, created or deleted, or whose priority moved, since the last snapshot."""
        self._pg_entered: dict[str, None] = {}
        """PodGroup keys created since the last snapshot (in ``podgroups`` order: its tail)."""
        self._job_dirty: dict[str, None] = {}
        """Job ids whose member pods changed since the last snapshot."""
        self._overflow = False
        """Whether more changed since the last snapshot than ``_DELTA_CAP`` allows: the next snapshot
        tells nothing (``delta`` None) and the dirty sets are not kept (no memory for a burst)."""
        self._last_by_job: Mapping[str, dict[str, tuple[TaskStatus, str]]] = {}
        """The last snapshot's overrides by job (a job whose overrides differ is dirty)."""
        self._echoes: dict[str, None] = {}
        """Pods (by key) whose ``PodScheduled`` condition the scheduler wrote after its last snapshot
        (``expect_echo``): the next conditions-only version of each is taken in place."""
        self.informers = informers
        self._pods_informer = informers.informer("Pod")
        self._pods_informer.add_handler(self._on_pod)
        informers.informer("Node").add_handler(self._on_node)
        informers.informer("PodGroup").add_handler(self._on_podgroup)
        informers.informer("Queue").add_handler(self._on_queue)
        informers.informer("PriorityClass").add_handler(self._on_pc)

    def expect_echo(self, key: str) -> None:
        """Note that the scheduler's session close just wrote (or tried to write) the ``PodScheduled``
        condition of pod ``key``, without a nominated node: until the next ``snapshot``, the next
        version of the pod that changes only its conditions (``conditions_echo``) is taken in
        place. Its ``TaskSpec`` (the very object the carried job's task holds) then reads the new
        pod, every other field as it is, and its job is not marked changed: the next session carries
        the job without rebuilding it. Exact because such a version changes only what the session
        close reads (the pods' conditions, through ``TaskSpec.pod``) and the close that wrote the
        condition left the job's close memo unusable (``framework.status``: a close that writes a
        task's condition never keeps the job's memo quiet), so the next close of the job works its
        conditions out in full again, from the pods as they are then; a version written by anyone
        else outside that window rebuilds the job as any change does. The reference path
        (``Scheduler.reuse`` off) never calls this."""
        self._echoes[key] = None

    def _on_pod(self, etype: str, obj: Obj, old: Obj | None) -> None:
        self.generation += 1  # every group a pod enters or leaves is marked (``_enter``, ``_forget``, ``_replace``)
        key = _key(obj)
        if self._echoes and key in self._echoes:
            del self._echoes[key]
            previous = self.pods.get(key)
            if etype == "MODIFIED" and previous is not None and (
                    (previous.pod is old and stated_echo(self._pods_informer.change, obj))
                    or conditions_echo(previous.pod, obj)):
                previous.pod = obj  # ``rebound``'s task but for ``pod`` (see ``expect_echo``)
                if previous.node_name:
                    self.binding.pop(key, None)
                if previous.status in (TaskStatus.Releasing, TaskStatus.Succeeded, TaskStatus.Failed):
                    self.releasing.discard(key)
                return
        spec = obj.get("spec") or {}
        if etype == "DELETED":
            self._forget(self.pods.pop(key, None))
            self.binding.pop(key, None)
            self.releasing.discard(key)
            return
        if (spec.get("schedulerName") or "default-scheduler") not in self.scheduler_names and not spec.get("nodeName"):
            self._forget(self.pods.pop(key, None))
            return
        previous = self.pods.get(key)
        task = rebound(previous, obj) if previous is not None and etype == "MODIFIED" else None
        if task is None:
            task = TaskSpec(obj)
            self.space.register_all(task.requests)
        if task.node_name:
            self.binding.pop(key, None)
        if task.status in (TaskStatus.Releasing, TaskStatus.Succeeded, TaskStatus.Failed):
            self.releasing.discard(key)
        self.pods[key] = task
        if previous is None:
            task.seq = self._seq
            self._seq += 1
            self._enter(task)
        else:
            task.seq = previous.seq
            if previous.job_id == task.job_id:
                self._replace(previous, task)
            else:
                self._forget(previous)
                self._enter(task)
        if previous is None or previous.uid != task.uid:
            self._unique = None

    def _mark_job(self, job_id: str) -> None:
        """Note that job ``job_id``'s member pods changed (see ``_overflow``)."""
        if not self._overflow:
            self._job_dirty[job_id] = None
            self._check_cap()

    def _mark_podgroup(self, key: str) -> None:
        """Note that the PodGroup of ``key`` changed, came, left or moved in priority (see ``_overflow``)."""
        if not self._overflow:
            self._pg_dirty[key] = None
            self._check_cap()

    def _check_cap(self) -> None:
        """Give up telling the changes once they are more than ``_DELTA_CAP`` allows."""
        if len(self._job_dirty) + len(self._pg_dirty) > _DELTA_CAP + len(self.podgroups) // 4:
            self._overflow = True
            self._pg_dirty, self._pg_entered, self._job_dirty = {}, {}, {}

    def _writable(self, job_id: str) -> list[TaskSpec] | None:
        """``job_id``'s group, safe to change in place: a list the last snapshot handed out is
        copied first (once per snapshot; copy on write), so a handed-out list never changes and
        the cost of a job's pod events stays O(1) amortised (plus one copy per session)."""
        group = self._groups.get(job_id)
        if group is not None and self._handed.get(job_id) is group:
            group = self._groups[job_id] = list(group)
        return group

    def _at(self, group: list[TaskSpec], task: TaskSpec) -> int:
        """The index of ``task`` in ``group``, which holds it (sorted by ``seq``, unique per pod)."""
        return bisect_left(group, task.seq, key=_SEQ)

    def _enter(self, task: TaskSpec) -> None:
        """Put ``task`` in its job's group (at its place by ``seq``)."""
        self._mark_job(task.job_id)
        group = self._writable(task.job_id)
        if group is None:
            self._groups[task.job_id] = [task]
        elif group[-1].seq < task.seq:
            group.append(task)
        else:
            group.insert(bisect_left(group, task.seq, key=_SEQ), task)

    def _replace(self, previous: TaskSpec, task: TaskSpec) -> None:
        """Put ``task`` where ``previous`` (the same pod, the same job, the same ``seq``) was."""
        if self._unique is False:
            self._unique = None
        self._mark_job(task.job_id)
        group = self._writable(task.job_id)
        assert group is not None
        group[self._at(group, previous)] = task

    def _forget(self, task: TaskSpec | None) -> None:
        """Undo ``_enter`` for a parse that left ``pods`` (None: nothing left). A uid leaving
        cannot make two pods share one, but may end a sharing."""
        if task is None:
            return
        if self._unique is False:
            self._unique = None
        self._mark_job(task.job_id)
        group = self._writable(task.job_id)
        assert group is not None
        if len(group) == 1:
            del self._groups[task.job_id]
        else:
            del group[self._at(group, task)]

    def _on_node(self, etype: str, obj: Obj, old: Obj | None) -> None:
        self.generation += 1
        name = _key(obj)
        self._shared = {}
        if etype == "DELETED":
            self.nodes.pop(name, None)
            return
        spec = NodeSpec(obj)
        self.space.register_all(spec.allocatable)
        self.nodes[name] = spec

    def _on_podgroup(self, etype: str, obj: Obj, old: Obj | None) -> None:
        self.generation += 1
        key = _key(obj)
        self._mark_podgroup(key)
        if etype == "DELETED":
            self.podgroups.pop(key, None)
            self._priorities.pop(key, None)
            self._pg_entered.pop(key, None)
            return
        if key not in self.podgroups and not self._overflow:
            self._pg_entered[key] = None
        self.podgroups[key] = obj
        self._set_priority(key, self._priority(obj, self._default_pc))

    def _on_queue(self, etype: str, obj: Obj, old: Obj | None) -> None:
        self.generation += 1
        if etype == "DELETED":
            self.queues.pop(_key(obj), None)
        else:
            self.queues[_key(obj)] = QueueInfo(obj)

    def _on_pc(self, etype: str, obj: Obj, old: Obj | None) -> None:
        self.generation += 1
        if etype == "DELETED":
            self.priority_classes.pop(_key(obj), None)
        else:
            self.priority_classes[_key(obj)] = obj
        self._default_pc = default = self._global_default()
        known = self._priorities
        for key, pg in self.podgroups.items():
            now = self._priority(pg, default)
            if now != known.get(key, 0):
                self._set_priority(key, now)
                self._mark_podgroup(key)

    def _set_priority(self, key: str, priority: int) -> None:
        """Keep ``priority`` as the job priority of PodGroup ``key`` (0: none kept)."""
        if priority:
            self._priorities[key] = priority
        else:
            self._priorities.pop(key, None)

    def job_priority(self, podgroup: Obj) -> int:
        """The value of the PodGroup's PriorityClass, else the global default's, else 0."""
        return self._priority(podgroup, self._global_default())

    def _global_default(self) -> Obj | None:
        """The first PriorityClass by name marked ``globalDefault``, if any."""
        return next((p for _, p in sorted(self.priority_classes.items()) if p.get("globalDefault")), None)

    def _priority(self, podgroup: Obj, default: Obj | None) -> int:
        """``job_priority`` with the global default class given (worked out once per snapshot)."""
        name = (podgroup.get("spec") or {}).get("priorityClassName") or ""
        pc = self.priority_classes.get(name)
        if pc is None:
            pc = default
        return int(pc.get("value") or 0) if pc is not None else 0

    def _unique_uids(self) -> bool:
        """Whether no two pods share a uid (worked out again only after a pod came with a uid)."""
        if self._unique is None:
            self._unique = len({spec.uid for spec in self.pods.values()}) == len(self.pods)
        return self._unique

    def snapshot(self) -> Snapshot:
        """The state for one session."""
        self._echoes.clear()
        overrides: dict[str, tuple[TaskStatus, str]] = {}
        by_job: dict[str, dict[str, tuple[TaskStatus, str]]] = {}
        for key, node in self.binding.items():
            spec = self.pods.get(key)
            if spec is not None:
                overrides[spec.uid] = by_job.setdefault(spec.job_id, {})[spec.uid] = (TaskStatus.Binding, node)
        for key in self.releasing:
            spec = self.pods.get(key)
            if spec is not None and spec.node_name:
                overrides[spec.uid] = by_job.setdefault(spec.job_id, {})[spec.uid] = \
                    (TaskStatus.Releasing, spec.node_name)
        get = self._priorities.get
        groups: list[tuple[Mapping[str, Any], int]] = [(pg, get(key, 0)) for key, pg in self.podgroups.items()] \
            if self._priorities else [(pg, 0) for pg in self.podgroups.values()]
        pcs = {name: int(p.get("value") or 0) for name, p in self.priority_classes.items()}
        self._handed = members = dict(self._groups)
        return Snapshot(self.space, list(self.nodes.values()), groups, list(self.pods.values()),
                        list(self.queues.values()), self.default_queue, pcs, overrides, self._shared,
                        members=members, overrides_by_job=by_job, unique_uids=self._unique_uids(),
                        registered=True, delta=self._delta(by_job))

    def _delta(self, by_job: dict[str, dict[str, tuple[TaskStatus, str]]]) -> CacheDelta | None:
        """What changed since the last snapshot (see the module docstring); starts the next count."""
        self._epoch += 1  # a snapshot telling nothing counts too: the next one's delta is not from before it
        if self._overflow:
            self._overflow = False
            self._last_by_job = by_job
            return None
        jobs = self._job_dirty
        last = self._last_by_job
        for job_id, over in by_job.items():
            if last.get(job_id) != over:
                jobs[job_id] = None
        for job_id in last:
            if job_id not in by_job:
                jobs[job_id] = None
        podgroups, get = self.podgroups, self._priorities.get
        changed = {key: (podgroups[key], get(key, 0)) for key in self._pg_dirty if key in podgroups}
        delta = CacheDelta(self, self._epoch, self._pg_dirty, self._pg_entered, jobs, changed)
        self._pg_dirty, self._pg_entered, self._job_dirty = {}, {}, {}
        self._last_by_job = by_job
        return delta
