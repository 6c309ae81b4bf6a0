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
from volcano.scheduler.framework.node import NodeInfo
from volcano.scheduler.framework.resources import Vec
from volcano.scheduler.framework.snapshot import Snapshot
from volcano.scheduler.framework.state import State, StateKey
from volcano.scheduler.framework.task import COMPLETED_STATUSES, TaskInfo, TaskSpec, TaskStatus

if TYPE_CHECKING:
    from volcano.scheduler.framework.session import Session

__all__ = ["build_model", "carry_tasks", "parsed_podgroups", "place_tasks"]

_UID = attrgetter("uid")
_NO_OVERRIDES: dict[str, tuple[TaskStatus, str]] = {}
"""The overrides of a job that has none (one shared empty mapping, never written)."""
_PgParses = dict[tuple[int, str], tuple[Mapping[str, Any], PodGroupParse]]
_PODGROUP_PARSES: StateKey[_PgParses] = StateKey("session.podgroup-parses", dict)
"""The last session's PodGroup parses by (object identity, default queue)."""


def build_model(ssn: Session, snapshot: Snapshot, task_vecs: list[Vec], carry: JobCarry | None) -> None:
    """Fill ``ssn.jobs`` and the node table from ``snapshot`` (``task_vecs``: each task's request
    vector, in snapshot order): carried (``carry_tasks``) with ``ssn.reuse``, a carry and unique
    task uids, else built (``place_tasks``; a carry given then forgets its jobs)."""
    if ssn.reuse and carry is not None and len(set(map(_UID, snapshot.tasks))) == len(snapshot.tasks):
        carry_tasks(ssn, snapshot, task_vecs, carry)
        return
    if carry is not None:
        carry.clear()
    place_tasks(ssn, snapshot, task_vecs)


def parsed_podgroups(ssn: Session, snapshot: Snapshot) -> list[tuple[Mapping[str, Any], int, PodGroupParse]]:
    """The snapshot's PodGroups with their priority and parse, in order (those the scheduler
    cannot read are left out and noted in ``unusable``). With ``reuse``, the last session's
    parses are reused for the very same objects (the informer's objects are immutable)."""
    shared = State(snapshot.shared)
    memo = shared.get(_PODGROUP_PARSES) if ssn.reuse else {}
    parses: _PgParses = {}
    default_queue = snapshot.default_queue
    out: list[tuple[Mapping[str, Any], int, PodGroupParse]] = []
    for pg, priority in snapshot.podgroups:
        hit = memo.get((id(pg), default_queue))
        try:
            parsed = hit[1] if hit is not None and hit[0] is pg else parse_podgroup(pg, default_queue)
        except DATA_ERRORS as exc:  # a PodGroup the scheduler cannot read is left out
            ssn.unusable.append((pg, exc))
            continue
        parses[id(pg), default_queue] = (pg, parsed)
        out.append((pg, priority, parsed))
    shared.set(_PODGROUP_PARSES, parses)
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


def carry_tasks(ssn: Session, snapshot: Snapshot, task_vecs: list[Vec], carry: JobCarry) -> None:
    """``_place_tasks`` with the jobs whose inputs did not change taken from the last session
    (``carry``; the same jobs, tasks, order and node placements as building them all).
    Task uids must be unique in the snapshot."""
    groups: dict[str, list[TaskSpec]] = {}
    for spec in snapshot.tasks:
        if spec.job_id:
            group = groups.get(spec.job_id)
            if group is None:
                groups[spec.job_id] = [spec]
            else:
                group.append(spec)
    overrides = snapshot.overrides
    vecs: dict[int, Vec] = {}

    def vec_of(spec: TaskSpec) -> Vec:
        """The spec's request vector as the session made it (``task_vecs``), for a job built anew."""
        if not vecs:
            vecs.update(zip(map(id, snapshot.tasks), task_vecs, strict=True))
        return vecs[id(spec)]

    carry.begin()
    for pg, priority, parsed in parsed_podgroups(ssn, snapshot):
        if parsed.queue not in ssn.queues:
            continue
        specs = groups.get(parsed.uid, [])
        over = {spec.uid: overrides[spec.uid] for spec in specs if spec.uid in overrides} \
            if overrides else _NO_OVERRIDES
        if not over:
            over = _NO_OVERRIDES
        job = carry.take(pg, parsed, priority, snapshot.default_queue, ssn.space, specs, over, vec_of)
        ssn.jobs[job.uid] = job
    carry.end()
    by_name = ssn.table.by_name
    fit = ssn.space.fit
    jobs = ssn.jobs
    placed: list[tuple[NodeInfo, TaskInfo]] = []
    for spec, vec in zip(snapshot.tasks, task_vecs, strict=True):
        owner = jobs.get(spec.job_id) if spec.job_id else None
        if owner is not None:
            task = owner.tasks[spec.uid]
        else:
            orphan = overrides.get(spec.uid)
            task = TaskInfo(spec, fit(vec), *(orphan or (None, None)))
        if task.node_name and task.status not in COMPLETED_STATUSES:
            node = by_name.get(task.node_name)
            if node is not None:
                placed.append((node, task))
    ssn.table.add_tasks(placed)
