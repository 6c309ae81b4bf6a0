"""nodeorder's scorer weights (scheduler reference §5.7) against least-requested spreading.

Two workers: ``worker-0`` is empty, ``worker-1`` holds a pod of 2 CPUs and 8Gi, so least-requested
alone sends a new pod (1 CPU, 1Gi) to worker-0 (about 84 against 34 of 100; balanced allocation is
90 on both). Each case gives worker-0 something another scorer holds against it, or worker-1
something another scorer likes, and that scorer's weight (default, or 0 to switch it off) decides:

* TaintToleration (``tainttoleration.weight``, 3): a ``PreferNoSchedule`` taint on worker-0, which a
  toleration with an empty or ``PreferNoSchedule`` effect and a matching key and value removes from
  the count, and one with another effect or value does not;
* NodeAffinity (``nodeaffinity.weight``, 2): a preferred term for worker-1;
* InterPodAffinity (``podaffinity.weight``, 2): a preferred pod-affinity term for the pod on worker-1,
  or a preferred anti-affinity term away from a pod placed on worker-0; and the other direction, an
  existing pod's own preferred term for (or against) the newcomer.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import pod
from volcano.conformance.lib.waits import bound

Obj = dict[str, Any]

pytestmark = pytest.mark.scheduling_base

REQ = {"cpu": "1", "memory": "1Gi"}
TAINT = {"key": "prefer", "value": "away", "effect": "PreferNoSchedule"}


def _conf(**weights: int) -> str:
    args = "".join(f"      {name.replace('_', '.')}: {value}\n" for name, value in sorted(weights.items()))
    nodeorder = "  - name: nodeorder\n" + (f"    arguments:\n{args}" if args else "")
    return ("actions: \"enqueue, allocate\"\ntiers:\n- plugins:\n  - name: priority\n  - name: gang\n"
            "- plugins:\n  - name: predicates\n  - name: proportion\n" + nodeorder)


def _setup(cluster: Cluster, *, taint: bool = False, marker_on_0: bool = False) -> list[str]:
    """Sorted worker names; worker-1 gets the ``busy`` pod (2 CPUs, 8Gi, ``app=busy``); optionally a
    PreferNoSchedule taint on worker-0 and a tiny ``app=marker`` pod there."""
    workers = sorted(w["metadata"]["name"] for w in cluster.worker_nodes())
    if taint:
        cluster.patch("Node", workers[0], {"spec": {"taints": [dict(TAINT)]}}, namespace="")
    pods = [pod("busy", req={"cpu": "2", "memory": "8Gi"}, labels={"app": "busy"},
                node_selector={"kubernetes.io/hostname": workers[1]})]
    if marker_on_0:
        pods.append(pod("marker", req={"cpu": "10m", "memory": "10Mi"}, labels={"app": "marker"},
                        node_selector={"kubernetes.io/hostname": workers[0]}))
    cluster.apply(pods)
    names = [p["metadata"]["name"] for p in pods]
    cluster.wait_until(lambda: all(bound(cluster.get("Pod", n)) for n in names), 60, "setup pods bound")
    return workers


def _place(cluster: Cluster, p: Obj) -> str:
    cluster.apply(p)
    name = p["metadata"]["name"]
    cluster.wait_until(lambda: bound(cluster.get("Pod", name)), 60, f"{name} binds")
    return str(cluster.get("Pod", name)["spec"]["nodeName"])


TOLERATIONS: dict[str, Obj | None] = {
    "none": None,
    "prefer-effect": {"key": "prefer", "operator": "Equal", "value": "away", "effect": "PreferNoSchedule"},
    "any-effect": {"key": "prefer", "operator": "Exists"},
    "other-effect": {"key": "prefer", "operator": "Exists", "effect": "NoSchedule"},
    "other-value": {"key": "prefer", "operator": "Equal", "value": "near"},
    "every-key": {"operator": "Exists"},
}


@pytest.mark.cluster(workers=2, cpu="4", memory="16Gi", control_plane=False)
@pytest.mark.parametrize(("toleration", "weight", "chosen"), [
    pytest.param(tol, weight, chosen,
                 marks=pytest.mark.scheduler_conf(_conf() if weight is None else _conf(tainttoleration_weight=weight)))
    for tol, weight, chosen in [("none", None, 1), ("prefer-effect", None, 0), ("any-effect", None, 0),
                                ("other-effect", None, 1), ("other-value", None, 1), ("every-key", None, 0),
                                ("none", 0, 0), ("none", 1, 1)]
])
def test_a_prefer_no_schedule_taint_steers_pods_that_do_not_tolerate_it(cluster: Cluster, toleration: str,
                                                                       weight: int | None, chosen: int) -> None:
    """worker-0 is empty but tainted PreferNoSchedule: a pod not tolerating the taint goes to the busy
    worker-1 while the scorer has a weight (even 1: its 100 outweighs least-requested's 50); a usable
    toleration or a weight of 0 leaves least-requested to choose worker-0."""
    workers = _setup(cluster, taint=True)
    tol = TOLERATIONS[toleration]
    p = pod("newcomer", req=REQ, tolerations=[dict(tol)] if tol else None)
    assert _place(cluster, p) == workers[chosen]


@pytest.mark.cluster(workers=2, cpu="4", memory="16Gi", control_plane=False)
@pytest.mark.parametrize(("weight", "chosen"), [
    pytest.param(w, chosen, marks=pytest.mark.scheduler_conf(_conf() if w is None else _conf(nodeaffinity_weight=w)))
    for w, chosen in [(None, 1), (0, 0)]
])
def test_a_preferred_node_affinity_term_counts_by_its_weight(cluster: Cluster, weight: int | None,
                                                             chosen: int) -> None:
    """A pod preferring (weight 1) worker-1's hostname goes there under the default weight 2, and to
    the emptier worker-0 when ``nodeaffinity.weight`` is 0."""
    workers = _setup(cluster)
    p = pod("newcomer", req=REQ)
    p["spec"]["affinity"] = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{
        "weight": 1, "preference": {"matchExpressions": [
            {"key": "kubernetes.io/hostname", "operator": "In", "values": [workers[1]]}]}}]}}
    assert _place(cluster, p) == workers[chosen]


@pytest.mark.cluster(workers=2, cpu="4", memory="16Gi", control_plane=False)
@pytest.mark.parametrize(("kind", "weight", "chosen"), [
    pytest.param(kind, w, chosen,
                 marks=pytest.mark.scheduler_conf(_conf() if w is None else _conf(podaffinity_weight=w)))
    for kind, w, chosen in [("podAffinity", None, 1), ("podAffinity", 0, 0), ("podAntiAffinity", None, 1),
                            ("podAntiAffinity", 0, 0)]
])
def test_preferred_inter_pod_terms_count_by_the_podaffinity_weight(cluster: Cluster, kind: str,
                                                                   weight: int | None, chosen: int) -> None:
    """A preferred pod-affinity term for ``app=busy`` (on worker-1), or a preferred anti-affinity term
    against ``app=marker`` (on worker-0), sends the pod to worker-1 under the default weight 2; with
    ``podaffinity.weight`` 0 least-requested sends it to worker-0."""
    workers = _setup(cluster, marker_on_0=True)
    target = "busy" if kind == "podAffinity" else "marker"
    p = pod("newcomer", req=REQ)
    p["spec"]["affinity"] = {kind: {"preferredDuringSchedulingIgnoredDuringExecution": [{
        "weight": 50, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": target}},
                                          "topologyKey": "kubernetes.io/hostname"}}]}}
    assert _place(cluster, p) == workers[chosen]


@pytest.mark.cluster(workers=2, cpu="4", memory="16Gi", control_plane=False)
@pytest.mark.parametrize(("tolerated", "chosen"), [("near", 1), ("far", 0), (None, 0)])
def test_each_prefer_no_schedule_taint_counts_on_its_own(cluster: Cluster, tolerated: str | None,
                                                         chosen: int) -> None:
    """worker-0 carries the PreferNoSchedule taint ``far``, the busy worker-1 the taint ``near``: a pod
    tolerating near goes to worker-1 (no taint left against it there), one tolerating far or neither to
    worker-0 (a taint against it on both, so least-requested decides)."""
    workers = _setup(cluster)
    for worker, key in zip(workers, ("far", "near"), strict=True):
        cluster.patch("Node", worker, {"spec": {"taints": [{"key": key, "value": "x", "effect": "PreferNoSchedule"}]}},
                      namespace="")
    tol = [{"key": tolerated, "operator": "Exists"}] if tolerated else None
    assert _place(cluster, pod("newcomer", req=REQ, tolerations=tol)) == workers[chosen]


@pytest.mark.cluster(workers=2, cpu="4", memory="16Gi", control_plane=False)
@pytest.mark.parametrize(("namespaces", "binds"), [(["elsewhere"], True), (["nowhere"], False)])
def test_required_pod_affinity_looks_in_the_namespaces_it_names(cluster: Cluster, namespaces: list[str],
                                                                binds: bool) -> None:
    """A pod ``app=target`` runs on worker-1 in namespace ``elsewhere``. A pod with a required
    pod-affinity term for ``app=target`` naming ``namespaces`` lands beside it when the term names
    elsewhere, and stays unbound when it names a namespace without such a pod."""
    workers = _setup(cluster)
    cluster.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "elsewhere"}})
    target = pod("target", req={"cpu": "100m"}, labels={"app": "target"},
                 node_selector={"kubernetes.io/hostname": workers[1]})
    target["metadata"]["namespace"] = "elsewhere"
    cluster.apply(target)
    cluster.wait_until(lambda: bound(cluster.get("Pod", "target", "elsewhere")), 60, "target bound")
    p = pod("seeker", req=REQ)
    p["spec"]["affinity"] = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
        "labelSelector": {"matchLabels": {"app": "target"}}, "namespaces": namespaces,
        "topologyKey": "kubernetes.io/hostname"}]}}
    if binds:
        assert _place(cluster, p) == workers[1]
        return
    cluster.apply(p)
    cluster.hold(lambda: not bound(cluster.get("Pod", "seeker")), 30, "seeker stays unbound")


@pytest.mark.cluster(workers=2, cpu="4", memory="16Gi", control_plane=False)
@pytest.mark.parametrize(("names_mine", "chosen"), [(True, 1), (False, 0)])
def test_an_existing_pods_anti_affinity_keeps_pods_of_the_namespaces_it_names_away(cluster: Cluster,
                                                                                   names_mine: bool,
                                                                                   chosen: int) -> None:
    """A pod in namespace ``elsewhere`` runs on the empty worker-0 with a required anti-affinity term
    against ``app=newcomer`` pods of the namespaces it lists. A newcomer ``app=newcomer`` goes to the
    busy worker-1 when the list names the newcomer's namespace, and to worker-0 (least requested) when
    it names another."""
    workers = _setup(cluster)
    cluster.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "elsewhere"}})
    guard = pod("guard", req={"cpu": "10m", "memory": "10Mi"}, node_selector={"kubernetes.io/hostname": workers[0]})
    guard["metadata"]["namespace"] = "elsewhere"
    guard["spec"]["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
        "labelSelector": {"matchLabels": {"app": "newcomer"}},
        "namespaces": [cluster.namespace if names_mine else "nowhere"], "topologyKey": "kubernetes.io/hostname"}]}}
    cluster.apply(guard)
    cluster.wait_until(lambda: bound(cluster.get("Pod", "guard", "elsewhere")), 60, "guard bound")
    assert _place(cluster, pod("newcomer", req=REQ, labels={"app": "newcomer"})) == workers[chosen]


@pytest.mark.cluster(workers=2, cpu="4", memory="16Gi", control_plane=False)
@pytest.mark.parametrize(("kind", "weight", "chosen"), [
    pytest.param(kind, w, chosen,
                 marks=pytest.mark.scheduler_conf(_conf() if w is None else _conf(podaffinity_weight=w)))
    for kind, w, chosen in [("podAffinity", None, 1), ("podAffinity", 0, 0), ("podAntiAffinity", None, 1),
                            ("podAntiAffinity", 0, 0)]
])
def test_an_existing_pods_preferred_terms_count_for_the_newcomer(cluster: Cluster, kind: str, weight: int | None,
                                                                 chosen: int) -> None:
    """The other direction of InterPodAffinity scoring: the newcomer (``app=newcomer``) has no terms, but
    the busy pod on worker-1 prefers ``app=newcomer`` pods beside it, or the marker pod on worker-0
    prefers them away; under the default weight the newcomer goes to worker-1, with
    ``podaffinity.weight`` 0 least-requested sends it to worker-0."""
    workers = sorted(w["metadata"]["name"] for w in cluster.worker_nodes())
    term = {kind: {"preferredDuringSchedulingIgnoredDuringExecution": [{
        "weight": 50, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": "newcomer"}},
                                          "topologyKey": "kubernetes.io/hostname"}}]}}
    busy = pod("busy", req={"cpu": "2", "memory": "8Gi"}, labels={"app": "busy"},
               node_selector={"kubernetes.io/hostname": workers[1]})
    marker = pod("marker", req={"cpu": "10m", "memory": "10Mi"}, labels={"app": "marker"},
                 node_selector={"kubernetes.io/hostname": workers[0]})
    (busy if kind == "podAffinity" else marker)["spec"]["affinity"] = term
    cluster.apply([busy, marker])
    cluster.wait_until(lambda: all(bound(cluster.get("Pod", n)) for n in ("busy", "marker")), 60, "setup pods bound")
    assert _place(cluster, pod("newcomer", req=REQ, labels={"app": "newcomer"})) == workers[chosen]
