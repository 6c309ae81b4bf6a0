"""The incremental node selection (``select_node``) chooses exactly what the full
path (``feasible`` + nominated node + ``prioritize``) chooses, step after step,
while tasks are allocated and removed."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from volcano.scheduler.framework.conf import PluginOption, SchedulerConf, Tier
from volcano.scheduler.framework.model import NodeSpec, QueueInfo, TaskInfo, TaskSpec, TaskStatus
from volcano.scheduler.framework.resources import ResourceSpace
from volcano.scheduler.framework.select import SELECT_STATES, feasible, prioritize, select_node
from volcano.scheduler.framework.session import Session, Snapshot
from volcano.scheduler.plugins import default_registry

Obj = dict[str, Any]


def _node(i: int, rng: random.Random) -> Obj:
    spec: Obj = {}
    if rng.random() < 0.1:
        spec["unschedulable"] = True
    if rng.random() < 0.1:
        spec["taints"] = [{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]
    cpu = rng.choice(["1", "2", "4"])
    return {"metadata": {"name": f"n{i}", "labels": {"zone": rng.choice(["a", "b"])}}, "spec": spec,
            "status": {"allocatable": {"cpu": cpu, "memory": rng.choice(["2Gi", "8Gi"]),
                                       "pods": rng.choice(["3", "110"])}}}


def _pod(i: int, kind: int) -> Obj:
    spec: Obj = {"schedulerName": "volcano",
                 "containers": [{"name": "c", "resources": {"requests": {
                     "cpu": ["100m", "500m", "1"][kind % 3], "memory": ["128Mi", "1Gi", "512Mi"][kind % 3]}}}]}
    if kind == 3:
        spec["nodeSelector"] = {"zone": "a"}
    if kind == 4:
        spec["containers"][0]["ports"] = [{"containerPort": 80, "hostPort": 8080}]
    if kind == 5:
        spec["tolerations"] = [{"key": "dedicated", "operator": "Exists"}]
    return {"metadata": {"name": f"p-{i}", "namespace": "ns", "uid": f"u{i}",
                         "annotations": {"scheduling.k8s.io/group-name": f"pg{i}"}},
            "spec": spec, "status": {"phase": "Pending"}}


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
    nodes = [_node(i, rng) for i in range(rng.randint(1, 30))]
    pods = [_pod(i, rng.randrange(6)) for i in range(60)]
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
    ssn = _session(nodes, [_pod(0, 2), _pod(1, 0)])
    first, second = sorted((t for j in ssn.jobs.values() for t in j.tasks.values()), key=lambda t: t.name)
    row, no_fit = select_node(ssn, first)
    assert row == 0 and no_fit is None
    ssn.do_allocate(first, ssn.nodes[0])
    row, no_fit = select_node(ssn, second)
    assert row is None and no_fit is not None
    assert no_fit.error() == "0/1 nodes are unavailable: 1 Insufficient pods."
    assert first.status == TaskStatus.Allocated


def test_inter_pod_affinity_takes_the_full_path() -> None:
    nodes = [_node(0, random.Random(1))]
    pod = _pod(0, 0)
    pod["spec"]["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "x"}}, "topologyKey": "zone"}]}}
    ssn = _session(nodes, [pod])
    task = next(t for j in ssn.jobs.values() for t in j.tasks.values())
    assert not ssn.rows_local(task)
    select_node(ssn, task)
    assert SELECT_STATES not in ssn.state
