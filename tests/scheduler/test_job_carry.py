"""Jobs carried across sessions (``framework.carry``) are exactly the jobs a session builds.

Random clusters (gangs arriving with random sizes, requests, priorities and
queues; single pods of the default scheduler; pods finishing, failing and being deleted; nodes added and removed;
queues created and reweighted; priority classes, a global default one coming and going;
best-effort gangs; pods with pod affinity or anti-affinity terms; PodGroups changed in
place, and deleted and created again with their pods staying, within one cycle or across
cycles) are run cycle by cycle with
the default configuration, with preempt and reclaim, and with capacity in proportion's
place. Two properties:

* model: at every session the scheduler opens, the carried model (jobs in
  order, every job field and counter, every task's fields and order, the node
  table's columns, change list and per-node task order) equals a model built
  from scratch from the same snapshot, whether the carry followed the cache's
  delta (``JobCarry.follow``: only changed jobs taken) or took every job;
* streams: every watch event of every kind (Pods, PodGroups, Events, Queues,
  Nodes, ...), the decision trace and the scheduler's metrics are identical
  with ``reuse`` on and off.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import volcano.scheduler.cache.cache as cache_module
import volcano.scheduler.scheduler as scheduler_module
from tests.scheduler.harness import derived_conf_text
from tests.sim.scenarios import _metrics
from volcano.api.kinds import KINDS
from volcano.conformance.lib.builders import pod, pod_group, priority_class, queue
from volcano.scheduler.config import DEFAULT_SCHEDULER_CONF_TEXT
from volcano.scheduler.framework.job import JobInfo
from volcano.scheduler.framework.session import Session
from volcano.scheduler.framework.snapshot import object_key
from volcano.scheduler.framework.task import TaskInfo
from volcano.testbed import FakeCluster


def _preempt_conf() -> str:
    """Volcano's default configuration with preempt and reclaim, and binpack in the second tier."""
    data = yaml.safe_load(derived_conf_text(DEFAULT_SCHEDULER_CONF_TEXT,
                                            actions="enqueue, allocate, preempt, reclaim, backfill"))
    data["tiers"][1]["plugins"].append({"name": "binpack"})
    return str(yaml.safe_dump(data, sort_keys=False))


PREEMPT_CONF = _preempt_conf()


def _capacity_conf() -> str:
    """Volcano's default configuration with preempt and reclaim, capacity in proportion's place."""
    data = yaml.safe_load(PREEMPT_CONF)
    for tier in data["tiers"]:
        for plugin in tier["plugins"]:
            if plugin["name"] == "proportion":
                plugin["name"] = "capacity"
    return str(yaml.safe_dump(data, sort_keys=False))


CONFS: dict[str, str | None] = {"default": None, "preempt": PREEMPT_CONF, "capacity": _capacity_conf()}

_JOB_SLOTS = [s for s in JobInfo.__slots__ if s not in ("memo", "_moves", "tasks", "status_counts", "_role_status",
                                                       "_role_be_pending", "allocated", "fit_errors", "closed")]


def _counter(c: Any) -> list[tuple[Any, int]]:
    return list(c.items())


def _task_view(t: TaskInfo) -> tuple[Any, ...]:
    return (t.spec, t.uid, t.vec.tolist(), t.vec.dtype.str, t.status, t.node_name, t.eviction_occurred, t.last_txn,
            None if t.job is None else t.job.uid)


def _job_view(job: JobInfo) -> tuple[Any, ...]:
    tasks = [(uid, t.spec, t.uid, t.vec.tolist(), t.vec.dtype.str, t.status, t.node_name, t.eviction_occurred,
              t.last_txn, t.job is job) for uid, t in job.tasks.items()]
    return (tuple(getattr(job, s) for s in _JOB_SLOTS), _counter(job.status_counts), _counter(job._role_status),
            _counter(job._role_be_pending), job.allocated.tolist(), job.allocated.dtype.str, list(job.fit_errors),
            tasks, job.moved)


def _attrs_view(plugin: Any) -> list[Any]:
    """A quota plugin's queue attributes as opened, dict key order and value types included."""
    out = []
    for name, attr in plugin.attrs.items():
        parts = [attr.allocated, attr.request, attr.inqueue, attr.elastic, attr.quota.deserved, attr.quota.request,
                 attr.quota.real or {}]
        out.append((name, attr.share, [[(k, v, type(v).__name__) for k, v in d.items()] for d in parts]))
    return out


def assert_same_model(carried: Session, built: Session) -> None:
    """Every part of the session model the two sessions opened with is equal."""
    assert list(carried.jobs) == list(built.jobs)
    for uid, job in carried.jobs.items():
        assert _job_view(job) == _job_view(built.jobs[uid]), uid
    a, b = carried.table, built.table
    for col in ("alloc", "used", "releasing", "pipelined", "idle", "fidle", "pods", "max_pods"):
        assert np.array_equal(getattr(a, col), getattr(b, col)), col
        assert getattr(a, col).dtype == getattr(b, col).dtype
    assert a.changes == b.changes
    assert (a.with_terms, a.with_anti, a.anti_rows) == (b.with_terms, b.with_anti, b.anti_rows)
    for t in (a, b):  # the bounds: 0 only when no placed task has such terms
        assert (t.with_terms == 0) <= all(not x.spec.terms for n in t.nodes for x in n.tasks.values())
        assert (t.with_anti == 0) <= all(not x.spec.pod_anti_affinity for n in t.nodes for x in n.tasks.values())
    assert [(n.name, n.row, n.spec, list(n.tasks)) for n in a.nodes] == \
        [(n.name, n.row, n.spec, list(n.tasks)) for n in b.nodes]
    assert a.by_name == {n.name: n for n in a.nodes}
    for x, y in zip(a.nodes, b.nodes, strict=True):  # the same tasks, as built
        assert [_task_view(t) for t in x.tasks.values()] == [_task_view(t) for t in y.tasks.values()], x.name
    for t in (a, b):  # anti_rows: exactly the rows holding tasks with required anti-affinity terms
        assert t.anti_rows == {n.row: k for n in t.nodes
                               if (k := sum(1 for x in n.tasks.values() if x.spec.pod_anti_affinity))}
    for node in a.nodes:
        for uid, task in node.tasks.items():
            job = task.job
            assert job is None or job.tasks.get(uid) is task
    assert carried.total.tolist() == built.total.tolist()
    for name in ("proportion", "capacity"):
        if name in carried.plugins:
            assert _attrs_view(carried.plugins[name]) == _attrs_view(built.plugins[name]), name
    assert [pg for pg, _ in carried.unusable] == [pg for pg, _ in built.unusable]


@dataclass
class Checked:
    """Counts of what the model check saw."""

    sessions: int = 0
    carried: int = 0
    built: int = 0
    restored: list[int] = field(default_factory=list)
    rows_updated: int = 0
    rows_built: int = 0
    followed: int = 0
    visited: int = 0
    renewed: int = 0


def assert_same_groups(snapshot: Any) -> None:
    """The cache's task groups and per-job overrides are the snapshot's tasks grouped in order."""
    groups: dict[str, list[Any]] = {}
    by_job: dict[str, dict[str, Any]] = {}
    for spec in snapshot.tasks:
        groups.setdefault(spec.job_id, []).append(spec)
        if spec.uid in snapshot.overrides:
            by_job.setdefault(spec.job_id, {})[spec.uid] = snapshot.overrides[spec.uid]
    assert snapshot.members is not None and snapshot.overrides_by_job is not None
    assert {k: [id(x) for x in v] for k, v in snapshot.members.items()} == \
        {k: [id(x) for x in v] for k, v in groups.items()}
    assert snapshot.overrides_by_job == by_job
    seqs = [spec.seq for spec in snapshot.tasks]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs) and all(x >= 0 for x in seqs)
    assert snapshot.unique_uids == (len({spec.uid for spec in snapshot.tasks}) == len(snapshot.tasks))
    delta = snapshot.delta  # the changed PodGroups by cache key, as in the snapshot; those created since are its tail
    if delta is None:  # more changed than the cache tells (``_DELTA_CAP``)
        return
    keys = [object_key(pg) for pg, _ in snapshot.podgroups]
    assert len(set(keys)) == len(keys)
    assert keys[len(keys) - len(delta.entered):] == list(delta.entered)
    assert set(delta.entered) <= set(delta.entries) <= set(delta.podgroups)
    assert {k: (id(pg), prio) for k, (pg, prio) in delta.entries.items()} == \
        {k: (id(pg), prio) for k, (pg, prio) in zip(keys, snapshot.podgroups) if k in delta.podgroups}


def _checking_session(checked: Checked) -> Callable[..., Session]:
    """A ``Session`` factory for the scheduler module: each carried session is compared with one
    built from scratch (reuse on, nothing carried) from the same snapshot, before any action runs."""
    real = Session

    def make(snapshot: Any, conf: Any, registry: Any, **kwargs: Any) -> Session:
        carry = kwargs.get("carry")
        before = (carry.carried, carry.built, carry.rows_updated, carry.rows_built, carry.followed, carry.visited,
                  carry.renewed) if carry is not None else (0, 0, 0, 0, 0, 0, 0)
        assert_same_groups(snapshot)
        ssn = real(snapshot, conf, registry, **kwargs)
        if kwargs.get("reuse", True) and carry is not None:
            ref_kwargs = {k: v for k, v in kwargs.items() if k not in ("carry", "trace", "metrics")}
            ref = real(snapshot, conf, registry, **ref_kwargs)
            assert_same_model(ssn, ref)
            checked.sessions += 1
            checked.carried += carry.carried - before[0]
            checked.built += carry.built - before[1]
            checked.rows_updated += carry.rows_updated - before[2]
            checked.rows_built += carry.rows_built - before[3]
            checked.followed += carry.followed - before[4]
            checked.visited += carry.visited - before[5]
            checked.renewed += carry.renewed - before[6]
        return ssn

    return make


# -- random clusters ---------------------------------------------------------------------------

_gang = st.tuples(st.just("gang"), st.integers(1, 5), st.integers(0, 5), st.sampled_from(["500m", "1", "2", "3"]),
                  st.sampled_from(["default", "q0", "q1"]), st.sampled_from([None, "5s", "20s", "60s", "300s"]),
                  st.sampled_from([None, "high", "low"]), st.booleans())
_op = st.one_of(
    _gang,
    st.tuples(st.just("plain"), st.sampled_from(["500m", "2", "5"]), st.sampled_from(["default-scheduler", "volcano"]),
              st.sampled_from([None, "10s", "60s"])),
    st.tuples(st.just("delete_pod"), st.integers(0, 1000)),
    st.tuples(st.just("delete_group"), st.integers(0, 1000)),
    st.tuples(st.just("add_node"), st.sampled_from(["2", "4", "8"])),
    st.tuples(st.just("remove_node"), st.integers(0, 1000)),
    st.tuples(st.just("queue"), st.sampled_from(["q0", "q1"]), st.integers(1, 4)),
    st.tuples(st.just("run"), st.integers(500, 40_000)),
    st.tuples(st.just("be_gang"), st.integers(1, 3), st.sampled_from([None, "20s"])),
    st.tuples(st.just("affine"), st.booleans(), st.sampled_from([None, "30s"])),
    st.tuples(st.just("drop_group"), st.integers(0, 1000)),
    st.tuples(st.just("late_group"), st.integers(1, 3)),
    st.tuples(st.just("touch_group"), st.integers(0, 1000), st.integers(1, 4)),
    st.tuples(st.just("recreate_group"), st.integers(0, 1000), st.sampled_from([0, 0, 1000])),
    st.tuples(st.just("default_class"), st.sampled_from([None, 5, 2000])),
)
scenarios = st.tuples(st.integers(1, 4), st.lists(_op, min_size=3, max_size=18), st.sampled_from(sorted(CONFS)))


def _play(cluster: FakeCluster, nodes: int, ops: list[tuple[Any, ...]]) -> list[str]:
    """Run ``ops`` on ``cluster``; returns what each refused op said (part of the outcome)."""
    notes: list[str] = []
    cluster.add_nodes(nodes, cpu="4", memory="16Gi")
    cluster.apply([priority_class("high", 1000), priority_class("low", 10)])
    groups: list[str] = []
    for i, op in enumerate(ops):
        try:
            _do(cluster, i, op, groups)
        except Exception as exc:  # a refused step is part of the outcome
            notes.append(f"{cluster.clock.now_ms} op {i} {type(exc).__name__}: {exc}")
        cluster.clock.run(cluster.clock.now_ms + 1000)
    cluster.clock.run(cluster.clock.now_ms + 120_000)
    return notes


def _do(cluster: FakeCluster, i: int, op: tuple[Any, ...], groups: list[str]) -> None:
    kind = op[0]
    if kind == "gang":
        _, n, extra_min, cpu, q, duration, prio, one_failing = op
        name = f"g{i}"
        groups.append(name)
        objs: list[dict[str, Any]] = [pod_group(name, min_member=max(1, n - extra_min), queue=q,
                                                priority_class=prio)]
        for k in range(n):
            objs.append(pod(f"{name}-{k}", group=name, req={"cpu": cpu}, duration=duration,
                            exit_code=1 if one_failing and k == 0 else 0, priority_class=prio))
        cluster.apply(objs)
    elif kind == "plain":
        cluster.apply(pod(f"p{i}", req={"cpu": op[1]}, scheduler=op[2], duration=op[3]))
    elif kind == "delete_pod":
        pods = sorted(p["metadata"]["name"] for p in cluster.list("Pod"))
        if pods:
            cluster.delete("Pod", pods[op[1] % len(pods)])
    elif kind == "delete_group" and groups:
        name = groups[op[1] % len(groups)]
        for p in cluster.list("Pod"):
            if p["metadata"]["name"].startswith(f"{name}-"):
                cluster.delete("Pod", p["metadata"]["name"])
        cluster.delete("PodGroup", name)
    elif kind == "add_node":
        cluster.add_nodes(1, prefix="extra-", cpu=op[1], memory="16Gi")
    elif kind == "remove_node":
        nodes = sorted(n["metadata"]["name"] for n in cluster.list("Node"))
        if len(nodes) > 1:
            cluster.delete("Node", nodes[op[1] % len(nodes)])
    elif kind == "queue":
        cluster.apply(queue(op[1], weight=op[2]))
    elif kind == "run":
        cluster.clock.run(cluster.clock.now_ms + op[1])
    elif kind == "be_gang":  # best-effort pods (no requests): what backfill places
        name = f"b{i}"
        groups.append(name)
        members = [pod(f"{name}-{k}", group=name, duration=op[2]) for k in range(op[1])]
        for member in members:
            for container in member["spec"]["containers"]:
                del container["resources"]
        cluster.apply([pod_group(name, min_member=op[1]), *members])
    elif kind == "drop_group" and groups:  # the PodGroup goes, its pods stay: they are placed without a job
        name = groups[op[1] % len(groups)]
        if any(pg["metadata"]["name"] == name for pg in cluster.list("PodGroup")):
            cluster.delete("PodGroup", name)
    elif kind == "late_group":  # pods first, their PodGroup a second later
        name = f"l{i}"
        groups.append(name)
        cluster.apply([pod(f"{name}-{k}", group=name, req={"cpu": "1"}, duration="30s") for k in range(op[1])])
        cluster.clock.run(cluster.clock.now_ms + 1000)
        cluster.apply(pod_group(name, min_member=op[1]))
    elif kind in ("touch_group", "recreate_group") and groups:  # changed in place / deleted and created again
        name = groups[op[1] % len(groups)]
        found = [pg for pg in cluster.list("PodGroup") if pg["metadata"]["name"] == name]
        if found:
            spec = found[0]["spec"]
            again = pod_group(name, min_member=op[2] if kind == "touch_group" else spec["minMember"],
                              queue=spec.get("queue") or "default", priority_class=spec.get("priorityClassName"))
            if kind == "recreate_group":
                cluster.delete("PodGroup", name)
                if op[2]:
                    cluster.clock.run(cluster.clock.now_ms + op[2])
            cluster.apply(again)
    elif kind == "default_class":  # a global default class comes (with its value) or goes: priorities move
        if op[1] is None:
            if any(pc["metadata"]["name"] == "dflt" for pc in cluster.list("PriorityClass")):
                cluster.delete("PriorityClass", "dflt")
        else:
            cluster.apply(priority_class("dflt", op[1], global_default=True))
    elif kind == "affine":  # pod (anti-)affinity terms: the node table's term bounds move
        term = {"labelSelector": {"matchLabels": {"app": "a"}}, "topologyKey": "kubernetes.io/hostname"}
        affinity = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}} if op[1] else \
            {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 10, "podAffinityTerm": term}]}}
        p = pod(f"a{i}", req={"cpu": "1"}, labels={"app": "a"}, duration=op[2])
        p["spec"]["affinity"] = affinity
        cluster.apply(p)


def watch_streams(cluster: FakeCluster) -> list[str]:
    """Every later watch event of the kinds a scheduling run writes, as sorted JSON text, in order."""
    streams: list[str] = []
    for info in KINDS:
        if info.kind in ("Pod", "PodGroup", "Event", "Queue", "Node", "PriorityClass"):
            cluster.client.watch(info.kind, lambda ev, k=info.kind: streams.append(
                json.dumps([k, ev.type, ev.object], sort_keys=True, default=str)))
    return streams


def _run(nodes: int, ops: list[tuple[Any, ...]], conf: str, reuse: bool) -> tuple[Any, ...]:
    cluster = FakeCluster(seed=1, scheduler_conf=CONFS[conf])
    cluster.scheduler.reuse = reuse
    cluster.default_scheduler.reuse = reuse
    streams = watch_streams(cluster)
    notes = _play(cluster, nodes, ops)
    return streams, cluster.trace.lines() + notes, _metrics(cluster), cluster.scheduler.cycles


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios, st.sampled_from([256, 256, 1]))
def test_a_carried_model_equals_a_built_one(scenario: tuple[int, list[Any], str], cap: int) -> None:
    """(``cap``: the cache's delta cap; at 1 most bursts overflow, and the carry takes every job.)"""
    nodes, ops, conf = scenario
    checked = Checked()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(scheduler_module, "Session", _checking_session(checked))
        mp.setattr(cache_module, "_DELTA_CAP", cap)
        cluster = FakeCluster(seed=1, scheduler_conf=CONFS[conf])
        _play(cluster, nodes, ops)
    assert checked.sessions > 0


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios)
def test_watch_streams_trace_and_metrics_are_the_same_with_and_without_reuse(
        scenario: tuple[int, list[Any], str]) -> None:
    nodes, ops, conf = scenario
    fast = _run(nodes, ops, conf, reuse=True)
    slow = _run(nodes, ops, conf, reuse=False)
    assert fast[0] == slow[0]
    assert fast[1] == slow[1]
    assert fast[2] == slow[2]
    assert fast[3] == slow[3]


def test_jobs_are_carried_and_restored_in_a_busy_cluster() -> None:
    """The property tests above are not vacuous: across a run with waiting gangs (tried and
    discarded every cycle), running jobs and arrivals, most jobs are carried, some of them
    restored after their tasks moved, and every carried session matched a built one."""
    checked = Checked()
    ops: list[tuple[Any, ...]] = [("gang", 3, 0, "1", "default", "60s", None, False),
                                  ("gang", 4, 0, "3", "q0", None, "high", False),
                                  ("queue", "q0", 2),
                                  ("gang", 2, 1, "2", "default", "20s", "low", True),
                                  ("run", 5000), ("add_node", "8"), ("remove_node", 0),
                                  ("gang", 5, 0, "3", "q0", "300s", None, False), ("run", 30_000)]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(scheduler_module, "Session", _checking_session(checked))
        cluster = FakeCluster(seed=1, scheduler_conf=PREEMPT_CONF)
        _play(cluster, 2, ops)
        carry = cluster.scheduler._carry
    assert checked.sessions >= 5
    assert checked.carried > checked.built > 0
    assert carry.restored > 0
    assert checked.rows_updated > checked.rows_built > 0
    assert checked.followed > 0 and checked.visited < checked.carried  # most sessions look at changed jobs only


def test_a_waiting_gang_whose_pods_and_podgroup_the_close_rewrites_is_carried_renewed() -> None:
    """A gang too large for the cluster waits while single pods come and go: every change of the
    nodes' usage moves its fit message, so each close rewrites its pods' ``PodScheduled``
    condition and its PodGroup's Unschedulable condition. The next session carries the job with
    the renewed pod parses and PodGroup (``JobCarry.renewed``) instead of building it again, and
    every such session's model equals one built from scratch; the writes, events and trace are
    the same with reuse off."""
    ops: list[tuple[Any, ...]] = [("gang", 5, 0, "3", "default", None, None, False),
                                  ("plain", "2", "volcano", "10s"), ("run", 4000),
                                  ("plain", "500m", "volcano", "10s"), ("run", 12_000),
                                  ("plain", "5", "volcano", "60s"), ("run", 30_000)]
    checked = Checked()
    checking = _checking_session(checked)
    gangs: list[JobInfo] = []

    def make(*args: Any, **kwargs: Any) -> Session:
        ssn = checking(*args, **kwargs)
        if "default/g0" in ssn.jobs:
            gangs.append(ssn.jobs["default/g0"])
        return ssn

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(scheduler_module, "Session", make)
        cluster = FakeCluster(seed=1)
        _play(cluster, 2, ops)
    assert checked.renewed > 0 and checked.sessions > checked.renewed
    # One job object for the gang, but where its phase moved (a new parse of another phase):
    assert len(gangs) > 10 and len({id(job) for job in gangs}) <= 2
    pods = [p for p in cluster.list("Pod") if p["metadata"]["name"].startswith("g0-")]
    assert pods and all(any(c.get("type") == "PodScheduled" and c.get("status") == "False"
                            for c in p["status"].get("conditions") or ()) for p in pods)
    fast = _run(2, ops, "default", reuse=True)
    slow = _run(2, ops, "default", reuse=False)
    assert fast == slow


def test_the_default_scheduler_scans_only_while_a_pod_needs_it() -> None:
    """Its cycles return at once while no pod waits for it (reuse), and place a pod that does."""
    cluster = FakeCluster(seed=1)
    cluster.add_nodes(1, cpu="4", memory="16Gi")
    ds = cluster.default_scheduler
    cluster.apply(pod("v", req={"cpu": "1"}, scheduler="volcano"))
    cluster.run(3)
    assert not ds._attention
    cluster.apply(pod("d", req={"cpu": "1"}, scheduler="default-scheduler"))
    assert ds._attention == {("default", "d")}
    cluster.run(3)
    assert cluster.get("Pod", "d")["spec"].get("nodeName") == "node-0" and not ds._attention
    cluster.apply(pod("big", req={"cpu": "9"}, scheduler="default-scheduler"))
    cluster.run(3)
    assert ds._attention == {("default", "big")}
    cluster.delete("Pod", "big")
    cluster.run(1)
    assert not ds._attention


def test_podgroups_changed_created_and_created_again_in_one_cycle_keep_the_cache_order() -> None:
    """Within one cycle: PodGroup a changed in place, c created, then a deleted and created again
    (its pods staying): the cache holds b, c, a, and the followed jobs are in that order (a
    replaced value would keep a's first place; appending in the order keys were first touched
    would put a before c). Every session matched a built one."""
    checked = Checked()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(scheduler_module, "Session", _checking_session(checked))
        cluster = FakeCluster(seed=1)
        cluster.add_nodes(2, cpu="4", memory="16Gi")
        for name in ("a", "b"):
            cluster.apply([pod_group(name, min_member=1), pod(f"{name}-0", group=name, req={"cpu": "1"})])
        cluster.clock.run(cluster.clock.now_ms + 5000)
        followed = checked.followed
        cluster.apply(pod_group("a", min_member=2))
        cluster.apply([pod_group("c", min_member=1), pod("c-0", group="c", req={"cpu": "1"})])
        cluster.delete("PodGroup", "a")
        cluster.apply(pod_group("a", min_member=1))
        cluster.clock.run(cluster.clock.now_ms + 5000)
        jobs = list(cluster.scheduler.last_session.jobs)
    assert jobs == ["default/b", "default/c", "default/a"]
    assert checked.followed > followed


def test_a_renewed_parse_compares_every_field_but_the_conditions() -> None:
    """``_renewed_parse`` compares a PodGroup parse's fields before its last, which must be its
    conditions: a field added after them would otherwise go unread."""
    from volcano.scheduler.framework.job import PodGroupParse

    assert PodGroupParse._fields[-1] == "conditions"
