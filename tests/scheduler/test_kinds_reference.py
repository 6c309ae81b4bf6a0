"""Kinds pinned whole: the model a session builds, every way it can be built.

A snapshot holding a bind in flight of a pod of no job (an orphan the cache overrides to Binding on a
node), an eviction sent for a running job task (overridden to Releasing) and a pending gang member
is opened four ways: the reference path (``reuse`` off), ``reuse`` without a carry, ``reuse`` with a
carry over a snapshot without task groups (what unit-test snapshots are), and ``reuse`` with a carry
over one with its groups (``members``, what the scheduler cache hands over). Each way gives the
whole node table (every column of every row), every task's status and node, and the same decisions.
Then a discarded pipelined placement (a statement that is not the quiet kind), whose outcome is pinned whole.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from tests.scheduler.harness import conf, node, opt, pg, pod, queue, res
from tests.scheduler.kinds_support import decide
from volcano.scheduler.framework.build import _group
from volcano.scheduler.framework.carry import JobCarry
from volcano.scheduler.framework.model import NodeSpec, QueueInfo, TaskSpec, TaskStatus
from volcano.scheduler.framework.resources import ResourceSpace
from volcano.scheduler.framework.session import Session, Snapshot
from volcano.scheduler.plugins import default_registry

CONF = conf(["allocate", "backfill"], [opt("gang", "jobReady", "jobPipelined"), opt("predicates", "predicate"),
                                        opt("nodeorder", "nodeOrder")])
WAYS = ["reference", "reuse", "carry-no-members", "carry-members"]


def _snapshot(members: bool) -> Snapshot:
    """Nodes n1, n2, n3 of 2 cpu; ``orphan`` (no group) pending with a bind to n1 in flight; job ``run``'s
    ``run-0`` running on n2 with an eviction sent; job ``w`` with one 2-cpu pod pending."""
    nodes = [node(n, res(2, "4Gi")) for n in ("n1", "n2", "n3")]
    groups: list[tuple[Mapping[str, Any], int]] = [(pg("run", "ns", "q", 1, "Running"), 0), (pg("w", "ns", "q", 1), 0)]
    orphan = pod("ns", "orphan", group="", req=res(2, "1Gi"))
    orphan["metadata"]["annotations"] = {}
    pods = [orphan, pod("ns", "run-0", group="run", node_name="n2", phase="Running", req=res(2, "1Gi")),
            pod("ns", "w-0", group="w", req=res(2, "1Gi"))]
    tasks = [TaskSpec(p) for p in pods]
    return Snapshot(ResourceSpace(), [NodeSpec(n) for n in nodes], groups, tasks, [QueueInfo(queue("q"))],
                    overrides={"ns-orphan": (TaskStatus.Binding, "n1"), "ns-run-0": (TaskStatus.Releasing, "n2")},
                    members=_group(tasks) if members else None)


def _open(way: str) -> Session:
    carry = JobCarry() if way.startswith("carry") else None
    return Session(_snapshot(way == "carry-members"), CONF, default_registry(), uid="s", reuse=way != "reference",
                   carry=carry)


def _model(ssn: Session) -> dict[str, Any]:
    """The node table's rows by node name (cpu of used, idle, future idle, pipelined and releasing; pods)
    and every task's (status, node) by key."""
    t = ssn.table
    cpu = ssn.space.index["cpu"]
    rows = {n.name: (int(t.used[n.row, cpu]), int(t.idle[n.row, cpu]), int(t.fidle[n.row, cpu]),
                     int(t.pipelined[n.row, cpu]), int(t.releasing[n.row, cpu]), int(t.pods[n.row]))
            for n in t.nodes}
    tasks = {task.key: (task.status.name, task.node_name) for job in ssn.jobs.values() for task in job.tasks.values()}
    return {"rows": rows, "tasks": dict(sorted(tasks.items())), "jobs": sorted(ssn.jobs)}


ROWS = {"n1": (2000, 0, 0, 0, 0, 1), "n2": (2000, 0, 2000, 0, 2000, 1), "n3": (0, 2000, 2000, 0, 0, 0)}
"""Per node, cpu used, idle, future idle, pipelined, releasing, and the pod count: n1 holds the orphan's bind
in flight, n2 the releasing task (its cpu idle in the future), n3 nothing."""
BUILT: dict[str, Any] = {
    "rows": ROWS,
    "tasks": {"ns/run-0": ("Releasing", "n2"), "ns/w-0": ("Pending", "")},
    "jobs": ["ns/run", "ns/w"],
}


@pytest.mark.parametrize("way", WAYS)
def test_every_way_builds_the_same_model(way: str) -> None:
    ssn = _open(way)
    got = _model(ssn)
    assert got == BUILT
    assert ssn.table.block.tolist() == _open("reference").table.block.tolist()


@pytest.mark.parametrize("way", WAYS)
def test_every_way_decides_the_same(way: str) -> None:
    """``w-0`` binds to n3, the only node neither bound in flight nor releasing."""
    ssn = _open(way)
    decide(ssn, CONF)
    assert [(t.key, n) for t, n in ssn.binds] == [("ns/w-0", "n3")]
    assert _model(ssn)["rows"] == {**ROWS, "n3": (2000, 0, 0, 0, 0, 1)}


def test_a_discarded_pipelined_placement_leaves_no_trace_in_the_outcome() -> None:
    """A gang of two 2-cpu pods with a preferred pod affinity term (so its statement is not the quiet kind) on
    one 2-cpu node held by a terminating pod: ``g-0`` is pipelined onto it, ``g-1`` fits nowhere, the statement
    is discarded: nothing bound or pipelined, both tasks Pending, the PodGroup Inqueue with no running count, and
    each pod's condition says why (the pipelined one's nominated reason kept from its last transaction)."""
    from tests.scheduler.harness import run

    aff = {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "podAffinityTerm": {
        "labelSelector": {"matchLabels": {"app": "x"}}, "topologyKey": "kubernetes.io/hostname"}}]}}
    r = run(CONF, nodes=[node("n1", res(2, "4Gi"))], queues=[queue("q")],
            podgroups=[pg("old", "ns", "q", 1, "Running"), pg("g", "ns", "q", 2)],
            pods=[pod("ns", "old-0", group="old", node_name="n1", phase="Running", req=res(2, "1Gi"), deleting=True),
                  *[pod("ns", f"g-{i}", group="g", req=res(2, "1Gi"), affinity=aff, labels={"app": "x"})
                    for i in range(2)]])
    assert (r.binds, r.pipelined("ns/g"), r.statuses("ns/g")) == ({}, [], {"Pending": 2})
    fit_error = "0/1 nodes are unavailable: 1 Insufficient cpu."
    assert r.outcome.statuses["ns/g"] == {"phase": "Inqueue", "conditions": [{
        "type": "Unschedulable", "status": "True", "transitionID": "session-1",
        "lastTransitionTime": "2024-01-01T00:00:00Z", "reason": "NotEnoughResources",
        "message": "2/2 tasks in gang unschedulable: pod group is not ready, 2 Pending, 2 minAvailable; Pending: 2 "
                   f"Unschedulable. Origin reason is g-1: {fit_error}"}]}
    assert [(t.key, c, n) for t, c, n in r.outcome.pod_conditions] == [
        ("ns/g-0", {"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                    "message": "Pod ns/g-0 can possibly be assigned to n1, once resource is released and "
                               "minAvailable is satisfied"}, ""),
        ("ns/g-1", {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": fit_error}, ""),
    ]
    assert {n.name: int(r.session.table.pipelined[n.row, 0]) for n in r.session.table.nodes} == {"n1": 0}
