"""Jobs carried from one session to the next while nothing they are built from changed.

A session's ``JobInfo`` (with its ``TaskInfo``\\ s) is a function of its inputs: the
PodGroup object, its job priority, the default queue, the resource space's width,
and its member pods' ``TaskSpec`` objects in cache order, each with the status and
node the cache overrides for it (binds in flight, evictions sent). The scheduler
keeps a ``JobCarry`` across cycles; when a job's inputs are the very same objects
as last session's, the session takes last session's ``JobInfo`` and puts it back
as built (``JobCarry.take``) instead of building it again:

* the fields a session may change on the job (phase, conditions, fit errors,
  per-role minimums) are set again from the PodGroup's parse (and a replayed
  futile visit's mark, ``JobInfo.replayed``, is cleared);
* when a task of the job changed status in the last session (``JobInfo.moved``:
  every session move of a task goes through ``JobInfo.set_status``), every task
  gets its built status, node and transaction context back, the tasks that
  moved through ``set_status`` again, so that the job's counts are as building
  it counts (``JobInfo.put_back``); otherwise the job is left as
  it is, which is as built. A job whose tasks moved only in a replayed futile
  allocate visit on the job as built is put back by undoing the replay
  (``JobInfo.undo_replay``: the placed tasks' transactions, the counters' zero
  entries), which leaves it as built without visiting every task.

A job whose inputs are renewed versions of the same objects is carried too: a PodGroup
changed in its status conditions alone (the scheduler's own close writes them; every other
field of its parse equal), member pods whose parses the cache renewed for a status write
(the scheduler's own ``PodScheduled`` condition, ``_renewed_spec``). Each such task takes
its new spec and the job its new PodGroup (``_renew``); the job as built from the new
inputs differs in nothing else, and its memos are functions of what a renewal keeps, but
for its close memo (``JobInfo.closed``: the close compares the PodGroup's status and the
pods' conditions), which goes. A large waiting gang, whose pods' conditions and PodGroup
condition move whenever the nodes' usage does, is thus not built again task by task.

Everything else a session does to its model stays out of the jobs (the node table,
the plugins and their queue and share state are built per session). With
``Session.reuse`` off nothing is carried (the reference path).

When the last session's jobs were every PodGroup of its snapshot and the new snapshot
tells what changed since that one (``Snapshot.delta``, the scheduler cache's), the
carry follows the change instead of taking every job (``JobCarry.follow``): the last
session's jobs mapping is copied (a replaced value keeps its place, a deleted PodGroup's
job is popped, a created one's appended, in the cache's order, which is the order
PodGroups enter and leave its own mapping), ``take`` runs only for the jobs of the
PodGroups that changed and the jobs whose member pods or overrides changed, and every
other job (whose inputs are by construction the same objects) is put back as built
without comparing its inputs (``_refresh``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from volcano.informers.poison import DATA_ERRORS
from volcano.scheduler.framework.job import JobInfo, PodGroupParse, parse_podgroup
from volcano.scheduler.framework.resources import ResourceSpace, Vec
from volcano.scheduler.framework.snapshot import CacheDelta, key_uid, object_key
from volcano.scheduler.framework.state import State
from volcano.scheduler.framework.task import TaskInfo, TaskSpec, TaskStatus

__all__ = ["JobCarry", "Kept", "Override"]

Override = tuple[TaskStatus, str]
_NO_OVERRIDES: dict[str, Override] = {}
"""The overrides of a job that has none (one shared empty mapping, never written)."""
_NO_SPECS: list[TaskSpec] = []
"""The member list of a job without pods (one shared empty list, never written)."""


class Kept:
    """One carried job and the inputs it was built from."""

    __slots__ = ("conditions", "default_queue", "job", "key", "overrides", "parsed", "podgroup", "priority", "specs",
                 "width")

    def __init__(self, job: JobInfo, podgroup: Mapping[str, Any], priority: int, default_queue: str, width: int,
                 specs: list[TaskSpec], overrides: dict[str, Override], parsed: PodGroupParse) -> None:
        self.job = job
        self.parsed = parsed
        """The PodGroup's parse the job was built from."""
        self.conditions = tuple(map(dict, parsed.conditions))
        """The parse's conditions as the plain dicts a job starts a session with, made once: a
        session replaces a job's conditions (the gang plugin sets one in the list, the status
        close copies them) but never writes into one, so the next session's list may hold them."""
        self.key: str | None = None
        """The cache key of the PodGroup when it is not the job's uid (set when the carry can follow
        a delta; ``JobCarry.note``; None: the uid, so that no string is kept per job)."""
        self.podgroup = podgroup
        self.priority = priority
        self.default_queue = default_queue
        self.width = width
        self.specs = specs
        self.overrides = overrides


class JobCarry:
    """The jobs of the last session with reuse, by job uid (see the module docstring)."""

    def __init__(self) -> None:
        self._last: dict[str, Kept] = {}
        self._next: dict[str, Kept] = {}
        self.replaced: list[tuple[Kept | None, Kept]] = []
        """This session's jobs built anew, each with the last session's entry it replaces (if any)."""
        self.dropped: list[Kept] = []
        """The last session's jobs this session did not take (set by ``end``)."""
        self.rows: Any = None
        """The node rows carried along with these jobs (``framework.rows``; None: none yet)."""
        self.taken = False
        """Whether the last session took its jobs from this carry (``begin``; ``clear`` unsets it)."""
        self.sessions = 0
        """Sessions begun (``begin``): what ``state`` was last brought up to date for is told by it."""
        self.state = State()
        """Typed caches of values worked out from the carried jobs (``state.StateKey``), emptied with them."""
        self.rows_built = 0
        """Sessions whose node rows were built afresh (a count for tests and profiles)."""
        self.rows_updated = 0
        """Sessions whose node rows were the carried ones, updated."""
        self.carried = 0
        """Jobs taken from the last session (a count for tests and profiles)."""
        self.built = 0
        """Jobs built afresh."""
        self.restored = 0
        """Carried jobs whose tasks had moved, put back task by task."""
        self.followed = 0
        """Sessions whose jobs followed the cache's changes (``follow``)."""
        self.visited = 0
        """Jobs ``follow`` took (``take``) rather than put back unseen."""
        self.renewed = 0
        """Carried jobs whose PodGroup or some member pods were renewed versions (``take``)."""
        self._whole = False
        """Whether the last session's jobs were every PodGroup of its snapshot, in order."""
        self._seen: tuple[object, int, str, int, tuple[str, ...]] | None = None
        """The last session's snapshot (cache, epoch), default queue, width and queue names."""

    def clear(self) -> None:
        """Forget every carried job and the node rows (the next session builds all of them)."""
        self._last = {}
        self._next = {}
        self.replaced = []
        self.dropped = []
        self.rows = None
        self.state = State()
        self.sessions += 1
        self.taken = False
        self._forget_shape()

    def _forget_shape(self) -> None:
        """The next session cannot follow a delta (it takes or builds every job)."""
        self._whole = False
        self._seen = None

    def begin(self) -> None:
        """Start a session: jobs not taken or built during it are forgotten at ``end``."""
        self.sessions += 1
        self.taken = True
        self._next = {}
        self.replaced = []
        self.dropped = []

    def end(self) -> None:
        """Finish a session: its jobs are the ones the next session may take; the last
        session's jobs it did not take are listed in ``dropped``."""
        nxt = self._next
        self.dropped = [kept for uid, kept in self._last.items() if uid not in nxt]
        self._last, self._next = nxt, {}

    def settle(self) -> None:
        """Let go of ``replaced`` and ``dropped`` once the session has opened (its node rows and
        plugins read them while opening): the jobs they name would otherwise live a cycle longer."""
        self.replaced = []
        self.dropped = []

    def take(self, podgroup: Mapping[str, Any], parsed: PodGroupParse, priority: int, default_queue: str,
             space: ResourceSpace, specs: list[TaskSpec], overrides: dict[str, Override],
             vec_of: Callable[[TaskSpec], Vec]) -> JobInfo:
        """The session's job for ``podgroup`` with the member tasks ``specs`` (cache order) and
        their ``overrides`` (by task uid): last session's job put back as built when every input
        is the same or renewed (see the module docstring), else a new one (``vec_of``: a spec's
        request vector as the session made it)."""
        width = len(space)
        kept = self._last.get(parsed.uid)
        swaps = _swaps(kept, specs) if kept is not None and kept.priority == priority \
            and kept.default_queue == default_queue and kept.width == width and kept.overrides == overrides \
            and (kept.podgroup is podgroup or _renewed_parse(kept.parsed, parsed)) else None
        if kept is not None and swaps is not None:
            job = kept.job
            if swaps or kept.podgroup is not podgroup:
                _renew(kept, podgroup, parsed, specs, swaps)
                self.renewed += 1
            self.restored += _restore(job, parsed, space, overrides)
            self.carried += 1
        else:
            job = JobInfo(podgroup, default_queue, priority, space, parsed)
            fit = space.fit
            for spec in specs:
                over = overrides.get(spec.uid)
                job.add_task(TaskInfo(spec, fit(vec_of(spec)), *(over or (None, None))))
            self.built += 1
            new = Kept(job, podgroup, priority, default_queue, width, specs, overrides, parsed)
            self.replaced.append((kept, new))
            kept = new
        self._next[parsed.uid] = kept
        return job


    def note(self, podgroups: list[tuple[Mapping[str, Any], int]], whole: bool, delta: CacheDelta | None,
             shape: tuple[str, int, tuple[str, ...]]) -> None:
        """After a session took or built every job (``end`` done): remember, when every one of
        its snapshot's ``podgroups`` became a job in order (``whole``: none unusable, none of an
        unknown queue), each job's cache key and what the next session must match to follow a
        delta (``follow``)."""
        if delta is None or not whole or len(self._last) != len(podgroups):
            self._forget_shape()
            return
        for (uid, kept), (pg, _) in zip(self._last.items(), podgroups):
            key = object_key(pg)
            kept.key = None if key == uid else key
        self._whole = True
        self._seen = (delta.source, delta.epoch, *shape)

    def follow(self, delta: CacheDelta | None, shape: tuple[str, int, tuple[str, ...]], space: ResourceSpace,
               members: Mapping[str, list[TaskSpec]], by_job: Mapping[str, dict[str, Override]],
               vec_of: Callable[[TaskSpec], Vec]) -> dict[str, JobInfo] | None:
        """The session's jobs when the last session's were every PodGroup of the snapshot just
        before this one (``delta``) and ``shape`` (default queue, width, queue names) is the same:
        only changed jobs are taken (see the module docstring). None (nothing begun) otherwise, or
        when a changed PodGroup cannot become a job (unreadable, unknown queue): the caller then
        takes every job. ``begin`` and ``end`` are done here."""
        seen = self._seen
        if delta is None or seen is None or not self._whole or seen[0] is not delta.source \
                or seen[1] + 1 != delta.epoch or seen[2:] != shape:
            return None
        default_queue, _, queues = shape
        last = self._last
        changed = self._changed(delta, default_queue, queues)
        if changed is None:
            return None
        self.begin()
        self._next = nxt = dict(last)
        entered = delta.entered
        for key in delta.podgroups:
            uid = key_uid(key)
            kept = last.get(uid)
            if kept is None or (kept.key or uid) != key:
                continue
            if key not in changed:  # deleted
                self.dropped.append(nxt.pop(uid))
            elif key in entered:  # deleted and created again: it goes to the end
                del nxt[uid]
        visited: set[str] = set()
        for key, (entry, parsed) in changed.items():  # replaced in place
            if key not in entered:
                self._take_entry(key, entry, parsed, default_queue, space, members, by_job, vec_of)
                visited.add(parsed.uid)
        for key in entered:  # appended in the cache's order
            entry, parsed = changed[key]
            self._take_entry(key, entry, parsed, default_queue, space, members, by_job, vec_of)
            visited.add(parsed.uid)
        for uid in delta.jobs:
            kept = nxt.get(uid)
            if kept is not None and uid not in visited:
                self._take_entry(kept.key, (kept.podgroup, kept.priority), kept.parsed, default_queue, space,
                                 members, by_job, vec_of)
                visited.add(uid)
        restored = 0
        for uid, kept in nxt.items():  # ``_refresh`` inlined: this loop runs over every job
            if uid in visited:
                continue
            job, p = kept.job, kept.parsed
            if job.replayed is not None:  # before its fit errors go: the mark reads them
                job.undo_replay()
                job.replayed = None
            job.conditions = list(kept.conditions)
            job.phase = p.phase
            if job.fit_errors:
                job.fit_errors = {}
            job.job_fit_errors = ""
            if job.moved or job.min_task_member != p.min_task_member:
                restored += job.moved
                _refresh(job, p, kept.overrides)
        self.restored += restored
        self.carried += len(nxt) - len(visited)
        self.visited += len(visited)
        self.followed += 1
        self._last, self._next = nxt, {}
        self._seen = (delta.source, delta.epoch, *shape)
        return {uid: kept.job for uid, kept in nxt.items()}

    def _changed(self, delta: CacheDelta, default_queue: str, queues: tuple[str, ...]
                 ) -> dict[str, tuple[tuple[Mapping[str, Any], int], PodGroupParse]] | None:
        """The PodGroups of ``delta`` still present, by key, with their entry and parse; None when
        one cannot become a job in its place (unreadable, unknown queue, or not the job of the
        same key last session while not created since)."""
        changed: dict[str, tuple[tuple[Mapping[str, Any], int], PodGroupParse]] = {}
        last = self._last
        for key, entry in delta.entries.items():
            try:
                parsed = parse_podgroup(entry[0], default_queue)
            except DATA_ERRORS:
                return None
            uid = parsed.uid
            kept = last.get(uid)
            if parsed.queue not in queues or uid != key_uid(key) \
                    or (kept is not None and (kept.key or uid) != key) or (kept is None and key not in delta.entered):
                return None
            changed[key] = (entry, parsed)
        return changed

    def _take_entry(self, key: str | None, entry: tuple[Mapping[str, Any], int], parsed: PodGroupParse,
                    default_queue: str, space: ResourceSpace, members: Mapping[str, list[TaskSpec]],
                    by_job: Mapping[str, dict[str, Override]], vec_of: Callable[[TaskSpec], Vec]) -> None:
        """``take`` for the PodGroup ``entry`` (object, priority) of cache ``key``, with its members
        and overrides (the job and its key are in ``_next``)."""
        uid = parsed.uid
        self.take(entry[0], parsed, entry[1], default_queue, space, members.get(uid, _NO_SPECS),
                  by_job.get(uid) or _NO_OVERRIDES, vec_of)
        self._next[uid].key = None if key is None or key == uid else key


def _renewed_parse(old: PodGroupParse, new: PodGroupParse) -> bool:
    """Whether ``new`` is ``old`` but for its conditions: every other field equal (the two
    mappings with their entries in the same order too)."""
    return old[:-1] == new[:-1] and _same_items(old.min_task_member, new.min_task_member) \
        and _same_items(old.min_resources, new.min_resources)


def _same_items(a: Mapping[str, Any] | None, b: Mapping[str, Any] | None) -> bool:
    """``a`` and ``b`` hold the same entries in the same order (both None: True)."""
    if a is b:
        return True
    return a is not None and b is not None and tuple(a.items()) == tuple(b.items())


def _renewed_spec(old: TaskSpec, new: TaskSpec) -> bool:
    """Whether ``new`` is ``old``'s parse renewed for a later version of the same pod changed in
    nothing a job as built reads (the cache's ``rebound`` after a status write, e.g. the scheduler's
    own ``PodScheduled`` condition): the same ``sched_sig`` and ``requests`` objects (each parse
    makes its own, and a renewal copies every parsed slot: sharing both means one parse, so every
    slot but the pod and the three read again from it is the very same), the same uid and cache
    place, and the slots read again (status, node, nominated node) equal."""
    return old.sched_sig is new.sched_sig and old.requests is new.requests and old.uid == new.uid \
        and old.seq == new.seq and old.status == new.status and old.node_name == new.node_name \
        and old.nominated_node == new.nominated_node


_NO_SWAPS: list[tuple[TaskInfo, TaskSpec]] = []
"""The swaps of a job whose member specs are the very same (one shared empty list, never written)."""


def _swaps(kept: Kept, specs: list[TaskSpec]) -> list[tuple[TaskInfo, TaskSpec]] | None:
    """The carried job's tasks whose spec ``specs`` renews (``_renewed_spec``), each with its new
    spec, in order ([] when every spec is the very same); None when ``specs`` are not the kept ones
    position by position, the same or renewed."""
    old = kept.specs
    if old is specs or old == specs:  # list equality: the very same objects (TaskSpec has no __eq__)
        return _NO_SWAPS
    if len(old) != len(specs):
        return None
    tasks = kept.job.tasks
    swaps: list[tuple[TaskInfo, TaskSpec]] = []
    for a, b in zip(old, specs):
        if a is not b:
            if not _renewed_spec(a, b):
                return None
            swaps.append((tasks[a.uid], b))
    return swaps


def _renew(kept: Kept, podgroup: Mapping[str, Any], parsed: PodGroupParse, specs: list[TaskSpec],
           swaps: list[tuple[TaskInfo, TaskSpec]]) -> None:
    """Make ``kept`` the carried job of ``podgroup`` (a renewal of its PodGroup, ``_renewed_parse``)
    and of the member ``specs`` (the kept ones, some renewed: ``swaps``): each swapped task takes
    its new spec (everything else it was built with is the same), the job its PodGroup object, and
    the job's close memo goes (it holds for the very same PodGroup status and pods only); the
    job's other memos hold (functions of what a renewal keeps)."""
    if swaps:
        for task, spec in swaps:
            task.spec = spec
        kept.specs = specs
    if kept.podgroup is not podgroup:
        kept.podgroup = podgroup
        kept.parsed = parsed
        kept.conditions = tuple(map(dict, parsed.conditions))
    job = kept.job
    job.podgroup = podgroup
    job.closed = None


def _restore(job: JobInfo, p: PodGroupParse, space: ResourceSpace, overrides: dict[str, Override]) -> bool:
    """Put ``job`` back as ``JobInfo(...)`` and ``add_task`` built it (see the module docstring);
    whether its tasks were put back one by one (``_refresh``)."""
    job.name = p.name
    job.namespace = p.namespace
    job.uid = p.uid
    job.queue = p.queue
    job.min_available = p.min_available
    job.min_resources = p.min_resources
    job.creation = p.creation
    job.preemptable = p.preemptable
    if len(job.conditions) != len(p.conditions) or any(a != b for a, b in zip(job.conditions, p.conditions)):
        job.conditions = [dict(c) for c in p.conditions]
    return _refresh(job, p, overrides)


def _refresh(job: JobInfo, p: PodGroupParse, overrides: dict[str, Override]) -> bool:
    """``_restore`` of the fields a session may change, the conditions aside (phase, fit errors,
    per-role minimums, and the tasks when one moved); whether the tasks were put back one by one."""
    if job.replayed is not None:  # before its fit errors go: the mark reads them
        job.undo_replay()
        job.replayed = None
    job.phase = p.phase
    if job.min_task_member != p.min_task_member:  # equal: left as it is (a copy made earlier)
        job.min_task_member = dict(p.min_task_member)
    if job.fit_errors:
        job.fit_errors = {}
    job.job_fit_errors = ""
    if not job.moved:
        return False
    job.put_back(overrides)
    return True
