"""Tests for the overcommit plugin: factor, idle, enqueue decisions and the rejection event."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from volcano.scheduler.framework.conf import PluginOption, SchedulerConf, Tier
from volcano.scheduler.framework.model import JobInfo, NodeSpec, QueueInfo, TaskSpec
from volcano.scheduler.framework.plugin import PluginRegistry
from volcano.scheduler.framework.resources import ResourceSpace
from volcano.scheduler.framework.session import Session, Snapshot
from volcano.scheduler.plugins.overcommit import OvercommitPlugin, enqueue_check, overcommit_factor


def _pg(name: str, min_res: dict[str, str] | None, phase: str = "Pending") -> dict[str, Any]:
    spec: dict[str, Any] = {"queue": "q1", "minMember": 1}
    if min_res is not None:
        spec["minResources"] = min_res
    return {"metadata": {"name": name, "namespace": "ns1"}, "spec": spec, "status": {"phase": phase}}


def _session(pgs: list[dict[str, Any]], nodes: list[tuple[str, str, str]], factor: Any = None,
             pods: list[dict[str, Any]] | None = None) -> Session:
    args = {} if factor is None else {"overcommit-factor": factor}
    conf = SchedulerConf(actions=("enqueue",), tiers=(Tier((PluginOption("overcommit", {}, args),)),))
    node_objs = [{"metadata": {"name": n}, "status": {"allocatable": {"cpu": c, "memory": m}}} for n, c, m in nodes]
    snap = Snapshot(space=ResourceSpace(), nodes=[NodeSpec(n) for n in node_objs], podgroups=[(p, 0) for p in pgs],
                    tasks=[TaskSpec(p) for p in pods or []],
                    queues=[QueueInfo({"metadata": {"name": "q1"}, "status": {"state": "Open"}})])
    return Session(snap, conf, PluginRegistry([OvercommitPlugin]))


UPSTREAM_NODES = [("n1", "2", "4Gi"), ("n2", "4", "16Gi")]


@pytest.mark.parametrize(("factor", "min_res", "expected"), [
    (1.2, {"cpu": "2000m", "memory": "2G"}, True),
    (0.8, {"cpu": "2000m", "memory": "2G"}, True),
    (1.2, {"cpu": "20000m", "memory": "20G"}, False),
    (1.2, None, True),
], ids=["fits", "factor-below-one-uses-default", "too-big", "no-min-resources"])
def test_upstream_overcommit_table(factor: float, min_res: dict[str, str] | None, expected: bool) -> None:
    ssn = _session([_pg("pg", min_res)], UPSTREAM_NODES, factor)
    job = ssn.jobs["ns1/pg"]
    ssn.job_enqueued(job)
    assert ssn.job_enqueueable(job) is expected


def test_rejection_event_and_inqueue_accumulation() -> None:
    # Reference §14.5: total cpu 4, nothing used, minResources cpu 6 -> idle 4.8 -> rejected on cpu.
    ssn = _session([_pg("big", {"cpu": "6"}), _pg("a", {"cpu": "2"}), _pg("b", {"cpu": "2"}),
                    _pg("c", {"cpu": "1"})], [("n1", "4", "8Gi")])
    assert not ssn.job_enqueueable(ssn.jobs["ns1/big"])
    events = [(job.uid, kind, reason, msg) for job, kind, reason, msg in ssn.job_events]
    assert events == [("ns1/big", "Normal", "Unschedulable", "resource in cluster is overused: overused cpu")]
    a, b, c = (ssn.jobs[f"ns1/{n}"] for n in "abc")
    assert ssn.job_enqueueable(a)
    ssn.job_enqueued(a)
    assert ssn.job_enqueueable(b)
    ssn.job_enqueued(b)  # 4 of 4.8 now taken
    assert not ssn.job_enqueueable(c)


def test_inqueue_jobs_at_open_count_full_min_and_used_reduces_idle() -> None:
    pod = {"metadata": {"name": "r-0", "namespace": "ns1", "annotations": {"scheduling.k8s.io/group-name": "run"}},
           "spec": {"nodeName": "n1", "containers": [{"resources": {"requests": {"cpu": "2"}}}]},
           "status": {"phase": "Running"}}
    ssn = _session([_pg("queued", {"cpu": "1"}, "Inqueue"), _pg("run", None, "Running"), _pg("new", {"cpu": "2"})],
                   [("n1", "4", "8Gi")], pods=[pod])
    plugin = ssn.plugins["overcommit"]
    assert isinstance(plugin, OvercommitPlugin)
    assert plugin.idle["cpu"] == Fraction(4800) - 2000
    assert plugin.inqueue == {"cpu": 1000}
    new: JobInfo = ssn.jobs["ns1/new"]
    assert not ssn.job_enqueueable(new)  # 1 + 2 > 2.8


def test_factor_and_check_helpers() -> None:
    assert overcommit_factor(1.2) == Fraction(6, 5)
    assert overcommit_factor(0.5) == Fraction(6, 5)
    assert overcommit_factor(2) == 2
    assert enqueue_check({}, {"cpu": 4800, "pods": 10_000}, {"cpu": Fraction(4800)}) == (True, [])
    assert enqueue_check({"cpu": 1}, {"cpu": 4800}, {"cpu": Fraction(4800)}) == (False, ["cpu"])
