"""What the session close writes for a job that waits, cycle after cycle (scheduler reference §7.5):

* a pending pod's ``PodScheduled`` condition is written, with a ``FailedScheduling`` Warning, only when
  it changes: a pod that cannot fit for a minute has one such event (count 1) and one status write;
* the PodGroup's ``Unschedulable`` Warning is recorded at every cycle while it is Pending or Inqueue
  (the event recorder aggregates it: one event whose count grows) until the recorder's spam filter
  (client-go's: a bucket of 25 per source and object, one more per five minutes) stops it at 25;
* once room appears the pod binds, the PodGroup is Running with a ``Scheduled`` condition, and its
  ``Normal``/``Scheduled`` "pod group is ready" event is dropped by the same spent bucket.

Shape: one worker of 4 CPUs, no control-plane node.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import pod, pod_group
from volcano.conformance.lib.waits import bound

Obj = dict[str, Any]

pytestmark = [pytest.mark.podgroup_status, pytest.mark.cluster(workers=1, cpu="4", control_plane=False)]


def _events(cluster: Cluster, kind: str, name: str, reason: str) -> list[Obj]:
    return [e for e in cluster.events(kind, name) if e.get("reason") == reason]


@pytest.mark.parametrize("waited", [60, 5])
def test_a_waiting_pod_is_told_once_and_its_podgroup_every_cycle(cluster: Cluster, waited: int) -> None:
    """A 3-CPU pod waits behind a 2-CPU filler for ``waited`` s: its ``FailedScheduling`` event keeps
    count 1 and its status is not written again; its PodGroup's ``Unschedulable`` Warning count grows
    (after 60 s it is held at the spam filter's 25). When the filler goes the pod binds and the PodGroup
    is Running and Scheduled; its ``Scheduled`` event is recorded after 5 s, not after 60 (no token
    left)."""
    cluster.apply(pod_group("ks-fill", min_member=1))
    cluster.apply(pod("ks-fill-0", group="ks-fill", req={"cpu": "2"}, grace_seconds=0))
    cluster.wait_until(lambda: bound(cluster.get("Pod", "ks-fill-0")), 60, "the filler binds")
    cluster.apply(pod_group("ks-wait", min_member=1))
    cluster.apply(pod("ks-wait-0", group="ks-wait", req={"cpu": "3"}, grace_seconds=0))
    cluster.wait_until(lambda: bool(_events(cluster, "Pod", "ks-wait-0", "FailedScheduling")), 60,
                       "a FailedScheduling event")
    first = cluster.get("Pod", "ks-wait-0")["metadata"]["resourceVersion"]
    cluster.sleep(waited)
    told = _events(cluster, "Pod", "ks-wait-0", "FailedScheduling")
    assert [(e.get("type"), e.get("count") or 1) for e in told] == [("Warning", 1)], told
    assert cluster.get("Pod", "ks-wait-0")["metadata"]["resourceVersion"] == first
    group = [e for e in _events(cluster, "PodGroup", "ks-wait", "Unschedulable") if e.get("type") == "Warning"]
    assert len(group) == 1 and (group[0].get("count") == 25 if waited == 60 else 1 < group[0]["count"] < 25), group
    cluster.delete("PodGroup", "ks-fill")
    cluster.delete("Pod", "ks-fill-0")
    cluster.wait_until(lambda: bound(cluster.get("Pod", "ks-wait-0")), 60, "the waiting pod binds")

    def status() -> Obj:
        return dict(cluster.get("PodGroup", "ks-wait").get("status") or {})

    cluster.wait_until(lambda: status().get("phase") == "Running", 60, "ks-wait Running")
    conditions = {c.get("type"): (c.get("status"), c.get("reason")) for c in status().get("conditions") or []}
    assert conditions.get("Scheduled") == ("True", "tasks in gang are ready to be scheduled"), conditions
    # The Unschedulable Warnings took the object's 25 tokens of the spam filter: "pod group is ready" is
    # dropped, as client-go's recorder drops it (one token back per five minutes).
    cluster.sleep(10)
    ready = [(e.get("type"), e.get("message")) for e in _events(cluster, "PodGroup", "ks-wait", "Scheduled")]
    assert ready == ([] if waited == 60 else [("Normal", "pod group is ready")]), ready
