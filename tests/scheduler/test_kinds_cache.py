"""Kinds pinned whole: what the scheduler cache hears after the first session and what the next
sessions make of it: PriorityClasses deleted under the cache (every job's priority after each
step), a toleration added to a pending gang member, a node's label changed (the node table
built afresh with the running pods placed), each with ``reuse`` on and off against the same
whole expectation (trace, priorities, bindings); and the scheduler's options (period, default queue)."""

from __future__ import annotations

import pytest

from tests.scheduler.kinds_support import bound, enqueued, gang, podgroup, pods, priority_class, sched_trace
from volcano.api.frozen import thaw
from volcano.scheduler.scheduler import Scheduler
from volcano.testbed import FakeCluster

REUSE = pytest.mark.parametrize("reuse", [True, False], ids=["reuse", "reference"])


def cluster(reuse: bool) -> FakeCluster:
    """A cluster whose schedulers take ``reuse``."""
    fc = FakeCluster(seed=1)
    fc.scheduler.reuse = reuse
    fc.default_scheduler.reuse = reuse
    return fc


def priorities(fc: FakeCluster) -> dict[str, int]:
    """Every job of the last session the scheduler computed, with its priority."""
    ssn = fc.scheduler.last_session
    assert ssn is not None
    return {uid: job.priority for uid, job in sorted(ssn.jobs.items())}


@REUSE
def test_deleting_priority_classes_moves_every_job_to_what_is_left(reuse: bool) -> None:
    """Classes ``high`` (1000) and ``base`` (5, the global default): ``a`` names high, ``b`` none, ``c``
    a class that does not exist (both take the default). Deleting ``high`` puts ``a`` on the default;
    deleting ``base`` then leaves every job at 0, and the cache keeps only the built-in classes."""
    fc = cluster(reuse)
    fc.add_node("n1", cpu="1")
    priority_class(fc, "high", 1000)
    fc.apply({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "base"},
              "value": 5, "globalDefault": True})
    podgroup(fc, "a", 1, priority_class="high")
    podgroup(fc, "b", 1)
    podgroup(fc, "c", 1, priority_class="gone")
    fc.run(1)
    assert priorities(fc) == {"default/a": 1000, "default/b": 5, "default/c": 5}
    fc.delete("PriorityClass", "high")
    fc.run(1)
    assert priorities(fc) == {"default/a": 5, "default/b": 5, "default/c": 5}
    fc.delete("PriorityClass", "base")
    fc.run(1)
    assert priorities(fc) == {"default/a": 0, "default/b": 0, "default/c": 0}
    assert sorted(fc.scheduler.cache.priority_classes) == ["system-cluster-critical", "system-node-critical"]
    # Then a pod of ``a`` still schedules: the cache is intact.
    pods(fc, "a", 1, "1")
    fc.run(1)
    assert fc.get("Pod", "a-0")["spec"].get("nodeName") == "n1"


@REUSE
def test_a_toleration_added_to_a_waiting_gang_member_places_the_gang(reuse: bool) -> None:
    """Nodes of 2 cpu, ``n2`` tainted ``dedicated=x:NoSchedule``; a gang of two 2-cpu pods waits (one
    member fits nowhere) for 3 s; then that member is given a toleration of the taint and the whole
    gang binds in the next cycle."""
    fc = cluster(reuse)
    fc.add_node("n1", cpu="2")
    fc.add_node("n2", cpu="2", taints=["dedicated=x:NoSchedule"])
    gang(fc, "g", 2, 2, "2")
    fc.run(3)
    assert [fc.get("Pod", f"g-{i}")["spec"].get("nodeName") for i in range(2)] == [None, None]
    pod = thaw(fc.get("Pod", "g-1"))
    pod["spec"]["tolerations"] = [{"key": "dedicated", "operator": "Equal", "value": "x", "effect": "NoSchedule"}]
    fc.update(pod)
    fc.run(3)
    assert sched_trace(fc) == [
        enqueued(1000, "g"),
        bound(4000, "g-0", "n1"),
        bound(4000, "g-1", "n2"),
    ]


@REUSE
def test_a_node_changed_under_running_pods_keeps_them_placed(reuse: bool) -> None:
    """Nodes of 2, 1 and 1 cpu, a 2-cpu pod running on ``n1``; ``n1`` gets a label (the node table is built
    afresh), then a 2-cpu pod arrives: no node has 2 cpu free, so it stays pending."""
    fc = cluster(reuse)
    fc.add_node("n1", cpu="2")
    fc.add_node("n2", cpu="1")
    fc.add_node("n3", cpu="1")
    gang(fc, "a", 1, 1, "2")
    fc.run(3)
    fc.patch("Node", "n1", {"metadata": {"labels": {"extra": "yes"}}})
    gang(fc, "b", 1, 1, "2")
    fc.run(3)
    assert sched_trace(fc) == [
        enqueued(1000, "a"),
        bound(1000, "a-0", "n1"),
        enqueued(4000, "b"),
    ]
    assert fc.get("Pod", "b-0")["spec"].get("nodeName") is None
    assert fc.get("PodGroup", "b")["status"]["phase"] == "Inqueue"


def test_scheduler_options_period_and_default_queue() -> None:
    """A Volcano scheduler with a 400 ms period and default queue ``other``: its start creates the queue
    (weight 1, reclaimable) where none exists; it cycles at 400, 800 and 1200 ms (three cycles by 1.3 s),
    its first one enqueueing and binding a new gang, and its PodGroup conditions name its session."""
    fc = FakeCluster(seed=1)
    fc.scheduler.stop()
    fc.scheduler = Scheduler(fc.client, fc.informers, fc.clock, trace=fc.trace, recorder=fc.recorder_for("volcano"),
                             period_ms=400, default_queue="other")
    fc.scheduler.start()
    assert fc.get("Queue", "other")["spec"] == {"weight": 1, "reclaimable": True, "dequeueStrategy": "traverse"}
    fc.add_node("n1", cpu="2")
    gang(fc, "g", 1, 1, "1")
    fc.run(1.3)
    assert sched_trace(fc) == [enqueued(400, "g"), bound(400, "g-0", "n1")]
    assert (fc.scheduler.cycles, fc.scheduler.skipped_cycles, fc.scheduler.replayed_cycles) == (3, 0, 0)
    assert fc.get("PodGroup", "g")["status"] == {"phase": "Running", "conditions": [
        {"type": "Scheduled", "status": "True", "transitionID": "volcano-session-2",
         "lastTransitionTime": "2024-01-01T00:00:00Z", "reason": "tasks in gang are ready to be scheduled",
         "message": ""}]}
