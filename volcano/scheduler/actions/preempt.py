"""preempt: evict lower-priority tasks of the same queue for starving jobs.

Volcano ``preempt.go`` (normal, non-topology-aware algorithm): phase A between
jobs of one queue (commit when the preemptor job is pipelined), phase B
between tasks of one job (commit per task, stop at the first failure). Per
candidate node (highest score first): preemptees that pass the filter, victims
from Preemptable, a victim heap, evictions in a per-node statement until
Allocatable, FutureIdle fit and the predicates hold; then the preemptor is
pipelined there.

With ``enableTopologyAwarePreemption`` the per-node search is Kubernetes'
dry run instead (``topology_aware_preempt``): on each candidate node every
Preemptable victim is removed in victim order until the preemptor fits
(Allocatable, FutureIdle, predicates), then victims are reprieved highest
priority first whenever the preemptor still fits with them back; among the
candidate nodes the one whose victims have the lowest top priority, then the
lowest priority sum, then the fewest victims, then the latest start wins.
Deviations for determinism: the candidate scan starts at the first node in
node order (Volcano starts at a random offset and checks nodes in parallel)
and remaining ties go to the earlier node.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from volcano.api import accessors
from volcano.scheduler.actions.base import Action, Agenda, pending_tasks, schedulable_jobs
from volcano.scheduler.framework.extension import Arguments
from volcano.scheduler.framework.model import PREEMPTABLE_STATUSES, JobInfo, NodeInfo, QueueInfo, TaskInfo
from volcano.scheduler.framework.select import feasible, fits
from volcano.scheduler.framework.session import Session
from volcano.scheduler.framework.statement import Statement
from volcano.scheduler.framework.util import PriorityQueue

__all__ = ["Preempt", "RowFilter", "TopologyOptions", "candidate_rows", "could_fit_rows", "fits_with_victims",
           "pick_candidate", "preempt_task", "select_victims_on_node", "topology_aware_preempt"]


def candidate_rows(ssn: Session, task: TaskInfo) -> np.ndarray:
    """Nodes where eviction could help: predicates failing only resolvably, minus
    nodes this task's allocate-time fit errors marked unresolvable."""
    rows, _ = feasible(ssn, task, resources=False, preempt=True)
    job = task.job
    fe = job.fit_errors.get(task.uid) if job is not None else None
    if fe is not None and fe.unresolvable is not None and len(fe.unresolvable) == len(ssn.table):
        rows = rows[~fe.unresolvable[rows]]
    return rows


def could_fit_rows(ssn: Session, task: TaskInfo, rows: np.ndarray) -> np.ndarray:
    """Boolean mask over ``rows``: whether ``task`` could fit on the node if every
    task that could ever be a victim there were evicted.

    An upper bound, computed from the node table in one vector pass: victims are
    Bound or Running tasks, all of which are in ``used`` and none in
    ``releasing``, so ``fidle + used - releasing`` bounds FutureIdle plus any
    victims' requests. A node failing this bound fails the per-node room check
    of the search whatever the filters choose, so skipping it decides nothing
    differently."""
    table = ssn.table
    d = task.spec.dims()
    bound = table.fidle[np.ix_(rows, d)] + table.used[np.ix_(rows, d)] - table.releasing[np.ix_(rows, d)]
    result: np.ndarray = np.all(bound >= task.vec[d], axis=1)
    return result


def fits_with_victims(ssn: Session, task: TaskInfo, row: int, victims: list[TaskInfo]) -> bool:
    """Whether ``task`` fits ``row``'s FutureIdle plus every victim's request (the room check
    before a node's victims are evicted one by one)."""
    room = ssn.table.fidle[row].copy()
    for v in victims:
        room += v.vec
    return fits(task, room)


def _eligible(ssn: Session, task: TaskInfo) -> bool:
    if task.spec.preemption_never:
        return False
    nominated = ssn.table.by_name.get(task.spec.nominated_node) if task.spec.nominated_node else None
    if nominated is not None:
        verdict = ssn.predicate(task)
        if verdict.codes[nominated.row] == 0 and fits(task, ssn.table.fidle[nominated.row]):
            return False
    return True


@dataclass(frozen=True)
class TopologyOptions:
    """Arguments of topology-aware preemption (Volcano's defaults)."""

    min_percentage: int = 10
    min_absolute: int = 1
    max_absolute: int = 100

    def num_candidates(self, n: int) -> int:
        """How many candidate nodes the dry run collects among ``n``."""
        k = max(n * self.min_percentage // 100, self.min_absolute)
        return min(k, self.max_absolute, n)


def _pod_priority(task: TaskInfo) -> int:
    return int((task.spec.pod.get("spec") or {}).get("priority") or 0)


def _fits_on(ssn: Session, queue: QueueInfo, preemptor: TaskInfo, row: int) -> bool:
    """Whether ``preemptor`` may go on ``row`` now: Allocatable, FutureIdle fit, predicates."""
    return (ssn.allocatable(queue, preemptor) and fits(preemptor, ssn.table.fidle[row])
            and bool(ssn.predicate(preemptor).codes[row] == 0))


def select_victims_on_node(ssn: Session, preemptor: TaskInfo, queue: QueueInfo, node: NodeInfo,
                           keep: Callable[[TaskInfo], bool]) -> list[TaskInfo]:
    """Kubernetes-style minimal victims on ``node`` (highest priority first), or []
    when the preemptor cannot fit there. The session is left unchanged."""
    row = node.row
    preemptees = [t for t in node.tasks.values() if keep(t)]
    victims_all = ssn.preemptable(preemptor, preemptees)
    if not victims_all:
        return []
    if not fits_with_victims(ssn, preemptor, row, victims_all):
        return []
    heap: PriorityQueue[TaskInfo] = PriorityQueue(ssn.victim_less(preemptor), victims_all)
    lifted: list[TaskInfo] = []
    try:
        while heap:
            task = heap.pop()
            ssn.lift(node, task)
            lifted.append(task)
            if _fits_on(ssn, queue, preemptor, row):
                break
        if not lifted or ssn.predicate(preemptor).codes[row] != 0:
            return []
        victims: list[TaskInfo] = []
        for task in reversed(lifted):
            ssn.put_back(node, task)
            if not _fits_on(ssn, queue, preemptor, row):
                ssn.lift(node, task)
                victims.append(task)
        return victims
    finally:
        for task in lifted:
            if task.uid not in node.tasks:
                ssn.put_back(node, task)


def pick_candidate(candidates: list[tuple[int, list[TaskInfo]]]) -> tuple[int, list[TaskInfo]]:
    """Kubernetes' ``pickOneNodeForPreemption`` over (row, victims highest priority
    first): lowest top victim priority, lowest priority sum, fewest victims, latest
    earliest start among the top-priority victims; then the first candidate."""
    def start_key(victims: list[TaskInfo]) -> str:
        top = max(_pod_priority(v) for v in victims)
        return min(str(accessors.status(v.spec.pod).get("startTime") or "")
                   for v in victims if _pod_priority(v) == top)

    scores: list[Callable[[list[TaskInfo]], int]] = [
        lambda vs: -_pod_priority(vs[0]),
        lambda vs: -sum(_pod_priority(v) + 2**31 for v in vs),
        lambda vs: -len(vs),
    ]
    pool = list(candidates)
    for score in scores:
        best = max(score(vs) for _, vs in pool)
        pool = [c for c in pool if score(c[1]) == best]
        if len(pool) == 1:
            return pool[0]
    latest = max(start_key(vs) for _, vs in pool)
    return next(c for c in pool if start_key(c[1]) == latest)


RowFilter = Callable[[Session, TaskInfo, np.ndarray], np.ndarray]
"""A node pre-check: ``(ssn, task, rows) -> mask over rows`` of the nodes worth searching."""


def topology_aware_preempt(ssn: Session, stmt: Statement, preemptor: TaskInfo, keep: Callable[[TaskInfo], bool],
                           rows: list[int], options: TopologyOptions, could_fit: RowFilter = could_fit_rows) -> bool:
    """The dry-run preemption (see the module docstring); True when pipelined."""
    job = preemptor.job
    assert job is not None
    queue = ssn.queues[job.queue]
    wanted = options.num_candidates(len(rows))
    candidates: list[tuple[int, list[TaskInfo]]] = []
    possible = could_fit(ssn, preemptor, np.asarray(rows, dtype=np.intp)).tolist() if rows else []
    for row, could in zip(rows, possible, strict=True):
        if not could:
            continue
        victims = select_victims_on_node(ssn, preemptor, queue, ssn.nodes[row], keep)
        if victims:
            candidates.append((row, victims))
            if len(candidates) >= wanted:
                break
    if not candidates:
        return False
    row, victims = pick_candidate(candidates)
    node_stmt = Statement(ssn)
    for v in victims:
        node_stmt.evict(v, "preempt")
    node_stmt.pipeline(preemptor, ssn.nodes[row], True)
    stmt.merge(node_stmt)
    return True


def preempt_task(ssn: Session, stmt: Statement, preemptor: TaskInfo, keep: Callable[[TaskInfo], bool],
                 topology: TopologyOptions | None = None, could_fit: RowFilter = could_fit_rows) -> bool:
    """Try to make room for ``preemptor``; True when it was pipelined somewhere.
    With ``topology`` the dry-run (topology-aware) algorithm is used. ``could_fit``
    pre-checks the candidate nodes (it must never drop a node the search could use).
    Reports the nodes scanned (attempts) and the victims offered on the last one to
    ``ssn.metrics``."""
    if not _eligible(ssn, preemptor) or ssn.pre_predicate(preemptor):
        return False
    job = preemptor.job
    assert job is not None
    queue = ssn.queues[job.queue]
    rows = candidate_rows(ssn, preemptor)
    if len(rows) == 0:
        return False
    if topology is not None:
        ssn.metrics.count_preemption_attempts(1)
        return topology_aware_preempt(ssn, stmt, preemptor, keep, rows.tolist(), topology, could_fit)
    scores = ssn.node_scores(preemptor, rows)
    order = rows[np.argsort(-scores, kind="stable")]
    # Nodes that cannot fit the preemptor even with every possible victim gone
    # are skipped without building their victim lists (the room check below
    # would reject them); they still count as attempts, as the scan visits them.
    possible = could_fit(ssn, preemptor, order)
    visit = order[possible].tolist()
    ssn.metrics.count_preemption_attempts(len(order) - len(visit))
    for row in visit:
        node = ssn.nodes[row]
        ssn.metrics.count_preemption_attempts(1)
        preemptees = [t for t in node.tasks.values() if keep(t)]
        victims = ssn.preemptable(preemptor, preemptees)
        ssn.metrics.set_preemption_victims(len(victims))
        if not fits_with_victims(ssn, preemptor, row, victims):
            continue
        heap: PriorityQueue[TaskInfo] = PriorityQueue(ssn.victim_less(preemptor), victims)
        node_stmt = Statement(ssn)
        evicted = False
        while not _fits_on(ssn, queue, preemptor, row):
            if not heap:
                break
            node_stmt.evict(heap.pop(), "preempt")
            evicted = True
        if _fits_on(ssn, queue, preemptor, row):
            node_stmt.pipeline(preemptor, node, evicted)
            stmt.merge(node_stmt)
            return True
        node_stmt.discard()
    if not possible[-1]:
        # The scan's last node was skipped: its victim count is the gauge's value.
        last = ssn.nodes[int(order[-1])]
        ssn.metrics.set_preemption_victims(len(ssn.preemptable(preemptor, [t for t in last.tasks.values() if keep(t)])))
    return False


class Preempt(Action):
    """The preempt action."""

    name = "preempt"
    ARGUMENTS: ClassVar[frozenset[str]] = frozenset({
        "predicateErrorCacheEnable", "enableTopologyAwarePreemption", "topologyAwarePreemptWorkerNum",
        "minCandidateNodesPercentage", "minCandidateNodesAbsolute", "maxCandidateNodesAbsolute"})

    def __init__(self, args: Arguments | None = None) -> None:
        super().__init__(args)
        a = self.args
        self.topology: TopologyOptions | None = None
        if a.get_bool("enableTopologyAwarePreemption", False):
            self.topology = TopologyOptions(a.get_int("minCandidateNodesPercentage", 10),
                                            a.get_int("minCandidateNodesAbsolute", 1),
                                            a.get_int("maxCandidateNodesAbsolute", 100))

    def execute(self, ssn: Session) -> None:
        """Preempt within queues (phase A across jobs, phase B within jobs)."""
        agenda = Agenda(ssn)
        starving: dict[str, list[JobInfo]] = {}
        task_lists: dict[str, list[TaskInfo]] = {}
        for job, queue in schedulable_jobs(ssn):
            if not ssn.job_starving(job):
                continue
            agenda.add_job(queue, job)
            starving.setdefault(queue.name, []).append(job)
            task_lists[job.uid] = ssn.sort_tasks(pending_tasks(job))
        while agenda:
            queue = agenda.pop_queue()
            jobs = agenda.jobs(queue)
            while jobs:  # phase A: between jobs of the queue
                job = jobs.pop()
                stmt = Statement(ssn)
                todo = list(task_lists[job.uid])
                while ssn.job_starving(job) and todo:
                    p = todo.pop(0)
                    preempt_task(ssn, stmt, p, self._other_job_filter(ssn, p), self.topology, self.could_fit)
                stmt.settle(ssn.job_pipelined(job), action=self.name)
            for job in starving[queue.name]:  # phase B: between tasks of one job
                for p in ssn.sort_tasks(pending_tasks(job)):
                    stmt = Statement(ssn)
                    done = preempt_task(ssn, stmt, p, self._same_job_filter(p), self.topology, self.could_fit)
                    if not stmt.settle(done, action=self.name):
                        break

    def could_fit(self, ssn: Session, task: TaskInfo, rows: np.ndarray) -> np.ndarray:
        """The node pre-check of the search (``could_fit_rows``); a subclass may replace it."""
        return could_fit_rows(ssn, task, rows)

    @staticmethod
    def _other_job_filter(ssn: Session, p: TaskInfo) -> Callable[[TaskInfo], bool]:
        pjob = p.job
        assert pjob is not None

        def keep(v: TaskInfo) -> bool:
            vj = ssn.job_of(v)
            return (v.status in PREEMPTABLE_STATUSES and not (p.best_effort and not v.best_effort)
                    and v.spec.preemptable and vj is not None and vj.queue == pjob.queue and vj is not pjob)
        return keep

    @staticmethod
    def _same_job_filter(p: TaskInfo) -> Callable[[TaskInfo], bool]:
        def keep(v: TaskInfo) -> bool:
            return (v.status in PREEMPTABLE_STATUSES and not (p.best_effort and not v.best_effort)
                    and v.spec.preemptable and v.job is p.job)
        return keep
