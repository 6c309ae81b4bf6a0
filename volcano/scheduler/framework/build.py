"""How a session builds its model (jobs, tasks, node rows) from a snapshot.

``build_model`` makes the session's jobs (PodGroups of known queues) and tasks, puts each
task in its job and, when it holds a node, on that node's row. With ``reuse`` and a
``JobCarry`` (the scheduler's), jobs whose inputs did not change are taken from the last
session (``framework.carry``) instead of being built again; the model is the same either
way (a property test compares them part by part).
"""

from __future__ import annotations

from collections.abc import Mapping
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from volcano.informers.poison import DATA_ERRORS
from volcano.scheduler.framework.carry import JobCarry
from volcano.scheduler.framework.job import JobInfo, PodGroupParse, parse_podgroup
from volcano.scheduler.framework.node import NodeInfo, NodeTable
from volcano.scheduler.framework.resources import Vec
from volcano.scheduler.framework.rows import open_rows
from volcano.scheduler.framework.snapshot import Snapshot
from volcano.scheduler.framework.state import State, StateKey
from volcano.scheduler.framework.task import COMPLETED_STATUSES, TaskInfo, TaskSpec, TaskStatus

if TYPE_CHECKING:
    from volcano.scheduler.framework.session import Session

__all__ = ["build_model", "carry_tasks", "parsed_podgroups", "place_tasks"]

_UID = attrgetter("uid")
_NO_OVERRIDES: dict[str, tuple[TaskStatus, str]] = {}
"""The overrides of a job that has none (one shared empty mapping, never written)."""
_NO_SPECS: list[TaskSpec] = []
"""The member list of a job without pods (one shared empty list, never written)."""
_PgParses = tuple[str, dict[int, tuple[Mapping[str, Any], PodGroupParse]]]
_PODGROUP_PARSES: StateKey[_PgParses | None] = StateKey("session.podgroup-parses", lambda: None)
"""The last session's default queue and PodGroup parses by object identity (the object kept
alongside: an identity is only the same object while that one lives)."""


def build_model(ssn: Session, snapshot: Snapshot, task_vecs: list[Vec] | None, carry: JobCarry | None) -> None:
    """Fill ``ssn.jobs`` and give ``ssn`` its node table (``ssn.table``) from ``snapshot``
    (``task_vecs``: each task's request vector, in snapshot order; None when the snapshot's
    names are all registered, ``Snapshot.registered``): carried (``carry_tasks``) with
    ``ssn.reuse``, a carry and unique task uids, else built (``place_tasks``; a carry given
    then forgets its jobs). The table's ``changes`` start empty."""
    if ssn.reuse and carry is not None and (
            snapshot.unique_uids if snapshot.unique_uids is not None
            else len(set(map(_UID, snapshot.tasks))) == len(snapshot.tasks)):
        carry_tasks(ssn, snapshot, carry)
        return
    if carry is not None:
        carry.clear()
    space = ssn.space
    ssn.table = NodeTable(snapshot.nodes, space, State(snapshot.shared) if ssn.reuse else None)
    place_tasks(ssn, snapshot, task_vecs if task_vecs is not None else [spec.vec(space) for spec in snapshot.tasks])
    ssn.table.changes = []


def parsed_podgroups(ssn: Session, snapshot: Snapshot) -> list[tuple[Mapping[str, Any], int, PodGroupParse]]:
    """The snapshot's PodGroups with their priority and parse, in order (those the scheduler
    cannot read are left out and noted in ``unusable``). With ``reuse``, the last session's
    parses are reused for the very same objects (the informer's objects are immutable)."""
    shared = State(snapshot.shared)
    default_queue = snapshot.default_queue
    last = shared.get(_PODGROUP_PARSES) if ssn.reuse else None
    memo = last[1] if last is not None and last[0] == default_queue else {}
    parses: dict[int, tuple[Mapping[str, Any], PodGroupParse]] = {}
    out: list[tuple[Mapping[str, Any], int, PodGroupParse]] = []
    for pg, priority in snapshot.podgroups:
        hit = memo.get(id(pg))
        if hit is not None and hit[0] is pg:
            parsed = hit[1]
            parses[id(pg)] = hit
        else:
            try:
                parsed = parse_podgroup(pg, default_queue)
            except DATA_ERRORS as exc:  # a PodGroup the scheduler cannot read is left out
                ssn.unusable.append((pg, exc))
                continue
            parses[id(pg)] = (pg, parsed)
        out.append((pg, priority, parsed))
    shared.set(_PODGROUP_PARSES, (default_queue, parses))
    return out


def place_tasks(ssn: Session, snapshot: Snapshot, task_vecs: list[Vec]) -> None:
    """Make the session's jobs (PodGroups of known queues) and tasks; put each task
    in its job and, when it holds a node, on that node's row."""
    default_queue = snapshot.default_queue
    for pg, priority, parsed in parsed_podgroups(ssn, snapshot):
        job = JobInfo(pg, default_queue, priority, ssn.space, parsed)
        if job.queue in ssn.queues:
            ssn.jobs[job.uid] = job
    by_name = ssn.table.by_name
    fit = ssn.space.fit
    jobs = ssn.jobs
    overrides = snapshot.overrides
    placed: list[tuple[NodeInfo, TaskInfo]] = []
    for spec, vec in zip(snapshot.tasks, task_vecs, strict=True):
        over = overrides.get(spec.uid)
        task = TaskInfo(spec, fit(vec), *(over or (None, None)))
        owner = jobs.get(spec.job_id) if spec.job_id else None
        if owner is not None:
            owner.add_task(task)
        if task.node_name and task.status not in COMPLETED_STATUSES:
            node = by_name.get(task.node_name)
            if node is not None:
                placed.append((node, task))
    if ssn.reuse:
        ssn.table.add_tasks(placed)
    else:
        for node, task in placed:
            ssn.table.add_task(node, task)


def _group(tasks: list[TaskSpec]) -> dict[str, list[TaskSpec]]:
    """``tasks`` by job id ("" for none), in order (``Snapshot.members`` when not given)."""
    groups: dict[str, list[TaskSpec]] = {}
    for spec in tasks:
        group = groups.get(spec.job_id)
        if group is None:
            groups[spec.job_id] = [spec]
        else:
            group.append(spec)
    return groups


def carry_tasks(ssn: Session, snapshot: Snapshot, carry: JobCarry) -> None:
    """``place_tasks`` with the jobs whose inputs did not change taken from the last session
    (``carry``; the same jobs, tasks, order and node placements as building them all; only the
    jobs the cache's ``Snapshot.delta`` names are looked at when the carry can follow it) and,
    when the snapshot gives its task groups (``Snapshot.members``), the node table carried
    too (``framework.rows``). Task uids must be unique in the snapshot."""
    members = snapshot.members
    carried_rows = members is not None
    if members is None:
        members = _group(snapshot.tasks)
    by_job = snapshot.overrides_by_job
    if by_job is None:
        by_job = {}
        if snapshot.overrides:
            for spec in snapshot.tasks:
                found = snapshot.overrides.get(spec.uid)
                if found is not None:
                    by_job.setdefault(spec.job_id, {})[spec.uid] = found
    space = ssn.space

    def vec_of(spec: TaskSpec) -> Vec:
        """The spec's request vector in the session's space (cached on the spec)."""
        return spec.vec(space)

    shape = (snapshot.default_queue, len(space), tuple(ssn.queues))
    followed = carry.follow(snapshot.delta, shape, space, members, by_job, vec_of) if carried_rows else None
    if followed is not None:
        ssn.jobs = followed
    else:
        carry.begin()
        whole = True
        for pg, priority, parsed in parsed_podgroups(ssn, snapshot):
            if parsed.queue not in ssn.queues:
                whole = False
                continue
            specs = members.get(parsed.uid, _NO_SPECS)
            over = by_job.get(parsed.uid) or _NO_OVERRIDES
            job = carry.take(pg, parsed, priority, snapshot.default_queue, space, specs, over, vec_of)
            ssn.jobs[job.uid] = job
        carry.end()
        carry.note(snapshot.podgroups, whole and not ssn.unusable, snapshot.delta, shape)
    if carried_rows:
        open_rows(ssn, snapshot, members, carry)
        return
    carry.rows = None
    ssn.table = NodeTable(snapshot.nodes, space, State(snapshot.shared))
    by_name = ssn.table.by_name
    fit = space.fit
    jobs = ssn.jobs
    overrides = snapshot.overrides
    placed: list[tuple[NodeInfo, TaskInfo]] = []
    for spec in snapshot.tasks:
        owner = jobs.get(spec.job_id) if spec.job_id else None
        if owner is not None:
            task = owner.tasks[spec.uid]
        else:
            orphan = overrides.get(spec.uid)
            task = TaskInfo(spec, fit(spec.vec(space)), *(orphan or (None, None)))
        if task.node_name and task.status not in COMPLETED_STATUSES:
            node = by_name.get(task.node_name)
            if node is not None:
                placed.append((node, task))
    ssn.table.add_tasks(placed)
    ssn.table.changes = []
