"""Allocate's per-visit node selection (``select.Lookahead``) decides exactly as the reference path.

Random clusters (node shapes, running and releasing pods, cordoned and tainted
nodes), random gangs (homogeneous or mixed requests, node selectors, host ports,
nominated nodes, partial fits that end in a discard) and random plugin
configurations (binpack and nodeorder weights, predicates flags, with and
without proportion and drf) are scheduled by one allocate cycle twice: with the
lookahead (``reuse=True``) and on the reference path (``reuse=False``, plain
``select_node``). Every task's status, node and last transaction, every fit
error, every bind and the whole session close (PodGroup status, events, pod
conditions and their messages, queue allocation) must be the same.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.scheduler.harness import allocated, node, pg, pod, queue, random_node, res
from volcano.scheduler.framework import select
from volcano.scheduler.framework.conf import PluginOption, SchedulerConf, Tier
from volcano.scheduler.framework.status import close_session

Obj = dict[str, Any]
GPU = "nvidia.com/gpu"


def _conf(rng: random.Random) -> SchedulerConf:
    second = [PluginOption("predicates", {}, {"predicate.NodeAffinityEnable": rng.random() < 0.8,
                                              "predicate.TaintTolerationEnable": rng.random() < 0.8})]
    if rng.random() < 0.7:
        second.insert(0, PluginOption("drf", {}, {}))
    if rng.random() < 0.7:
        second.append(PluginOption("proportion", {}, {}))
    second.append(PluginOption("nodeorder", {}, {
        "leastrequested.weight": rng.choice([0, 1, 2]), "mostrequested.weight": rng.choice([0, 0, 1]),
        "balancedresource.weight": rng.choice([0, 1, 3])}))
    if rng.random() < 0.6:
        second.append(PluginOption("binpack", {}, {
            "binpack.weight": rng.choice([1, 5]), "binpack.cpu": rng.choice([0, 1, 2]),
            "binpack.memory": rng.choice([0, 1]), "binpack.resources": GPU,
            f"binpack.resources.{GPU}": rng.choice([0, 2, 5])}))
    first = (PluginOption("priority", {}, {}), PluginOption("gang", {}, {}), PluginOption("conformance", {}, {}))
    return SchedulerConf(("allocate",), (Tier(first), Tier(tuple(second))))


def _request(rng: random.Random) -> dict[str, str]:
    gpu = rng.choice([0, 1, 2, 4, 8])
    return res(rng.choice(["500m", "1", "2", "4"]), rng.choice(["512Mi", "1Gi", "4Gi"]),
               **({GPU.replace("/", "__"): gpu} if gpu else {}))


def _objects(rng: random.Random) -> tuple[list[Obj], list[Obj], list[Obj], list[Obj]]:
    nodes: list[Obj] = []
    for i in range(rng.randint(1, 24)):
        nodes.append(random_node(rng, f"n{i:02d}", pod_caps=(3, 110), zones=("a", "b")))
    queues = [queue("q1", rng.randint(1, 4)), queue("q2", rng.randint(1, 4))]
    groups = [pg("running", "ns", "q1", 1, phase="Running")]
    pods: list[Obj] = []
    releasing = rng.choice([0.0, 0.3, 0.8])
    for k in range(rng.randint(0, 30)):  # pods already on nodes, some of them terminating (Releasing)
        host = rng.choice(nodes)["metadata"]["name"]
        pods.append(pod("ns", f"run-{k}", group="running", node_name=host, phase="Running",
                        req=_request(rng), deleting=rng.random() < releasing))
    for g in range(rng.randint(1, 6)):
        size = rng.randint(1, 30)
        shapes = [_request(rng)] if rng.random() < 0.7 else [_request(rng), _request(rng)]
        selector = {"zone": "a"} if rng.random() < 0.15 else None
        groups.append(pg(f"g{g}", "ns", rng.choice(["q1", "q2"]), rng.randint(1, size),
                         phase=rng.choice(["Inqueue", "Inqueue", "Pending"])))
        for k in range(size):
            p = pod("ns", f"g{g}-{k}", group=f"g{g}", req=rng.choice(shapes), selector=selector,
                    priority=rng.choice([None, 10]))
            if rng.random() < 0.05:
                p["spec"]["containers"][0]["ports"] = [{"containerPort": 80, "hostPort": 8080}]
            if rng.random() < 0.05:
                p["status"]["nominatedNodeName"] = rng.choice(nodes)["metadata"]["name"]
            pods.append(p)
    return nodes, queues, groups, pods


def _cycle(objects: tuple[list[Obj], list[Obj], list[Obj], list[Obj]], conf: SchedulerConf,
           reuse: bool) -> tuple[Any, ...]:
    ssn = allocated(objects, conf, reuse)
    tasks = [(t.key, t.status, t.node_name, t.last_txn) for j in ssn.jobs.values() for t in j.tasks.values()]
    fit = [(j.uid, sorted((k, v.error()) for k, v in j.fit_errors.items())) for j in ssn.jobs.values()]
    binds = [(t.key, n) for t, n in ssn.binds]
    out = close_session(ssn)
    closed = (sorted(out.statuses.items()), out.events, [(t.key, c, n) for t, c, n in out.pod_conditions],
              sorted(out.queues.items()), [(j.uid, s) for j, s in out.podgroups])
    return tasks, fit, binds, closed


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 1_000_000))
def test_lookahead_allocates_exactly_as_the_reference_path(seed: int) -> None:
    rng = random.Random(seed)
    objects = _objects(rng)
    conf = _conf(rng)
    assert _cycle(objects, conf, True) == _cycle(objects, conf, False)


def test_a_large_homogeneous_gang_uses_the_levels_and_matches(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 40-pod gang of 1-GPU pods on 8-GPU nodes that cannot all fit: placed level by level
    (a few vectorised evaluations, not one per pod), discarded, with the same messages."""
    computed: list[int] = []
    original = select.Lookahead._level_values

    def counting(self: select.Lookahead, task: Any, j: int) -> None:
        computed.append(j)
        original(self, task, j)

    monkeypatch.setattr(select.Lookahead, "_level_values", counting)
    nodes = [node(f"n{i}", res(16, "64Gi", **{"nvidia__com/gpu": 8})) for i in range(4)]
    groups = [pg("big", "ns", "q1", 40)]
    pods = [pod("ns", f"big-{k}", group="big", req=res(1, "1Gi", **{"nvidia__com/gpu": 1})) for k in range(40)]
    conf = SchedulerConf(("allocate",), (
        Tier((PluginOption("priority", {}, {}), PluginOption("gang", {}, {}))),
        Tier((PluginOption("predicates", {}, {}), PluginOption("proportion", {}, {}),
              PluginOption("nodeorder", {}, {}), PluginOption("binpack", {}, {})))))
    objects = (nodes, [queue("q1")], groups, pods)
    fast = _cycle(objects, conf, True)
    assert computed == list(range(1, 9))  # levels 1..8 (a node holds 8 such pods), each once
    assert fast == _cycle(objects, conf, False)
    tasks, _, binds, _ = fast
    assert binds == [] and sum(1 for t in tasks if t[3] is not None) == 32  # 32 placed, then discarded


def test_pipelining_onto_releasing_nodes_matches() -> None:
    """Idle runs out after the free node's 4 GPUs: the rest of the gang is pipelined onto the
    GPUs terminating pods release (the heap over passing rows), as the reference path does."""
    gpu8 = {"nvidia__com/gpu": 8}
    nodes = [node(f"n{i}", res(16, "64Gi", **gpu8)) for i in range(5)]
    groups = [pg("old", "ns", "q1", 1, phase="Running"), pg("big", "ns", "q1", 30)]
    pods = [pod("ns", f"old-{i}", group="old", node_name=f"n{i}", phase="Running", deleting=True,
                req=res(1, "1Gi", **gpu8)) for i in range(4)]
    pods.append(pod("ns", "half", group="old", node_name="n4", phase="Running", req=res(1, "1Gi", **{
        "nvidia__com/gpu": 4})))
    pods += [pod("ns", f"big-{k}", group="big", req=res(1, "1Gi", **{"nvidia__com/gpu": 1})) for k in range(40)]
    conf = SchedulerConf(("allocate",), (
        Tier((PluginOption("priority", {}, {}), PluginOption("gang", {}, {}))),
        Tier((PluginOption("drf", {}, {}), PluginOption("predicates", {}, {}), PluginOption("nodeorder", {}, {}),
              PluginOption("binpack", {}, {})))))
    objects = (nodes, [queue("q1")], groups, pods)
    fast = _cycle(objects, conf, True)
    assert fast == _cycle(objects, conf, False)
    statuses = [t[1].name for t in fast[0] if t[0].startswith("ns/big-")]
    assert statuses.count("Allocated") == 4 and statuses.count("Pipelined") == 32


def _small_jobs(rng: random.Random) -> tuple[list[Obj], list[Obj], list[Obj], list[Obj]]:
    """Many small jobs (1-3 pods, mostly one or two request shapes, some that cannot become
    ready and are discarded) on a few nodes: allocate's one lookahead serves visit after visit."""
    nodes = [node(f"n{i:02d}", res(rng.choice([2, 4]), rng.choice(["4Gi", "8Gi"]), pods=rng.choice([4, 110])),
                  {"zone": rng.choice(["a", "b"])}) for i in range(rng.randint(1, 10))]
    queues = [queue("q1", rng.randint(1, 4)), queue("q2", rng.randint(1, 4))]
    shapes = [res("500m", "1Gi"), res(1, "512Mi"), res(2, "4Gi")][: rng.randint(1, 3)]
    groups: list[Obj] = [pg("running", "ns", "q1", 1, phase="Running")]
    pods = [pod("ns", f"run-{k}", group="running", node_name=rng.choice(nodes)["metadata"]["name"],
                phase="Running", req=rng.choice(shapes), deleting=rng.random() < 0.3) for k in range(rng.randint(0, 6))]
    for g in range(rng.randint(2, 40)):
        size = rng.choice([1, 1, 1, 2, 3])
        groups.append(pg(f"g{g:02d}", "ns", rng.choice(["q1", "q2"]), rng.randint(1, size),
                         phase=rng.choice(["Inqueue", "Inqueue", "Pending"])))
        req = rng.choice(shapes)
        for k in range(size):
            p = pod("ns", f"g{g:02d}-{k}", group=f"g{g:02d}", req=req if rng.random() < 0.9 else rng.choice(shapes),
                    priority=rng.choice([None, None, 10]), selector={"zone": "a"} if rng.random() < 0.05 else None)
            if rng.random() < 0.03:
                p["status"]["nominatedNodeName"] = rng.choice(nodes)["metadata"]["name"]
            pods.append(p)
    return nodes, queues, groups, pods


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 1_000_000))
def test_the_lookahead_kept_across_visits_allocates_as_the_reference_path(seed: int) -> None:
    rng = random.Random(seed)
    objects = _small_jobs(rng)
    conf = _conf(rng)
    assert _cycle(objects, conf, True) == _cycle(objects, conf, False)


def test_single_pod_jobs_share_one_lookahead_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """30 one-pod jobs of one shape: the lookahead starts once, places every pod without
    re-scoring (commits move each pod to Binding on its row, which the lookahead accepts),
    and the binds are the reference path's."""
    starts: list[str] = []
    original = select.Lookahead._start

    def counting(self: select.Lookahead, task: Any) -> None:
        starts.append(task.name)
        original(self, task)

    monkeypatch.setattr(select.Lookahead, "_start", counting)
    nodes = [node(f"n{i}", res(4, "8Gi")) for i in range(5)]
    groups = [pg(f"g{g:02d}", "ns", "q1", 1) for g in range(30)]
    pods = [pod("ns", f"g{g:02d}-0", group=f"g{g:02d}", req=res(1, "1Gi")) for g in range(30)]
    conf = SchedulerConf(("allocate",), (
        Tier((PluginOption("priority", {}, {}), PluginOption("gang", {}, {}))),
        Tier((PluginOption("drf", {}, {}), PluginOption("predicates", {}, {}), PluginOption("proportion", {}, {}),
              PluginOption("nodeorder", {}, {}), PluginOption("binpack", {}, {})))))
    objects = (nodes, [queue("q1")], groups, pods)
    fast = _cycle(objects, conf, True)
    assert len(starts) == 1
    assert fast == _cycle(objects, conf, False)
    assert len(fast[2]) == 20  # 5 nodes x 4 cpu
