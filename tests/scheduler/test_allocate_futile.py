"""Replayed futile allocate visits (``actions.futile``) decide exactly as placing them again.

Random clusters (node shapes, cordoned and tainted nodes, running and terminating
pods, some with a required pod anti-affinity term against labelled gang pods, two
queues) with gangs that often cannot all fit are scheduled session after
session, with the memo (``reuse=True``, jobs carried across sessions as the
scheduler carries them) and on the reference path (``reuse=False``). Between
sessions the binds of the last one become running pods and its pod condition
writes new pod versions (parsed as the cache parses a status write), and at random nothing
else changes, a running pod ends, a pod arrives on a node, a queue is reweighted (or capped),
a gang arrives, or a node is replaced (which empties the cross-session store, as
the scheduler cache does). At every session every task's status, node, last
transaction and ``eviction_occurred``, every job's fit errors in their order and
whether it moved, every bind, and the whole session close (PodGroup status,
events, pod conditions and their messages, queue allocation) and what the plugins'
allocation event handlers keep (proportion, drf) must be the same.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.scheduler.harness import node, pg, pod, queue, random_node, res
from volcano.scheduler.actions import default_actions, futile
from volcano.scheduler.cache.cache import rebound
from volcano.scheduler.framework.carry import JobCarry
from volcano.scheduler.framework.conf import PluginOption, SchedulerConf, Tier
from volcano.scheduler.framework.model import NodeSpec, QueueInfo, TaskSpec
from volcano.scheduler.framework.plugin import Arguments
from volcano.scheduler.framework.resources import ResourceSpace
from volcano.scheduler.framework.session import Session, Snapshot
from volcano.scheduler.framework.status import close_session
from volcano.scheduler.plugins import default_registry
from volcano.scheduler.plugins.drf import DrfPlugin
from volcano.scheduler.plugins.proportion import ProportionPlugin

Obj = dict[str, Any]
GPU = "nvidia.com/gpu"


def _conf(rng: random.Random) -> SchedulerConf:
    second = [PluginOption("predicates", {}, {"predicate.TaintTolerationEnable": rng.random() < 0.8})]
    if rng.random() < 0.7:
        second.insert(0, PluginOption("drf", {}, {}))
    if rng.random() < 0.8:  # now and then without its ALLOCATABLE (then nobody answers it)
        second.append(PluginOption("proportion", {"enabledAllocatable": False} if rng.random() < 0.2 else {}, {}))
    second.append(PluginOption("nodeorder", {}, {"balancedresource.weight": rng.choice([0, 1])}))
    if rng.random() < 0.5:
        second.append(PluginOption("binpack", {}, {"binpack.resources": GPU, f"binpack.resources.{GPU}": 2}))
    first = (PluginOption("priority", {}, {}), PluginOption("gang", {}, {}), PluginOption("conformance", {}, {}))
    return SchedulerConf(("allocate",), (Tier(first), Tier(tuple(second))))


def _request(rng: random.Random) -> dict[str, str]:
    gpu = rng.choice([0, 1, 2, 4, 8])
    return res(rng.choice(["500m", "1", "2", "4"]), rng.choice(["512Mi", "1Gi", "4Gi"]),
               **({GPU.replace("/", "__"): gpu} if gpu else {}))


def _queue(rng: random.Random, name: str) -> QueueInfo:
    """A queue of weight 1 to 4, now and then capped (so that ALLOCATABLE says no at times)."""
    gpu = {"nvidia__com/gpu": rng.choice([2, 4, 8, 16])}
    cap = res(rng.choice([2, 4, 8, 16]), rng.choice(["4Gi", "64Gi"]), **gpu) if rng.random() < 0.4 else None
    return QueueInfo(queue(name, rng.randint(1, 4), cap))


_ANTI: Obj = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
    {"labelSelector": {"matchLabels": {"app": "gang"}}, "topologyKey": "kubernetes.io/hostname"}]}}
"""A running pod's required anti-affinity against the pods of gangs labelled ``app=gang``."""


class _World:
    """The cluster as the cache would hand it to sessions: parsed objects kept while unchanged."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.space = ResourceSpace()
        self.shared: dict[Any, Any] = {}
        self.node_objs: list[Obj] = []
        for i in range(rng.randint(1, 10)):
            self.node_objs.append(random_node(rng, f"n{i:02d}"))
        self.nodes = [NodeSpec(n) for n in self.node_objs]
        self.queues = [_queue(rng, "q1"), _queue(rng, "q2")]
        self.groups: list[Obj] = [pg("running", "ns", "q1", 1, phase="Running")]
        self.pods: dict[str, TaskSpec] = {}
        self.serial = 0
        for _ in range(rng.randint(0, 12)):
            self.arrive(deleting=rng.random() < 0.3)
        for _ in range(rng.randint(1, 4)):
            self.gang()

    def arrive(self, deleting: bool = False) -> None:
        """A running pod on a random node; now and then one with a required pod anti-affinity term
        against the gangs' pods (placed pods' terms make the tasks non-row-local: no memo then)."""
        self.serial += 1
        host = self.rng.choice(self.node_objs)["metadata"]["name"]
        anti = _ANTI if self.rng.random() < 0.15 else None
        p = pod("ns", f"run-{self.serial}", group="running", node_name=host, phase="Running",
                req=_request(self.rng), deleting=deleting, affinity=anti)
        self.pods[p["metadata"]["name"]] = TaskSpec(p)

    def gang(self) -> None:
        rng = self.rng
        self.serial += 1
        name = f"g{self.serial}"
        size = rng.randint(1, 16)
        shapes = [_request(rng)] if rng.random() < 0.7 else [_request(rng), _request(rng)]
        self.groups.append(pg(name, "ns", rng.choice(["q1", "q2"]), rng.randint(max(1, size // 2), size)))
        labels = {"app": "gang"} if rng.random() < 0.5 else None
        for k in range(size):
            p = pod("ns", f"{name}-{k}", group=name, req=rng.choice(shapes), priority=rng.choice([None, 10]),
                    labels=labels)
            if rng.random() < 0.04:
                p["status"]["nominatedNodeName"] = rng.choice(self.node_objs)["metadata"]["name"]
            self.pods[p["metadata"]["name"]] = TaskSpec(p)

    def snapshot(self, shared: dict[Any, Any]) -> Snapshot:
        groups: list[tuple[Mapping[str, Any], int]] = [(g, 0) for g in self.groups]
        return Snapshot(self.space, list(self.nodes), groups, list(self.pods.values()), list(self.queues),
                        shared=shared)

    def bound(self, binds: list[tuple[str, str]]) -> None:
        """The session's binds happened: those pods now run on their nodes."""
        for key, host in binds:
            name = key.split("/", 1)[1]
            p = dict(self.pods[name].pod)
            p["spec"] = {**p["spec"], "nodeName": host}
            p["status"] = {**p["status"], "phase": "Running"}
            self.pods[name] = TaskSpec(p)

    def written(self, conditions: list[tuple[str, Any, str]]) -> None:
        """The session's pod condition writes happened: new pod versions, parsed as the cache
        parses a status write (``rebound``: the same parse, node, status and nominated node read
        again)."""
        for key, cond, nominated in conditions:
            name = key.split("/", 1)[1]
            old = self.pods[name]
            p = dict(old.pod)
            p["status"] = {**p["status"], "conditions": [dict(cond)],
                           **({"nominatedNodeName": nominated} if nominated else {})}
            self.pods[name] = rebound(old, p) or TaskSpec(p)

    def change(self) -> None:
        """Nothing (most often), or one change of the cluster."""
        rng = self.rng
        kind = rng.choice(["same", "same", "same", "finish", "arrive", "queue", "queue", "gang", "node"])
        if kind == "finish":
            running = sorted(n for n, s in self.pods.items() if s.node_name)
            if running:
                del self.pods[rng.choice(running)]
        elif kind == "arrive":
            self.arrive()
        elif kind == "queue":
            i = rng.randrange(len(self.queues))
            self.queues[i] = _queue(rng, self.queues[i].name)
        elif kind == "gang":
            self.gang()
        elif kind == "node":
            i = rng.randrange(len(self.nodes))
            self.nodes[i] = NodeSpec(self.node_objs[i])
            self.shared = {}


def _session(world: _World, conf: SchedulerConf, reuse: bool, carry: JobCarry | None, shared: dict[Any, Any],
             k: int) -> tuple[Any, ...]:
    ssn = Session(world.snapshot(shared), conf, default_registry(), uid=f"session-{k}", reuse=reuse, carry=carry)
    action = default_actions().get("allocate")
    assert action is not None
    action(Arguments({})).execute(ssn)
    tasks = [(t.key, t.status, t.node_name, t.last_txn, t.eviction_occurred)
             for j in ssn.jobs.values() for t in j.tasks.values()]
    jobs = [(j.uid, [(u, fe.error()) for u, fe in j.fit_errors.items()], j.moved) for j in ssn.jobs.values()]
    binds = [(t.key, n) for t, n in ssn.binds]
    out = close_session(ssn)
    closed = (sorted(out.statuses.items()), out.events, [(t.key, c, n) for t, c, n in out.pod_conditions],
              sorted(out.queues.items()), [(j.uid, s) for j, s in out.podgroups])
    return tasks, jobs, binds, closed, _listeners(ssn)


def _listeners(ssn: Session) -> tuple[Any, ...]:
    """What the allocation event handlers keep after the action: proportion's queue allocations
    (non-zero amounts) and shares, drf's per-job allocations."""
    out: list[Any] = []
    for plugin in ssn.plugins.values():
        if isinstance(plugin, ProportionPlugin):
            out.append(sorted((name, sorted((k, v) for k, v in attr.allocated.items() if v), plugin.share_of(name))
                              for name, attr in plugin.attrs.items()))
        elif isinstance(plugin, DrfPlugin):
            out.append(sorted((uid, alloc.tolist()) for uid, alloc in plugin.alloc.items()))
    return tuple(out)


def _run(seed: int, sessions: int) -> None:
    rng = random.Random(seed)
    world = _World(rng)
    conf = _conf(rng)
    carry = JobCarry()
    for k in range(sessions):
        fast = _session(world, conf, True, carry, world.shared, k)
        slow = _session(world, conf, False, None, {}, k)
        assert fast == slow, k
        world.bound(fast[2])
        world.written(fast[3][2])
        world.change()


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 1_000_000))
def test_replayed_visits_decide_exactly_as_the_reference_path(seed: int) -> None:
    _run(seed, 6)


def test_the_property_test_replays(monkeypatch: pytest.MonkeyPatch) -> None:
    """The property above is not vacuous: over its first seeds, visits are replayed (also after
    status writes gave the tasks new pod versions) and visits are recorded again after a change."""
    replayed: list[bool] = []
    original = futile.FutileMemo.replay

    def counting(self: futile.FutileMemo, *args: Any) -> bool:
        hit = original(self, *args)
        if self.enabled:  # the memo's path (the reference path has none)
            replayed.append(hit)
        return hit

    same: list[bool] = []
    parse = futile._same_parse
    monkeypatch.setattr(futile, "_same_parse", lambda a, b: same.append(parse(a, b)) or same[-1])
    monkeypatch.setattr(futile.FutileMemo, "replay", counting)
    for seed in range(30):
        _run(seed, 6)
    assert replayed.count(True) >= 20 and replayed.count(False) >= 20
    assert same.count(True) >= 20  # replays across status writes (new pod versions of one parse)


def test_the_property_test_replays_across_moved_rows_and_queues(monkeypatch: pytest.MonkeyPatch) -> None:
    """The finer checks are exercised: over the property's first seeds, visits are replayed although
    node rows moved since they were recorded (each moved row failing the gang alike before and after),
    and although the queue's allocation or share moved (the ALLOCATABLE answers worked out again and
    equal); both checks also refuse replays; and placed pods with anti-affinity terms occur."""
    seen: dict[str, list[bool]] = {"rows": [], "queue": []}
    anti: list[bool] = []
    table, queue_check = futile.FutileMemo._same_table, futile.FutileMemo._same_queue
    failures = futile.row_failures
    answers = futile.FutileMemo._answers
    called = {"rows": False, "queue": False}

    def row_failures(*args: Any) -> Any:
        called["rows"] = True
        return failures(*args)

    def same_table(self: futile.FutileMemo, *args: Any) -> bool:
        called["rows"] = False
        ok = table(self, *args)
        if called["rows"]:
            seen["rows"].append(ok)
        return ok

    def counted_answers(self: futile.FutileMemo, *args: Any) -> tuple[bool, ...]:
        called["queue"] = True
        return answers(self, *args)

    def same_queue(self: futile.FutileMemo, *args: Any) -> bool:
        called["queue"] = False
        ok = queue_check(self, *args)
        if called["queue"]:
            seen["queue"].append(ok)
        anti.append(bool(self.ssn.table.with_anti))
        return ok

    monkeypatch.setattr(futile, "row_failures", row_failures)
    monkeypatch.setattr(futile.FutileMemo, "_same_table", same_table)
    monkeypatch.setattr(futile.FutileMemo, "_answers", counted_answers)
    monkeypatch.setattr(futile.FutileMemo, "_same_queue", same_queue)
    for seed in range(150):
        _run(seed, 6)
    for name in ("rows", "queue"):
        assert seen[name].count(True) >= 5 and seen[name].count(False) >= 1, (name, seen[name])
    assert not any(anti)  # placed anti-affinity terms: never row-local, never replayed


def _waiting_gang() -> tuple[_World, SchedulerConf]:
    """Two 8-GPU nodes (4 GPUs taken by two running pods of queue q1), and a gang of 16 one-GPU
    pods in q1 (12 free slots: it never fits)."""
    gpu = {"nvidia__com/gpu": 8}
    world = _World(random.Random(0))
    world.node_objs = [node(f"n{i}", res(16, "64Gi", **gpu)) for i in range(2)]
    world.nodes = [NodeSpec(n) for n in world.node_objs]
    world.groups = [pg("running", "ns", "q1", 1, phase="Running"), pg("big", "ns", "q1", 16)]
    world.queues = [QueueInfo(queue("q1", 1)), QueueInfo(queue("q2", 1))]
    world.pods = {}
    for i in range(2):
        p = pod("ns", f"run-{i}", group="running", node_name="n0", phase="Running",
                req=res(1, "1Gi", **{"nvidia__com/gpu": 2}))
        world.pods[p["metadata"]["name"]] = TaskSpec(p)
    for k in range(16):
        p = pod("ns", f"big-{k}", group="big", req=res(1, "1Gi", **{"nvidia__com/gpu": 1}))
        world.pods[p["metadata"]["name"]] = TaskSpec(p)
    conf = SchedulerConf(("allocate",), (
        Tier((PluginOption("priority", {}, {}), PluginOption("gang", {}, {}))),
        Tier((PluginOption("drf", {}, {}), PluginOption("predicates", {}, {}),
              PluginOption("proportion", {}, {}), PluginOption("nodeorder", {}, {})))))
    return world, conf


def _count_replays(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Patch ``FutileMemo.replay`` to record each answer of an enabled memo; the list it fills."""
    hits: list[bool] = []
    original = futile.FutileMemo.replay

    def counting(self: futile.FutileMemo, *args: Any) -> bool:
        hit = original(self, *args)
        if self.enabled:
            hits.append(hit)
        return hit

    monkeypatch.setattr(futile.FutileMemo, "replay", counting)
    return hits


def test_a_capped_queue_is_replayed_while_its_answers_stay(monkeypatch: pytest.MonkeyPatch) -> None:
    """The waiting gang's queue gets a CPU cap that moves its deserved share but no ALLOCATABLE
    answer (17 CPUs: 2 running + 12 placed stay within): replayed; then a GPU cap of 10 that stops
    the visit after six placements (4 running + 6 GPUs): placed again; then replayed again."""
    hits = _count_replays(monkeypatch)
    world, conf = _waiting_gang()
    carry = JobCarry()
    results = []
    caps = {1: res(17, "64Gi", **{"nvidia__com/gpu": 100}), 2: res(17, "64Gi", **{"nvidia__com/gpu": 10})}
    for k in range(4):
        if k in caps:
            world.queues[0] = QueueInfo(queue("q1", 1, caps[k]))
        fast = _session(world, conf, True, carry, world.shared, k)
        assert fast == _session(world, conf, False, None, {}, k)
        results.append(fast)
    assert hits == [False, True, False, True]
    assert sum(1 for t in results[1][0] if t[3] is not None) == 12
    assert sum(1 for t in results[2][0] if t[3] is not None) == 6


def test_a_waiting_gang_is_replayed_until_the_cluster_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 16-pod gang on 12 free GPU slots: placed and discarded in the first session, replayed in
    the second (nothing changed), placed again (14 slots, other messages) after a running pod
    ended, then replayed again."""
    hits = _count_replays(monkeypatch)
    world, conf = _waiting_gang()
    carry = JobCarry()
    results = []
    for k in range(4):
        fast = _session(world, conf, True, carry, world.shared, k)
        assert fast == _session(world, conf, False, None, {}, k)
        results.append(fast)
        if k == 1:
            del world.pods["run-0"]
    assert hits == [False, True, False, True]
    assert sum(1 for t in results[1][0] if t[3] is not None) == 12  # placed (4 + 8 slots), discarded
    assert sum(1 for t in results[2][0] if t[3] is not None) == 14  # two more slots
    assert results[2][3] != results[1][3] and not results[3][2]  # other messages; never bound


def test_kept_overused_answers_are_the_sessions(monkeypatch: pytest.MonkeyPatch) -> None:
    """Proportion's OVERUSED answers (kept per queue while its allocation and deserved share are
    unchanged, ``ProportionPlugin.overused``) are the ones worked out afresh at every call, over
    the property's sessions, with both answers and kept answers among them."""
    from volcano.scheduler.framework.quota import overused
    from volcano.scheduler.plugins.proportion import ProportionPlugin

    original = ProportionPlugin.overused
    answers: list[tuple[bool, bool]] = []

    def checked(self: ProportionPlugin, queue: QueueInfo) -> bool:
        attr = self.attrs.get(queue.name)
        hit = self._overused.get(queue.name)
        kept = attr is not None and hit is not None and hit[0] is attr.quota.deserved and hit[1] == attr.allocated
        got = original(self, queue)
        assert got == (True if attr is None else overused(attr.quota.deserved, attr.allocated))
        answers.append((got, kept))
        return got

    monkeypatch.setattr(ProportionPlugin, "overused", checked)
    for seed in range(40):
        _run(seed, 6)
    assert {got for got, _ in answers} == {True, False}
    assert sum(kept for _, kept in answers) >= 20
