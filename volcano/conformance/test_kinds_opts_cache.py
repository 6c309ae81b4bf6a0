"""Object updates the scheduler's cache must follow while pods wait (scheduler reference §1.1, §5.2):

* a toleration added to a pending gang member (additions to ``spec.tolerations`` are allowed on a pod)
  lets the gang onto the tainted worker;
* a worker's labels, taints and ``unschedulable`` changed under a waiting pod, and a label added to a
  full worker before a pod that fits nowhere (the node table rebuilt must still count what runs there);
* a PriorityClass created, made the global default, or deleted while two PodGroups wait for one slot:
  the job order follows the class values the PodGroups' ``priorityClassName`` resolve to now (a class
  missing or deleted counts 0; the global default's value stands for a PodGroup without a class).
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import pod, pod_group, priority_class
from volcano.conformance.lib.waits import bound

Obj = dict[str, Any]

pytestmark = pytest.mark.scheduling_base

CONF = ('actions: "enqueue, allocate"\ntiers:\n- plugins:\n  - name: priority\n  - name: gang\n'
        "- plugins:\n  - name: predicates\n  - name: proportion\n  - name: nodeorder\n")
TAINT = {"key": "opts", "value": "cache", "effect": "NoSchedule"}
TOLERATION = {"key": "opts", "operator": "Equal", "value": "cache", "effect": "NoSchedule"}


def _workers(cluster: Cluster) -> list[str]:
    return sorted(w["metadata"]["name"] for w in cluster.worker_nodes())


def _unbound_for(cluster: Cluster, names: list[str], seconds: float = 30) -> None:
    cluster.hold(lambda: not any(bound(cluster.get("Pod", n)) for n in names), seconds, f"{names} stay unbound")


@pytest.mark.cluster(workers=2, cpu="2", control_plane=False)
@pytest.mark.scheduler_conf(CONF)
def test_toleration_added_to_pending_gang_member(cluster: Cluster) -> None:
    """A gang of two 2-CPU pods, two 2-CPU workers, one tainted: the gang waits until its second member
    (by the pod index in its name, the second placed) is given the taint's toleration, then both bind, the
    tolerating one on the tainted worker."""
    workers = _workers(cluster)
    names = [f"pair-task-{i}" for i in range(2)]
    cluster.patch("Node", workers[1], {"spec": {"taints": [dict(TAINT)]}}, namespace="")
    cluster.apply(pod_group("pair", min_member=2))
    cluster.apply([pod(n, group="pair", req={"cpu": "2"}) for n in names])
    _unbound_for(cluster, names)
    cluster.patch("Pod", names[1], {"spec": {"tolerations": [dict(TOLERATION)]}})
    cluster.wait_until(lambda: all(bound(cluster.get("Pod", n)) for n in names), 60, "the gang binds")
    assert [cluster.get("Pod", n)["spec"]["nodeName"] for n in names] == workers


@pytest.mark.cluster(workers=1, cpu="2", control_plane=False)
@pytest.mark.scheduler_conf(CONF)
def test_node_label_added_under_waiting_pod(cluster: Cluster) -> None:
    """A pod selecting a label no worker has waits; the label added to the worker lets it bind there."""
    worker = _workers(cluster)[0]
    cluster.apply(pod("selective", node_selector={"opts": "late"}))
    _unbound_for(cluster, ["selective"])
    cluster.patch("Node", worker, {"metadata": {"labels": {"opts": "late"}}}, namespace="")
    cluster.wait_until(lambda: bound(cluster.get("Pod", "selective")), 60, "selective binds")
    assert cluster.get("Pod", "selective")["spec"]["nodeName"] == worker


@pytest.mark.cluster(workers=1, cpu="2", control_plane=False)
@pytest.mark.scheduler_conf(CONF)
def test_node_label_removed_before_pod(cluster: Cluster) -> None:
    """A label taken off the only worker keeps a pod selecting it waiting."""
    worker = _workers(cluster)[0]
    cluster.patch("Node", worker, {"metadata": {"labels": {"opts": "soon-gone"}}}, namespace="")
    cluster.apply(pod("first", node_selector={"opts": "soon-gone"}))
    cluster.wait_until(lambda: bound(cluster.get("Pod", "first")), 60, "first binds")
    cluster.patch("Node", worker, {"metadata": {"labels": {"opts": None}}}, namespace="")
    cluster.apply(pod("second", node_selector={"opts": "soon-gone"}))
    _unbound_for(cluster, ["second"])


@pytest.mark.cluster(workers=1, cpu="2", control_plane=False)
@pytest.mark.scheduler_conf(CONF)
def test_taint_removed_and_added_under_pods(cluster: Cluster) -> None:
    """A pod waits on the only, tainted, worker and binds once the taint is removed; a taint put back
    keeps the next pod waiting."""
    worker = _workers(cluster)[0]
    cluster.patch("Node", worker, {"spec": {"taints": [dict(TAINT)]}}, namespace="")
    cluster.apply(pod("first"))
    _unbound_for(cluster, ["first"])
    cluster.patch("Node", worker, {"spec": {"taints": None}}, namespace="")
    cluster.wait_until(lambda: bound(cluster.get("Pod", "first")), 60, "first binds")
    cluster.patch("Node", worker, {"spec": {"taints": [dict(TAINT)]}}, namespace="")
    cluster.apply(pod("second"))
    _unbound_for(cluster, ["second"])


@pytest.mark.cluster(workers=1, cpu="2", control_plane=False)
@pytest.mark.scheduler_conf(CONF)
def test_cordon_and_uncordon_under_waiting_pod(cluster: Cluster) -> None:
    """A pod waits while the only worker is cordoned and binds once it is uncordoned."""
    worker = _workers(cluster)[0]
    cluster.patch("Node", worker, {"spec": {"unschedulable": True}}, namespace="")
    cluster.apply(pod("waiting"))
    _unbound_for(cluster, ["waiting"])
    cluster.patch("Node", worker, {"spec": {"unschedulable": None}}, namespace="")
    cluster.wait_until(lambda: bound(cluster.get("Pod", "waiting")), 60, "waiting binds")


@pytest.mark.cluster(workers=3, cpu="2", control_plane=False)
@pytest.mark.scheduler_conf(CONF)
def test_label_on_full_worker_keeps_its_pods_counted(cluster: Cluster) -> None:
    """Three 2-CPU workers holding 2, 1 and 1 CPUs; a label added to the full one (the scheduler's node
    table is rebuilt) and then a 2-CPU pod: no worker has room, it waits until the second worker's
    holder goes, then binds there."""
    workers = _workers(cluster)
    cluster.apply([pod(f"hold-{i}", req={"cpu": "2" if i == 0 else "1"}, grace_seconds=0,
                       node_selector={"kubernetes.io/hostname": w}) for i, w in enumerate(workers)])
    cluster.wait_until(lambda: all(bound(cluster.get("Pod", f"hold-{i}")) for i in range(3)), 60, "holders bind")
    cluster.patch("Node", workers[0], {"metadata": {"labels": {"opts": "relabelled"}}}, namespace="")
    cluster.apply(pod("big", req={"cpu": "2"}))
    _unbound_for(cluster, ["big"])
    cluster.delete("Pod", "hold-1")
    cluster.wait_until(lambda: bound(cluster.get("Pod", "big")), 60, "big binds")
    assert cluster.get("Pod", "big")["spec"]["nodeName"] == workers[1]


def _two_waiting(cluster: Cluster, late_class: str | None) -> None:
    """The only worker (2 CPUs) held by ``holder``; PodGroup ``early`` (no class) and, two seconds
    later, ``late`` (class ``late_class``) each wait with one 2-CPU pod."""
    cluster.apply(pod("holder", req={"cpu": "2"}, grace_seconds=0))
    cluster.wait_until(lambda: bound(cluster.get("Pod", "holder")), 60, "holder binds")
    cluster.apply(pod_group("early", min_member=1))
    cluster.apply(pod("early-0", group="early", req={"cpu": "2"}))
    cluster.sleep(2)  # creation timestamps a second apart (the order when priorities tie)
    cluster.apply(pod_group("late", min_member=1, priority_class=late_class))
    cluster.apply(pod("late-0", group="late", req={"cpu": "2"}))
    _unbound_for(cluster, ["early-0", "late-0"], 20)


def _winner(cluster: Cluster) -> str:
    """Delete the holder; the PodGroup whose pod takes the freed worker (and the other stays waiting)."""
    cluster.delete("Pod", "holder")
    names = ["early-0", "late-0"]
    cluster.wait_until(lambda: any(bound(cluster.get("Pod", n)) for n in names), 60, "a waiting pod binds")
    cluster.hold(lambda: sum(bound(cluster.get("Pod", n)) for n in names) == 1, 10, "only one binds")
    return next(n for n in names if bound(cluster.get("Pod", n)))[:-2]


PRIORITY_CHANGES = [
    # (class of late, class existing from the start, change while both wait, winner)
    ("hi", None, "create hi", "late"),
    ("hi", None, "none", "early"),  # the class never exists: 0, creation order
    ("hi", "hi", "none", "late"),
    ("hi", "hi", "delete hi", "early"),
    ("mid", "mid", "create global default", "early"),  # early takes the default's 1000 over mid's 500
    ("mid", "mid", "none", "late"),
]


@pytest.mark.cluster(workers=1, cpu="2", control_plane=False)
@pytest.mark.scheduler_conf(CONF)
@pytest.mark.parametrize(("late_class", "existing", "change", "winner"), PRIORITY_CHANGES,
                         ids=[f"{c[0]}-{c[1] or 'absent'}-{c[2]}" for c in PRIORITY_CHANGES])
def test_priority_class_changes_while_pods_wait(cluster: Cluster, late_class: str, existing: str | None,
                                                change: str, winner: str) -> None:
    """The job order of two waiting PodGroups follows PriorityClasses created, made the global default
    or deleted after the PodGroups were."""
    values = {"hi": 1000, "mid": 500}
    if existing:
        cluster.apply(priority_class(existing, values[existing]))
    _two_waiting(cluster, late_class)
    if change == "create hi":
        cluster.apply(priority_class("hi", values["hi"]))
    elif change == "delete hi":
        cluster.delete("PriorityClass", "hi", namespace="")
    elif change == "create global default":
        cluster.apply(priority_class("opts-default", 1000, global_default=True))
    cluster.sleep(5)
    assert _winner(cluster) == winner
