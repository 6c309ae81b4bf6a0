"""Tests for the drf plugin: dominant shares, job order, preemption victims."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from volcano.scheduler.framework.conf import PluginOption, SchedulerConf, Tier
from volcano.scheduler.framework.model import NodeSpec, QueueInfo, TaskSpec
from volcano.scheduler.framework.plugin import PluginRegistry
from volcano.scheduler.framework.points import JOB_ORDER, PREEMPTABLE, QUEUE_ORDER, RECLAIMABLE
from volcano.scheduler.framework.resources import ResourceSpace
from volcano.scheduler.framework.session import Session, Snapshot
from volcano.scheduler.plugins.drf import DrfPlugin, dominant_share, preemptable_victims, share_mask


def _node(name: str, cpu: str, mem: str, pods: str = "110") -> dict[str, Any]:
    return {"metadata": {"name": name}, "status": {"allocatable": {"cpu": cpu, "memory": mem, "pods": pods}}}


def _pod(name: str, pg: str, cpu: str, mem: str, node: str = "", phase: str = "Pending",
         ns: str = "c1") -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": ns, "uid": f"{ns}-{name}",
                         "annotations": {"scheduling.k8s.io/group-name": pg}},
            "spec": {"nodeName": node, "schedulerName": "volcano",
                     "containers": [{"resources": {"requests": {"cpu": cpu, "memory": mem}}}]},
            "status": {"phase": phase}}


def _pg(name: str, queue: str, phase: str = "Inqueue", ns: str = "c1", min_member: int = 0) -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": ns},
            "spec": {"queue": queue, "minMember": min_member}, "status": {"phase": phase}}


def _queue(name: str) -> QueueInfo:
    return QueueInfo({"metadata": {"name": name}, "spec": {"weight": 1}, "status": {"state": "Open"}})


def _session(nodes: list[dict[str, Any]], pgs: list[dict[str, Any]], pods: list[dict[str, Any]],
             flags: dict[str, bool] | None = None) -> Session:
    space = ResourceSpace()
    conf = SchedulerConf(actions=("allocate",), tiers=(Tier((PluginOption("drf", flags or {}),)),))
    snap = Snapshot(space=space, nodes=[NodeSpec(n) for n in nodes], podgroups=[(pg, 0) for pg in pgs],
                    tasks=[TaskSpec(p) for p in pods], queues=[_queue("q-1"), _queue("q-2")])
    return Session(snap, conf, PluginRegistry([DrfPlugin]))


def test_dominant_share_uses_largest_fraction_and_tolerance() -> None:
    names = ["cpu", "memory", "pods", "nvidia.com/gpu"]
    total = np.array([4000, 8_000_000, 50, 0], dtype=np.int64)  # 0.05 pod is below the tolerance
    mask = share_mask(total, names)
    assert mask.tolist() == [True, True, False, False]
    assert dominant_share(np.array([1000, 6_000_000, 40, 0]), total, mask) == 0.75
    assert dominant_share(np.zeros(4, dtype=np.int64), total, mask) == 0.0


def test_preemptable_victims_reduce_working_copy_for_every_candidate() -> None:
    total = np.array([10_000], dtype=np.int64)
    mask = np.array([True])
    # preemptor job holds 2 cpu and asks 1 -> ls = 0.3; victim job holds 6 cpu, three tasks of 2 cpu.
    alloc = {"v": np.array([6000], dtype=np.int64)}
    tasks = [("v", np.array([2000])), ("v", np.array([2000])), ("v", np.array([2000]))]
    got = preemptable_victims(np.array([2000]), np.array([1000]), tasks, alloc, total, mask)
    # after each reduction rs = 0.4, 0.2, 0.0 -> only the first stays >= 0.3
    assert got == [0]
    assert alloc["v"].tolist() == [6000]  # the session's allocation is untouched
    # equal shares (within 1e-6) are victims; unknown jobs are skipped
    got = preemptable_victims(np.array([2000]), np.array([2000]), [("x", np.array([1])), ("v", np.array([2000]))],
                              alloc, total, mask)
    assert got == [1]


def test_job_order_follows_shares_and_allocation_events() -> None:
    nodes = [_node("node-1", "5", "5G", "10")]
    pgs = [_pg("pg-small-1", "q-1", "Running"), _pg("pg-large-1", "q-1"), _pg("pg-large-2", "q-2")]
    pods = [_pod("pod-small-1", "pg-small-1", "1", "1G", node="node-1", phase="Running"),
            _pod("pod-large-1", "pg-large-1", "2", "2G"), _pod("pod-large-2", "pg-large-2", "3", "2G")]
    ssn = _session(nodes, pgs, pods)
    small, large1, large2 = (ssn.jobs[f"c1/{n}"] for n in ("pg-small-1", "pg-large-1", "pg-large-2"))
    plugin = ssn.plugins["drf"]
    assert isinstance(plugin, DrfPlugin)
    assert plugin.share[small.uid] == pytest.approx(0.2)
    assert ssn.call(JOB_ORDER, large1, small) == -1  # share 0 before 0.2
    assert ssn.call(JOB_ORDER, large1, large2) == 0
    task = next(iter(large2.tasks.values()))
    ssn.do_allocate(task, ssn.table.by_name["node-1"])
    assert plugin.share[large2.uid] == pytest.approx(0.6)
    assert ssn.call(JOB_ORDER, small, large2) == -1
    ssn.undo_allocate(task)
    assert plugin.share[large2.uid] == 0.0


def test_preemptable_through_session_and_flag_gating() -> None:
    nodes = [_node("n1", "4", "4G")]
    pgs = [_pg("low", "q-1", "Running"), _pg("high", "q-1")]
    pods = [_pod("low-0", "low", "1", "1G", node="n1", phase="Running"),
            _pod("low-1", "low", "1", "1G", node="n1", phase="Running"),
            _pod("high-0", "high", "1", "1G")]
    ssn = _session(nodes, pgs, pods)
    low = ssn.jobs["c1/low"]
    preemptor = next(iter(ssn.jobs["c1/high"].tasks.values()))
    victims = ssn.preemptable(preemptor, list(low.tasks.values()))
    # ls = 0.25; low after giving one up: 0.25 (equal -> victim); after two: 0 -> not a victim
    assert [t.name for t in victims] == ["low-0"]
    off = _session(nodes, pgs, pods, {"enablePreemptable": False, "enableJobOrder": False})
    assert not off.has(PREEMPTABLE) and not off.has(JOB_ORDER)


def test_hierarchy_flag_opens_the_hdrf_tree() -> None:
    """Hierarchical DRF (``test_drf_hierarchy``) is accepted: the tree is built and its points registered."""
    ssn = _session([_node("n1", "1", "1G")], [_pg("g", "q-1")], [_pod("p", "g", "1", "1G")], {"enableHierarchy": True})
    plugin = ssn.plugins["drf"]
    assert isinstance(plugin, DrfPlugin) and plugin.tree is not None
    assert ssn.has(QUEUE_ORDER) and ssn.has(RECLAIMABLE)
    assert sorted(plugin.tree.leaves) == ["c1/g"]
