"""The drf plugin: Dominant Resource Fairness between jobs.

A job's *dominant share* is the largest fraction it holds of any resource the
cluster offers (``max_r allocated[r] / total[r]`` over the dimensions of the
cluster total that are at least upstream's 0.1-unit tolerance, ``pods``
included). Jobs with a smaller share go first (``job_order``); a running task
may be preempted for a job whose share, after taking the preemptor, would
still not exceed the victim job's share after giving the task up
(``preemptable``). Allocation events keep each job's share current, so job
order reacts to every allocation within the session.

With ``enableHierarchy: true`` (hierarchical DRF, ``drf_hierarchy``) the plugin
also orders queues by their place in the tree the queue annotations
``volcano.sh/hierarchy`` and ``volcano.sh/hierarchy-weights`` describe
(``queue_order``), and lets a task reclaim another queue's task when, with the
reclaimer's request moved into its job and the victim's request taken out of
the victim's job, the reclaimer's queue would still go first (``reclaimable``).
Jobs enter the tree in (creation, uid) order, which decides an inner node's
weight when two queues name different weights for the same path prefix.

Shares are IEEE doubles computed from exact integer milli-units; since both
operands are scaled by the same factor relative to upstream's units, every
quotient is the same correctly rounded double upstream computes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from volcano.api import accessors
from volcano.scheduler.framework.plugin import Plugin
from volcano.scheduler.framework.points import JOB_ORDER, PERMIT, PREEMPTABLE, QUEUE_ORDER, RECLAIMABLE
from volcano.scheduler.framework.quota import compare_shares
from volcano.scheduler.plugins.drf_hierarchy import HIERARCHY_ANNOTATION, WEIGHTS_ANNOTATION, HdrfTree

if TYPE_CHECKING:
    from volcano.scheduler.framework.model import JobInfo, QueueInfo, TaskInfo
    from volcano.scheduler.framework.session import Session

__all__ = ["SHARE_DELTA", "DrfPlugin", "dominant_share", "preemptable_victims", "share_mask", "tolerances"]

SHARE_DELTA = 1e-6
"""Shares closer than this count as equal when choosing preemption victims (upstream ``shareDelta``)."""

FloatVec = npt.NDArray[np.float64]
IntVec = npt.NDArray[np.int64]


def tolerances(names: Sequence[str]) -> FloatVec:
    """Upstream's 0.1-unit tolerance per column, in milli-units: 100 for memory and pods
    (0.1 byte, 0.1 pod), 0.1 for every other resource."""
    return np.array([100.0 if n in ("memory", "pods") else 0.1 for n in names], dtype=np.float64)


def share_mask(total: IntVec, names: Sequence[str]) -> npt.NDArray[np.bool_]:
    """Columns of ``total`` that count for shares: amount >= the tolerance (``tolerances``)."""
    return np.asarray(total >= tolerances(names), dtype=np.bool_)


def dominant_share(allocated: IntVec, total: IntVec, mask: npt.NDArray[np.bool_]) -> float:
    """``max(allocated[r] / total[r])`` over the columns in ``mask`` (0.0 when none, never negative)."""
    if not mask.any():
        return 0.0
    best = float((allocated[mask] / total[mask]).max())
    return best if best > 0.0 else 0.0


def preemptable_victims(preemptor_job_alloc: IntVec, preemptor_request: IntVec,
                        preemptees: Sequence[tuple[str, IntVec]],
                        job_alloc: Mapping[str, IntVec], total: IntVec,
                        mask: npt.NDArray[np.bool_]) -> list[int]:
    """Indices of the ``preemptees`` (``(job key, request)`` pairs) that drf allows as victims.

    ``ls`` is the preemptor job's share with the preemptor added. Walking the
    preemptees in order, each one's job keeps a working copy of its
    allocation that is reduced by every preemptee considered (victim or
    not, as upstream); the preemptee is a victim when ``ls < rs`` or the two
    shares are within ``SHARE_DELTA``, ``rs`` being the reduced share.
    Preemptees whose job is unknown are skipped.
    """
    ls = dominant_share(preemptor_job_alloc + preemptor_request, total, mask)
    working: dict[str, IntVec] = {}
    victims: list[int] = []
    for i, (job, request) in enumerate(preemptees):
        alloc = working.get(job)
        if alloc is None:
            base = job_alloc.get(job)
            if base is None:
                continue
            alloc = working[job] = base.copy()
        alloc -= request
        rs = dominant_share(alloc, total, mask)
        if ls < rs or abs(ls - rs) <= SHARE_DELTA:
            victims.append(i)
    return victims


class DrfPlugin(Plugin):
    """Registers ``job_order`` and ``preemptable`` (plus ``queue_order`` and ``reclaimable`` with
    ``enableHierarchy``) and keeps job shares current via event handlers."""

    name = "drf"

    def open(self, ssn: Session) -> None:
        """Compute every job's share (and the hdrf tree) and register the callbacks."""
        hierarchy = any(opt.name == self.name and opt.enabled("enableHierarchy")
                        for tier in ssn.conf.tiers for opt in tier.plugins)
        space = ssn.space
        self.total: IntVec = space.fit(ssn.total)
        self.mask = share_mask(self.total, space.names)
        self._shares: dict[str, float] = {}
        self._stale: set[str] = set()
        """Jobs whose allocation moved since their share was last computed (computed when read)."""
        # The job's own vector (``JobInfo`` replaces it on every change, never writes it; ``_update``
        # replaces the entry in turn), so opening copies none.
        fit, width = space.fit, len(space)
        self.alloc: dict[str, IntVec] = {uid: a if (a := job.allocated).shape[0] == width else fit(a)
                                         for uid, job in ssn.jobs.items()}  # ``fit`` of each, called only to pad
        # A share is a pure function of its job's allocation: worked out when first read (most
        # jobs of a session are never ordered), then kept until an event moves the allocation.
        self._ssn = ssn
        self.tree: HdrfTree | None = None
        self._paths: dict[str, list[str]] = {}
        if hierarchy:
            self.tree = self._build_tree(ssn)
            ssn.add_fn(QUEUE_ORDER, self.queue_order)
            ssn.add_fn(RECLAIMABLE, self.reclaimable)
        ssn.add_fn(JOB_ORDER, self.job_order, key=self.job_key)
        ssn.add_fn(PREEMPTABLE, self.preemptable)
        ssn.add_event_handler(allocate=self._on_allocate, deallocate=self._on_deallocate)

    def _build_tree(self, ssn: Session) -> HdrfTree:
        tree = HdrfTree(self.total, self.mask, tolerances(ssn.space.names))
        fit = ssn.space.fit
        for job in sorted(ssn.jobs.values(), key=lambda j: (j.creation, j.uid)):
            hierarchy, weights = self._annotations(ssn.queues[job.queue])
            request = ssn.space.zeros()
            for task in job.tasks.values():
                request = request + fit(task.vec)
            tree.add_job(job.uid, hierarchy, weights, self.alloc[job.uid], request)
        tree.refresh()
        return tree

    @staticmethod
    def _annotations(queue: QueueInfo) -> tuple[str, str]:
        annotations = accessors.annotations(queue.obj)
        return str(annotations.get(HIERARCHY_ANNOTATION) or ""), str(annotations.get(WEIGHTS_ANNOTATION) or "")

    def _path(self, queue: QueueInfo) -> list[str]:
        path = self._paths.get(queue.name)
        if path is None:
            path = self._paths[queue.name] = self._annotations(queue)[0].split("/")
        return path

    def queue_order(self, left: QueueInfo, right: QueueInfo) -> int:
        """Hierarchy only: the queue whose path wins ``HdrfTree.compare`` first; ties abstain (0)."""
        if self.tree is None:
            return 0
        ret = self.tree.compare(self._path(left), self._path(right))
        return -1 if ret < 0 else (1 if ret > 0 else 0)

    def reclaimable(self, reclaimer: TaskInfo, reclaimees: list[TaskInfo]) -> tuple[list[TaskInfo], int]:
        """Hierarchy only: in a copy of the tree with the reclaimer's request added to its job,
        each reclaimee (in the order given) whose removal from its job would still leave the
        reclaimer's queue first (``compare`` < 0). Reclaimees are judged one at a time, each
        against the unreduced allocation of its job, as upstream does."""
        ssn = self._ssn
        ljob = ssn.job_of(reclaimer)
        if self.tree is None or ljob is None or ljob.uid not in self.alloc or ljob.queue not in ssn.queues:
            return [], PERMIT
        fit = ssn.space.fit
        lqueue = ssn.queues[ljob.queue]
        tree = self.tree.clone()
        tree.set_alloc(ljob.uid, self.alloc[ljob.uid] + fit(reclaimer.vec))
        victims: list[TaskInfo] = []
        for task in reclaimees:
            rjob = ssn.job_of(task)
            if rjob is None or rjob.uid not in self.alloc or rjob.queue not in ssn.queues:
                continue
            base = self.alloc[rjob.uid]
            tree.set_alloc(rjob.uid, base - fit(task.vec))
            ret = tree.compare(self._path(lqueue), self._path(ssn.queues[rjob.queue]))
            tree.set_alloc(rjob.uid, base)
            if ret < 0:
                victims.append(task)
        return victims, PERMIT

    @property
    def share(self) -> dict[str, float]:
        """Every job's current dominant share by job uid (in session job order)."""
        return {uid: self._share_of(uid) for uid in self.alloc}

    def _share_of(self, uid: str) -> float:
        """The job's current dominant share (0.0 for a job outside the session)."""
        shares = self._shares
        if uid in self._stale:
            self._stale.discard(uid)
        elif uid in shares:
            return shares[uid]
        alloc = self.alloc.get(uid)
        if alloc is None:
            return 0.0
        value = shares[uid] = self._dominant(alloc)
        return value

    _columns: list[tuple[int, float]] | None = None
    """The share columns (``mask``) with their totals as doubles; built when first read."""

    def _dominant(self, alloc: IntVec) -> float:
        """``dominant_share(alloc, self.total, self.mask)`` element by element: each quotient is
        the IEEE double division of the two amounts converted to doubles (round to nearest, as
        numpy's int64 to float64 cast), so the maximum is the same double."""
        columns = self._columns
        if columns is None:
            columns = self._columns = [(int(i), float(self.total[i])) for i in np.flatnonzero(self.mask)]
        if not columns:
            return 0.0
        values = alloc.tolist()
        best = max([float(values[i]) / total for i, total in columns])
        return best if best > 0.0 else 0.0

    def job_order(self, left: JobInfo, right: JobInfo) -> int:
        """Lower dominant share first; equal shares abstain (0)."""
        return compare_shares(self._share_of(left.uid), self._share_of(right.uid))

    def job_key(self, job: JobInfo) -> float:
        """``job_order``'s sort key: the job's dominant share (moves only with its own tasks)."""
        return self._share_of(job.uid)

    def preemptable(self, preemptor: TaskInfo, preemptees: list[TaskInfo]) -> tuple[list[TaskInfo], int]:
        """Victims whose job would keep a share >= the preemptor job's (see ``preemptable_victims``)."""
        job = self._ssn.job_of(preemptor)
        lalloc = self.alloc.get(job.uid) if job is not None else None
        if lalloc is None:
            return [], PERMIT
        fit = self._ssn.space.fit
        pairs: list[tuple[str, IntVec]] = [
            (t.job.uid if t.job is not None else "", fit(t.vec)) for t in preemptees]
        chosen = preemptable_victims(lalloc, fit(preemptor.vec), pairs, self.alloc, self.total, self.mask)
        return [preemptees[i] for i in chosen], PERMIT

    def _update(self, task: TaskInfo, sign: int) -> None:
        job = task.job
        if job is None:
            return
        alloc = self.alloc.get(job.uid)
        if alloc is None:
            return
        vec = self._ssn.space.fit(task.vec)
        alloc = self.alloc[job.uid] = alloc + vec if sign > 0 else alloc - vec
        self._stale.add(job.uid)  # the share is a pure function of alloc: computed when next read
        if self.tree is not None:
            self.tree.set_alloc(job.uid, alloc)

    def _on_allocate(self, task: TaskInfo) -> None:
        self._update(task, 1)

    def _on_deallocate(self, task: TaskInfo) -> None:
        self._update(task, -1)
