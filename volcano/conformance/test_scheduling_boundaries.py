"""Scheduling limits at the boundary: the limit itself and one on each side.

* a toleration's ``effect`` (empty tolerates every effect; otherwise it must equal the taint's);
* a node's capacity (a pod of exactly the idle CPU binds, one millicore more does not);
* ``minMember`` with more pods than ``minMember`` (the gang binds at ``minMember``, not at replicas);
* queue ``capability`` (the pod that reaches it binds, the next one waits), ``guarantee`` (a floor
  other queues cannot take) and closing with PodGroups left;
* a Job's ``minAvailable`` around the room left, with more replicas than ``minAvailable``.

Facts: the scheduler reference §6 (predicates: TaintToleration as Kubernetes' ``ToleratesTaint``,
resource fit), §5.2 (gang readiness at ``minMember``) and §5.4 (proportion: ``capability`` caps
what a queue may allocate).
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.api.resources import Resources
from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import Task, job, pod, pod_group, queue, queue_command
from volcano.conformance.lib.sizing import cluster_size
from volcano.conformance.lib.waits import bound, wait_tasks_ready
from volcano.conformance.test_scheduling_support import (
    TAINT,
    make_queues,
    ready,
    taint_all_nodes,
    untaint_all_nodes,
)

Obj = dict[str, Any]


def _bound_within(cluster: Cluster, name: str, seconds: float = 60) -> None:
    cluster.wait_until(lambda: bound(cluster.get("Pod", name)), seconds, f"pod {name} bound")


def _never_bound(cluster: Cluster, name: str, seconds: float = 60) -> None:
    cluster.hold(lambda: not bound(cluster.get("Pod", name)), seconds, f"pod {name} stays unbound")


@pytest.mark.scheduling_base
@pytest.mark.parametrize(("effect", "tolerated"), [
    ("NoSchedule", True), ("", True), ("NoExecute", False), ("PreferNoSchedule", False),
])
def test_a_toleration_tolerates_only_its_effect(cluster: Cluster, effect: str, tolerated: bool) -> None:
    """Every node carries a NoSchedule taint; the pod tolerates its key and value with ``effect``."""
    taint_all_nodes(cluster)
    try:
        tol: Obj = {"key": TAINT["key"], "operator": "Equal", "value": TAINT["value"]}
        if effect:
            tol["effect"] = effect
        cluster.apply(pod("tolerating", tolerations=[tol]))
        if tolerated:
            _bound_within(cluster, "tolerating")
        else:
            _never_bound(cluster, "tolerating")
    finally:
        untaint_all_nodes(cluster)


@pytest.mark.scheduling_base
@pytest.mark.parametrize(("extra_milli", "fits"), [(-1, True), (0, True), (1, False)])
def test_a_pod_fits_a_node_up_to_its_idle_cpu(cluster: Cluster, extra_milli: int, fits: bool) -> None:
    """One pod per worker asking for the worker's whole CPU, plus or minus one millicore."""
    workers = cluster.worker_nodes()
    cpu = Resources.from_k8s(workers[0]["status"]["allocatable"]).get("cpu")
    names = [f"whole-{i}" for i in range(len(workers))]
    cluster.apply([pod(n, req={"cpu": f"{cpu + extra_milli}m"}) for n in names])
    if fits:
        cluster.wait_until(lambda: all(bound(cluster.get("Pod", n)) for n in names), 60, "every pod bound")
    else:
        cluster.hold(lambda: not any(bound(cluster.get("Pod", n)) for n in names), 60, "no pod bound")


@pytest.mark.gang
@pytest.mark.parametrize("room", [1, 2, 3])
def test_a_gang_binds_at_min_member_not_at_replicas(cluster: Cluster, room: int) -> None:
    """A gang of 3 pods with minMember 2 where only ``room`` of them fit (every worker's CPU but
    ``room`` single CPUs taken): below minMember nothing binds; at minMember and above, all that fit."""
    workers = cluster.worker_nodes()
    cpu = Resources.from_k8s(workers[0]["status"]["allocatable"]).get("cpu")
    fillers = []
    for i, w in enumerate(workers):
        free = 1 if i < room else 0
        fillers.append(pod(f"filler-{i}", req={"cpu": f"{cpu - free * 1000}m"},
                           node_selector={"kubernetes.io/hostname": w["metadata"]["name"]}))
    cluster.apply(fillers)
    cluster.wait_until(lambda: all(bound(cluster.get("Pod", f["metadata"]["name"])) for f in fillers), 60,
                       "fillers bound")
    cluster.apply(pod_group("gang-2-of-3", min_member=2))
    members = [f"member-{i}" for i in range(3)]
    cluster.apply([pod(m, group="gang-2-of-3", req={"cpu": "1"}) for m in members])
    expect = room if room >= 2 else 0

    def count() -> int:
        return sum(1 for m in members if bound(cluster.get("Pod", m)))

    if expect:
        cluster.wait_until(lambda: count() == expect, 60, f"{expect} members bound")
    cluster.hold(lambda: count() == expect, 30, f"exactly {expect} members bound")


@pytest.mark.queue
@pytest.mark.parametrize(("pods", "bound_pods"), [(2, 2), (3, 3), (4, 3)])
def test_queue_capability_admits_up_to_the_limit(cluster: Cluster, pods: int, bound_pods: int) -> None:
    """A queue capped at 3 CPUs gets one-CPU pods one at a time: 2 and 3 bind; of 4, the fourth waits."""
    make_queues(cluster, queue("capped", capability={"cpu": "3"}))
    names = []
    for i in range(pods):
        cluster.apply(pod_group(f"cap-{i}", min_member=1, queue="capped"))
        cluster.apply(pod(f"cap-{i}", group=f"cap-{i}", req={"cpu": "1"}))
        names.append(f"cap-{i}")
        if i < bound_pods:
            _bound_within(cluster, f"cap-{i}")
    if pods > bound_pods:
        _never_bound(cluster, names[-1])


@pytest.mark.queue
@pytest.mark.cluster(control_plane=False)
@pytest.mark.parametrize(("asked", "granted"), [(3, 3), (4, 4), (5, 4)])
def test_queue_guarantee_is_a_floor_others_cannot_take(cluster: Cluster, asked: int, granted: int) -> None:
    """A queue guaranteed 4 CPUs (weight 1) beside a weight-10 queue on 16 CPUs: the heavy queue asks
    for all 16 but proportion caps it at its real capability, total - guarantees = 12, even before
    the guaranteed queue has any job; the guaranteed queue then gets up to its 4 (reference §5.4)."""
    make_queues(cluster, queue("guaranteed", guarantee={"cpu": "4"}), queue("heavy", weight=10))
    heavy = [f"heavy-{i}" for i in range(16)]
    cluster.apply([pod_group("heavy", min_member=1, queue="heavy")])
    cluster.apply([pod(n, group="heavy", req={"cpu": "1"}) for n in heavy])

    def count(names: list[str]) -> int:
        return sum(1 for n in names if bound(cluster.get("Pod", n)))

    cluster.wait_until(lambda: count(heavy) == 12, 60, "12 heavy pods bound")
    cluster.hold(lambda: count(heavy) == 12, 30, "the heavy queue stays at 12")
    mine = [f"mine-{i}" for i in range(asked)]
    cluster.apply([pod_group("mine", min_member=1, queue="guaranteed")])
    cluster.apply([pod(n, group="mine", req={"cpu": "1"}) for n in mine])
    cluster.wait_until(lambda: count(mine) == granted, 60, f"{granted} guaranteed pods bound")
    cluster.hold(lambda: count(mine) == granted and count(heavy) == 12, 30, "the split holds")


def _queue_state(cluster: Cluster, name: str) -> str | None:
    q = cluster.try_get("Queue", name)
    return None if q is None else q.get("status", {}).get("state")


@pytest.mark.queue
@pytest.mark.parametrize("groups", [0, 1, 2])
def test_a_closed_queue_is_closing_while_podgroups_remain(cluster: Cluster, groups: int) -> None:
    """CloseQueue on a queue with ``groups`` PodGroups: Closed at once with none, else Closing until
    the last one is gone (controllers reference §6.2); a Closing queue admits no new pod."""
    make_queues(cluster, queue("closing"))
    for i in range(groups):
        cluster.apply(pod_group(f"g-{i}", min_member=1, queue="closing"))
        cluster.apply(pod(f"g-{i}", group=f"g-{i}"))
        _bound_within(cluster, f"g-{i}")
    cluster.apply(queue_command(cluster.get("Queue", "closing"), "CloseQueue"))
    if groups == 0:
        cluster.wait_until(lambda: _queue_state(cluster, "closing") == "Closed", 60, "queue Closed")
        return
    cluster.wait_until(lambda: _queue_state(cluster, "closing") == "Closing", 60, "queue Closing")
    cluster.apply(pod("late", group="g-0"))
    cluster.hold(lambda: _queue_state(cluster, "closing") == "Closing" and not bound(cluster.get("Pod", "late")),
                 30, "the queue stays Closing and admits no new pod")
    cluster.delete("Pod", "late")
    for i in range(groups):
        cluster.delete("Pod", f"g-{i}")
        cluster.delete("PodGroup", f"g-{i}")
        if i < groups - 1:
            cluster.hold(lambda: _queue_state(cluster, "closing") == "Closing", 30, "Closing while a PodGroup remains")
    cluster.wait_until(lambda: _queue_state(cluster, "closing") == "Closed", 60, "queue Closed")


@pytest.mark.gang
@pytest.mark.parametrize("delta", [-1, 0, 1])
def test_a_job_gang_with_min_available_around_the_free_room(cluster: Cluster, delta: int) -> None:
    """The sibling of upstream's "Gang scheduling" with replicas > minAvailable: the cluster has
    ``free`` one-CPU slots left; a Job of free + 2 replicas with minAvailable free + delta runs
    ``free`` pods when minAvailable <= free and none when it is one more."""
    rep = cluster_size(cluster, {"cpu": "1"})
    free = rep // 2
    cluster.apply(pod_group("filler", min_member=1))
    cluster.apply([pod(f"filler-{i}", group="filler", req={"cpu": "1"}) for i in range(rep - free)])
    cluster.wait_until(lambda: sum(1 for i in range(rep - free) if bound(cluster.get("Pod", f"filler-{i}")))
                       == rep - free, 120, "fillers bound")
    cluster.apply(job("gang", [Task(req={"cpu": "1"}, rep=free + 2, min=free + delta)]))
    if delta <= 0:
        wait_tasks_ready(cluster, "gang", free)
    cluster.hold(lambda: ready(cluster, "gang") == (free if delta <= 0 else 0)
                 and sum(1 for p in cluster.job_pods("gang") if bound(p)) == (free if delta <= 0 else 0),
                 30, "the gang runs exactly what fits, or nothing below its minimum")


@pytest.mark.scheduling_base
@pytest.mark.parametrize(("label", "binds"), [("avoided", False), ("welcome", True)])
def test_an_existing_pods_anti_affinity_keeps_matching_pods_off_its_node(cluster: Cluster, label: str,
                                                                         binds: bool) -> None:
    """Required pod anti-affinity is symmetric (Kubernetes' InterPodAffinity): a running pod that
    refuses ``app=avoided`` on its host keeps such a pod off that node, even one without affinity
    terms of its own; a pod with another label may join it."""
    node = cluster.worker_nodes()[0]["metadata"]["name"]
    host = {"kubernetes.io/hostname": node}
    guard = pod("guard", node_selector=host)
    guard["spec"]["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "avoided"}}, "topologyKey": "kubernetes.io/hostname"}]}}
    cluster.apply(guard)
    _bound_within(cluster, "guard")
    cluster.apply(pod("newcomer", node_selector=host, labels={"app": label}))
    if binds:
        _bound_within(cluster, "newcomer")
    else:
        _never_bound(cluster, "newcomer", 30)
