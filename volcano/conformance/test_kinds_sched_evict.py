"""What an eviction by the scheduler leaves on its victim (scheduler reference, session commit;
upstream ``defaultEvictor.Evict``): before the graceful delete the pod's status gets ``Ready``
False/``Evict`` "Pod is evicted, because of <reason>" and ``DisruptionTarget`` True/
``PreemptionByScheduler`` "<scheduler>: preempting to accommodate a higher priority pod"; the pod gets
a Warning ``Evict`` event with the same message and its PodGroup a Normal ``Evict`` event naming the
reason (``preempt`` or ``reclaim``).

Shape: one worker of 1 CPU, no control-plane node. The victim has a 60 s grace period, so it is read
while it terminates.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import pod, pod_group
from volcano.conformance.lib.waits import bound
from volcano.conformance.test_scheduling_support import (
    CI_CONF,
    PREEMPTABLE,
    make_priority_classes,
    make_queues,
    simple_queue,
)

Obj = dict[str, Any]

pytestmark = pytest.mark.cluster(workers=1, cpu="1", control_plane=False)


def _run(cluster: Cluster, name: str, queue: str = "default", priority: str | None = None, grace: int = 0,
         preemptable: bool = True) -> None:
    cluster.apply(pod_group(name, min_member=1, queue=queue, priority_class=priority))
    cluster.apply(pod(name, group=name, req={"cpu": "1"}, labels=dict(PREEMPTABLE) if preemptable else None,
                      priority_class=priority, grace_seconds=grace))


def _told(cluster: Cluster, reason: str) -> None:
    """``ke-victim`` is terminating with the eviction's conditions and events for ``reason``."""
    def terminating() -> bool:
        return bool(cluster.get("Pod", "ke-victim")["metadata"].get("deletionTimestamp"))

    cluster.wait_until(terminating, 120, "the victim terminating")
    message = f"Pod is evicted, because of {reason}"
    listed = cluster.get("Pod", "ke-victim")["status"].get("conditions") or []
    types = [c["type"] for c in listed]
    assert len(types) == len(set(types)), listed  # each condition type once: an earlier one is replaced
    conditions = {c["type"]: (c.get("status"), c.get("reason"), c.get("message")) for c in listed}
    assert conditions.get("Ready") == ("False", "Evict", message), conditions
    assert conditions.get("DisruptionTarget") == (
        "True", "PreemptionByScheduler", "volcano: preempting to accommodate a higher priority pod"), conditions
    pod_events = {(e.get("type"), e.get("message")) for e in cluster.events("Pod", "ke-victim")
                  if e.get("reason") == "Evict"}
    assert pod_events == {("Warning", message)}, pod_events
    group_events = {(e.get("type"), e.get("message")) for e in cluster.events("PodGroup", "ke-victim")
                    if e.get("reason") == "Evict"}
    assert group_events == {("Normal", reason)}, group_events


@pytest.mark.preemption
@pytest.mark.scheduler_conf(CI_CONF)
def test_a_preempted_pod_is_marked_and_told_why(cluster: Cluster) -> None:
    """A priority-10 pod fills the worker (a client wrote a ``DisruptionTarget`` False condition on it);
    a priority-100 pod of the same queue preempts it: the condition is replaced by the scheduler's."""
    make_priority_classes(cluster, {"ke-low": 10, "ke-high": 100})
    _run(cluster, "ke-victim", priority="ke-low", grace=60)
    cluster.wait_until(lambda: bound(cluster.get("Pod", "ke-victim")), 60, "the victim binds")
    # A DisruptionTarget condition some other client wrote earlier is replaced, not kept beside the new one.
    cluster.patch("Pod", "ke-victim", {"status": {"conditions": [
        {"type": "DisruptionTarget", "status": "False", "reason": "KindsEarlier", "message": "written before"}]}},
        subresource="status", patch_type="strategic")
    _run(cluster, "ke-urgent", priority="ke-high")
    _told(cluster, "preempt")
    cluster.wait_until(lambda: bound(cluster.get("Pod", "ke-urgent")), 120, "the preemptor binds")


@pytest.mark.reclaim
@pytest.mark.scheduler_conf(CI_CONF)
@pytest.mark.cluster(workers=1, cpu="2", control_plane=False)
def test_a_reclaimed_pod_is_marked_and_told_why(cluster: Cluster) -> None:
    """Queues ``ke-a`` and ``ke-b`` of equal weight on a 2-CPU worker: ``ke-b``'s two 1-CPU pods fill it
    (one not preemptable), then ``ke-a``'s pod reclaims its share from the other."""
    make_queues(cluster, simple_queue("ke-a"), simple_queue("ke-b"))
    _run(cluster, "ke-victim", queue="ke-b", grace=60)
    _run(cluster, "ke-kept", queue="ke-b", preemptable=False)
    cluster.wait_until(lambda: all(bound(cluster.get("Pod", n)) for n in ("ke-victim", "ke-kept")), 60,
                       "ke-b's pods bind")
    _run(cluster, "ke-claim", queue="ke-a")
    _told(cluster, "reclaim")
