"""Determinism: contended scenarios run twice with the same seed give identical histories
(every recorded Pod, PodGroup, Node and Queue state, at the same cluster time, in the same
order), and the Events match too."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from volcano.conformance.backends.base import ClusterShape, NodeShape
from volcano.conformance.backends.memory import MemoryCluster
from volcano.conformance.lib.builders import Task, job, priority_class, queue
from volcano.conformance.test_scheduling_support import CI_CONF, make_queues

Scenario = Callable[[MemoryCluster], None]


def _gang_contention(c: MemoryCluster) -> None:
    c.apply([job(f"g{i}", [Task(req={"cpu": "1"}, rep=6, min=6, duration="20s")]) for i in range(4)])
    c.sleep(120)


def _preemption(c: MemoryCluster) -> None:
    c.apply([priority_class("lo", 10), priority_class("hi", 100)])
    lab = {"volcano.sh/preemptable": "true"}
    c.apply(job("victim", [Task(req={"cpu": "1"}, rep=16, min=1, labels=lab)], priority_class="lo"))
    c.sleep(10)
    c.apply(job("preemptor", [Task(req={"cpu": "1"}, rep=8, min=4, labels=lab)], priority_class="hi"))
    c.sleep(60)


def _reclaim(c: MemoryCluster) -> None:
    make_queues(c, queue("qa"), queue("qb"))
    lab = {"volcano.sh/preemptable": "true"}
    c.apply(job("a", [Task(req={"cpu": "1"}, rep=16, min=1, labels=lab)], queue="qa"))
    c.sleep(10)
    c.apply(job("b", [Task(req={"cpu": "1"}, rep=8, min=2, labels=lab, duration="30s")], queue="qb"))
    c.sleep(90)


SCENARIOS: dict[str, tuple[Scenario, str | None]] = {
    "gang_contention": (_gang_contention, None),
    "preemption": (_preemption, CI_CONF),
    "reclaim": (_reclaim, CI_CONF),
}


def _run(scenario: Scenario, conf: str | None, seed: int) -> tuple[str, str]:
    c = MemoryCluster(ClusterShape(workers=4, node=NodeShape(cpu="4")), seed=seed, scheduler_conf=conf)
    try:
        scenario(c)
        history = json.dumps(c.recorder.history, sort_keys=True, default=str)
        events = json.dumps(c.events(), sort_keys=True, default=str)
        return history, events
    finally:
        c.close()


@pytest.mark.scheduling_base
@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_same_seed_same_history(name: str) -> None:
    scenario, conf = SCENARIOS[name]
    first = _run(scenario, conf, seed=7)
    second = _run(scenario, conf, seed=7)
    assert len(first[0]) > 1000, "scenario recorded almost nothing"
    assert first[0] == second[0], f"{name}: histories differ between two runs with the same seed"
    assert first[1] == second[1], f"{name}: events differ between two runs with the same seed"

