"""Row-local selection results carried across sessions (``select.SELECT_CARRIED``) are the ones
worked out afresh.

A run of sessions over the same node specs and one ``shared`` store (as the scheduler cache
hands it while no node changes), each with other pods running, releasing or gone, and the
session's own placements in between: every signature's synced results (pass, fit Idle, score
per row) equal those of a session that works every row out (``reuse=False``), and
``select_node`` chooses what the full path chooses. A changed configuration or node list is
never served from the carried results."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.scheduler.framework.select_support import kind_pod, random_node
from volcano.scheduler.framework import select
from volcano.scheduler.framework.conf import PluginOption, SchedulerConf, Tier
from volcano.scheduler.framework.model import NodeSpec, QueueInfo, TaskInfo, TaskSpec
from volcano.scheduler.framework.resources import ResourceSpace
from volcano.scheduler.framework.select import SELECT_CARRIED, feasible, prioritize, select_node
from volcano.scheduler.framework.session import Session, Snapshot
from volcano.scheduler.plugins import default_registry

Obj = dict[str, Any]


def _conf(weight: int) -> SchedulerConf:
    return SchedulerConf(actions=("allocate",), tiers=(
        Tier((PluginOption("predicates", {}), PluginOption("nodeorder", {}, {"leastrequested.weight": weight}),
              PluginOption("binpack", {}))),))


def _session(conf: SchedulerConf, nodes: list[NodeSpec], pods: list[Obj], shared: dict[Any, Any],
             reuse: bool = True) -> Session:
    pgs: list[tuple[Mapping[str, Any], int]] = [
        ({"metadata": {"name": p["metadata"]["annotations"]["scheduling.k8s.io/group-name"], "namespace": "ns"},
          "spec": {"minMember": 1, "queue": "default"}, "status": {"phase": "Inqueue"}}, 0) for p in pods]
    snap = Snapshot(space=ResourceSpace(), nodes=nodes, podgroups=pgs, tasks=[TaskSpec(p) for p in pods],
                    queues=[QueueInfo({"metadata": {"name": "default"}, "spec": {"weight": 1}})], shared=shared)
    return Session(snap, conf, default_registry(), reuse=reuse)


def _pending(ssn: Session) -> list[TaskInfo]:
    return sorted((t for j in ssn.jobs.values() for t in j.tasks.values() if not t.node_name), key=lambda t: t.uid)


def _running(rng: random.Random, nodes: list[NodeSpec], count: int) -> list[Obj]:
    """Pods on nodes (some releasing), then pending ones of every kind."""
    pods = []
    for i in range(count):
        pods.append(kind_pod(i, rng.randrange(6), node=rng.choice(nodes).name, phase="Running",
                         deleting=rng.random() < 0.2))
    return pods + [kind_pod(100 + k, k) for k in range(6)]


def _fresh(ssn: Session, task: TaskInfo) -> tuple[Any, Any, Any]:
    """Every row worked out for ``task`` (what ``_synced`` computes for a new signature without carry)."""
    table = ssn.table
    rows = np.arange(len(table), dtype=np.intp)
    d = task.spec.dims()
    need = task.vec[d]
    ok = ssn.predicate_rows(task, rows) & (table.fidle[:, d] >= need).all(axis=1)
    idle = (table.idle[:, d] >= need).all(axis=1)
    return ok, idle, ssn.node_scores(task, rows)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 100_000))
def test_carried_results_are_the_fresh_ones(seed: int) -> None:
    rng = random.Random(seed)
    nodes = [NodeSpec(random_node(i, rng)) for i in range(rng.randint(1, 25))]
    conf = _conf(1)
    shared: dict[Any, Any] = {}
    carried = 0
    for _ in range(5):
        pods = _running(rng, nodes, rng.randint(0, 40))
        ssn = _session(conf, nodes, pods, shared)
        ref = _session(conf, nodes, pods, {}, reuse=False)
        before = dict(shared.get(SELECT_CARRIED, {}))
        for task, twin in zip(_pending(ssn), _pending(ref), strict=True):
            if not ssn.rows_local(task):
                continue
            carried += task.spec.sched_sig in before and not task.spec.host_ports
            state = select._synced(ssn, task)
            ok, idle, scores = _fresh(ref, twin)
            assert np.array_equal(state.ok, ok) and np.array_equal(state.idle, idle)
            assert np.array_equal(state.scores, scores)
            rows, _ = feasible(ref, twin)
            expected = prioritize(ref, twin, rows) if len(rows) else None
            got, _ = select_node(ssn, task)
            assert got == expected
            if got is not None and rng.random() < 0.5:  # the session's own placement, on both
                ssn.do_allocate(task, ssn.nodes[got])
                ref.do_allocate(twin, ref.nodes[got])
    assert carried > 0  # the carried results were served


def test_a_new_configuration_or_node_list_is_not_served_carried() -> None:
    rng = random.Random(3)
    nodes = [NodeSpec(random_node(i, rng)) for i in range(6)]
    shared: dict[Any, Any] = {}
    pods = _running(rng, nodes, 5)
    first = _session(_conf(1), nodes, pods, shared)
    task = _pending(first)[0]
    select._synced(first, task)
    entry = shared[SELECT_CARRIED][task.spec.sched_sig]
    # A session of another configuration works every row out and leaves its own results.
    other = _session(_conf(2), nodes, pods, shared)
    twin = _pending(other)[0]
    state = select._synced(other, twin)
    assert np.array_equal(state.scores, _fresh(other, twin)[2])
    assert shared[SELECT_CARRIED][twin.spec.sched_sig] is not entry
    # So does a session over other node objects (equal content, new parses).
    renewed = [NodeSpec(n.obj) for n in nodes]
    third = _session(_conf(2), renewed, pods, shared)
    assert not select._Carrying(third).same_specs(shared[SELECT_CARRIED][twin.spec.sched_sig].specs)


def test_only_recently_refreshed_signatures_are_kept() -> None:
    rng = random.Random(5)
    nodes = [NodeSpec(random_node(i, rng)) for i in range(3)]
    shared: dict[Any, Any] = {}
    ssn = _session(_conf(1), nodes, [], shared)
    for k in range(select._CARRIED_MAX + 5):
        spec = TaskSpec(kind_pod(k, 0) | {"spec": {"schedulerName": "volcano", "containers": [
            {"name": "c", "resources": {"requests": {"cpu": f"{k + 1}m"}}}]}})
        task = TaskInfo(spec, spec.vec(ssn.space))
        select._synced(ssn, task)
    kept = shared[SELECT_CARRIED]
    assert len(kept) == select._CARRIED_MAX
    assert dict(next(iter(kept))[2])["cpu"] == 6  # the five first in were dropped
