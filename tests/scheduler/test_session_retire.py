"""The scheduler retires each finished session once the next cycle has run (``retire``): its
objects are freed by reference counting alone, with the cyclic collector switched off, while the
last session stays whole; the reference path (``reuse = False``) keeps every session as it was."""

from __future__ import annotations

import gc
import weakref
from typing import Any

from volcano.testbed import FakeCluster


def _waiting_gang(cluster: FakeCluster) -> None:
    """A gang of 3 one-CPU pods on one 2-CPU node: it waits, so every cycle runs a session."""
    cluster.add_node("n0", cpu="2", memory="8Gi")
    cluster.client.create({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
                           "metadata": {"name": "g", "namespace": "default"},
                           "spec": {"minMember": 3, "queue": "default"}})
    for i in range(3):
        pod: dict[str, Any] = {
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"g-{i}", "namespace": "default",
                         "annotations": {"scheduling.k8s.io/group-name": "g"}},
            "spec": {"schedulerName": "volcano", "containers": [
                {"name": "c", "image": "x", "resources": {"requests": {"cpu": "1"}}}]}}
        cluster.client.create(pod)


def _first_session(reuse: bool) -> tuple[FakeCluster, weakref.ref[Any], int]:
    cluster = FakeCluster(seed=0, gc_threshold=None)
    cluster.scheduler.reuse = reuse
    _waiting_gang(cluster)
    cluster.run(2)
    ssn = cluster.scheduler.last_session
    assert ssn is not None and ssn.jobs, "the gang's session has its job"
    return cluster, weakref.ref(ssn), len(ssn.jobs)


def test_a_retired_session_is_freed_without_the_cyclic_collector() -> None:
    gc.collect()
    gc.disable()
    try:
        cluster, first, _ = _first_session(reuse=True)
        runs = cluster.scheduler.cycles - cluster.scheduler.replayed_cycles - cluster.scheduler.skipped_cycles
        cluster.clock.fast_forward = False  # every cycle runs a session (no replay of the last one)
        cluster.run(3)
        assert cluster.scheduler.cycles - cluster.scheduler.replayed_cycles - cluster.scheduler.skipped_cycles > runs
        assert first() is None, "the first session was freed by reference counting alone"
        last = cluster.scheduler.last_session
        assert last is not None and last.jobs and all(t.job is not None for j in last.jobs.values()
                                                       for t in j.tasks.values())
    finally:
        gc.enable()


def test_the_reference_path_keeps_sessions_whole() -> None:
    cluster, first, jobs = _first_session(reuse=False)
    ssn = first()
    cluster.clock.fast_forward = False
    cluster.run(3)
    assert ssn is not None and len(ssn.jobs) == jobs
    assert all(t.job is not None for j in ssn.jobs.values() for t in j.tasks.values())
