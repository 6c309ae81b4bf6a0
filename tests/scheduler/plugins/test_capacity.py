"""Tests for the capacity plugin (flat queues): shares, deserved, reclaim victims, preemptive, allocatable."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import pytest

from volcano.scheduler.framework.conf import PluginOption, SchedulerConf, Tier
from volcano.scheduler.framework.model import NodeSpec, QueueInfo, TaskSpec
from volcano.scheduler.framework.plugin import PluginRegistry
from volcano.scheduler.framework.resources import ResourceSpace
from volcano.scheduler.framework.session import Session, Snapshot
from volcano.scheduler.plugins.capacity import (
    CapacityPlugin,
    capacity_deserved,
    capacity_share,
    compare_queue_shares,
    preemptive_on_some_dim,
    reclaim_victims,
)

GI = 1024**3 * 1000
GPU = "nvidia.com/gpu"


def r(cpu: float = 0, mem_gi: float = 0, **scalars: int) -> dict[str, int]:
    out = {"cpu": int(cpu * 1000), "memory": int(mem_gi * GI)}
    out.update({(GPU if k == "gpu" else k): v * 1000 for k, v in scalars.items()})
    return {k: v for k, v in out.items() if v}


@pytest.mark.parametrize(("deserved", "allocated", "expected"), [
    (r(2, 2), {}, 0.0), (r(2, 2), r(1, 1), 0.5), (r(2, 2), r(2, 2), 1.0), (r(2, 2), r(3, 2), 1.5),
    (r(2, 2), r(3, 3), 1.5), (r(2, 4), r(1, 3), 0.75), (r(2, 4), r(1.5, 2), 0.75), ({}, r(1, 1), 1.0), ({}, {}, 1.0),
])
def test_update_queue_attr_share_table(deserved: dict[str, int], allocated: dict[str, int], expected: float) -> None:
    assert capacity_share(allocated, deserved) == expected


def test_deserved_capped_by_real_capability_and_raised_to_guarantee() -> None:
    assert capacity_deserved(r(8, 8), r(4, 16), {}) == r(4, 8)
    assert capacity_deserved(r(1, 1), r(4, 16), r(2)) == r(2, 1)
    assert capacity_deserved(r(gpu=8), r(4, 4), {})[GPU] == 8000  # a dimension the real capability lacks is uncapped
    assert compare_queue_shares(1.0, True, 1.0, False) == 1
    assert compare_queue_shares(0.5, True, 1.0, False) == -1
    assert compare_queue_shares(1.0, False, 1.0, False) == 0


def test_reclaim_victims_upstream_cases() -> None:
    pod = {"pods": 1000}
    # case2: q3 deserved (2, 4Gi) holds (4, 8Gi): its (2, 4Gi) task is a victim.
    attrs: dict[str, tuple[dict[str, int], dict[str, int], dict[str, int]]]
    attrs = {"q3": (r(4, 8) | {"pods": 2000}, r(2, 4), {})}
    assert reclaim_victims(r(2, 4) | pod, [("q3", r(2, 4) | pod)], attrs) == [0]
    # case5: q11 deserves nothing -> immediate victim.
    assert reclaim_victims(r(1, 1) | pod, [("q11", r(1, 1) | pod)], {"q11": (r(1, 1) | pod, {}, {})}) == [0]
    # case8: reclaimer (1 cpu, gpu 1); q17 deserves (2, 2Gi) and holds (1, 4Gi, gpu 1):
    # memory-only task shares nothing with the reclaimer, cpu task does not exceed, gpu task is immediate.
    attrs = {"q17": (r(1, 4, gpu=1) | {"pods": 3000}, r(2, 2), {})}
    tasks: list[tuple[str, Mapping[str, int | Fraction]]] = [
        ("q17", r(0, 4) | pod), ("q17", r(1) | pod), ("q17", r(gpu=1) | pod)]
    assert reclaim_victims(r(1, gpu=1) | pod, tasks, attrs) == [2]
    # case9: q19 deserves gpu 1 only and holds exactly that -> not a victim for a cpu/memory reclaimer.
    attrs = {"q19": (r(4, 4, gpu=1) | pod, r(gpu=1), {})}
    assert reclaim_victims(r(1, 1) | pod, [("q19", r(4, 4, gpu=1) | pod)], attrs) == []
    # guarantee protection: taking the task would drop the queue below its guarantee
    attrs = {"q": (r(4, 4), r(1, 1), r(4, 4))}
    assert reclaim_victims(r(1, 1), [("q", r(1, 1))], attrs) == []
    # the working copy shrinks: only as many victims as bring the queue back to deserved
    attrs = {"q": (r(3), r(1), {})}
    assert reclaim_victims(r(1), [("q", r(1)), ("q", r(1)), ("q", r(1))], attrs) == [0, 1]


def test_preemptive_on_some_dimension() -> None:
    # case5: q10 allocated (1, 3Gi) + (1, 1Gi) vs deserved (2, 2Gi): cpu still within -> may reclaim.
    assert preemptive_on_some_dim(r(2, 4), r(2, 2), r(1, 1))
    # case6: q12 (1, 1Gi) + (1, 2Gi) vs deserved (1, 2Gi): over on both -> may not.
    assert not preemptive_on_some_dim(r(2, 3), r(1, 2), r(1, 2))
    # dimensions zero on both sides do not count
    assert not preemptive_on_some_dim({}, {}, r(1))


def _session(queues: list[dict[str, Any]], pgs: list[tuple[str, str, str]], pods: list[dict[str, Any]],
             flags: dict[str, bool] | None = None) -> Session:
    nodes = [{"metadata": {"name": n}, "status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "110"}}}
             for n in ("n1", "n2")]
    pg_objs: list[tuple[Mapping[str, Any], int]] = [
        ({"metadata": {"name": n, "namespace": "ns1"}, "spec": {"queue": q, "minMember": 1},
          "status": {"phase": ph}}, 0) for n, q, ph in pgs]
    conf = SchedulerConf(actions=("allocate",), tiers=(Tier((PluginOption("capacity", flags or {}),)),))
    snap = Snapshot(space=ResourceSpace(), nodes=[NodeSpec(n) for n in nodes], podgroups=pg_objs,
                    tasks=[TaskSpec(p) for p in pods], queues=[QueueInfo(q) for q in queues])
    return Session(snap, conf, PluginRegistry([CapacityPlugin]))


def _pod(name: str, pg: str, cpu: str, mem: str, node: str = "", phase: str = "Pending") -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": "ns1", "annotations": {"scheduling.k8s.io/group-name": pg}},
            "spec": {"nodeName": node, "containers": [{"resources": {"requests": {"cpu": cpu, "memory": mem}}}]},
            "status": {"phase": phase}}


def _queue(name: str, cap: dict[str, str] | None = None, priority: int = 0, state: str = "Open") -> dict[str, Any]:
    spec: dict[str, Any] = {"priority": priority}
    if cap:
        spec["capability"] = cap
    return {"metadata": {"name": name}, "spec": spec, "status": {"state": state}}


def test_allocatable_respects_capability() -> None:
    # case0: q1 cap (2, 2Gi) with (1, 1Gi) running -> another (1, 1Gi) fits; case1: q2 cap (1.5, 1.5Gi) -> not.
    ssn = _session([_queue("q1", {"cpu": "2", "memory": "2Gi"}), _queue("q2", {"cpu": "1500m", "memory": "1.5Gi"})],
                   [("pg1", "q1", "Running"), ("pg2", "q1", "Inqueue"), ("pg3", "q2", "Running"),
                    ("pg4", "q2", "Inqueue")],
                   [_pod("p1", "pg1", "1", "1Gi", "n1", "Running"), _pod("p2", "pg2", "1", "1Gi"),
                    _pod("p3", "pg3", "1", "1Gi", "n2", "Running"), _pod("p4", "pg4", "1", "1Gi")])
    p2 = next(iter(ssn.jobs["ns1/pg2"].tasks.values()))
    p4 = next(iter(ssn.jobs["ns1/pg4"].tasks.values()))
    assert ssn.allocatable(ssn.queues["q1"], p2)
    assert not ssn.allocatable(ssn.queues["q2"], p4)


def test_queue_priority_order_and_closed_queue() -> None:
    # case4: q9 (priority 10) before q7 (5) before q8 (1); a Closed queue neither allocates nor enqueues.
    ssn = _session([_queue("q7", priority=5), _queue("q8", priority=1), _queue("q9", priority=10),
                    _queue("qc", state="Closed")],
                   [("pg10", "q7", "Running"), ("pg11", "q8", "Inqueue"), ("pg12", "q9", "Inqueue"),
                    ("pgc", "qc", "Pending")],
                   [_pod("p13", "pg10", "2", "4Gi", "n1", "Running"), _pod("p14", "pg11", "2", "4Gi"),
                    _pod("p15", "pg12", "2", "4Gi"), _pod("pc", "pgc", "1", "1Gi")])
    q7, q8, q9, qc = (ssn.queues[n] for n in ("q7", "q8", "q9", "qc"))
    assert ssn.queue_less(q9, q7) and ssn.queue_less(q7, q8)
    closed_job = ssn.jobs["ns1/pgc"]
    assert not ssn.job_enqueueable(closed_job)
    assert not ssn.allocatable(qc, next(iter(closed_job.tasks.values())))
    # allocation events keep the share current
    plugin = ssn.plugins["capacity"]
    assert isinstance(plugin, CapacityPlugin)
    assert plugin.attrs["q9"].share == 1.0  # best-effort queue (no deserved)


def test_hierarchy_without_root_queue_rejects_everything() -> None:
    ssn = _session([_queue("q1")], [], [], {"enableHierarchy": True})
    plugin = ssn.plugins["capacity"]
    assert isinstance(plugin, CapacityPlugin)
    assert plugin.tree is not None and not plugin.tree.valid


def test_reclaimable_walks_reclaimees_in_victim_order() -> None:
    # q2 deserves 2 cpu and holds 4 (r-0..r-3, one cpu each): two victims bring it back to
    # deserved. Victims are taken in the victim order (same job: the task ordered last goes
    # first), not in the order the action lists them, so r-3 and r-2 are chosen.
    q1 = {"metadata": {"name": "q1"}, "spec": {"deserved": {"cpu": "2", "memory": "4Gi"}}, "status": {"state": "Open"}}
    q2 = {"metadata": {"name": "q2"}, "spec": {"deserved": {"cpu": "2", "memory": "4Gi"}}, "status": {"state": "Open"}}
    running = [_pod(f"r-{i}", "pg2", "1", "1Gi", "n1" if i < 2 else "n2", "Running") for i in range(4)]
    ssn = _session([q1, q2], [("pg1", "q1", "Inqueue"), ("pg2", "q2", "Running")],
                   [_pod("w-0", "pg1", "1", "1Gi"), *running], {"enableReclaimable": True})
    reclaimer = next(iter(ssn.jobs["ns1/pg1"].tasks.values()))
    reclaimees = sorted(ssn.jobs["ns1/pg2"].tasks.values(), key=lambda t: t.name)
    assert [t.name for t in ssn.victim_order(reclaimer, reclaimees)] == ["r-3", "r-2", "r-1", "r-0"]
    victims = ssn.reclaimable(reclaimer, reclaimees)
    assert sorted(t.name for t in victims) == ["r-2", "r-3"]
