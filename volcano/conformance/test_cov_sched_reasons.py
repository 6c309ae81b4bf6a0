"""Why a pod is not placed, as Volcano writes it on the pod (scheduler reference: session close,
``TaskSchedulingReason`` and ``FitErrors.Error``; the node reasons are the Kubernetes predicates'
own texts and Volcano's resource check):

* a pending task that fits no node gets ``PodScheduled`` False, reason ``Unschedulable``, message
  ``0/<N> nodes are unavailable: <count> <reason>, ... .``, one ``<count> <reason>`` per distinct
  reason, sorted as strings; the resource check comes first ("Insufficient <resource>", the first
  resource short), the predicates only on nodes with room;
* the same message goes out as a ``Warning``/``FailedScheduling`` event on the pod;
* in a gang that is not complete, a task which found a node is ``Schedulable``: "Pod <ns>/<name> can
  possibly be assigned to <node>, once minAvailable is satisfied"; one allocate never tried (its
  queue not allocatable) carries the job's fit error.

Shape: two 4-CPU workers, no control-plane node (whose taint would add its own reason).
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import pod, pod_group
from volcano.conformance.lib.waits import bound

Obj = dict[str, Any]

pytestmark = [pytest.mark.scheduling_base, pytest.mark.cluster(workers=2, cpu="4", memory="16Gi",
                                                               control_plane=False)]


def _condition(cluster: Cluster, name: str) -> Obj | None:
    conds = (cluster.get("Pod", name).get("status") or {}).get("conditions") or []
    return next((c for c in conds if c.get("type") == "PodScheduled"), None)


def _said(cluster: Cluster, name: str, reason: str, message: str) -> None:
    """``name`` stays unbound with PodScheduled False ``reason`` and ``message``."""
    def written() -> bool:
        cond = _condition(cluster, name)
        return cond is not None and cond.get("message") == message

    cluster.wait_until(written, 60, f"{name}: PodScheduled {message!r}")
    cond = _condition(cluster, name)
    assert cond is not None and (cond.get("status"), cond.get("reason")) == ("False", reason), cond
    assert not bound(cluster.get("Pod", name))


def _workers(cluster: Cluster) -> list[str]:
    return sorted(w["metadata"]["name"] for w in cluster.worker_nodes())


UNAVAILABLE = "0/2 nodes are unavailable: "


@pytest.mark.parametrize(("case", "message"), [
    ("selector", "2 node(s) didn't match Pod's node affinity/selector."),
    ("best-effort", "2 node(s) didn't match Pod's node affinity/selector."),
    ("cpu", "2 Insufficient cpu."),
    ("memory", "2 Insufficient memory."),
    ("taint", "2 node(s) had untolerated taint {cov-taint: x}."),
    ("cordon", "2 node(s) were unschedulable."),
    ("mixed", "1 Insufficient cpu, 1 node(s) didn't match Pod's node affinity/selector."),
])
def test_an_unplaceable_pod_is_told_why_node_by_node(cluster: Cluster, case: str, message: str) -> None:
    """A bare pod (1 CPU unless told) that no node takes: ``selector`` asks for a label no node has
    (``best-effort`` too, asking no resources);
    ``cpu`` asks 5 CPUs, ``memory`` 17Gi; ``taint`` meets a NoSchedule taint ``cov-taint=x`` on both
    workers; ``cordon`` meets two cordoned workers; ``mixed`` asks 2 CPUs on worker-0 only, where a
    3-CPU pod runs: worker-0 lacks cpu, worker-1 does not match. The pod's condition and its
    FailedScheduling event carry the node-by-node account."""
    workers = _workers(cluster)
    req = {"cpu": "1"}
    selector: dict[str, str] | None = None
    if case in ("selector", "best-effort"):
        selector = {"cov-label": "nowhere"}
    elif case == "cpu":
        req = {"cpu": "5"}
    elif case == "memory":
        req = {"cpu": "1", "memory": "17Gi"}
    elif case in ("taint", "cordon"):
        spec = {"taints": [{"key": "cov-taint", "value": "x", "effect": "NoSchedule"}]} if case == "taint" \
            else {"unschedulable": True}
        for w in workers:
            cluster.patch("Node", w, {"spec": spec}, namespace="")
    else:
        cluster.apply(pod("busy", req={"cpu": "3"}, node_selector={"kubernetes.io/hostname": workers[0]}))
        cluster.wait_until(lambda: bound(cluster.get("Pod", "busy")), 60, "the busy pod binds")
        req, selector = {"cpu": "2"}, {"kubernetes.io/hostname": workers[0]}
    stuck = pod("stuck", req=req, node_selector=selector)
    if case == "best-effort":  # no requests: backfill, not allocate, tries it
        del stuck["spec"]["containers"][0]["resources"]
    cluster.apply(stuck)
    _said(cluster, "stuck", "Unschedulable", UNAVAILABLE + message)
    events = [e for e in cluster.events("Pod", "stuck") if e.get("reason") == "FailedScheduling"]
    assert {(e.get("type"), e.get("message")) for e in events} == {("Warning", UNAVAILABLE + message)}, events


@pytest.mark.parametrize("cpu", ["2500m", "3"])
def test_a_placeable_member_of_an_incomplete_gang_is_schedulable(cluster: Cluster, cpu: str) -> None:
    """A PodGroup of minMember 3 whose three pods of ``cpu`` find room for two: the two that found a
    node are ``Schedulable`` ("can possibly be assigned to <node>, once minAvailable is satisfied", the
    node a worker); none binds. The third is ``Unschedulable``: at 2.5 CPUs allocate tried it and it
    carries its own fit error (both workers short of cpu), which the PodGroup's condition quotes as the
    origin; at 3 CPUs the default queue (8 CPUs, 6 taken) is not allocatable for it, so it was never
    tried and carries the job's fit error, with no origin. The PodGroup's Unschedulable condition
    (reason NotEnoughResources) counts one task short (3 minAvailable less 2 schedulable)."""
    workers = _workers(cluster)
    cluster.apply(pod_group("trio", min_member=3))
    names = [f"trio-{i}" for i in range(3)]
    cluster.apply([pod(n, group="trio", req={"cpu": cpu}) for n in names])
    ns = cluster.get("Pod", names[0])["metadata"]["namespace"]

    def conditions() -> list[Obj]:
        return [c for c in (_condition(cluster, n) for n in names) if c is not None]

    cluster.wait_until(lambda: len(conditions()) == 3 and {c.get("reason") for c in conditions()} ==
                       {"Schedulable", "Unschedulable"}, 60, "the three conditions")
    by_reason: dict[str, list[tuple[str, Obj]]] = {}
    for n in names:
        cond = _condition(cluster, n)
        assert cond is not None and cond.get("status") == "False", cond
        by_reason.setdefault(str(cond.get("reason")), []).append((n, cond))
    assert len(by_reason["Schedulable"]) == 2 and len(by_reason["Unschedulable"]) == 1, by_reason
    for n, cond in by_reason["Schedulable"]:
        m = re.fullmatch(rf"Pod {ns}/{n} can possibly be assigned to (\S+), once minAvailable is satisfied",
                         str(cond.get("message")))
        assert m is not None and m.group(1) in workers, cond
    [(stuck, cond)] = by_reason["Unschedulable"]
    job_error = "pod group is not ready, 3 Pending, 3 minAvailable; Pending: 1 Unschedulable, 2 Schedulable"
    fit = f"{UNAVAILABLE}2 Insufficient cpu."
    assert cond.get("message") == (fit if cpu == "2500m" else job_error), cond
    assert not any(bound(cluster.get("Pod", n)) for n in names)
    pg_conds = (cluster.get("PodGroup", "trio").get("status") or {}).get("conditions") or []
    [pg_cond] = [c for c in pg_conds if c.get("type") == "Unschedulable"]
    assert (pg_cond.get("status"), pg_cond.get("reason")) == ("True", "NotEnoughResources"), pg_cond
    origin = f". Origin reason is {stuck}: {fit}" if cpu == "2500m" else ""
    assert pg_cond.get("message") == f"1/3 tasks in gang unschedulable: {job_error}{origin}", pg_cond


def _on_each_worker(cluster: Cluster, workers: list[str], make: Any) -> None:
    pods = [make(i, w) for i, w in enumerate(workers)]
    cluster.apply(pods)
    names = [p["metadata"]["name"] for p in pods]
    cluster.wait_until(lambda: all(bound(cluster.get("Pod", n)) for n in names), 60, f"{names} bound")


def _affinity(kind: str, app: str) -> Obj:
    return {kind: {"requiredDuringSchedulingIgnoredDuringExecution": [{
        "labelSelector": {"matchLabels": {"app": app}}, "topologyKey": "kubernetes.io/hostname"}]}}


@pytest.mark.parametrize(("case", "message"), [
    ("ports", "2 node(s) didn't have free ports for the requested pod ports."),
    ("affinity", "2 node(s) didn't match pod affinity rules."),
    ("anti-affinity", "2 node(s) didn't match pod anti-affinity rules."),
    ("existing-anti-affinity", "2 node(s) didn't satisfy existing pods anti-affinity rules."),
])
def test_inter_pod_and_port_predicates_name_their_reason(cluster: Cluster, case: str, message: str) -> None:
    """A pod kept off both workers by the pods already there: ``ports`` wants host port 8080, held on
    each worker; ``affinity`` requires a pod ``app=absent`` on its node (there is none, and the pod
    does not carry that label itself); ``anti-affinity`` refuses nodes with a pod ``app=resident``
    (one on each worker); ``existing-anti-affinity`` carries ``app=newcomer``, which the residents'
    own required anti-affinity refuses."""
    workers = _workers(cluster)
    stuck = pod("stuck", req={"cpu": "100m"}, labels={"app": "newcomer"})
    container = stuck["spec"]["containers"][0]

    def resident(i: int, w: str) -> Obj:
        p = pod(f"resident-{i}", req={"cpu": "100m"}, labels={"app": "resident"},
                node_selector={"kubernetes.io/hostname": w})
        if case == "ports":
            p["spec"]["containers"][0]["ports"] = [{"containerPort": 8080, "hostPort": 8080}]
        if case == "existing-anti-affinity":
            p["spec"]["affinity"] = _affinity("podAntiAffinity", "newcomer")
        return p

    _on_each_worker(cluster, workers, resident)
    if case == "ports":
        container["ports"] = [{"containerPort": 8080, "hostPort": 8080}]
    elif case == "affinity":
        stuck["spec"]["affinity"] = _affinity("podAffinity", "absent")
    elif case == "anti-affinity":
        stuck["spec"]["affinity"] = _affinity("podAntiAffinity", "resident")
    cluster.apply(stuck)
    _said(cluster, "stuck", "Unschedulable", UNAVAILABLE + message)


def test_a_placed_gang_is_announced_ready(cluster: Cluster) -> None:
    """Session close (``RecordJobStatusEvent``, scheduler reference §1.8 and §7.3): the session that
    binds a fitting gang of two still sees its tasks Binding, not scheduled, so the PodGroup stays
    Inqueue and gets the Warning ``Unschedulable`` "0/2 tasks in gang unschedulable: pod group is
    ready, 2 Binding, 2 minAvailable"; a later session sees them bound, moves it to Running and, the
    status having changed, says Normal ``Scheduled`` "pod group is ready". Nothing else is said."""
    cluster.apply(pod_group("duo", min_member=2))
    cluster.apply([pod(f"duo-{i}", group="duo", req={"cpu": "1"}) for i in range(2)])

    def said() -> set[tuple[str, str, str]]:
        return {(str(e.get("type")), str(e.get("reason")), str(e.get("message")))
                for e in cluster.events("PodGroup", "duo")}

    cluster.wait_until(lambda: ("Normal", "Scheduled", "pod group is ready") in said(), 60, "the Scheduled event")
    assert said() == {("Normal", "Scheduled", "pod group is ready"),
                      ("Warning", "Unschedulable",
                       "0/2 tasks in gang unschedulable: pod group is ready, 2 Binding, 2 minAvailable")}, said()


def test_a_gang_short_of_pods_waits_with_the_gang_account(cluster: Cluster) -> None:
    """A PodGroup of minMember 3 with only two pods is not valid for allocate (gang's JobValid), so no
    pod is tried (scheduler reference §5.1.5, §7.4, §7.5). Its Unschedulable condition counts the
    members missing, minMember less 0 schedulable, over the 2 tasks: "3/2 tasks in gang
    unschedulable: <fit>"; its Warning events count the Pending tasks instead: "2/2 ..."; each pod,
    with no fit error of its own, is told the job's fit error <fit> = "pod group is not ready,
    2 Pending, 3 minAvailable; Pending: 2 Unschedulable"."""
    fit = "pod group is not ready, 2 Pending, 3 minAvailable; Pending: 2 Unschedulable"
    cluster.apply(pod_group("short", min_member=3))
    cluster.apply([pod(f"short-{i}", group="short", req={"cpu": "100m"}) for i in range(2)])
    for n in ("short-0", "short-1"):
        _said(cluster, n, "Unschedulable", fit)
    pg_conds = (cluster.get("PodGroup", "short").get("status") or {}).get("conditions") or []
    [pg_cond] = [c for c in pg_conds if c.get("type") == "Unschedulable"]
    assert (pg_cond.get("status"), pg_cond.get("reason"), pg_cond.get("message")) == (
        "True", "NotEnoughResources", f"3/2 tasks in gang unschedulable: {fit}"), pg_cond
    warned = {e.get("message") for e in cluster.events("PodGroup", "short")
              if (e.get("type"), e.get("reason")) == ("Warning", "Unschedulable")}
    assert f"2/2 tasks in gang unschedulable: {fit}" in warned, warned
