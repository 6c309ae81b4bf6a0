"""Scheduler semantics the other scheduling cases leave to a single check, at their boundaries.

* the victim order between jobs of one queue: the job drf orders later (the larger dominant
  share) gives up its pods first, whatever the pods' names and ages (scheduler reference §4.6,
  ``BuildVictimsPriorityQueue``);
* drf's own victim rule when it is the plugin that decides (``enablePreemptable``): a starving job
  may take pods from a job with a larger share only up to equal shares (§5.3), so a gang that needs
  more than half the cluster gets nothing, one that needs half gets it;
* node affinity operators (``In``, ``NotIn``, ``Exists``, ``DoesNotExist``, ``Gt``, ``Lt``) at
  the label value itself and one on each side (§6, predicates as Kubernetes' node affinity).
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import pod, pod_group
from volcano.conformance.lib.sizing import cluster_size
from volcano.conformance.lib.waits import bound
from volcano.conformance.test_scheduling_support import CI_CONF, conf_with, make_priority_classes

Obj = dict[str, Any]
PREEMPTABLE = {"volcano.sh/preemptable": "true"}
PRIORITIES = {"high-priority": 100, "low-priority": 10}
PREEMPT_ONLY_CONF = conf_with(CI_CONF, old='"enqueue, allocate, backfill, reclaim, preempt"',
                              new='"enqueue, allocate, backfill, preempt"')


def _evicted(cluster: Cluster, prefix: str) -> list[str]:
    """Pods named ``prefix*`` with a Warning ``Evict`` event, sorted."""
    return sorted({(e.get("involvedObject") or {}).get("name", "") for e in cluster.events(kind="Pod")
                   if e.get("reason") == "Evict"
                   and (e.get("involvedObject") or {}).get("name", "").startswith(prefix)})


def _group(cluster: Cluster, name: str, count: int, req: dict[str, str], *, priority_class: str | None = None,
           node_selector: dict[str, str] | None = None, min_member: int = 1) -> list[str]:
    """A PodGroup ``name`` and ``count`` pods ``<name>-<i>`` of it (preemptable, 0 s grace)."""
    cluster.apply(pod_group(name, min_member=min_member, priority_class=priority_class))
    names = [f"{name}-{i}" for i in range(count)]
    cluster.apply([pod(n, group=name, req=req, labels=dict(PREEMPTABLE), priority_class=priority_class,
                       node_selector=node_selector, grace_seconds=0) for n in names])
    return names


def _wait_bound(cluster: Cluster, names: list[str], count: int | None = None, timeout: float = 120) -> None:
    want = len(names) if count is None else count
    cluster.wait_until(lambda: _count_bound(cluster, names) == want, timeout, f"{want} of {names[0]}... bound")


def _count_bound(cluster: Cluster, names: list[str]) -> int:
    pods = {p["metadata"]["name"]: p for p in cluster.pods()}
    return sum(1 for n in names if n in pods and bound(pods[n]) and not pods[n]["metadata"].get("deletionTimestamp"))


@pytest.mark.preemption
@pytest.mark.scheduler_conf(PREEMPT_ONLY_CONF)
def test_the_job_with_the_larger_share_gives_up_its_pod_first(cluster: Cluster) -> None:
    """On one worker, ``big`` (2 pods of 1.5 CPUs) and then ``small`` (2 pods of 0.5 CPU) run,
    both low-priority with minMember 1, so gang lets either lose one pod. A high-priority pod of 1
    CPU pinned to that worker needs one victim: it is big's (drf orders big after small), although
    small's pods are younger. Taking small's first would need a second victim."""
    make_priority_classes(cluster, PRIORITIES)
    worker = cluster.worker_nodes()[0]["metadata"]["name"]
    host = {"kubernetes.io/hostname": worker}
    big = _group(cluster, "big", 2, {"cpu": "1500m"}, priority_class="low-priority", node_selector=host)
    _wait_bound(cluster, big)
    small = _group(cluster, "small", 2, {"cpu": "500m"}, priority_class="low-priority", node_selector=host)
    _wait_bound(cluster, small)
    urgent = _group(cluster, "urgent", 1, {"cpu": "1"}, priority_class="high-priority", node_selector=host)
    _wait_bound(cluster, urgent, timeout=300)
    assert len(_evicted(cluster, "big-")) == 1
    assert _evicted(cluster, "small-") == []
    cluster.hold(lambda: _count_bound(cluster, small) == 2 and _count_bound(cluster, big) == 1, 30,
                 "small keeps both pods")


# drf decides the victims alone: priority's and gang's victim filters off, conformance beside drf.
DRF_PREEMPT_CONF = """\
actions: "enqueue, allocate, preempt"
tiers:
- plugins:
  - name: priority
    enablePreemptable: false
  - name: gang
    enablePreemptable: false
- plugins:
  - name: conformance
  - name: drf
    enablePreemptable: true
  - name: predicates
  - name: proportion
  - name: nodeorder
"""


@pytest.mark.preemption
@pytest.mark.fairshare
@pytest.mark.cluster(control_plane=False)
@pytest.mark.scheduler_conf(DRF_PREEMPT_CONF)
@pytest.mark.parametrize(("gang", "taken"), [(7, 7), (8, 8), (9, 0)])
def test_drf_preempts_up_to_equal_shares(cluster: Cluster, gang: int, taken: int) -> None:
    """``hog`` runs on all 16 one-CPU slots (minMember 1); a gang ``fair`` of ``gang`` pods
    (minMember = pods, same priority) arrives. drf lets fair take a pod while fair's share with it
    stays at most hog's share without it: up to 8 of 16, so gangs of 7 and 8 run and one of 9
    takes nothing (its gang is never complete, so the statement is discarded)."""
    rep = cluster_size(cluster, {"cpu": "1"})
    assert rep == 16, "the shares are worked out for 16 one-CPU slots"
    hog = _group(cluster, "hog", rep, {"cpu": "1"})
    _wait_bound(cluster, hog)
    fair = _group(cluster, "fair", gang, {"cpu": "1"}, min_member=gang)
    if taken:
        _wait_bound(cluster, fair, taken, timeout=300)
    cluster.hold(lambda: _count_bound(cluster, fair) == taken and _count_bound(cluster, hog) == rep - taken, 60,
                 f"fair runs {taken}, hog {rep - taken}")
    assert len(_evicted(cluster, "hog-")) == taken


def _label_workers(cluster: Cluster) -> list[str]:
    """Label worker i with ``rank=i`` (and the first two with ``tier=gold``); their names."""
    names = [w["metadata"]["name"] for w in cluster.worker_nodes()]
    for i, n in enumerate(names):
        labels: dict[str, str | None] = {"rank": str(i), "tier": "gold" if i < 2 else None}
        cluster.patch("Node", n, {"metadata": {"labels": labels}})
    return names


@pytest.mark.scheduling_base
@pytest.mark.parametrize(("operator", "values", "allowed"), [
    ("Gt", ["0"], [1, 2, 3]), ("Gt", ["1"], [2, 3]), ("Gt", ["2"], [3]), ("Gt", ["3"], []),
    ("Lt", ["1"], [0]), ("Lt", ["2"], [0, 1]), ("Lt", ["0"], []),
    ("In", ["1", "3"], [1, 3]), ("NotIn", ["1", "3"], [0, 2]),
])
def test_node_affinity_operators_on_a_numeric_label(cluster: Cluster, operator: str, values: list[str],
                                                     allowed: list[int]) -> None:
    """Workers labelled rank 0..3; one pod per worker with a required node-affinity term on ``rank``:
    the pods bind to exactly the allowed workers, one each (1 pod per worker's whole CPU)."""
    _assert_affinity_places(cluster, {"key": "rank", "operator": operator, "values": values}, allowed)


@pytest.mark.scheduling_base
@pytest.mark.parametrize(("operator", "allowed"), [("Exists", [0, 1]), ("DoesNotExist", [2, 3])])
def test_node_affinity_label_presence(cluster: Cluster, operator: str, allowed: list[int]) -> None:
    """Only the first two workers carry ``tier``: Exists allows them, DoesNotExist the others."""
    _assert_affinity_places(cluster, {"key": "tier", "operator": operator}, allowed)


def _assert_affinity_places(cluster: Cluster, expression: Obj, allowed: list[int]) -> None:
    names = _label_workers(cluster)
    cpu = int(cluster.worker_nodes()[0]["status"]["allocatable"]["cpu"])
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [expression]}]}}}
    pods = []
    for i in range(len(names)):
        p = pod(f"picky-{i}", req={"cpu": str(cpu)})
        p["spec"]["affinity"] = affinity
        pods.append(p)
    cluster.apply(pods)
    want = sorted(names[i] for i in allowed)

    def placed() -> list[str]:
        return sorted(p["spec"]["nodeName"] for p in cluster.pods() if p["metadata"]["name"].startswith("picky-")
                      and bound(p))

    if want:
        cluster.wait_until(lambda: placed() == want, 60, f"pods on {want}")
    cluster.hold(lambda: placed() == want, 30, f"pods only on {want}")


@pytest.mark.scheduling_base
def test_pods_differing_only_in_required_node_affinity_each_get_their_own_nodes(cluster: Cluster) -> None:
    """Four pods, each a worker's whole CPU, created together, identical but for a required node
    affinity ``rank In [i]``: each binds to worker i, so no pod is placed by what another pod's
    affinity allowed."""
    names = _label_workers(cluster)
    cpu = int(cluster.worker_nodes()[0]["status"]["allocatable"]["cpu"])
    pods = []
    for i in reversed(range(len(names))):
        p = pod(f"ranked-{i}", req={"cpu": str(cpu)})
        p["spec"]["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [{"key": "rank", "operator": "In", "values": [str(i)]}]}]}}}
        pods.append(p)
    cluster.apply(pods)
    _wait_bound(cluster, [f"ranked-{i}" for i in range(len(names))])
    assert [cluster.get("Pod", f"ranked-{i}")["spec"]["nodeName"] for i in range(len(names))] == names


# Overcommit alone gates enqueue: proportion would also hold a job whose minResources exceed the queue's
# real capability (the cluster's 16 CPUs), which hides overcommit's 1.2 x 16 = 19.2.
NO_PROPORTION_CONF = conf_with(CI_CONF, old="  - name: proportion\n", new="")


def _overcommit_conf(factor: float | None) -> str:
    if factor is None:
        return NO_PROPORTION_CONF
    return conf_with(NO_PROPORTION_CONF, old="  - name: overcommit\n",
                     new=f"  - name: overcommit\n    arguments:\n      overcommit-factor: {factor}\n")


@pytest.mark.queue
@pytest.mark.cluster(control_plane=False)
@pytest.mark.parametrize(("factor", "milli", "admitted"), [
    pytest.param(factor, milli, admitted, marks=pytest.mark.scheduler_conf(_overcommit_conf(factor)))
    for factor, milli, admitted in [(None, 19199, True), (None, 19200, True), (None, 19201, False),
                                    (1.0, 16000, True), (1.0, 16001, False)]
])
def test_overcommit_admits_min_resources_up_to_the_factor(cluster: Cluster, factor: float | None, milli: int,
                                                           admitted: bool) -> None:
    """On 16 idle CPUs a PodGroup whose minResources ask for ``milli`` millicores is admitted (Inqueue,
    its one pod binds) while that is at most 16 x the overcommit factor (1.2 by default), else it
    stays Pending with its pod unbound (scheduler reference §5.6)."""
    cluster.apply(pod_group("asks", min_member=1, min_resources={"cpu": f"{milli}m"}))
    cluster.apply(pod("asks-0", group="asks", req={"cpu": "1"}))
    if admitted:
        cluster.wait_until(lambda: bound(cluster.get("Pod", "asks-0")), 60, "the pod binds")
        return
    cluster.hold(lambda: cluster.get("PodGroup", "asks").get("status", {}).get("phase", "Pending") == "Pending"
                 and not bound(cluster.get("Pod", "asks-0")), 60, "the PodGroup stays Pending")


@pytest.mark.scheduling_base
@pytest.mark.cluster(pods=3)
@pytest.mark.parametrize("extra", [-1, 0, 1])
def test_a_node_takes_pods_up_to_its_pod_capacity(cluster: Cluster, extra: int) -> None:
    """Workers of 3 pods each (``status.allocatable.pods``): of 3 x workers + ``extra`` tiny pods, all
    bind while they fit and exactly 3 x workers when there is one more (predicates' pod count)."""
    capacity = 3 * len(cluster.worker_nodes())
    names = [f"tiny-{i}" for i in range(capacity + extra)]
    cluster.apply([pod(n, req={"cpu": "10m"}) for n in names])
    want = min(len(names), capacity)
    _wait_bound(cluster, names, want)
    cluster.hold(lambda: _count_bound(cluster, names) == want, 30, f"{want} pods bound")


def _port_pod(name: str, protocol: str | None, host: dict[str, str]) -> Obj:
    p = pod(name, req={"cpu": "100m"}, node_selector=host)
    port: Obj = {"containerPort": 8080, "hostPort": 8080}
    if protocol:
        port["protocol"] = protocol
    p["spec"]["containers"][0]["ports"] = [port]
    return p


@pytest.mark.scheduling_base
@pytest.mark.parametrize(("first", "second", "shares"), [
    ("TCP", "UDP", True), ("UDP", "TCP", True), ("TCP", "TCP", False), (None, "TCP", False), ("UDP", "UDP", False),
])
def test_a_host_port_is_taken_per_protocol(cluster: Cluster, first: str | None, second: str | None,
                                           shares: bool) -> None:
    """Two pods pinned to one worker with host port 8080: they share it when the protocols differ
    (no protocol means TCP), else the second stays unbound (predicates' NodePorts)."""
    host = {"kubernetes.io/hostname": cluster.worker_nodes()[0]["metadata"]["name"]}
    cluster.apply(_port_pod("port-a", first, host))
    _wait_bound(cluster, ["port-a"])
    cluster.apply(_port_pod("port-b", second, host))
    if shares:
        _wait_bound(cluster, ["port-b"])
    else:
        cluster.hold(lambda: _count_bound(cluster, ["port-b"]) == 0, 30, "port-b stays unbound")


@pytest.mark.scheduling_base
@pytest.mark.parametrize(("weights", "winner"), [((10, 90), 2), ((90, 10), 1)])
def test_the_heavier_preferred_node_affinity_term_wins(cluster: Cluster, weights: tuple[int, int],
                                                       winner: int) -> None:
    """Two preferred node-affinity terms, rank 1 and rank 2, with ``weights``: the pod lands on the
    worker of the heavier term (nodeorder's node-affinity score sums the matching terms' weights)."""
    names = _label_workers(cluster)
    p = pod("prefers")
    p["spec"]["affinity"] = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": w, "preference": {"matchExpressions": [{"key": "rank", "operator": "In", "values": [str(r)]}]}}
        for w, r in zip(weights, (1, 2), strict=True)]}}
    cluster.apply(p)
    _wait_bound(cluster, ["prefers"])
    assert cluster.get("Pod", "prefers")["spec"]["nodeName"] == names[winner]


@pytest.mark.scheduling_base
@pytest.mark.parametrize("scheduler", ["volcano", "default-scheduler"])
def test_a_cordoned_node_takes_no_new_pod(cluster: Cluster, scheduler: str) -> None:
    """Every worker but the last is cordoned (``spec.unschedulable``); one pod per worker's whole CPU:
    one binds, to the last worker, the others wait (Kubernetes' NodeUnschedulable, for Volcano's
    predicates and the default scheduler alike)."""
    workers = [w["metadata"]["name"] for w in cluster.worker_nodes()]
    cpu = int(cluster.worker_nodes()[0]["status"]["allocatable"]["cpu"])
    for name in workers[:-1]:
        cluster.patch("Node", name, {"spec": {"unschedulable": True}})
    names = [f"whole-{i}" for i in range(len(workers))]
    cluster.apply([pod(n, req={"cpu": str(cpu)}, scheduler=scheduler) for n in names])
    _wait_bound(cluster, names, 1)
    cluster.hold(lambda: _count_bound(cluster, names) == 1, 30, "one pod bound")
    assert [p["spec"]["nodeName"] for p in cluster.pods() if bound(p)] == [workers[-1]]


@pytest.mark.scheduling_base
@pytest.mark.cluster(workers=2)
@pytest.mark.parametrize("scheduler", ["volcano", "default-scheduler"])
@pytest.mark.parametrize(("effect", "places"), [("NoSchedule", True), ("", True), ("NoExecute", False)])
def test_a_pod_tolerating_the_unschedulable_taint_may_use_a_cordoned_node(cluster: Cluster, scheduler: str,
                                                                          effect: str, places: bool) -> None:
    """Both workers cordoned; a pod tolerating ``node.kubernetes.io/unschedulable`` (operator Exists)
    binds to one when the toleration's effect is NoSchedule or empty (every effect), and waits when it
    is another effect (Kubernetes' NodeUnschedulable filter)."""
    workers = {w["metadata"]["name"] for w in cluster.worker_nodes()}
    for name in sorted(workers):
        cluster.patch("Node", name, {"spec": {"unschedulable": True}})
    toleration: Obj = {"key": "node.kubernetes.io/unschedulable", "operator": "Exists"}
    if effect:
        toleration["effect"] = effect
    cluster.apply(pod("tolerant", req={"cpu": "1"}, scheduler=scheduler, tolerations=[toleration]))
    if places:
        _wait_bound(cluster, ["tolerant"])
        assert cluster.get("Pod", "tolerant")["spec"]["nodeName"] in workers
    else:
        cluster.hold(lambda: not bound(cluster.get("Pod", "tolerant")), 30, "the pod waits")


def _second_pod_joins_the_first(cluster: Cluster) -> bool:
    """Bind a one-CPU pod, then another: whether the second lands on the first one's node."""
    first = _group(cluster, "first", 1, {"cpu": "1"})
    _wait_bound(cluster, first)
    second = _group(cluster, "second", 1, {"cpu": "1"})
    _wait_bound(cluster, second)
    nodes = [cluster.get("Pod", n)["spec"]["nodeName"] for n in (*first, *second)]
    return bool(nodes[0] == nodes[1])


def _binpack_conf(weight: int) -> str:
    return conf_with(CI_CONF, old="  - name: binpack\n",
                     new=f"  - name: binpack\n    arguments:\n      binpack.weight: {weight}\n")


@pytest.mark.scheduling_base
@pytest.mark.parametrize(("weight", "packs"), [
    pytest.param(w, packs, marks=pytest.mark.scheduler_conf(_binpack_conf(w))) for w, packs in [(0, False), (20, True)]
])
def test_binpack_weight_decides_between_packing_and_spreading(cluster: Cluster, weight: int, packs: bool) -> None:
    """nodeorder's least-requested score spreads pods, binpack's packs them: with ``binpack.weight``
    20 a second pod joins the first one's node, with 0 it goes to an empty node (reference §6,
    binpack's score times its weight)."""
    assert _second_pod_joins_the_first(cluster) is packs


@pytest.mark.scheduling_base
@pytest.mark.parametrize("members", [2, 3])
def test_a_gang_with_preferred_pod_affinity_to_itself_lands_together(cluster: Cluster, members: int) -> None:
    """A gang whose pods prefer (weight 100) a node running ``app=flock``, their own label: scheduled
    in one session, each pod placed counts for the next, so all land on one node (nodeorder's
    inter-pod affinity score sees the session's placements)."""
    cluster.apply(pod_group("flock", min_member=members))
    affinity = {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 100,
                "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": "flock"}},
                                    "topologyKey": "kubernetes.io/hostname"}}]}}
    names = [f"flock-{i}" for i in range(members)]
    pods = [pod(n, group="flock", req={"cpu": "1"}, labels={"app": "flock"}) for n in names]
    for p in pods:
        p["spec"]["affinity"] = affinity
    cluster.apply(pods)
    _wait_bound(cluster, names)
    assert len({cluster.get("Pod", n)["spec"]["nodeName"] for n in names}) == 1


def _nodeorder_conf(least: int, most: int) -> str:
    return conf_with(CI_CONF.replace("  - name: binpack\n", ""), old="  - name: nodeorder\n",
                     new=f"  - name: nodeorder\n    arguments:\n      leastrequested.weight: {least}\n"
                         f"      mostrequested.weight: {most}\n      balancedresource.weight: 0\n")


@pytest.mark.scheduling_base
@pytest.mark.parametrize(("least", "most", "packs"), [
    pytest.param(least, most, packs, marks=pytest.mark.scheduler_conf(_nodeorder_conf(least, most)))
    for least, most, packs in [(2, 1, False), (1, 2, True), (0, 1, True), (1, 0, False)]
])
def test_nodeorder_adds_least_and_most_requested_by_weight(cluster: Cluster, least: int, most: int,
                                                          packs: bool) -> None:
    """nodeorder's score is the weighted sum of least-requested (spreads) and most-requested (packs):
    the heavier of the two decides whether a second pod joins the first one's node."""
    assert _second_pod_joins_the_first(cluster) is packs


@pytest.mark.scheduling_base
def test_an_empty_namespace_selector_lets_pod_affinity_reach_every_namespace(cluster: Cluster) -> None:
    """A pod ``app=target`` runs on the third worker in another namespace. A pod preferring (weight
    100) nodes with ``app=target`` pods and an empty ``namespaceSelector`` (all namespaces, as in
    Kubernetes) lands there, although least-requested scoring alone would avoid that node."""
    workers = [w["metadata"]["name"] for w in cluster.worker_nodes()]
    cluster.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "elsewhere"}})
    target = pod("target", req={"cpu": "2"}, labels={"app": "target"},
                 node_selector={"kubernetes.io/hostname": workers[2]})
    target["metadata"]["namespace"] = "elsewhere"
    cluster.apply(target)
    cluster.wait_until(lambda: bound(cluster.get("Pod", "target", "elsewhere")), 60, "target bound")
    seeker = pod("seeker")
    seeker["spec"]["affinity"] = {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{
        "weight": 100, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": "target"}},
                                           "namespaceSelector": {}, "topologyKey": "kubernetes.io/hostname"}}]}}
    cluster.apply(seeker)
    _wait_bound(cluster, ["seeker"])
    assert cluster.get("Pod", "seeker")["spec"]["nodeName"] == workers[2]


@pytest.mark.preemption
@pytest.mark.cluster(workers=1, cpu="4")
@pytest.mark.scheduler_conf(PREEMPT_ONLY_CONF)
@pytest.mark.parametrize(("value", "preempted"), [("T", True), ("1", True), ("F", False), ("false", False)])
def test_the_preemptable_annotation_reads_every_go_boolean_spelling(cluster: Cluster, value: str,
                                                                    preempted: bool) -> None:
    """Two low-priority pods (2 CPUs each, minMember 1) fill the one worker, annotated
    ``volcano.sh/preemptable: <value>``; a high-priority pod of 2 CPUs arrives. The value is read as
    Go's ``strconv.ParseBool`` reads it: ``T`` and ``1`` make the pods victims (one is evicted and the
    urgent pod binds), ``F`` and ``false`` keep them (the urgent pod waits)."""
    make_priority_classes(cluster, PRIORITIES)
    cluster.apply(pod_group("low", min_member=1, priority_class="low-priority"))
    low = ["low-0", "low-1"]
    cluster.apply([pod(n, group="low", req={"cpu": "2"}, priority_class="low-priority", grace_seconds=0,
                       annotations={"volcano.sh/preemptable": value}) for n in low])
    _wait_bound(cluster, low)
    urgent = _group(cluster, "urgent", 1, {"cpu": "2"}, priority_class="high-priority")
    if preempted:
        _wait_bound(cluster, urgent, timeout=300)
        assert len(_evicted(cluster, "low-")) == 1
    else:
        cluster.hold(lambda: _count_bound(cluster, urgent) == 0 and _count_bound(cluster, low) == 2, 60,
                     "the urgent pod waits, the low pods keep running")
        assert _evicted(cluster, "low-") == []


@pytest.mark.preemption
@pytest.mark.cluster(workers=1, cpu="4")
@pytest.mark.scheduler_conf(PREEMPT_ONLY_CONF)
@pytest.mark.parametrize(("port", "preempts"), [(8080, True), (8081, False)])
def test_preempting_a_pod_frees_its_host_port(cluster: Cluster, port: int, preempts: bool) -> None:
    """The one worker has CPU to spare, but a low-priority pod holds host port 8080. A high-priority
    pod asking for host port ``port``: for 8080 it can fit only once that pod is preempted (the port
    of a pod being evicted counts as free), so the low pod is evicted and the urgent one binds there;
    for 8081 it binds beside the low pod, which keeps running."""
    make_priority_classes(cluster, PRIORITIES)

    def with_port(p: Obj, host_port: int) -> Obj:
        p["spec"]["containers"][0]["ports"] = [{"containerPort": host_port, "hostPort": host_port}]
        return p

    cluster.apply(pod_group("low", min_member=1, priority_class="low-priority"))
    cluster.apply(with_port(pod("low-0", group="low", req={"cpu": "1"}, labels=dict(PREEMPTABLE),
                                priority_class="low-priority", grace_seconds=0), 8080))
    low = ["low-0"]
    _wait_bound(cluster, low)
    cluster.apply(pod_group("urgent", min_member=1, priority_class="high-priority"))
    cluster.apply(with_port(pod("urgent-0", group="urgent", req={"cpu": "1"}, priority_class="high-priority",
                                grace_seconds=0), port))
    _wait_bound(cluster, ["urgent-0"], timeout=300)
    assert _evicted(cluster, "low-") == (["low-0"] if preempts else [])


@pytest.mark.scheduling_base
@pytest.mark.parametrize(("cpu", "fits"), [("4", True), ("4001m", False)])
def test_the_default_scheduler_marks_a_pod_it_cannot_place(cluster: Cluster, cpu: str, fits: bool) -> None:
    """A ``default-scheduler`` pod of ``cpu`` on 4-CPU workers: at a worker's whole CPU it binds; one
    millicore more and it stays unbound with the condition PodScheduled False, reason Unschedulable,
    and a Warning FailedScheduling event, as kube-scheduler leaves it."""
    cluster.apply(pod("plain", req={"cpu": cpu}, scheduler="default-scheduler"))
    if fits:
        _wait_bound(cluster, ["plain"])
        return

    def condition() -> Obj | None:
        conds = (cluster.get("Pod", "plain").get("status") or {}).get("conditions") or []
        return next((c for c in conds if c.get("type") == "PodScheduled"), None)

    cluster.wait_until(lambda: condition() is not None, 60, "the PodScheduled condition")
    cond = condition()
    assert cond is not None
    assert (cond.get("status"), cond.get("reason")) == ("False", "Unschedulable"), cond
    assert not bound(cluster.get("Pod", "plain"))
    events = [e for e in cluster.events(kind="Pod", name="plain") if e.get("reason") == "FailedScheduling"]
    assert events and {e.get("type") for e in events} == {"Warning"}, events
