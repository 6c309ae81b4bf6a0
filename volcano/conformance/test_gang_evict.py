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


def _case(area: pytest.MarkDecorator, upstream: str, case_id: str, runs: Runs) -> Any:
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


# -- GangPreempt ----------------------------------------------------------------------------------

@pytest.mark.preemption
@pytest.mark.upstream(SUITE, "GP-6: gang preemption does not cross queue boundaries")
def test_gp6(cluster: Cluster) -> None:
    _setup(cluster, {"gp6-q1": 2, "gp6-q2": 2}, {"gp-high-pri": 100, "gp-low-pri": 10})
    set_queue_reclaimable(cluster, ["gp6-q2"], False)
    cluster.apply(_gang("victim-gp6", "gp6-q2", "gp-low-pri", 4, 4, True))
    wait_tasks_ready(cluster, "victim-gp6", 4)
    cluster.apply(_gang("preemptor-gp6", "gp6-q1", "gp-high-pri", 2, 2, False))
    hold_not_ready(cluster, "preemptor-gp6", 2)
    assert ready(cluster, "victim-gp6") == 4


@pytest.mark.preemption
@pytest.mark.upstream(SUITE, "GP-7: equal-priority gang is not preempted")
def test_gp7(cluster: Cluster) -> None:
    _setup(cluster, {"gp-q": 4}, {"gp-med-pri": 50})
    cluster.apply(_gang("victim-gp7", "gp-q", "gp-med-pri", 4, 4, True))
    wait_tasks_ready(cluster, "victim-gp7", 4)
    cluster.apply(_gang("preemptor-gp7", "gp-q", "gp-med-pri", 2, 2, False))
    hold_not_ready(cluster, "preemptor-gp7", 2)
    assert ready(cluster, "victim-gp7") == 4


@pytest.mark.preemption
@pytest.mark.upstream(SUITE, "GP-8: medium-priority preemptor cannot evict high-priority victims")
def test_gp8(cluster: Cluster) -> None:
    _setup(cluster, {"gp-q": 4}, GP)
    cluster.apply(_gang("gang-a-gp8", "gp-q", "gp-high-pri", 2, 2, True))
    wait_tasks_ready(cluster, "gang-a-gp8", 2)
    cluster.apply(_gang("gang-b-gp8", "gp-q", "gp-low-pri", 2, 2, True))
    wait_tasks_ready(cluster, "gang-b-gp8", 2)
    cluster.apply(_gang("preemptor-c-gp8", "gp-q", "gp-med-pri", 4, 4, False))
    hold_not_ready(cluster, "preemptor-c-gp8", 4)
    assert ready(cluster, "gang-a-gp8") == 2


def _role_checks(cluster: Cluster, victim: str) -> None:
    wait_tasks_ready(cluster, victim, 3)
    counts = ready_by_label(cluster, victim, "volcano.sh/task-spec")
    assert counts.get("ps") == 1, counts
    assert counts.get("worker", 0) >= 2, counts


@pytest.mark.preemption
@pytest.mark.upstream(SUITE, "GP-R1: per-role surplus gate keeps role-tight tasks safe")
def test_gp_r1(cluster: Cluster) -> None:
    _setup(cluster, {"gp-q": 4}, HIGH_LOW)
    cluster.apply(_multi_role("victim-gpr1", "gp-q", "gp-low-pri", 3))
    wait_tasks_ready(cluster, "victim-gpr1", 4)
    cluster.apply(_gang("preemptor-gpr1", "gp-q", "gp-high-pri", 1, 1, False))
    wait_tasks_ready(cluster, "preemptor-gpr1", 1)
    _role_checks(cluster, "victim-gpr1")


# -- GangReclaim ----------------------------------------------------------------------------------

@pytest.mark.reclaim
@pytest.mark.upstream(SUITE, "GR-4: no reclaim from queues within their deserved")
def test_gr4(cluster: Cluster) -> None:
    _setup(cluster, {"gr4-q1": 2, "gr4-q2": 2, "gr4-q3": 2}, LOW)
    for name, q in (("job-gr4-q2", "gr4-q2"), ("job-gr4-q3", "gr4-q3")):
        cluster.apply(_gang(name, q, "gr-low-pri", 2, 2, True))
        wait_tasks_ready(cluster, name, 2)
    cluster.apply(_gang("reclaimer-gr4", "gr4-q1", "gr-low-pri", 2, 2, False))
    hold_not_ready(cluster, "reclaimer-gr4", 2)
    assert ready(cluster, "job-gr4-q2") == 2 and ready(cluster, "job-gr4-q3") == 2


@pytest.mark.reclaim
@pytest.mark.upstream(SUITE, "GR-5: reclaim blocked when victim queue is not reclaimable")
def test_gr5(cluster: Cluster) -> None:
    _setup(cluster, {"gr5-q1": 2, "gr5-q2": 2}, LOW)
    cluster.apply(_gang("victim-gr5", "gr5-q2", "gr-low-pri", 4, 2, True))
    wait_tasks_ready(cluster, "victim-gr5", 4)
    set_queue_reclaimable(cluster, ["gr5-q2"], False)
    cluster.apply(_gang("reclaimer-gr5", "gr5-q1", "gr-low-pri", 2, 2, False))
    hold_not_ready(cluster, "reclaimer-gr5", 2)
    assert ready(cluster, "victim-gr5") == 4


@pytest.mark.reclaim
@pytest.mark.upstream(SUITE, "GR-6: reclaim stops at guarantee boundary")
def test_gr6(cluster: Cluster) -> None:
    _setup(cluster, {"gr6-q1": 4}, LOW)
    make_queues(cluster, simple_queue("gr6-q2", guarantee=_deserved(2), deserved=_deserved(2)))
    cluster.apply(_gang("victim-gr6", "gr6-q2", "gr-low-pri", 4, 2, True))
    wait_tasks_ready(cluster, "victim-gr6", 4)
    cluster.apply(_gang("reclaimer-gr6", "gr6-q1", "gr-low-pri", 4, 4, False))
    hold_not_ready(cluster, "reclaimer-gr6", 4)


@pytest.mark.reclaim
@pytest.mark.upstream(SUITE, "GR-7: overused queue is skipped as reclaimer")
def test_gr7(cluster: Cluster) -> None:
    _setup(cluster, {"gr7-q1": 1, "gr7-q2": 3}, LOW)
    cluster.apply(_gang("job-gr7-q1", "gr7-q1", "gr-low-pri", 2, 2, True))
    wait_tasks_ready(cluster, "job-gr7-q1", 2)
    cluster.apply(_gang("job-gr7-q2", "gr7-q2", "gr-low-pri", 2, 2, True))
    wait_tasks_ready(cluster, "job-gr7-q2", 2)
    cluster.apply(_gang("reclaimer-gr7", "gr7-q1", "gr-low-pri", 2, 2, False))
    hold_not_ready(cluster, "reclaimer-gr7", 2)


@pytest.mark.reclaim
@pytest.mark.upstream(SUITE, "GR-R1: per-role surplus gate keeps role-tight tasks safe")
def test_gr_r1(cluster: Cluster) -> None:
    _setup(cluster, {"grr1-q1": 1, "grr1-q2": 3}, LOW)
    cluster.apply(_multi_role("victim-grr1", "grr1-q2", "gr-low-pri", 3))
    wait_tasks_ready(cluster, "victim-grr1", 4)
    cluster.apply(_gang("reclaimer-grr1", "grr1-q1", "gr-low-pri", 1, 1, False))
    wait_tasks_ready(cluster, "reclaimer-grr1", 1)
    _role_checks(cluster, "victim-grr1")
