"""Enqueue conformance: what a running PodGroup holds back in its queue.

proportion and overcommit count, besides Inqueue PodGroups' ``minResources``, the rest of a Running
PodGroup's ``minResources`` once its allocated pods reached ``minMember``
(``GetInqueueResource``: ``minResources - allocated``, per resource, at least 0). A later PodGroup is
enqueued only within what is left.

Shape: one worker of 4 CPUs and 16Gi, no control-plane node, so the cluster total is 4 CPUs and 16Gi.
"""

from __future__ import annotations

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import pod, pod_group
from volcano.conformance.lib.waits import bound

__all__: list[str] = []

pytestmark = [pytest.mark.queue, pytest.mark.cluster(workers=1, cpu="4", memory="16Gi", control_plane=False)]


def _phase(cluster: Cluster, name: str) -> str:
    return str((cluster.get("PodGroup", name).get("status") or {}).get("phase") or "Pending")


def test_a_running_podgroup_holds_the_rest_of_its_min_resources(cluster: Cluster) -> None:
    """PodGroup ``held`` (minMember 1, minResources 3 CPUs) runs one pod of 1 CPU, so it holds 2 more
    CPUs; PodGroup ``next`` asking 2 CPUs would need 1 + 2 + 2 > 4 and stays Pending, its pod unbound.
    Once ``held`` is deleted, ``next`` is enqueued and its pod binds."""
    cluster.apply(pod_group("held", min_member=1, min_resources={"cpu": "3"}))
    cluster.apply(pod("held-0", group="held", req={"cpu": "1", "memory": "100Mi"}))
    cluster.wait_until(lambda: bound(cluster.get("Pod", "held-0")) and _phase(cluster, "held") == "Running", 120,
                       "held runs")
    cluster.apply(pod_group("next", min_member=1, min_resources={"cpu": "2"}))
    cluster.apply(pod("next-0", group="next", req={"cpu": "1", "memory": "100Mi"}))
    cluster.hold(lambda: _phase(cluster, "next") == "Pending" and not bound(cluster.get("Pod", "next-0")), 30,
                 "next stays Pending while held holds its minResources")
    cluster.delete("Pod", "held-0")
    cluster.delete("PodGroup", "held")
    cluster.wait_until(lambda: bound(cluster.get("Pod", "next-0")), 120, "next's pod binds")
