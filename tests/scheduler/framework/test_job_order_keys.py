"""Job heaps ordered by ``Session.job_key`` pop jobs exactly as heaps comparing ``job_less``.

Random jobs (priorities, creation times, gang sizes, running tasks that give
them different drf shares and readiness) are sorted both ways, and an agenda
is served both ways as allocate serves it: pop a job, place one of its pending
tasks (which moves its share and maybe its readiness), push it back while it
has pending tasks. A callback without a key, or a session without ``reuse``,
keeps the comparator.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import cmp_to_key
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.scheduler.harness import node, pg, pod, queue, res
from volcano.scheduler.actions.base import Agenda
from volcano.scheduler.framework.conf import PluginOption, SchedulerConf, Tier
from volcano.scheduler.framework.model import JobInfo, NodeSpec, QueueInfo, TaskSpec, TaskStatus
from volcano.scheduler.framework.plugin import Plugin
from volcano.scheduler.framework.points import JOB_ORDER
from volcano.scheduler.framework.resources import ResourceSpace
from volcano.scheduler.framework.session import Session, Snapshot
from volcano.scheduler.plugins import default_registry

_CONF = SchedulerConf(("allocate",), (
    Tier((PluginOption("priority", {}, {}), PluginOption("gang", {}, {}))),
    Tier((PluginOption("drf", {}, {}), PluginOption("proportion", {}, {})))))


def _session(seed: int, reuse: bool, conf: SchedulerConf = _CONF) -> Session:
    rng = random.Random(seed)
    nodes = [node(f"n{i}", res(64, "256Gi")) for i in range(2)]
    groups, pods, prios = [], [], []
    for g in range(rng.randint(1, 14)):
        size = rng.randint(1, 4)
        group = pg(f"g{g:02d}", "ns", "q1", rng.randint(1, size))
        group["metadata"]["creationTimestamp"] = f"2024-01-01T00:00:0{rng.randint(0, 3)}Z"
        group["metadata"]["name"] = f"g{g:02d}{rng.choice('abc')}"
        groups.append(group)
        prios.append(rng.choice([0, 0, 5]))
        req = res(rng.choice([1, 2]), rng.choice(["1Gi", "4Gi"]))
        for k in range(size):
            running = rng.random() < 0.3
            pods.append(pod("ns", f"{group['metadata']['name']}-{k}", group=group["metadata"]["name"], req=req,
                            node_name="n0" if running else "", phase="Running" if running else "Pending"))
    snap = Snapshot(ResourceSpace(), [NodeSpec(n) for n in nodes], list(zip(groups, prios, strict=True)),
                    [TaskSpec(p) for p in pods], [QueueInfo(queue("q1"))])
    return Session(snap, conf, default_registry(), uid="s", reuse=reuse)


def _cmp(ssn: Session) -> Callable[[JobInfo], Any]:
    return cmp_to_key(lambda a, b: -1 if ssn.job_less(a, b) else (1 if ssn.job_less(b, a) else 0))


def _serve(ssn: Session) -> list[str]:
    """Allocate's agenda walk, placing one pending task per visit on n1."""
    agenda = Agenda(ssn, keyed=True)
    queue_info = ssn.queues["q1"]
    for job in ssn.jobs.values():
        agenda.add_job(queue_info, job)
    out: list[str] = []
    target = ssn.table.by_name["n1"]
    while agenda:
        q = agenda.pop_queue()
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
def test_keyed_job_order_is_the_comparator_order(seed: int) -> None:
    fast, slow = _session(seed, True), _session(seed, False)
    key = fast.job_key()
    assert key is not None and slow.job_key() is None
    assert [j.uid for j in sorted(fast.jobs.values(), key=key)] == \
        [j.uid for j in sorted(slow.jobs.values(), key=_cmp(slow))]
    assert _serve(fast) == _serve(slow)


class _NoKey(Plugin):
    """A job order without a key: uids descending."""

    name = "nokey"

    def open(self, ssn: Session) -> None:
        ssn.add_fn(JOB_ORDER, lambda a, b: (a.uid < b.uid) - (a.uid > b.uid))


def test_a_job_order_without_a_key_keeps_the_comparator() -> None:
    registry = default_registry()
    registry.register(_NoKey)
    conf = SchedulerConf(("allocate",), (Tier((PluginOption("priority", {}, {}), PluginOption("nokey", {}, {}))),))
    snap = Snapshot(ResourceSpace(), [], [(pg(f"g{i}", "ns", "q1", 1), 0) for i in range(4)], [],
                    [QueueInfo(queue("q1"))])
    ssn = Session(snap, conf, registry, reuse=True)
    assert ssn.job_key() is None
    agenda = Agenda(ssn, keyed=True)
    for job in ssn.jobs.values():
        agenda.add_job(ssn.queues["q1"], job)
    heap = agenda.jobs(ssn.queues["q1"])
    popped: list[JobInfo] = [heap.pop() for _ in range(len(heap))]
    assert [j.uid for j in popped] == ["ns/g3", "ns/g2", "ns/g1", "ns/g0"]


@settings(max_examples=60, deadline=None)
@given(n=st.integers(0, 5), seed=st.integers(0, 1_000_000))
def test_the_sort_key_of_any_key_count_is_the_keys_then_creation_and_uid(n: int, seed: int) -> None:
    """``_sort_key`` (a function made per key count) is the tuple of the keys in order, then the
    creation and uid, for every key count."""
    from volcano.scheduler.framework.session import _sort_key

    rng = random.Random(seed)
    ssn = _session(seed, True)
    offsets = [rng.randint(-3, 3) for _ in range(n)]
    flat: list[Callable[[JobInfo], Any]] = [
        (lambda job, o=o: len(job.uid) * o) if i % 2 else (lambda job, o=o: (job.priority + o, job.uid[::-1]))
        for i, o in enumerate(offsets)]
    key = _sort_key(flat)
    for job in ssn.jobs.values():
        assert key(job) == (*[k(job) for k in flat], job.creation, job.uid)
