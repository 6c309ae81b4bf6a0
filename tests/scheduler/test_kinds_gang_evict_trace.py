"""Kinds pinned whole: what gangpreempt and gangreclaim leave in the decision trace and the metrics
registry, one session each over the objects of the gang-eviction tests: every trace record (the
action's own record of the victims chosen for a job, then each ``Evict`` with its node and reason, as the
statement commits) and every
counter and gauge sample, with ``reuse`` on and off; and the trace record and Events of a job refused at an
ancestor queue by hierarchical capacity."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from tests.scheduler.harness import HIGH_MID_LOW, PRE_T, node, pg, pod, queue, res, run
from tests.scheduler.kinds_support import counter_samples, decide, samples
from tests.scheduler.test_gang_evict import gang_conf
from volcano.scheduler.framework.conf import SchedulerConf
from volcano.scheduler.framework.model import NodeSpec, QueueInfo, TaskSpec
from volcano.scheduler.framework.resources import ResourceSpace
from volcano.scheduler.framework.session import Session, Snapshot
from volcano.scheduler.metrics import SchedulerMetrics
from volcano.scheduler.plugins import default_registry
from volcano.sim.trace import Trace

REUSE = pytest.mark.parametrize("reuse", [True, False], ids=["reuse", "reference"])
CLASSES = {p["metadata"]["name"]: int(p["value"]) for p in HIGH_MID_LOW}


def _p(name: str, node_name: str, group: str) -> dict[str, Any]:
    return pod("ns", name, node_name=node_name, phase="Running" if node_name else "Pending", req=res(1, "1Gi"),
               group=group, labels=PRE_T if node_name else None)


def traced(configuration: SchedulerConf, reuse: bool, *, nodes: list[dict[str, Any]], pods: list[dict[str, Any]],
           podgroups: list[dict[str, Any]], queues: list[dict[str, Any]]) -> tuple[list[tuple[Any, ...]],
                                                                                  list[Any], list[str]]:
    """One session at 5 s over the objects with a trace and a metrics registry: the trace records, the
    registry's counter and gauge samples (latencies are the scheduler's, not the session's), the evictions."""
    trace, metrics = Trace(), SchedulerMetrics()
    groups: list[tuple[Mapping[str, Any], int]] = [
        (g, CLASSES.get(g["spec"].get("priorityClassName") or "", 0)) for g in podgroups]
    snap = Snapshot(ResourceSpace(), [NodeSpec(n) for n in nodes], groups, [TaskSpec(p) for p in pods],
                    [QueueInfo(q) for q in queues], priority_classes=CLASSES)
    ssn = Session(snap, configuration, default_registry(), uid="s", now_ms=5000, trace=trace, metrics=metrics,
                  reuse=reuse)
    decide(ssn, configuration)
    got = [s for s in samples(metrics.registry) if "latency" not in s[0] and "duration" not in s[0]]
    return [tuple(r) for r in trace], got, [t.key for t, _ in ssn.evictions]


def _victims(victim_min: int, preemptor_size: int) -> dict[str, Any]:
    nodes = [node(f"n{i}", res(1, "1Gi")) for i in range(4)]
    pods = [_p(f"va-{i}", f"n{i}", "va") for i in range(2)] + [_p(f"vb-{i}", f"n{i + 2}", "vb") for i in range(2)]
    pods += [_p(f"p-{i}", "", "p") for i in range(preemptor_size)]
    return {"nodes": nodes, "pods": pods, "queues": [queue("q", deserved=res(4, "4Gi"))],
            "podgroups": [pg("va", "ns", "q", victim_min, "Running", pc_name="low"),
                          pg("vb", "ns", "q", victim_min, "Running", pc_name="low"),
                          pg("p", "ns", "q", preemptor_size, "Inqueue", pc_name="high")]}


def _victim_trace(action: str, preemptor: str, victims: list[tuple[str, str]]) -> list[tuple[Any, ...]]:
    """At 5 s: ``action``'s record of ``preemptor``'s victim count, then an eviction of each (pod, node)."""
    return [(5000, "volcano", action.capitalize(), f"ns/{preemptor}", f"{len(victims)} victims"),
            *[(5000, "volcano", "Evict", f"ns/{p}", f"{n} {action}") for p, n in victims]]


@REUSE
def test_gangpreempt_records_its_victims_then_each_eviction(reuse: bool) -> None:
    """Two low gangs of minMember 1 on four 1-cpu nodes; a high gang of two: one safe bundle of each victim
    gang goes (2 victims), one eviction transaction is counted for gangpreempt."""
    trace, got, evicted = traced(gang_conf(), reuse, **_victims(1, 2))
    assert evicted == ["ns/vb-0", "ns/va-0"]
    assert trace == _victim_trace("gangpreempt", "p", [("vb-0", "n2"), ("va-0", "n0")])
    assert got == counter_samples(evictions={"gangpreempt": 1}, retries={"p": 1}, unscheduled_jobs=1,
                                  unscheduled_tasks={"p": 2, "va": 0, "vb": 0})


@REUSE
def test_gangpreempt_that_cannot_meet_the_demand_records_nothing(reuse: bool) -> None:
    trace, got, evicted = traced(gang_conf(), reuse, **_victims(1, 5))
    assert (trace, evicted) == ([], [])
    assert [s for s in got if s[0].startswith("volcano_eviction")] == []


@REUSE
def test_gangreclaim_records_its_victims_then_each_eviction(reuse: bool) -> None:
    """Queue q2 (deserved 2) runs four 1-cpu pods of gang ``v`` (minMember 2); q1's gang ``r`` of two reclaims
    the surplus."""
    nodes = [node(f"n{i}", res(1, "1Gi")) for i in range(4)]
    pods = [_p(f"v-{i}", f"n{i}", "v") for i in range(4)] + [_p(f"r-{i}", "", "r") for i in range(2)]
    trace, got, evicted = traced(
        gang_conf(("gangreclaim",)), reuse, nodes=nodes, pods=pods,
        queues=[queue("q1", deserved=res(2, "2Gi")), queue("q2", deserved=res(2, "2Gi"))],
        podgroups=[pg("v", "ns", "q2", 2, "Running"), pg("r", "ns", "q1", 2, "Inqueue")])
    assert evicted == ["ns/v-0", "ns/v-1"]
    assert trace == _victim_trace("gangreclaim", "r", [("v-0", "n0"), ("v-1", "n1")])
    assert got == counter_samples(evictions={"gangreclaim": 1}, retries={"r": 1}, unscheduled_jobs=1,
                                  unscheduled_tasks={"r": 2, "v": 0})


def test_capacity_hierarchy_refusal_at_an_ancestor_is_a_normal_podgroup_event() -> None:
    """Hierarchical capacity: parent ``q6`` (2 cpu, 4Gi) over leaves ``q61`` and ``q62`` (each 2 cpu, 4Gi of their
    own); two PodGroups of minResources 2 cpu, 4Gi, one per leaf: the first is enqueued, the second fits its leaf
    but not what its parent has left, and is refused with a Normal Unschedulable event naming what is short;
    the decision trace carries the same message."""
    from tests.scheduler.plugins.test_capacity_hierarchy import CONF as HCONF
    from tests.scheduler.plugins.test_capacity_hierarchy import N1, hq

    tree = [hq("root"), hq("q6", capability=res(2, "4Gi")), hq("q61", "q6", capability=res(2, "4Gi")),
            hq("q62", "q6", capability=res(2, "4Gi"))]
    pgs = [pg("pg10", "ns", "q61", 1, "Pending", min_resources=res(2, "4Gi")),
           pg("pg11", "ns", "q62", 1, "Pending", min_resources=res(2, "4Gi"))]
    trace, _, _ = traced(HCONF, True, nodes=N1, pods=[], podgroups=pgs, queues=tree)
    short = "queue resource quota insufficient: insufficient cpu, insufficient memory"
    assert trace == [(5000, "volcano", "Enqueue", "ns/pg10", "q61"),
                     (5000, "volcano", "Unschedulable", "ns/pg11", short)]
    ssn_events = run(HCONF, nodes=N1, queues=tree, pods=[], podgroups=pgs).outcome.events
    assert [(e.kind, e.namespace, e.name, e.type, e.reason, e.message) for e in ssn_events] == [
        ("PodGroup", "ns", "pg11", "Normal", "Unschedulable", short),
        ("PodGroup", "ns", "pg10", "Warning", "Unschedulable",
         "0/0 tasks in gang unschedulable: pod group is not ready, 1 minAvailable"),
        ("PodGroup", "ns", "pg11", "Warning", "Unschedulable",
         "0/0 tasks in gang unschedulable: pod group is not ready, 1 minAvailable"),
    ]
