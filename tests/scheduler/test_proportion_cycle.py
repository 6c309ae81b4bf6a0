"""proportion plugin through full cycles (catalogue §5.4): TestEnqueueAndAllocable, TestAllocate
(queue priority), TestNoDoubleCountingForInqueueJobWithBindingTasks and
TestJobEnqueuedOnOtherPluginsReject, with the upstream numbers."""

from __future__ import annotations

from typing import Any

import pytest

from tests.scheduler.harness import conf, node, opt, pg, pod, queue, res, run
from volcano.scheduler.framework.model import JobInfo
from volcano.scheduler.framework.plugin import Plugin
from volcano.scheduler.framework.points import JOB_ENQUEUEABLE, PERMIT, REJECT
from volcano.scheduler.framework.session import Session
from volcano.scheduler.plugins import default_registry

NODES = [node("n1", res(2, "2G", pods=10)), node("n2", res(2, "2G", pods=10))]
QUEUES = [queue("q1", capability=res(2, "2G")), queue("q2", capability=res(3, "3G")),
          queue("q3", capability=res(3, "3G"), state="Closed")]


def _job(name: str, q: str, req: dict[str, str], node_name: str = "") -> tuple[dict[str, Any], dict[str, Any]]:
    phase = "Running" if node_name else "Pending"
    group = f"pg{name[3:]}"
    return pg(group, "ns1", q, 1, phase, min_resources=req), pod("ns1", name, node_name=node_name, phase=phase,
                                                                 req=req, group=group)


JOBS = {
    "pod1": _job("pod1", "q1", res(1, "2G"), "n1"), "pod2": _job("pod2", "q2", res(2, "1G"), "n2"),
    "pod3": _job("pod3", "q1", res(1, "0G")), "pod4": _job("pod4", "q2", res(0, "1G")),
    "pod5": _job("pod5", "q1", res(1, "1G")), "pod6": _job("pod6", "q3", res(1, "1G")),
}


@pytest.mark.parametrize(("flags", "pods", "expected"), [
    pytest.param(("allocatable", "overused", "jobEnqueued"), ("pod1", "pod2", "pod3"), {"ns1/pod3": "n1"},
                 id="case0: memory exceeds deserved, a cpu-only job is enqueued and allocated"),
    pytest.param(("allocatable", "overused", "jobEnqueued", "queueOrder", "reclaimable"), ("pod1", "pod2", "pod4"),
                 {"ns1/pod4": "n2"}, id="case1: cpu exceeds deserved, a memory-only job is enqueued and allocated"),
    pytest.param(("jobEnqueued",), ("pod1", "pod2", "pod5"), {}, id="case2: exceeds capability, not enqueued"),
    pytest.param(("allocatable",), ("pod1", "pod2", "pod5"), {}, id="case3: exceeds deserved, not allocated"),
    pytest.param(("jobEnqueued",), ("pod6",), {}, id="case4: queue not open, not enqueued"),
])
def test_enqueue_and_allocable(flags: tuple[str, ...], pods: tuple[str, ...], expected: dict[str, str]) -> None:
    c = conf(["enqueue", "allocate"], [opt("proportion", *flags)])
    r = run(c, nodes=NODES, pods=[JOBS[p][1] for p in pods], podgroups=[JOBS[p][0] for p in pods], queues=QUEUES)
    assert r.binds == expected
    last = f"ns1/pg{pods[-1][3:]}"
    if "jobEnqueued" in flags and not expected:
        assert r.phase(last) == "Pending"


def test_allocate_in_queue_priority_order() -> None:
    # TestAllocate case0: q3 (priority 10) takes the only free node before q2 (priority 1).
    c = conf(["allocate", "reclaim"], [opt("proportion", "queueOrder")])
    nodes = [node("n1", res(2, "4Gi")), node("n2", res(2, "4Gi"))]
    queues = [queue(n, capability=res(2, "4Gi"), priority=p) for n, p in (("q1", 5), ("q2", 1), ("q3", 10))]
    pgs = [pg("pg1", "ns1", "q1", 1, "Running"), pg("pg2", "ns1", "q2", 1), pg("pg3", "ns1", "q3", 1)]
    pods = [pod("ns1", "p1", node_name="n1", phase="Running", req=res(2, "4Gi"), group="pg1"),
            pod("ns1", "p2", req=res(2, "4Gi"), group="pg2"),
            pod("ns1", "p3", req=res(2, "4Gi"), group="pg3")]
    r = run(c, nodes=nodes, pods=pods, podgroups=pgs, queues=queues)
    assert r.binds == {"ns1/p3": "n2"}
    assert r.evicted == []


@pytest.mark.parametrize("quota", ["proportion", "capacity"])
def test_no_double_counting_for_inqueue_job_with_binding_tasks(quota: str) -> None:
    """Cycle 1 binds pgA's three pods (pgA stays Inqueue while they bind); in cycle 2 the queue
    counts 3 cpu allocated plus max(0, 3 - 3) still reserved, so pgB (1 cpu) fits in the 4 cpu cap."""
    c = conf(["enqueue", "allocate"],
             [opt("gang", "jobReady", "jobPipelined"), opt(quota, "jobEnqueued", "allocatable", "queueOrder")])
    nodes = [node("n1", res(4, "8Gi"))]
    queues = [queue("q1", capability=res(4, "8Gi"), deserved=res(4, "8Gi") if quota == "capacity" else None)]
    pg_a = pg("pgA", "ns1", "q1", 3, "Inqueue", min_resources=res(3, "3Gi"))
    pods_a = [pod("ns1", f"pA{i}", req=res(1, "1Gi"), group="pgA") for i in (1, 2, 3)]
    first = run(c, nodes=nodes, pods=pods_a, podgroups=[pg_a], queues=queues)
    assert first.binds == {f"ns1/pA{i}": "n1" for i in (1, 2, 3)}
    assert first.phase("ns1/pgA") == "Inqueue"
    # the binds are in flight: the pods carry their node, still Pending
    bound = [pod("ns1", f"pA{i}", node_name="n1", req=res(1, "1Gi"), group="pgA") for i in (1, 2, 3)]
    pg_b = pg("pgB", "ns1", "q1", 1, "Pending", min_resources=res(1, "1Gi"))
    second = run(c, nodes=nodes, pods=[*bound, pod("ns1", "pB1", req=res(1, "1Gi"), group="pgB")],
                 podgroups=[pg_a, pg_b], queues=queues)
    assert second.binds == {"ns1/pB1": "n1"}


class _RejectA(Plugin):
    """A test plugin that rejects PodGroup pgA at enqueue and abstains otherwise."""

    name = "reject-a"

    def open(self, ssn: Session) -> None:
        ssn.add_fn(JOB_ENQUEUEABLE, self.vote)

    def vote(self, job: JobInfo) -> int:
        """Reject pgA, permit the rest."""
        return REJECT if job.name == "pgA" else PERMIT


@pytest.mark.parametrize("quota", ["proportion", "capacity"])
def test_job_rejected_by_another_plugin_reserves_nothing(quota: str) -> None:
    # q1 holds 1 cpu: pgA is rejected by a co-tier plugin, so it must not reserve the cpu pgB needs.
    registry = default_registry().copy()
    registry.register(_RejectA)
    c = conf(["enqueue"], [opt("reject-a", "jobEnqueued"), opt(quota, "jobEnqueued")])
    cap = {"cpu": "1", "memory": "4G"}
    queues = [queue("q1", capability=cap, deserved=cap if quota == "capacity" else None)]
    pgs = [pg(n, "ns1", "q1", 1, "Pending", min_resources=res(1, "1G")) for n in ("pgA", "pgB")]
    pods = [pod("ns1", f"p-{n}", req=res(1, "1G"), group=n) for n in ("pgA", "pgB")]
    r = run(c, nodes=[node("n1", res(4, "8G"))], pods=pods, podgroups=pgs, queues=queues, registry=registry)
    assert r.phase("ns1/pgA") == "Pending"
    assert r.phase("ns1/pgB") == "Inqueue"
