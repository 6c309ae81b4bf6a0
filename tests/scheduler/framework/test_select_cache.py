"""The incremental node selection (``select_node``) chooses exactly what the full
path (``feasible`` + nominated node + ``prioritize``) chooses, step after step,
while tasks are allocated and removed."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.scheduler.framework.select_support import kind_pod, random_node
from volcano.scheduler.framework.conf import PluginOption, SchedulerConf, Tier
from volcano.scheduler.framework.model import NodeSpec, QueueInfo, TaskInfo, TaskSpec, TaskStatus
from volcano.scheduler.framework.resources import ResourceSpace
from volcano.scheduler.framework.select import SELECT_STATES, feasible, prioritize, select_node
from volcano.scheduler.framework.session import Session, Snapshot
from volcano.scheduler.plugins import default_registry

Obj = dict[str, Any]


def _session(nodes: list[Obj], pods: list[Obj]) -> Session:
    conf = SchedulerConf(actions=("allocate",), tiers=(
        Tier((PluginOption("predicates", {}), PluginOption("nodeorder", {}), PluginOption("binpack", {}))),))
    pgs: list[tuple[Mapping[str, Any], int]] = [
        ({"metadata": {"name": f"pg{i}", "namespace": "ns"}, "spec": {"minMember": 1, "queue": "default"},
          "status": {"phase": "Inqueue"}}, 0) for i in range(len(pods))]
    snap = Snapshot(space=ResourceSpace(), nodes=[NodeSpec(n) for n in nodes], podgroups=pgs,
                    tasks=[TaskSpec(p) for p in pods],
                    queues=[QueueInfo({"metadata": {"name": "default"}, "spec": {"weight": 1}})])
    return Session(snap, conf, default_registry())


def _full(ssn: Session, task: TaskInfo) -> int | None:
    rows, _ = feasible(ssn, task)
    if len(rows) == 0:
        return None
    return prioritize(ssn, task, rows)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_select_node_matches_full_path(seed: int) -> None:
    rng = random.Random(seed)
    nodes = [random_node(i, rng) for i in range(rng.randint(1, 30))]
    pods = [kind_pod(i, rng.randrange(6)) for i in range(60)]
    ssn = _session(nodes, pods)
    tasks = [t for j in ssn.jobs.values() for t in j.tasks.values()]
    placed: list[TaskInfo] = []
    for task in tasks:
        if placed and rng.random() < 0.2:  # free a node row now and then
            victim = placed.pop(rng.randrange(len(placed)))
            ssn.undo_allocate(victim)
        assert ssn.rows_local(task)
        expected = _full(ssn, task)
        got, no_fit = select_node(ssn, task)
        assert got == expected
        assert (no_fit is not None) == (expected is None)
        if got is not None:
            ssn.do_allocate(task, ssn.nodes[got])
            placed.append(task)
    assert ssn.state.peek(SELECT_STATES)  # the incremental path was taken


def test_no_fit_reports_the_full_fit_errors() -> None:
    nodes = [{"metadata": {"name": "n0"}, "status": {"allocatable": {"cpu": "4", "memory": "4Gi", "pods": "1"}}}]
    ssn = _session(nodes, [kind_pod(0, 2), kind_pod(1, 0)])
    first, second = sorted((t for j in ssn.jobs.values() for t in j.tasks.values()), key=lambda t: t.name)
    row, no_fit = select_node(ssn, first)
    assert row == 0 and no_fit is None
    ssn.do_allocate(first, ssn.nodes[0])
    row, no_fit = select_node(ssn, second)
    assert row is None and no_fit is not None
    assert no_fit.error() == "0/1 nodes are unavailable: 1 Insufficient pods."
    assert first.status == TaskStatus.Allocated


def test_inter_pod_affinity_takes_the_full_path() -> None:
    nodes = [random_node(0, random.Random(1))]
    pod = kind_pod(0, 0)
    pod["spec"]["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "x"}}, "topologyKey": "zone"}]}}
    ssn = _session(nodes, [pod])
    task = next(t for j in ssn.jobs.values() for t in j.tasks.values())
    assert not ssn.rows_local(task)
    select_node(ssn, task)
    assert SELECT_STATES not in ssn.state
