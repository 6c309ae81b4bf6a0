"""Scheduler conformance: exact texts and fields a client reads back (scheduler reference §5.1.5, §7.3, §7.4).

* A node's pod capacity, two ways: allocate's resource check counts the ``pods`` scalar and names it
  ("Insufficient pods"); backfill, which places best-effort pods without a resource check, meets the
  predicates' pod count ("node(s) pod number exceeded"). Either way the pod's ``PodScheduled`` condition
  and its ``FailedScheduling`` Warning carry ``0/<N> nodes are unavailable: <count> <reason>.``.
* A queue's ``status.allocated`` (written at session close) prints cpu as a milli quantity, memory as a
  binary one and ``pods`` as a count.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import pod, pod_group, queue
from volcano.conformance.lib.waits import bound
from volcano.conformance.test_scheduling_support import make_queues

Obj = dict[str, Any]

pytestmark = pytest.mark.scheduling_base


def _scheduled(cluster: Cluster, name: str) -> Obj | None:
    conds = (cluster.get("Pod", name).get("status") or {}).get("conditions") or []
    return next((c for c in conds if c.get("type") == "PodScheduled"), None)


def _told(cluster: Cluster, name: str, message: str) -> None:
    """``name`` is unbound with PodScheduled False/Unschedulable ``message`` and a matching Warning."""
    def written() -> bool:
        cond = _scheduled(cluster, name)
        return cond is not None and cond.get("message") == message

    cluster.wait_until(written, 300, f"{name}: PodScheduled {message!r}")
    cond = _scheduled(cluster, name)
    assert cond is not None and (cond.get("status"), cond.get("reason")) == ("False", "Unschedulable"), cond
    assert not bound(cluster.get("Pod", name))
    events = {(e.get("type"), e.get("message")) for e in cluster.events("Pod", name)
              if e.get("reason") == "FailedScheduling"}
    assert events == {("Warning", message)}, events


@pytest.mark.cluster(workers=2, cpu="4", pods=2, control_plane=False)
def test_a_full_node_is_short_of_pods_or_over_its_pod_number(cluster: Cluster) -> None:
    """Two workers of 2 pods each: of five 10m pods four bind and the fifth is told both nodes lack
    ``pods``; a best-effort pod then (placed by backfill, which checks no resources) is told both nodes
    are over their pod number."""
    names = [f"m11-full-{i}" for i in range(5)]
    cluster.apply([pod(n, req={"cpu": "10m"}) for n in names])
    cluster.wait_until(lambda: sum(bound(cluster.get("Pod", n)) for n in names) == 4, 300, "four pods bound")
    [left] = [n for n in names if not bound(cluster.get("Pod", n))]
    _told(cluster, left, "0/2 nodes are unavailable: 2 Insufficient pods.")
    best_effort = pod("m11-full-be")
    best_effort["spec"]["containers"][0]["resources"] = {}
    cluster.apply(best_effort)
    _told(cluster, "m11-full-be", "0/2 nodes are unavailable: 2 node(s) pod number exceeded.")


@pytest.mark.cluster(workers=2, cpu="4", control_plane=False)
def test_a_queues_allocation_is_written_in_canonical_quantities(cluster: Cluster) -> None:
    """Two running pods of 500m and 1Gi in queue ``m11-alloc``: its ``status.allocated`` reads exactly
    cpu ``1`` (a milli quantity printed canonically), memory ``2Gi`` (a binary quantity) and ``pods`` ``2``
    (a count) — upstream's ``ConvertRes2ResList``."""
    make_queues(cluster, queue("m11-alloc"))
    cluster.apply(pod_group("m11-alloc-pg", min_member=2, queue="m11-alloc"))
    half = {"cpu": "500m", "memory": "1Gi"}
    cluster.apply([pod(f"m11-alloc-{i}", group="m11-alloc-pg", req=half) for i in range(2)])

    def allocated() -> Obj:
        return dict((cluster.get("Queue", "m11-alloc").get("status") or {}).get("allocated") or {})

    want = {"cpu": "1", "memory": "2Gi", "pods": "2"}
    cluster.wait_until(lambda: allocated() == want, 300, f"m11-alloc allocated {want}")
