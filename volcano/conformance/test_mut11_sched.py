"""Scheduler conformance: exact texts and fields a client reads back (scheduler reference §5.1.5, §7.3, §7.4).

* A node's pod capacity, two ways: allocate's resource check counts the ``pods`` scalar and names it
  ("Insufficient pods"); backfill, which places best-effort pods without a resource check, meets the
  predicates' pod count ("node(s) pod number exceeded"). Either way the pod's ``PodScheduled`` condition
  and its ``FailedScheduling`` Warning carry ``0/<N> nodes are unavailable: <count> <reason>.``.
* Topology-aware preemption picks among candidate nodes by the smaller sum of victim priorities when
  their highest victim priorities tie.
* A preferred pod-affinity term looks for its pods in the namespaces it names (its own when none).
* Hierarchical capacity reclaims first from the victim queue sharing more ancestors with the reclaimer's.
* ``predicate.TaintTolerationEnable`` / ``predicate.PodAffinityEnable`` set false switch those filters off.
* A queue's ``status.allocated`` (written at session close) prints cpu as a milli quantity, memory as a
  binary one and ``pods`` as a count.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import pod, pod_group, queue
from volcano.conformance.lib.waits import bound
from volcano.conformance.test_scheduling_support import (
    CI_CONF,
    CI_CONF_NO_ENQUEUE,
    PREEMPTABLE,
    make_priority_classes,
    make_queues,
)
from volcano.conformance.test_strength_sched_nodeorder import _setup as nodeorder_setup

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


_TOPOLOGY_PREEMPT = CI_CONF_NO_ENQUEUE + """\
configurations:
- name: preempt
  arguments:
    enableTopologyAwarePreemption: "true"
    minCandidateNodesPercentage: 100
"""


def _victim(cluster: Cluster, name: str, priority: str, node: str) -> None:
    cluster.apply(pod_group(name, min_member=1, priority_class=priority))
    cluster.apply(pod(name, group=name, req={"cpu": "1"}, labels=dict(PREEMPTABLE), priority_class=priority,
                      grace_seconds=0, node_selector={"kubernetes.io/hostname": node}))


@pytest.mark.preemption
@pytest.mark.cluster(workers=2, cpu="2", control_plane=False)
@pytest.mark.scheduler_conf(_TOPOLOGY_PREEMPT)
def test_the_dry_run_prefers_the_node_whose_victims_sum_to_less_priority(cluster: Cluster) -> None:
    """Both 2-CPU workers are full: the second with ``b-50`` (priority 50) and ``b-10`` (10), then the
    first with ``a-50`` and ``a-50x`` (both 50). A 2-CPU priority-100 pod must take a whole node; both
    candidates' highest victim is 50, so the smaller sum of victim priorities decides: the second node's
    pods go, although the first node's started later (the last tie-breaker)."""
    make_priority_classes(cluster, {"m11-v50": 50, "m11-v10": 10, "m11-urgent": 100})
    first, second = sorted(w["metadata"]["name"] for w in cluster.worker_nodes())
    _victim(cluster, "b-50", "m11-v50", second)
    _victim(cluster, "b-10", "m11-v10", second)
    cluster.wait_until(lambda: all(bound(cluster.get("Pod", n)) for n in ("b-50", "b-10")), 300, "b pods bound")
    cluster.sleep(3)
    _victim(cluster, "a-50", "m11-v50", first)
    _victim(cluster, "a-50x", "m11-v50", first)
    cluster.wait_until(lambda: all(bound(cluster.get("Pod", n)) for n in ("a-50", "a-50x")), 300, "a pods bound")
    cluster.apply(pod_group("urgent", min_member=1, priority_class="m11-urgent"))
    cluster.apply(pod("urgent", group="urgent", req={"cpu": "2"}, priority_class="m11-urgent"))
    cluster.wait_until(lambda: bound(cluster.get("Pod", "urgent")), 300, "the preemptor binds")
    assert cluster.get("Pod", "urgent")["spec"]["nodeName"] == second
    assert all(cluster.try_get("Pod", n) is not None for n in ("a-50", "a-50x"))


@pytest.mark.scheduling_base
@pytest.mark.cluster(workers=2, cpu="4", memory="16Gi", control_plane=False)
@pytest.mark.parametrize(("namespaces", "near"), [(["elsewhere"], True), ([], False)])
def test_a_preferred_pod_affinity_term_looks_in_the_namespaces_it_names(cluster: Cluster, namespaces: list[str],
                                                                        near: bool) -> None:
    """A pod ``app=m11-target`` runs on the busy worker-1 in namespace ``elsewhere``. A newcomer preferring
    (weight 100) ``app=m11-target`` pods joins it when its term names ``elsewhere``; a term naming no
    namespace looks only in the newcomer's own, finds nothing, and least-requested sends it to worker-0."""
    workers = nodeorder_setup(cluster)
    cluster.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "elsewhere"}})
    target = pod("m11-target", req={"cpu": "100m"}, labels={"app": "m11-target"},
                 node_selector={"kubernetes.io/hostname": workers[1]})
    target["metadata"]["namespace"] = "elsewhere"
    cluster.apply(target)
    try:
        cluster.wait_until(lambda: bound(cluster.get("Pod", "m11-target", "elsewhere")), 300, "target bound")
        term: Obj = {"labelSelector": {"matchLabels": {"app": "m11-target"}}, "topologyKey": "kubernetes.io/hostname"}
        if namespaces:
            term["namespaces"] = namespaces
        p = pod("m11-seeker", req={"cpu": "1", "memory": "1Gi"})
        p["spec"]["affinity"] = {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 100, "podAffinityTerm": term}]}}
        cluster.apply(p)
        cluster.wait_until(lambda: bound(cluster.get("Pod", "m11-seeker")), 300, "the seeker binds")
        assert cluster.get("Pod", "m11-seeker")["spec"]["nodeName"] == workers[1 if near else 0]
    finally:
        cluster.delete("Pod", "m11-target", "elsewhere")


@pytest.mark.scheduling_base
@pytest.mark.cluster(workers=2, cpu="4", memory="16Gi", control_plane=False)
@pytest.mark.parametrize("own_terms", [False, True])
def test_a_running_pods_preferred_affinity_draws_a_newcomer_with_terms_of_its_own(cluster: Cluster,
                                                                                  own_terms: bool) -> None:
    """``m11-host`` on the busy worker-1 prefers (weight 100) ``app=m11-new`` pods beside it. A newcomer
    ``app=m11-new`` joins it (the existing pod's preferred terms count for the newcomer, Kubernetes'
    symmetry), whether or not the newcomer has preferred pod-affinity terms of its own (here one that
    matches no pod)."""
    workers = nodeorder_setup(cluster)
    host = pod("m11-host", req={"cpu": "100m"}, node_selector={"kubernetes.io/hostname": workers[1]})
    host["spec"]["affinity"] = {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{
        "weight": 100, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": "m11-new"}},
                                           "topologyKey": "kubernetes.io/hostname"}}]}}
    cluster.apply(host)
    cluster.wait_until(lambda: bound(cluster.get("Pod", "m11-host")), 300, "the host binds")
    p = pod("m11-new", req={"cpu": "1", "memory": "1Gi"}, labels={"app": "m11-new"})
    if own_terms:
        p["spec"]["affinity"] = {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{
            "weight": 1, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": "m11-nothing"}},
                                             "topologyKey": "kubernetes.io/hostname"}}]}}
    cluster.apply(p)
    cluster.wait_until(lambda: bound(cluster.get("Pod", "m11-new")), 300, "the newcomer binds")
    assert cluster.get("Pod", "m11-new")["spec"]["nodeName"] == workers[1]


def _wait_bound(cluster: Cluster, names: list[str], what: str) -> None:
    def all_bound() -> bool:
        return all(bound(cluster.get("Pod", n)) for n in names)

    cluster.wait_until(all_bound, 300, what)


def _hierarchy_reclaim_conf() -> str:
    """capacity with hierarchy deciding reclaim victims, ancestors not looked at (level 0)."""
    return ('actions: "enqueue, allocate, reclaim"\ntiers:\n- plugins:\n  - name: priority\n  - name: gang\n'
            "    enableReclaimable: false\n  - name: capacity\n    enableHierarchy: true\n    arguments:\n"
            "      ancestorReclaimLevel: 0\n- plugins:\n  - name: predicates\n  - name: nodeorder\n")


@pytest.mark.reclaim
@pytest.mark.cluster(workers=1, cpu="4", control_plane=False)
@pytest.mark.scheduler_conf(_hierarchy_reclaim_conf())
def test_reclaim_takes_first_from_the_queue_nearest_the_reclaimer(cluster: Cluster) -> None:
    """``m11-pa`` > ``m11-pa1``, ``m11-pa2`` and ``m11-pb`` > ``m11-pb1``, each leaf deserving 1 CPU. pb1
    then pa2 run two 1-CPU pods each, filling the one 4-CPU worker, both over their deserved. A 1-CPU pod
    in pa1 reclaims one pod: with hierarchy the victim queue sharing more ancestors with the reclaimer's
    (pa2, a sibling) goes first (capacity's victim queue order), so a pa2 pod goes and pb1 keeps both."""
    make_queues(cluster, queue("m11-pa", parent="root", deserved={"cpu": "2"}),
                queue("m11-pb", parent="root", deserved={"cpu": "2"}))
    make_queues(cluster, *(queue(f"m11-{q}", parent=f"m11-{q[:2]}", deserved={"cpu": "1"})
                           for q in ("pa1", "pa2", "pb1")))
    for q in ("pb1", "pa2"):
        cluster.apply(pod_group(f"m11-{q}-job", min_member=1, queue=f"m11-{q}"))
        cluster.apply([pod(f"m11-{q}-{i}", group=f"m11-{q}-job", req={"cpu": "1"}, grace_seconds=0)
                       for i in range(2)])
        _wait_bound(cluster, [f"m11-{q}-{i}" for i in range(2)], f"{q} runs two pods")
    cluster.apply(pod_group("m11-pa1-job", min_member=1, queue="m11-pa1"))
    cluster.apply(pod("m11-pa1-0", group="m11-pa1-job", req={"cpu": "1"}, grace_seconds=0))
    cluster.wait_until(lambda: bound(cluster.get("Pod", "m11-pa1-0")), 300, "the reclaimer binds")

    def left(q: str) -> int:
        return sum(1 for i in range(2) if (p := cluster.try_get("Pod", f"m11-{q}-{i}")) is not None
                   and not p["metadata"].get("deletionTimestamp"))

    assert (left("pa2"), left("pb1")) == (1, 2)


def _predicates_off(flag: str) -> str:
    """The CI configuration with one of the predicates plugin's filters switched off."""
    return CI_CONF.replace("  - name: predicates\n", f"  - name: predicates\n    arguments:\n      {flag}: false\n")


@pytest.mark.cluster(workers=2, cpu="4", control_plane=False)
@pytest.mark.parametrize("flag", [
    pytest.param("predicate.TaintTolerationEnable", marks=pytest.mark.scheduler_conf(
        _predicates_off("predicate.TaintTolerationEnable"))),
    pytest.param("predicate.PodAffinityEnable", marks=pytest.mark.scheduler_conf(
        _predicates_off("predicate.PodAffinityEnable"))),
])
def test_a_predicate_switched_off_no_longer_holds_a_pod_back(cluster: Cluster, flag: str) -> None:
    """With ``predicate.TaintTolerationEnable: false`` a pod without tolerations binds to a worker tainted
    NoSchedule (both are); with ``predicate.PodAffinityEnable: false`` a pod requiring to be beside an
    ``app=m11-nowhere`` pod (there is none) binds. The kubelet checks neither, so the pod runs."""
    p = pod("m11-free", req={"cpu": "100m"})
    if flag == "predicate.TaintTolerationEnable":
        for worker in cluster.worker_nodes():
            cluster.patch("Node", worker["metadata"]["name"], {"spec": {"taints": [
                {"key": "m11-taint", "value": "x", "effect": "NoSchedule"}]}}, namespace="")
    else:
        p["spec"]["affinity"] = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
            "labelSelector": {"matchLabels": {"app": "m11-nowhere"}}, "topologyKey": "kubernetes.io/hostname"}]}}
    cluster.apply(p)
    cluster.wait_until(lambda: bound(cluster.get("Pod", "m11-free")), 300, "the pod binds")
