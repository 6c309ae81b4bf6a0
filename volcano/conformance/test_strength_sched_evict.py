"""What a preemption's eviction writes (scheduler reference: the cache's Evict and the default
evictor): a Normal ``Evict`` Event on the victim's PodGroup, a Warning ``Evict`` Event on the pod
("Pod is evicted, because of ..."), and on the pod's status ``Ready`` False with reason ``Evict``,
the pod's other conditions kept (a condition update, not a replacement), before the pod is deleted.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import pod, pod_group
from volcano.conformance.lib.waits import bound
from volcano.conformance.test_scheduling_support import CI_CONF_NO_ENQUEUE, PREEMPTABLE, make_priority_classes

pytestmark = pytest.mark.preemption
Obj = dict[str, Any]


def _run(cluster: Cluster, name: str, priority: str) -> None:
    cluster.apply(pod_group(name, min_member=1, priority_class=priority))
    cluster.apply(pod(name, group=name, req={"cpu": "1"}, labels=dict(PREEMPTABLE), priority_class=priority,
                      grace_seconds=0))


def _conditions(obj: Obj) -> dict[str, Obj]:
    return {c["type"]: c for c in (obj.get("status") or {}).get("conditions") or []}


@pytest.mark.cluster(workers=1, cpu="1", control_plane=False)
@pytest.mark.scheduler_conf(CI_CONF_NO_ENQUEUE)
def test_an_eviction_is_reported_on_the_podgroup_and_the_pod(cluster: Cluster) -> None:
    """One full 1-CPU worker holds ``low`` (priority 10); ``urgent`` (priority 100) preempts it."""
    make_priority_classes(cluster, {"evict-low": 10, "evict-urgent": 100})
    _run(cluster, "low", "evict-low")
    cluster.wait_until(lambda: bound(cluster.get("Pod", "low")), 60, "low bound")
    _run(cluster, "urgent", "evict-urgent")
    cluster.wait_until(lambda: bound(cluster.get("Pod", "urgent")), 120, "the preemptor binds")
    on_group = [e for e in cluster.events(kind="PodGroup", name="low") if e.get("reason") == "Evict"]
    assert on_group and {e.get("type") for e in on_group} == {"Normal"}, on_group
    on_pod = [e for e in cluster.events(kind="Pod", name="low") if e.get("reason") == "Evict"]
    assert on_pod and all(e.get("type") == "Warning" and e.get("message", "").startswith("Pod is evicted, because of")
                          for e in on_pod), on_pod
    # The victim's last state before deletion (0 s grace: too short-lived to poll over HTTP).
    marked = [obj for _, kind, _, obj in cluster.recorded_history()
              if kind == "Pod" and obj["metadata"]["name"] == "low"
              and _conditions(obj).get("Ready", {}).get("reason") == "Evict"]
    assert marked, "the victim's Ready condition never said Evict"
    conditions = _conditions(marked[0])
    assert conditions["Ready"]["status"] == "False"
    assert conditions.get("PodScheduled", {}).get("status") == "True", conditions
