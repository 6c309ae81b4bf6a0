"""Queue heaps ordered by ``Session.queue_key`` pop queues exactly as heaps comparing ``queue_less``.

Random queues (weights, priorities, creation times) with random jobs (some tasks
running, so that the proportion shares start apart or equal) are sorted both
ways, and an agenda is served both ways as allocate serves it: pop a queue, skip
it when overused, pop a job, place one of its pending tasks (which moves its
queue's share), push the job back while it has pending tasks, push the queue
back. A queue-order callback without a key, or a session without ``reuse``,
keeps the comparator.
"""

from __future__ import annotations

import random
from functools import cmp_to_key

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.scheduler.harness import node, pg, pod, queue, res
from volcano.scheduler.actions.base import Agenda
from volcano.scheduler.framework.conf import PluginOption, SchedulerConf, Tier
from volcano.scheduler.framework.model import NodeSpec, QueueInfo, TaskSpec, TaskStatus
from volcano.scheduler.framework.plugin import Plugin
from volcano.scheduler.framework.points import QUEUE_ORDER
from volcano.scheduler.framework.resources import ResourceSpace
from volcano.scheduler.framework.session import Session, Snapshot
from volcano.scheduler.plugins import default_registry

_CONF = SchedulerConf(("allocate",), (
    Tier((PluginOption("priority", {}, {}), PluginOption("gang", {}, {}))),
    Tier((PluginOption("drf", {}, {}), PluginOption("proportion", {}, {})))))


def _session(seed: int, reuse: bool, conf: SchedulerConf = _CONF) -> Session:
    rng = random.Random(seed)
    nodes = [node(f"n{i}", res(rng.choice([8, 16, 64]), "256Gi")) for i in range(2)]
    queues = []
    for q in range(rng.randint(1, 6)):
        obj = queue(f"q{q}", rng.randint(1, 3), priority=rng.choice([0, 0, 1]))
        obj["metadata"]["creationTimestamp"] = f"2024-01-01T00:00:0{rng.randint(0, 2)}Z"
        queues.append(obj)
    groups, pods = [], []
    for g in range(rng.randint(1, 16)):
        size = rng.randint(1, 4)
        name = f"g{g:02d}"
        groups.append(pg(name, "ns", rng.choice(queues)["metadata"]["name"], rng.randint(1, size)))
        req = res(rng.choice([1, 2]), rng.choice(["1Gi", "4Gi"]))
        for k in range(size):
            running = rng.random() < 0.3
            pods.append(pod("ns", f"{name}-{k}", group=name, req=req,
                            node_name="n0" if running else "", phase="Running" if running else "Pending"))
    snap = Snapshot(ResourceSpace(), [NodeSpec(n) for n in nodes], [(g, 0) for g in groups],
                    [TaskSpec(p) for p in pods], [QueueInfo(q) for q in queues])
    return Session(snap, conf, default_registry(), uid="s", reuse=reuse)


def _serve(ssn: Session) -> list[str]:
    """Allocate's agenda walk, placing one pending task per visit on n1."""
    agenda = Agenda(ssn, keyed=True, queues_keyed=True)
    for job in ssn.jobs.values():
        agenda.add_job(ssn.queues[job.queue], job)
    out: list[str] = []
    target = ssn.table.by_name["n1"]
    while agenda:
        q = agenda.pop_queue()
        if ssn.overused(q):
            out.append(f"overused {q.name}")
            continue
        jobs = agenda.jobs(q)
        if not jobs:
            continue
        job = jobs.pop()
        out.append(job.uid)
        pending = [t for t in job.tasks.values() if t.status == TaskStatus.Pending]
        if pending:
            ssn.do_allocate(pending[0], target)
        if len(pending) > 1:
            jobs.push(job)
        agenda.push_queue(q)
    return out


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 1_000_000))
def test_keyed_queue_order_is_the_comparator_order(seed: int) -> None:
    fast, slow = _session(seed, True), _session(seed, False)
    key = fast.queue_key()
    assert key is not None and slow.queue_key() is None
    order = cmp_to_key(lambda a, b: -1 if slow.queue_less(a, b) else (1 if slow.queue_less(b, a) else 0))
    assert [q.name for q in sorted(fast.queues.values(), key=key)] == \
        [q.name for q in sorted(slow.queues.values(), key=order)]
    served = _serve(fast)
    assert served == _serve(slow)
    assert served  # some job was visited


def test_the_key_is_priority_then_share() -> None:
    snap = Snapshot(ResourceSpace(), [NodeSpec(node("n0", res(8, "8Gi")))],
                    [(pg("a", "ns", "qa", 1), 0), (pg("b", "ns", "qb", 1), 0)],
                    [TaskSpec(pod("ns", "a-0", group="a", req=res(4, "1Gi"), node_name="n0", phase="Running")),
                     TaskSpec(pod("ns", "b-0", group="b", req=res(1, "1Gi")))],
                    [QueueInfo(queue("qa")), QueueInfo(queue("qb")), QueueInfo(queue("qc", priority=1))])
    ssn = Session(snap, _CONF, default_registry(), reuse=True)
    key = ssn.queue_key()
    assert key is not None
    qa, qb, qc = ssn.queues["qa"], ssn.queues["qb"], ssn.queues["qc"]
    assert key(qc) < key(qb) < key(qa)  # priority first; then qb's share (nothing allocated) below qa's
    assert key(qa)[0] == (0, 1.0)  # proportion's part: (-priority, share)


class _NoKey(Plugin):
    """A queue order without a key: names descending."""

    name = "nokey"

    def open(self, ssn: Session) -> None:
        ssn.add_fn(QUEUE_ORDER, lambda a, b: (a.name < b.name) - (a.name > b.name))


def test_a_queue_order_without_a_key_keeps_the_comparator() -> None:
    registry = default_registry()
    registry.register(_NoKey)
    conf = SchedulerConf(("allocate",), (Tier((PluginOption("nokey", {}, {}), PluginOption("proportion", {}, {}))),))
    snap = Snapshot(ResourceSpace(), [], [(pg(f"g{i}", "ns", f"q{i}", 1), 0) for i in range(4)], [],
                    [QueueInfo(queue(f"q{i}")) for i in range(4)])
    ssn = Session(snap, conf, registry, reuse=True)
    assert ssn.queue_key() is None
    agenda = Agenda(ssn, keyed=True, queues_keyed=True)
    for q in ssn.queues.values():
        agenda.add_queue(q)
    assert [agenda.pop_queue().name for _ in range(4)] == ["q3", "q2", "q1", "q0"]
