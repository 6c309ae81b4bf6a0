"""NodeAffinity, TaintToleration and InterPodAffinity scores (kube-scheduler's tables and semantics)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.scheduler.harness import conf, node, opt, pg, pod, queue, res, run
from volcano.scheduler.framework.model import TaskInfo
from volcano.scheduler.framework.session import Session
from volcano.scheduler.plugins.affinity_scores import AffinityScorers, default_normalize, minmax_normalize

WEIGHTS = {"nodeaffinity.weight": 1, "tainttoleration.weight": 1, "podaffinity.weight": 1}
CONF = conf(["enqueue"], [opt("gang", "jobReady")])


def _session(nodes: list[dict[str, Any]], pods: list[dict[str, Any]]) -> Session:
    return run(CONF, nodes=nodes, pods=pods, podgroups=[pg("pg", "ns", "q", 1)], queues=[queue("q")],
               actions=[]).session


def _task(ssn: Session, name: str) -> TaskInfo:
    return next(t for t in ssn.jobs["ns/pg"].tasks.values() if t.name == name)


def _scores(nodes: list[dict[str, Any]], incoming: dict[str, Any], existing: list[dict[str, Any]] | None = None,
            weights: dict[str, int] | None = None) -> list[int]:
    ssn = _session(nodes, [incoming, *(existing or [])])
    scorers = AffinityScorers(ssn, weights or WEIGHTS)
    rows = np.arange(len(ssn.nodes), dtype=np.intp)
    return [int(x) for x in scorers.score(_task(ssn, incoming["metadata"]["name"]), rows)]


def _only(name: str) -> dict[str, int]:
    return {k: int(k == name) for k in WEIGHTS}


def _term(weight: int, *exprs: tuple[str, str, list[str]]) -> dict[str, Any]:
    return {"weight": weight, "preference": {"matchExpressions": [
        {"key": k, "operator": op, "values": vals} for k, op, vals in exprs]}}


def _pod_with(name: str, affinity: dict[str, Any] | None = None, tolerations: list[dict[str, Any]] | None = None,
              labels: dict[str, str] | None = None, node_name: str = "") -> dict[str, Any]:
    p = pod("ns", name, node_name=node_name, phase="Running" if node_name else "Pending", req=res(1, "1Gi"),
            group="pg", labels=labels, affinity=affinity)
    if tolerations:
        p["spec"]["tolerations"] = tolerations
    return p


# -- NodeAffinity (kube-scheduler node_affinity_test TestNodeAffinityPriority) --------------------

LABEL1 = {"foo": "bar"}
LABEL2 = {"key": "value"}
LABEL5 = {"foo": "bar", "key": "value", "az": "az1"}


def test_node_affinity_nil_gives_zero() -> None:
    nodes = [node("m1", res(4, "8Gi"), LABEL1), node("m2", res(4, "8Gi"), LABEL2)]
    assert _scores(nodes, _pod_with("p"), weights=_only("nodeaffinity.weight")) == [0, 0]


def test_node_affinity_only_one_node_matches() -> None:
    aff = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [_term(2, ("foo", "In", ["bar"]))]}}
    nodes = [node("m1", res(4, "8Gi"), LABEL1), node("m2", res(4, "8Gi"), LABEL2), node("m3", res(4, "8Gi"))]
    assert _scores(nodes, _pod_with("p", aff), weights=_only("nodeaffinity.weight")) == [100, 0, 0]


def test_node_affinity_different_priorities() -> None:
    aff = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        _term(2, ("foo", "In", ["bar"])), _term(4, ("key", "In", ["value"])),
        _term(5, ("foo", "In", ["bar"]), ("key", "In", ["value"]), ("az", "In", ["az1"]))]}}
    nodes = [node("m1", res(4, "8Gi"), LABEL1), node("m5", res(4, "8Gi"), LABEL5), node("m2", res(4, "8Gi"), LABEL2)]
    assert _scores(nodes, _pod_with("p", aff), weights=_only("nodeaffinity.weight")) == [18, 100, 36]


def test_node_affinity_operators_and_weight() -> None:
    aff = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        _term(3, ("gen", "Gt", ["4"])), _term(1, ("zone", "NotIn", ["a"])), _term(7, ("gpu", "DoesNotExist", [])),
        {"weight": 9, "preference": {}}]}}  # an empty term matches nothing
    nodes = [node("a", res(4, "8Gi"), {"gen": "5", "zone": "a", "gpu": "x"}),
             node("b", res(4, "8Gi"), {"gen": "3", "zone": "b", "gpu": "x"}),
             node("c", res(4, "8Gi"), {"gen": "x"})]
    # raw: a 3, b 1, c 1 + 7 = 8; max 8
    ssn = _session(nodes, [_pod_with("p", aff)])
    scorers = AffinityScorers(ssn, {"nodeaffinity.weight": 2})
    got = scorers.score(_task(ssn, "p"), np.arange(3, dtype=np.intp))
    assert got.tolist() == [37 * 2, 12 * 2, 100 * 2]
    # normalised over the scored rows only
    got = scorers.score(_task(ssn, "p"), np.array([0, 1], dtype=np.intp))
    assert got.tolist() == [200, 66]
    assert not scorers.row_local(_task(ssn, "p"))


# -- TaintToleration (kube-scheduler taint_toleration_test TestTaintTolerationScore) ----------------

def _taint(key: str, value: str, effect: str) -> dict[str, str]:
    return {"key": key, "value": value, "effect": effect}


def _tol(key: str, value: str, effect: str) -> dict[str, str]:
    return {"key": key, "operator": "Equal", "value": value, "effect": effect}


def test_taint_more_intolerable_taints_lower_score() -> None:
    nodes = [node("n1", res(4, "8Gi")),
             node("n2", res(4, "8Gi"), taints=[_taint("cpu-type", "arm64", "PreferNoSchedule")]),
             node("n3", res(4, "8Gi"), taints=[_taint("cpu-type", "arm64", "PreferNoSchedule"),
                                                _taint("disk-type", "ssd", "PreferNoSchedule")])]
    incoming = _pod_with("p", tolerations=[_tol("foo", "bar", "PreferNoSchedule")])
    assert _scores(nodes, incoming, weights=_only("tainttoleration.weight")) == [100, 50, 0]


def test_taint_only_prefer_no_schedule_counts() -> None:
    nodes = [node("n1", res(4, "8Gi")),
             node("n2", res(4, "8Gi"), taints=[_taint("cpu-type", "arm64", "NoSchedule")]),
             node("n3", res(4, "8Gi"), taints=[_taint("cpu-type", "arm64", "PreferNoSchedule")])]
    incoming = _pod_with("p", tolerations=[_tol("cpu-type", "arm64", "NoSchedule")])
    assert _scores(nodes, incoming, weights=_only("tainttoleration.weight")) == [100, 100, 0]


def test_taint_tolerated_and_no_taints() -> None:
    tainted = [_taint("foo", "bar", "PreferNoSchedule"), _taint("cpu-type", "arm64", "PreferNoSchedule")]
    nodes = [node("n1", res(4, "8Gi"), taints=tainted), node("n2", res(4, "8Gi"), taints=tainted)]
    incoming = _pod_with("p", tolerations=[_tol("foo", "bar", "PreferNoSchedule"),
                                           {"key": "cpu-type", "operator": "Exists", "effect": ""}])
    assert _scores(nodes, incoming, weights=_only("tainttoleration.weight")) == [100, 100]
    nodes = [node("n1", res(4, "8Gi")), node("n2", res(4, "8Gi"), taints=[_taint("k", "v", "PreferNoSchedule")])]
    assert _scores(nodes, _pod_with("p"), weights=_only("tainttoleration.weight")) == [100, 0]


# -- InterPodAffinity (preferred) ----------------------------------------------------------------

ZONES = [node("n1", res(8, "16Gi"), {"zone": "z1"}), node("n2", res(8, "16Gi"), {"zone": "z1"}),
         node("n3", res(8, "16Gi"), {"zone": "z2"})]


def _pod_term(weight: int, key: str, labels: dict[str, str]) -> dict[str, Any]:
    return {"weight": weight, "podAffinityTerm": {"topologyKey": key, "labelSelector": {"matchLabels": labels}}}


def test_pod_affinity_prefers_the_domain_of_matching_pods() -> None:
    aff = {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [_pod_term(5, "zone", {"app": "db"})]}}
    existing = [_pod_with("db", labels={"app": "db"}, node_name="n1")]
    assert _scores(ZONES, _pod_with("p", aff), existing, weights=_only("podaffinity.weight")) == [100, 100, 0]


def test_pod_anti_affinity_avoids_the_host() -> None:
    aff = {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        _pod_term(5, "kubernetes.io/hostname", {"app": "web"})]}}
    existing = [_pod_with("w", labels={"app": "web"}, node_name="n2")]
    assert _scores(ZONES, _pod_with("p", aff), existing, weights=_only("podaffinity.weight")) == [100, 0, 100]


def test_existing_pods_preferred_terms_attract_the_incoming_pod() -> None:
    # Symmetry: an existing pod's preferred affinity matching the incoming pod scores its domain.
    aff = {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [_pod_term(3, "zone", {"app": "p"})]}}
    existing = [_pod_with("e", aff, node_name="n3")]
    got = _scores(ZONES, _pod_with("p", labels={"app": "p"}), existing, weights=_only("podaffinity.weight"))
    assert got == [0, 0, 100]


def test_pod_affinity_skipped_without_terms_or_matches() -> None:
    existing = [_pod_with("db", labels={"app": "db"}, node_name="n1")]
    assert _scores(ZONES, _pod_with("p"), existing, weights=_only("podaffinity.weight")) == [0, 0, 0]
    aff = {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [_pod_term(5, "zone", {"app": "x"})]}}
    assert _scores(ZONES, _pod_with("p", aff), existing, weights=_only("podaffinity.weight")) == [0, 0, 0]
    # a term in another namespace does not match
    other = pod("other", "db2", node_name="n3", phase="Running", req=res(1, "1Gi"), group="pg", labels={"app": "db"})
    aff = {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [_pod_term(5, "zone", {"app": "db"})]}}
    assert _scores(ZONES, _pod_with("p", aff), [other], weights=_only("podaffinity.weight")) == [0, 0, 0]


@pytest.mark.parametrize(("raw", "reverse", "expected"), [
    ([0, 0, 0], False, [0, 0, 0]), ([0, 0, 0], True, [100, 100, 100]), ([1, 2, 4], False, [25, 50, 100]),
    ([1, 2, 4], True, [75, 50, 0]),
])
def test_default_normalize(raw: list[int], reverse: bool, expected: list[int]) -> None:
    assert default_normalize(np.array(raw, dtype=np.int64), reverse).tolist() == expected


def test_minmax_normalize() -> None:
    assert minmax_normalize(np.array([-5, 0, 5], dtype=np.int64)).tolist() == [0, 50, 100]
    assert minmax_normalize(np.array([3, 3], dtype=np.int64)).tolist() == [0, 0]


def test_row_local_when_every_scorer_is_flat() -> None:
    ssn = _session(ZONES, [_pod_with("p")])
    scorers = AffinityScorers(ssn, WEIGHTS)
    assert scorers.row_local(_task(ssn, "p"))
    tainted = [*ZONES[:2], node("n3", res(8, "16Gi"), taints=[_taint("k", "v", "PreferNoSchedule")])]
    ssn = _session(tainted, [_pod_with("p")])
    assert not AffinityScorers(ssn, WEIGHTS).row_local(_task(ssn, "p"))


# -- through nodeorder in a full allocate ----------------------------------------------------------

ALLOC = conf(["enqueue", "allocate"],
             [opt("priority", "jobOrder", "taskOrder"), opt("gang", "jobReady", "jobPipelined")],
             [opt("predicates", "predicate"), opt("nodeorder", "nodeOrder")])


def _alloc(nodes: list[dict[str, Any]], pods: list[dict[str, Any]]) -> dict[str, str]:
    return run(ALLOC, nodes=nodes, pods=pods, podgroups=[pg("pg", "ns", "q", 1)], queues=[queue("q")]).binds


def test_allocate_avoids_prefer_no_schedule_taint() -> None:
    # n0 would win on node order (first row); its PreferNoSchedule taint sends the pod to n1.
    nodes = [node("n0", res(4, "8Gi"), taints=[_taint("spot", "true", "PreferNoSchedule")]), node("n1", res(4, "8Gi"))]
    assert _alloc(nodes, [_pod_with("p")]) == {"ns/p": "n1"}
    tolerant = _pod_with("p", tolerations=[{"key": "spot", "operator": "Exists"}])
    assert _alloc(nodes, [tolerant]) == {"ns/p": "n0"}


def test_allocate_follows_preferred_node_affinity() -> None:
    aff = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [_term(10, ("disk", "In", ["ssd"]))]}}
    nodes = [node("n0", res(4, "8Gi")), node("n1", res(4, "8Gi"), {"disk": "ssd"})]
    assert _alloc(nodes, [_pod_with("p", aff)]) == {"ns/p": "n1"}


def test_allocate_follows_preferred_pod_affinity() -> None:
    aff = {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [_pod_term(10, "zone", {"app": "db"})]}}
    nodes = [node("n0", res(8, "16Gi"), {"zone": "z1"}), node("n1", res(8, "16Gi"), {"zone": "z2"})]
    pods = [_pod_with("db", labels={"app": "db"}, node_name="n1"), _pod_with("p", aff)]
    # without the preference the emptier n0 wins on least-allocated
    assert _alloc(nodes, pods) == {"ns/p": "n1"}
    assert _alloc(nodes, [pods[0], _pod_with("p")]) == {"ns/p": "n0"}
