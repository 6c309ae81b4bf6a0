"""Jobs carried from one session to the next while nothing they are built from changed.

A session's ``JobInfo`` (with its ``TaskInfo``\\ s) is a function of its inputs: the
PodGroup object, its job priority, the default queue, the resource space's width,
and its member pods' ``TaskSpec`` objects in cache order, each with the status and
node the cache overrides for it (binds in flight, evictions sent). The scheduler
keeps a ``JobCarry`` across cycles; when a job's inputs are the very same objects
as last session's, the session takes last session's ``JobInfo`` and puts it back
as built (``JobCarry.take``) instead of building it again:

* the fields a session may change on the job (phase, conditions, fit errors,
  per-role minimums) are set again from the PodGroup's parse;
* when a task of the job changed status in the last session (``JobInfo.moved``:
  every session move of a task goes through ``JobInfo.set_status``), every task
  gets its built status, node and transaction context back and the job is
  recounted in task order, as building it counts; otherwise the job is left as
  it is, which is as built.

Everything else a session does to its model stays out of the jobs (the node table,
the plugins and their queue and share state are built per session). With
``Session.reuse`` off nothing is carried (the reference path).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from volcano.scheduler.framework.job import JobInfo, PodGroupParse
from volcano.scheduler.framework.resources import ResourceSpace, Vec
from volcano.scheduler.framework.state import State
from volcano.scheduler.framework.task import TaskInfo, TaskSpec, TaskStatus

__all__ = ["JobCarry", "Kept", "Override"]

Override = tuple[TaskStatus, str]


class Kept:
    """One carried job and the inputs it was built from."""

    __slots__ = ("default_queue", "job", "overrides", "podgroup", "priority", "specs", "width")

    def __init__(self, job: JobInfo, podgroup: Mapping[str, Any], priority: int, default_queue: str, width: int,
                 specs: list[TaskSpec], overrides: dict[str, Override]) -> None:
        self.job = job
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
        is the same, else a new one (``vec_of``: a spec's request vector as the session made it)."""
        width = len(space)
        kept = self._last.get(parsed.uid)
        if kept is not None and kept.podgroup is podgroup and kept.priority == priority \
                and kept.default_queue == default_queue and kept.width == width \
                and (kept.specs is specs or kept.specs == specs) and kept.overrides == overrides:
            job = kept.job
            self.restored += job.moved
            _restore(job, parsed, space, overrides)
            self.carried += 1
        else:
            job = JobInfo(podgroup, default_queue, priority, space, parsed)
            fit = space.fit
            for spec in specs:
                over = overrides.get(spec.uid)
                job.add_task(TaskInfo(spec, fit(vec_of(spec)), *(over or (None, None))))
            self.built += 1
            new = Kept(job, podgroup, priority, default_queue, width, specs, overrides)
            self.replaced.append((kept, new))
            kept = new
        self._next[parsed.uid] = kept
        return job


def _restore(job: JobInfo, p: PodGroupParse, space: ResourceSpace, overrides: dict[str, Override]) -> None:
    """Put ``job`` back as ``JobInfo(...)`` and ``add_task`` built it (see the module docstring)."""
    job.name = p.name
    job.namespace = p.namespace
    job.uid = p.uid
    job.queue = p.queue
    job.min_available = p.min_available
    if job.min_task_member != p.min_task_member:  # equal: left as it is (a copy made earlier)
        job.min_task_member = dict(p.min_task_member)
    job.min_resources = p.min_resources
    job.creation = p.creation
    job.preemptable = p.preemptable
    job.phase = p.phase
    if len(job.conditions) != len(p.conditions) or any(a != b for a, b in zip(job.conditions, p.conditions)):
        job.conditions = [dict(c) for c in p.conditions]
    if job.fit_errors:
        job.fit_errors = {}
    job.job_fit_errors = ""
    if not job.moved:
        return
    for task in job.tasks.values():
        spec = task.spec
        over = overrides.get(spec.uid)
        task.status = spec.status if over is None else over[0]
        task.node_name = spec.node_name if over is None else over[1]
        task.eviction_occurred = False
        task.last_txn = None
    job.rebuild_tasks(space)
