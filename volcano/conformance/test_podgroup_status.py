"""PodGroup status as the scheduler writes it: phase sequence, counters, the gang condition and
its message format, pod conditions and queue ``status.allocated`` (reference: scheduler §7.3-§7.5,
§8.4). Built from bare PodGroups and pods, so no controller writes the status but the scheduler."""

from __future__ import annotations

import pytest

from volcano.api.resources import Resources
from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import pod, pod_group
from volcano.conformance.lib.sizing import cluster_node_number
from volcano.conformance.lib.waits import wait_pg_phase

pytestmark = pytest.mark.podgroup_status


def pg_status(cluster: Cluster, name: str) -> dict:
    return (cluster.get("PodGroup", name).get("status") or {})


def condition(cluster: Cluster, name: str, kind: str) -> dict | None:
    return next((c for c in pg_status(cluster, name).get("conditions") or [] if c.get("type") == kind), None)


def test_phase_goes_inqueue_running_completed_with_counters(cluster: Cluster) -> None:
    cluster.apply(pod_group("pg-done", min_member=2))
    cluster.apply([pod(f"done-{i}", group="pg-done", duration="20s") for i in range(2)])
    wait_pg_phase(cluster, "pg-done", "Running", 120)
    status = pg_status(cluster, "pg-done")
    assert status.get("running") == 2 and not status.get("succeeded")
    scheduled = condition(cluster, "pg-done", "Scheduled")
    assert scheduled and scheduled["status"] == "True"
    assert scheduled["reason"] == "tasks in gang are ready to be scheduled"
    wait_pg_phase(cluster, "pg-done", "Completed", 120)
    status = pg_status(cluster, "pg-done")
    assert status.get("succeeded") == 2 and not status.get("running")


def test_a_gang_that_cannot_fit_is_explained(cluster: Cluster) -> None:
    """minMember = workers + 1 pods that each need a whole worker: all but one fit, so the gang is
    discarded; the condition counts one unready task and histograms the Pending reasons."""
    workers = cluster_node_number(cluster)
    whole = {"cpu": str(Resources.from_k8s(cluster.worker_nodes()[0]["status"]["allocatable"]).get("cpu") // 1000)}
    n = workers + 1
    cluster.apply(pod_group("pg-big", min_member=n))
    cluster.apply([pod(f"big-{i}", group="pg-big", req=whole) for i in range(n)])

    def explained() -> bool:
        cond = condition(cluster, "pg-big", "Unschedulable")
        return bool(cond and cond.get("status") == "True")

    cluster.wait_until(explained, 120, "Unschedulable condition on pg-big")
    cond = condition(cluster, "pg-big", "Unschedulable")
    assert cond["reason"] == "NotEnoughResources"
    assert cond["message"].startswith(
        f"1/{n} tasks in gang unschedulable: pod group is not ready, {n} Pending, {n} minAvailable; "
        f"Pending: 1 Unschedulable, {workers} Schedulable. Origin reason is "), cond["message"]
    assert pg_status(cluster, "pg-big").get("phase") == "Inqueue"
    assert not any(p["spec"].get("nodeName") for p in cluster.pods())
    events = [e for e in cluster.events("PodGroup", "pg-big") if e["reason"] == "Unschedulable"]
    assert events and events[-1]["type"] == "Warning"
    assert events[-1]["message"].startswith(f"{n}/{n} tasks in gang unschedulable: pod group is not ready")


def test_pending_pods_carry_the_scheduler_reason(cluster: Cluster) -> None:
    """A pod one CPU larger than any worker: within its queue's deserved share (so proportion lets
    the predicates run) but no node fits it, so the pod condition carries the per-node fit errors."""
    biggest = max(Resources.from_k8s(n["status"]["allocatable"]).get("cpu") for n in cluster.worker_nodes())
    cluster.apply(pod_group("pg-huge", min_member=1))
    cluster.apply(pod("huge", group="pg-huge", req={"cpu": str(biggest // 1000 + 1)}))

    def unschedulable() -> bool:
        conds = cluster.get("Pod", "huge").get("status", {}).get("conditions") or []
        return any(c.get("type") == "PodScheduled" and c.get("status") == "False" for c in conds)

    cluster.wait_until(unschedulable, 120, "PodScheduled=False on the pod")
    cond = next(c for c in cluster.get("Pod", "huge")["status"]["conditions"] if c["type"] == "PodScheduled")
    assert cond["reason"] == "Unschedulable"
    assert "Insufficient cpu" in cond["message"]
    assert any(e["reason"] == "FailedScheduling" and e["type"] == "Warning" for e in cluster.events("Pod", "huge"))


def test_queue_allocated_reflects_running_pods(cluster: Cluster) -> None:
    cluster.apply(pod_group("pg-alloc", min_member=3))
    cluster.apply([pod(f"alloc-{i}", group="pg-alloc", req={"cpu": "500m", "memory": "1Gi"}) for i in range(3)])
    wait_pg_phase(cluster, "pg-alloc", "Running", 120)

    def allocated() -> Resources:
        return Resources.from_k8s((cluster.get("Queue", "default").get("status") or {}).get("allocated") or {})

    cluster.wait_until(lambda: allocated().get("cpu") >= 1500, 60, "queue default allocated >= 1500m cpu")
    assert allocated().get("cpu") == 1500 and allocated().get("memory") == 3 * 1024**3 * 1000


def test_the_gang_message_counts_every_task_not_min_member(cluster: Cluster) -> None:
    """The sibling of the case above with more pods than minMember (workers + 2 pods, minMember
    workers + 1): the denominators are the number of tasks, never minMember (reference §7.4). The
    status histogram is sorted as plain strings, so with 4 workers "5 minAvailable" precedes
    "6 Pending"."""
    workers = cluster_node_number(cluster)
    whole = {"cpu": str(Resources.from_k8s(cluster.worker_nodes()[0]["status"]["allocatable"]).get("cpu") // 1000)}
    n = workers + 1
    cluster.apply(pod_group("pg-wide", min_member=n))
    cluster.apply([pod(f"wide-{i}", group="pg-wide", req=whole) for i in range(n + 1)])

    def explained() -> bool:
        cond = condition(cluster, "pg-wide", "Unschedulable")
        return bool(cond and cond.get("status") == "True")

    cluster.wait_until(explained, 120, "Unschedulable condition on pg-wide")
    cond = condition(cluster, "pg-wide", "Unschedulable")
    hist = ", ".join(sorted([f"{n + 1} Pending", f"{n} minAvailable"]))
    assert cond["message"].startswith(
        f"1/{n + 1} tasks in gang unschedulable: pod group is not ready, {hist}; "
        f"Pending: 2 Unschedulable, {workers} Schedulable. Origin reason is "), cond["message"]
    events = [e for e in cluster.events("PodGroup", "pg-wide") if e["reason"] == "Unschedulable"]
    assert events and events[-1]["message"].startswith(f"{n + 1}/{n + 1} tasks in gang unschedulable: ")
