"""Upstream ``test/e2e/gangevict`` re-expressed (catalogue §3.10): gang-aware preemption
(``gangpreempt``) and reclaim (``gangreclaim``) that evict whole "bundles" of a victim gang
while keeping other gangs at their ``minAvailable``.

Every case runs with the suite's scheduler configuration and upstream's shape: four worker
slots of exactly 1 CPU / 1 Gi (placeholder mode) plus four tainted 8 CPU / 8 Gi "kwok" nodes
that no job tolerates. The hyper-node topology cases (GP-S1, GP-T*, GR-S1, GR-T*) are listed in
``not_covered.yaml``. Negative cases hold for upstream's 60 s window ("never reaches").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import Task, job
from volcano.conformance.lib.waits import wait_tasks_ready
from volcano.conformance.test_scheduling_support import (
    C1,
    GANG_EVICT_CONF,
    hold_not_ready,
    make_priority_classes,
    make_queues,
    ready,
    ready_by_label,
    set_queue_reclaimable,
    simple_queue,
)

SUITE = "gangevict"
Obj = dict[str, Any]
GP = {"gp-high-pri": 100, "gp-med-pri": 50, "gp-low-pri": 10}
SLOTS = {"workers": 4, "cpu": "1", "memory": "1Gi"}
KWOK_TAINT = {"key": "kwok.x-k8s.io/node", "value": "fake", "effect": "NoSchedule"}

pytestmark = [pytest.mark.scheduler_conf(GANG_EVICT_CONF), pytest.mark.cluster(**SLOTS)]


def _kwok_nodes(cluster: Cluster) -> None:
    """kwok-node-0..3 as the suite's setup creates them: 8 CPU / 8 Gi / 110 pods, tainted."""
    capacity = {"cpu": "8", "memory": "8Gi", "pods": "110"}
    cluster.apply([{"apiVersion": "v1", "kind": "Node",
                    "metadata": {"name": f"kwok-node-{i}", "labels": {"type": "kwok",
                                                                       "kubernetes.io/hostname": f"kwok-node-{i}"}},
                    "spec": {"taints": [dict(KWOK_TAINT)]},
                    "status": {"capacity": dict(capacity), "allocatable": dict(capacity)}} for i in range(4)])


def _deserved(cpu: int) -> dict[str, str]:
    return {"cpu": str(cpu), "memory": f"{cpu}Gi"}


def _setup(cluster: Cluster, queues: dict[str, int], priorities: dict[str, int]) -> None:
    _kwok_nodes(cluster)
    make_queues(cluster, *(simple_queue(q, deserved=_deserved(d)) for q, d in queues.items()))
    make_priority_classes(cluster, priorities)


def _gang(name: str, queue_name: str, pri: str, rep: int, min_avail: int, preemptable: bool,
          req: dict[str, str] = C1) -> Obj:
    """Upstream ``createGangJob``: one task of ``rep`` pods, job ``minAvailable`` = ``min_avail``."""
    labels = {"volcano.sh/preemptable": "true"} if preemptable else {}
    return job(name, [Task(req=req, rep=rep, min=rep, labels=labels)], min=min_avail, queue=queue_name,
               priority_class=pri)


def _multi_role(name: str, queue_name: str, pri: str, job_min: int) -> Obj:
    """Upstream ``createMultiRoleGangJob`` with ps (1 pod, min 1) and worker (3 pods, min 2)."""
    labels = {"volcano.sh/preemptable": "true"}
    tasks = [Task(name="ps", req=C1, rep=1, min=1, min_available=1, labels=labels),
             Task(name="worker", req=C1, rep=3, min=3, min_available=2, labels=labels)]
    return job(name, tasks, min=job_min, queue=queue_name, priority_class=pri)


def _exactly_one_broken(cluster: Cluster, a: str, b: str) -> None:
    cluster.sleep(10)
    counts = (ready(cluster, a), ready(cluster, b))
    assert counts in ((0, 2), (2, 0)), f"expected exactly one gang broken: {a}={counts[0]}, {b}={counts[1]}"


# -- cases where the evicting gang runs -------------------------------------------------------------

HIGH_LOW = {"gp-high-pri": 100, "gp-low-pri": 10}
LOW = {"gr-low-pri": 10}


@dataclass(frozen=True)
class Runs:
    """A gang-eviction case where the evicting gang gets its place. The queues (name ->
    deserved CPUs) and priority classes are made; each victim gang ``(name, queue,
    priority class, replicas, minAvailable)`` is applied and waited ready in turn; then the
    evictor ``(name, queue, priority class, replicas)`` (minAvailable = replicas) runs, and
    afterwards each victim in ``kept`` keeps that many ready tasks, or exactly one of
    ``one_broken`` loses its gang."""

    queues: dict[str, int]
    priorities: dict[str, int]
    victims: tuple[tuple[str, str, str, int, int], ...]
    evictor: tuple[str, str, str, int]
    kept: dict[str, int] = field(default_factory=dict)
    one_broken: tuple[str, str] | None = None


def _case(area: pytest.MarkDecorator, upstream: str, case_id: str, runs: Runs | Blocked) -> Any:
    return pytest.param(runs, marks=[area, pytest.mark.upstream(SUITE, upstream)], id=case_id)


RUNS = [
    _case(pytest.mark.preemption, "GP-1: safe-bundle preemption evicts surplus tasks, victim gang survives", "gp1",
          Runs({"gp-q": 4}, HIGH_LOW, (("victim-gp1", "gp-q", "gp-low-pri", 4, 2),),
               ("preemptor-gp1", "gp-q", "gp-high-pri", 2), kept={"victim-gp1": 2})),
    _case(pytest.mark.preemption, "GP-2: safe bundles harvested across multiple gangs, zero gangs broken", "gp2",
          Runs({"gp-q": 4}, HIGH_LOW, (("victim-a-gp2", "gp-q", "gp-low-pri", 2, 1),
                                       ("victim-b-gp2", "gp-q", "gp-low-pri", 2, 1)),
               ("preemptor-gp2", "gp-q", "gp-high-pri", 2), kept={"victim-a-gp2": 1, "victim-b-gp2": 1})),
    _case(pytest.mark.preemption, "GP-3: whole-bundle eviction breaks exactly one gang when no surplus exists", "gp3",
          Runs({"gp-q": 4}, HIGH_LOW, (("victim-a-gp3", "gp-q", "gp-low-pri", 2, 2),
                                       ("victim-b-gp3", "gp-q", "gp-low-pri", 2, 2)),
               ("preemptor-gp3", "gp-q", "gp-high-pri", 2), one_broken=("victim-a-gp3", "victim-b-gp3"))),
    _case(pytest.mark.preemption, "GP-4: whole-bundle eviction breaks both gangs for large preemptor", "gp4",
          Runs({"gp-q": 4}, HIGH_LOW, (("victim-a-gp4", "gp-q", "gp-low-pri", 2, 2),
                                       ("victim-b-gp4", "gp-q", "gp-low-pri", 2, 2)),
               ("preemptor-gp4", "gp-q", "gp-high-pri", 4))),
    _case(pytest.mark.preemption, "GP-5: basic gang preemption of a lower-priority gang", "gp5",
          Runs({"gp-q": 4}, HIGH_LOW, (("victim-gp5", "gp-q", "gp-low-pri", 4, 4),),
               ("preemptor-gp5", "gp-q", "gp-high-pri", 2))),
    _case(pytest.mark.reclaim, "GR-1: safe-bundle reclaim evicts surplus, victim gang survives", "gr1",
          Runs({"gr1-q1": 2, "gr1-q2": 2}, LOW, (("victim-gr1", "gr1-q2", "gr-low-pri", 4, 2),),
               ("reclaimer-gr1", "gr1-q1", "gr-low-pri", 2), kept={"victim-gr1": 2})),
    _case(pytest.mark.reclaim, "GR-2: whole-bundle reclaim breaks exactly one gang when no surplus exists", "gr2",
          Runs({"gr2-q1": 2, "gr2-q2": 2}, LOW, (("victim-a-gr2", "gr2-q2", "gr-low-pri", 2, 2),
                                                 ("victim-b-gr2", "gr2-q2", "gr-low-pri", 2, 2)),
               ("reclaimer-gr2", "gr2-q1", "gr-low-pri", 2), one_broken=("victim-a-gr2", "victim-b-gr2"))),
    _case(pytest.mark.reclaim, "GR-3: basic gang reclaim from overusing queue", "gr3",
          Runs({"gr3-q1": 2, "gr3-q2": 2}, LOW, (("victim-gr3", "gr3-q2", "gr-low-pri", 4, 2),),
               ("reclaimer-gr3", "gr3-q1", "gr-low-pri", 2))),
]


@pytest.mark.parametrize("case", RUNS)
def test_evicting_gang_runs(cluster: Cluster, case: Runs) -> None:
    _setup(cluster, case.queues, case.priorities)
    for name, queue_name, pri, rep, min_avail in case.victims:
        cluster.apply(_gang(name, queue_name, pri, rep, min_avail, True))
        wait_tasks_ready(cluster, name, rep)
    name, queue_name, pri, rep = case.evictor
    cluster.apply(_gang(name, queue_name, pri, rep, rep, False))
    wait_tasks_ready(cluster, name, rep)
    for victim, count in case.kept.items():
        wait_tasks_ready(cluster, victim, count)
    if case.one_broken is not None:
        _exactly_one_broken(cluster, *case.one_broken)


# -- cases where the evicting gang is held off --------------------------------------------------------

@dataclass(frozen=True)
class Blocked:
    """A gang-eviction case where the evictor must not get its place. The queues (name -> deserved
    CPUs; ``guaranteed`` ones also guarantee that much) and priority classes are made; each victim
    gang (as in ``Runs``) is applied and waited ready in turn; the queues in ``unreclaimable`` are
    made not reclaimable before the victims (or, with ``unreclaimable_late``, once they run); then
    the evictor (minAvailable = replicas) stays not ready over upstream's window, and each victim in
    ``kept`` still has exactly that many ready tasks."""

    queues: dict[str, int]
    priorities: dict[str, int]
    victims: tuple[tuple[str, str, str, int, int], ...]
    evictor: tuple[str, str, str, int]
    kept: dict[str, int] = field(default_factory=dict)
    guaranteed: dict[str, int] = field(default_factory=dict)
    unreclaimable: tuple[str, ...] = ()
    unreclaimable_late: bool = False


BLOCKED = [
    _case(pytest.mark.preemption, "GP-6: gang preemption does not cross queue boundaries", "gp6",
          Blocked({"gp6-q1": 2, "gp6-q2": 2}, HIGH_LOW, (("victim-gp6", "gp6-q2", "gp-low-pri", 4, 4),),
                  ("preemptor-gp6", "gp6-q1", "gp-high-pri", 2), kept={"victim-gp6": 4}, unreclaimable=("gp6-q2",))),
    _case(pytest.mark.preemption, "GP-7: equal-priority gang is not preempted", "gp7",
          Blocked({"gp-q": 4}, {"gp-med-pri": 50}, (("victim-gp7", "gp-q", "gp-med-pri", 4, 4),),
                  ("preemptor-gp7", "gp-q", "gp-med-pri", 2), kept={"victim-gp7": 4})),
    _case(pytest.mark.preemption, "GP-8: medium-priority preemptor cannot evict high-priority victims", "gp8",
          Blocked({"gp-q": 4}, GP, (("gang-a-gp8", "gp-q", "gp-high-pri", 2, 2),
                                    ("gang-b-gp8", "gp-q", "gp-low-pri", 2, 2)),
                  ("preemptor-c-gp8", "gp-q", "gp-med-pri", 4), kept={"gang-a-gp8": 2})),
    _case(pytest.mark.reclaim, "GR-4: no reclaim from queues within their deserved", "gr4",
          Blocked({"gr4-q1": 2, "gr4-q2": 2, "gr4-q3": 2}, LOW, (("job-gr4-q2", "gr4-q2", "gr-low-pri", 2, 2),
                                                                ("job-gr4-q3", "gr4-q3", "gr-low-pri", 2, 2)),
                  ("reclaimer-gr4", "gr4-q1", "gr-low-pri", 2), kept={"job-gr4-q2": 2, "job-gr4-q3": 2})),
    _case(pytest.mark.reclaim, "GR-5: reclaim blocked when victim queue is not reclaimable", "gr5",
          Blocked({"gr5-q1": 2, "gr5-q2": 2}, LOW, (("victim-gr5", "gr5-q2", "gr-low-pri", 4, 2),),
                  ("reclaimer-gr5", "gr5-q1", "gr-low-pri", 2), kept={"victim-gr5": 4}, unreclaimable=("gr5-q2",),
                  unreclaimable_late=True)),
    _case(pytest.mark.reclaim, "GR-6: reclaim stops at guarantee boundary", "gr6",
          Blocked({"gr6-q1": 4}, LOW, (("victim-gr6", "gr6-q2", "gr-low-pri", 4, 2),),
                  ("reclaimer-gr6", "gr6-q1", "gr-low-pri", 4), guaranteed={"gr6-q2": 2})),
    _case(pytest.mark.reclaim, "GR-7: overused queue is skipped as reclaimer", "gr7",
          Blocked({"gr7-q1": 1, "gr7-q2": 3}, LOW, (("job-gr7-q1", "gr7-q1", "gr-low-pri", 2, 2),
                                                   ("job-gr7-q2", "gr7-q2", "gr-low-pri", 2, 2)),
                  ("reclaimer-gr7", "gr7-q1", "gr-low-pri", 2))),
]


@pytest.mark.parametrize("case", BLOCKED)
def test_evicting_gang_blocked(cluster: Cluster, case: Blocked) -> None:
    _setup(cluster, case.queues, case.priorities)
    if case.guaranteed:
        make_queues(cluster, *(simple_queue(q, guarantee=_deserved(d), deserved=_deserved(d))
                               for q, d in case.guaranteed.items()))
    if case.unreclaimable and not case.unreclaimable_late:
        set_queue_reclaimable(cluster, list(case.unreclaimable), False)
    for name, queue_name, pri, rep, min_avail in case.victims:
        cluster.apply(_gang(name, queue_name, pri, rep, min_avail, True))
        wait_tasks_ready(cluster, name, rep)
    if case.unreclaimable and case.unreclaimable_late:
        set_queue_reclaimable(cluster, list(case.unreclaimable), False)
    name, queue_name, pri, rep = case.evictor
    cluster.apply(_gang(name, queue_name, pri, rep, rep, False))
    hold_not_ready(cluster, name, rep)
    for victim, count in case.kept.items():
        assert ready(cluster, victim) == count, victim


# -- role-tight tasks (GP-R1, GR-R1) ----------------------------------------------------------------

def _role_tight_case(cluster: Cluster, queues: dict[str, int], priorities: dict[str, int], *,
                     victim: tuple[str, str, str], evictor: tuple[str, str, str]) -> None:
    """A multi-role victim ``(name, queue, priority class)`` (ps 1 pod, worker 3 pods min 2, job
    minAvailable 3) runs; a one-pod evictor ``(name, queue, priority class)`` gets its place; the
    victim keeps its ps pod and at least 2 workers."""
    _setup(cluster, queues, priorities)
    cluster.apply(_multi_role(*victim, 3))
    wait_tasks_ready(cluster, victim[0], 4)
    cluster.apply(_gang(*evictor, 1, 1, False))
    wait_tasks_ready(cluster, evictor[0], 1)
    wait_tasks_ready(cluster, victim[0], 3)
    counts = ready_by_label(cluster, victim[0], "volcano.sh/task-spec")
    assert counts.get("ps") == 1, counts
    assert counts.get("worker", 0) >= 2, counts


@pytest.mark.preemption
@pytest.mark.upstream(SUITE, "GP-R1: per-role surplus gate keeps role-tight tasks safe")
def test_gp_r1(cluster: Cluster) -> None:
    _role_tight_case(cluster, {"gp-q": 4}, HIGH_LOW, victim=("victim-gpr1", "gp-q", "gp-low-pri"),
                     evictor=("preemptor-gpr1", "gp-q", "gp-high-pri"))


@pytest.mark.reclaim
@pytest.mark.upstream(SUITE, "GR-R1: per-role surplus gate keeps role-tight tasks safe")
def test_gr_r1(cluster: Cluster) -> None:
    _role_tight_case(cluster, {"grr1-q1": 1, "grr1-q2": 3}, LOW, victim=("victim-grr1", "grr1-q2", "gr-low-pri"),
                     evictor=("reclaimer-grr1", "grr1-q1", "gr-low-pri"))
