"""The proportion plugin inside a real session."""

from __future__ import annotations

from typing import Any

from volcano.scheduler.framework.conf import PluginOption, SchedulerConf, Tier
from volcano.scheduler.framework.model import NodeSpec, QueueInfo, TaskSpec
from volcano.scheduler.framework.plugin import PluginRegistry
from volcano.scheduler.framework.resources import ResourceSpace
from volcano.scheduler.framework.session import Session, Snapshot
from volcano.scheduler.plugins.proportion import ProportionPlugin


def _node(name: str, cpu_: str, mem: str, pods: str = "10") -> dict[str, Any]:
    return {"metadata": {"name": name}, "status": {"allocatable": {"cpu": cpu_, "memory": mem, "pods": pods}}}


def _pod(name: str, pg: str, cpu_: str, mem: str, node: str = "", phase: str = "Pending") -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": "ns1", "uid": f"ns1-{name}",
                         "annotations": {"scheduling.k8s.io/group-name": pg}},
            "spec": {"nodeName": node, "containers": [{"resources": {"requests": {"cpu": cpu_, "memory": mem}}}]},
            "status": {"phase": phase}}


def _pg(name: str, queue: str, phase: str, min_res: dict[str, str] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"queue": queue, "minMember": 1}
    if min_res is not None:
        spec["minResources"] = min_res
    return {"metadata": {"name": name, "namespace": "ns1"}, "spec": spec, "status": {"phase": phase}}


def _queue(name: str, cap: dict[str, str] | None = None, state: str = "Open", priority: int = 0) -> QueueInfo:
    spec: dict[str, Any] = {"weight": 1, "priority": priority}
    if cap:
        spec["capability"] = cap
    return QueueInfo({"metadata": {"name": name}, "spec": spec, "status": {"state": state}})


def _session(pgs: list[dict[str, Any]], pods: list[dict[str, Any]], queues: list[QueueInfo],
             nodes: list[dict[str, Any]] | None = None) -> Session:
    nodes = nodes or [_node("n1", "2", "2G"), _node("n2", "2", "2G")]
    conf = SchedulerConf(actions=("enqueue", "allocate"), tiers=(Tier((PluginOption("proportion"),)),))
    snap = Snapshot(space=ResourceSpace(), nodes=[NodeSpec(n) for n in nodes], podgroups=[(p, 0) for p in pgs],
                    tasks=[TaskSpec(p) for p in pods], queues=queues)
    return Session(snap, conf, PluginRegistry([ProportionPlugin]))


def _enqueue_allocable_session(pending: list[tuple[str, str, str, str]]) -> Session:
    # TestEnqueueAndAllocable fixture: q1 cap (2, 2G), q2 cap (3, 3G), q3 Closed.
    pgs = [_pg("pg1", "q1", "Running", {"cpu": "1", "memory": "2G"}),
           _pg("pg2", "q2", "Running", {"cpu": "2", "memory": "1G"})]
    pods = [_pod("pod1", "pg1", "1", "2G", "n1", "Running"), _pod("pod2", "pg2", "2", "1G", "n2", "Running")]
    for name, queue, c, m in pending:
        pgs.append(_pg(f"pg-{name}", queue, "Pending", {"cpu": c, "memory": m}))
        pods.append(_pod(name, f"pg-{name}", c, m))
    queues = [_queue("q1", {"cpu": "2", "memory": "2G"}), _queue("q2", {"cpu": "3", "memory": "3G"}),
              _queue("q3", {"cpu": "3", "memory": "3G"}, state="Closed")]
    return _session(pgs, pods, queues)


def test_enqueue_and_allocatable_cases() -> None:
    # One session per upstream case, as in TestEnqueueAndAllocable (the pending set changes deserved).
    cases = {"pod3": ("q1", "1", "0", True, True), "pod4": ("q2", "0", "1G", True, True),
             "pod5": ("q1", "1", "1G", False, False), "pod6": ("q3", "1", "1G", False, False)}
    for name, (queue, c, m, enqueueable, allocatable) in cases.items():
        ssn = _enqueue_allocable_session([(name, queue, c, m)])
        job = ssn.jobs[f"ns1/pg-{name}"]
        task = next(iter(job.tasks.values()))
        assert ssn.job_enqueueable(job) is enqueueable, name
        assert ssn.allocatable(ssn.queues[queue], task) is allocatable, name
    # enqueueing a job reserves its minResources (less nothing gated) in the queue's inqueue
    ssn = _enqueue_allocable_session([("pod3", "q1", "1", "0")])
    ssn.job_enqueued(ssn.jobs["ns1/pg-pod3"])
    plugin = ssn.plugins["proportion"]
    assert isinstance(plugin, ProportionPlugin)
    assert plugin.attrs["q1"].inqueue == {"cpu": 1000}


def test_overused_reclaimable_and_queue_order() -> None:
    # Two queues on a 4-cpu node: q1 holds 4 cpu and asks 2 more, q2 asks 1 -> deserved q1 3, q2 1.
    # (No pods allocatable: with it, q1's deserved pods 3 > allocated pods 2 keeps it non-overused.)
    pgs = [_pg("low", "q1", "Running"), _pg("high", "q1", "Inqueue"), _pg("other", "q2", "Inqueue")]
    pods = [_pod("l-worker-0", "low", "2", "0", "n1", "Running"),
            _pod("l-worker-1", "low", "2", "0", "n1", "Running"),
            _pod("h-worker-0", "high", "2", "0"), _pod("o-0", "other", "1", "0")]
    ssn = _session(pgs, pods, [_queue("q1"), _queue("q2", priority=5)], nodes=[_node("n1", "4", "4G", "0")])
    plugin = ssn.plugins["proportion"]
    assert isinstance(plugin, ProportionPlugin)
    q1, q2 = ssn.queues["q1"], ssn.queues["q2"]
    assert plugin.attrs["q1"].quota.deserved["cpu"] == 3000
    assert plugin.attrs["q2"].quota.deserved["cpu"] == 1000
    assert ssn.overused(q1)
    assert ssn.queue_less(q2, q1)  # queue priority first
    # reclaim on a node that reports pods (deserved pods 3 > allocated 2 there)
    with_pods = _session(pgs, pods, [_queue("q1"), _queue("q2", priority=5)], nodes=[_node("n1", "4", "4G")])
    assert not with_pods.overused(with_pods.queues["q1"])
    victims = with_pods.reclaimable(next(iter(with_pods.jobs["ns1/other"].tasks.values())),
                                    list(with_pods.jobs["ns1/low"].tasks.values()))
    assert [t.name for t in victims] == ["l-worker-0"]  # 4 > 3 -> victim; then 2 <= 3 -> stop
    # allocation events move the share
    before = plugin.share_of("q2")
    ssn.do_allocate(next(iter(ssn.jobs["ns1/other"].tasks.values())), ssn.table.by_name["n1"])
    assert plugin.share_of("q2") > before
