"""Kinds pinned whole: Kubernetes' taint toleration and required node affinity as the predicates
plugin and the default scheduler read them: every toleration shape against a taint, every
node-selector operator against a label present, absent and non-numeric, terms ORed and expressions
ANDed, ``matchFields`` on ``metadata.name``; then the default scheduler placing pods by them."""

from __future__ import annotations

from typing import Any

import pytest

from tests.scheduler.harness import node, res
from tests.scheduler.kinds_support import RefusingClient, events_of, sched_trace
from volcano.scheduler import DefaultScheduler
from volcano.scheduler.framework.model import NodeSpec
from volcano.scheduler.plugins.predicates import node_affinity_matches, tolerates
from volcano.testbed import FakeCluster

TAINT = {"key": "k", "value": "v", "effect": "NoSchedule"}


@pytest.mark.parametrize(("toleration", "tolerated"), [
    ({"key": "k", "value": "v", "effect": "NoSchedule"}, True),
    ({"key": "k", "operator": "Equal", "value": "v"}, True),
    ({"key": "k", "operator": "Equal", "value": "w"}, False),
    ({"key": "k", "value": "v", "effect": "NoExecute"}, False),
    ({"key": "k", "operator": "Exists"}, True),
    ({"key": "k", "operator": "Exists", "effect": "PreferNoSchedule"}, False),
    ({"key": "other", "operator": "Exists"}, False),
    ({"operator": "Exists"}, True),
    ({"operator": "Exists", "effect": "NoSchedule"}, True),
    ({"operator": "Exists", "effect": "NoExecute"}, False),
    ({"operator": "Equal", "value": "v"}, False),
    ({"key": "k"}, False),
    ({"key": "k", "value": ""}, False),
])
def test_one_toleration_against_a_taint(toleration: dict[str, Any], tolerated: bool) -> None:
    assert tolerates([toleration], TAINT) is tolerated
    assert tolerates([{"key": "x", "operator": "Exists"}, toleration], TAINT) is tolerated
    assert tolerates([], TAINT) is False
    assert tolerates([toleration, {"key": "k", "operator": "Exists"}], TAINT) is True


def test_a_taint_without_value_is_tolerated_by_an_empty_value() -> None:
    assert tolerates([{"key": "k", "operator": "Equal"}], {"key": "k", "effect": "NoSchedule"}) is True
    assert tolerates([{"key": "k", "value": "v"}], {"key": "k", "effect": "NoSchedule"}) is False


NODE = NodeSpec(node("n1", res(4, "8Gi"), {"zone": "a", "size": "10", "word": "ten"}))


def _required(*terms: dict[str, Any]) -> dict[str, Any]:
    return {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": list(terms)}}}}


def _expr(key: str, op: str, *values: str) -> dict[str, Any]:
    out: dict[str, Any] = {"key": key, "operator": op}
    if values:
        out["values"] = list(values)
    return out


@pytest.mark.parametrize(("expr", "matches"), [
    (_expr("zone", "In", "a", "b"), True), (_expr("zone", "In", "b"), False), (_expr("none", "In", "a"), False),
    (_expr("zone", "NotIn", "b"), True), (_expr("zone", "NotIn", "a"), False), (_expr("none", "NotIn", "a"), True),
    (_expr("zone", "Exists"), True), (_expr("none", "Exists"), False),
    (_expr("zone", "DoesNotExist"), False), (_expr("none", "DoesNotExist"), True),
    (_expr("size", "Gt", "9"), True), (_expr("size", "Gt", "10"), False), (_expr("size", "Gt", "11"), False),
    (_expr("size", "Lt", "11"), True), (_expr("size", "Lt", "10"), False), (_expr("size", "Lt", "9"), False),
    (_expr("word", "Gt", "1"), False), (_expr("size", "Gt", "x"), False), (_expr("none", "Gt", "1"), False),
    (_expr("size", "Gt"), False), (_expr("size", "Lt"), False), (_expr("zone", "Unknown", "a"), False),
])
def test_one_expression_against_a_node(expr: dict[str, Any], matches: bool) -> None:
    assert node_affinity_matches(_required({"matchExpressions": [expr]}), NODE) is matches


@pytest.mark.parametrize(("spec", "matches"), [
    ({}, True),
    ({"nodeSelector": {"zone": "a"}}, True),
    ({"nodeSelector": {"zone": "a", "size": "9"}}, False),
    ({"nodeSelector": {"none": ""}}, False),
    (_required(), False),
    (_required({}), False),
    (_required({}, {"matchExpressions": [_expr("zone", "In", "a")]}), True),
    (_required({"matchExpressions": [_expr("zone", "In", "b")]}, {"matchExpressions": [_expr("size", "Gt", "1")]}),
     True),
    (_required({"matchExpressions": [_expr("zone", "In", "a"), _expr("size", "Lt", "1")]}), False),
    (_required({"matchFields": [_expr("metadata.name", "In", "n1")]}), True),
    (_required({"matchFields": [_expr("metadata.name", "In", "n2")]}), False),
    (_required({"matchFields": [_expr("metadata.name", "NotIn", "n2")]}), True),
    (_required({"matchFields": [_expr("other", "In", "n1")]}), False),
    (_required({"matchExpressions": [_expr("zone", "In", "a")], "matchFields": [_expr("metadata.name", "In", "n2")]}),
     False),
    ({"nodeSelector": {"zone": "b"}, **_required({"matchExpressions": [_expr("zone", "In", "a")]})}, False),
    ({"affinity": {"nodeAffinity": {}}}, True),
])
def test_node_selector_and_required_terms(spec: dict[str, Any], matches: bool) -> None:
    assert node_affinity_matches(spec, NODE) is matches


def _default_pod(fc: FakeCluster, name: str, **spec: Any) -> None:
    fc.apply({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
              "spec": {"containers": [{"name": "c", "image": "nginx",
                                       "resources": {"requests": {"cpu": "1"}}}], **spec}})


def test_the_default_scheduler_places_by_taints_cordons_and_affinity() -> None:
    """Nodes: ``cordoned`` (unschedulable), ``tainted`` (k=v:NoSchedule), ``zoned`` (zone=a). A plain pod goes
    to the zoned node; a pod tolerating the taint and requiring ``zone`` NotIn [a] to the tainted node; a pod
    tolerating the unschedulable taint and selecting ``kubernetes.io/hostname: cordoned`` to the cordoned
    node; a pod requiring zone b stays unbound."""
    fc = FakeCluster(seed=1)
    fc.add_node("cordoned")
    fc.patch("Node", "cordoned", {"spec": {"unschedulable": True}})
    fc.add_node("tainted", taints=["k=v:NoSchedule"])
    fc.add_node("zoned", labels={"zone": "a"})
    _default_pod(fc, "plain")
    _default_pod(fc, "tolerant", tolerations=[{"key": "k", "operator": "Exists"}],
                 **_required({"matchExpressions": [_expr("zone", "NotIn", "a")]}))
    _default_pod(fc, "cordon-ok", nodeSelector={"kubernetes.io/hostname": "cordoned"},
                 tolerations=[{"key": "node.kubernetes.io/unschedulable", "operator": "Exists",
                               "effect": "NoSchedule"}])
    _default_pod(fc, "nowhere", **_required({"matchExpressions": [_expr("zone", "In", "b")]}))
    fc.run(2)
    assert {p: fc.get("Pod", p)["spec"].get("nodeName") for p in ("plain", "tolerant", "cordon-ok", "nowhere")} == \
        {"plain": "zoned", "tolerant": "tainted", "cordon-ok": "cordoned", "nowhere": None}
    assert [r for r in sched_trace(fc) if r[1] == "default-scheduler"] == [
        (1000, "default-scheduler", "Bind", "default/plain", "zoned"),
        (1000, "default-scheduler", "Bind", "default/tolerant", "tainted"),
        (1000, "default-scheduler", "Bind", "default/cordon-ok", "cordoned"),
    ]
    failed = "0/3 nodes are available: insufficient resources or no matching node."
    assert events_of(fc, "default-scheduler") == [
        *[("Pod", p, "Normal", "Scheduled", f"Successfully assigned default/{p} to {n}", 1)
          for p, n in (("plain", "zoned"), ("tolerant", "tainted"), ("cordon-ok", "cordoned"))],
        ("Pod", "nowhere", "Warning", "FailedScheduling", failed, 1),
    ]
    assert fc.get("Pod", "nowhere")["status"]["conditions"] == [
        {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": failed,
         "lastTransitionTime": "2024-01-01T00:00:01Z"}]


def test_a_refused_default_bind_leaves_no_record_and_is_retried() -> None:
    """The default scheduler over a client refusing binds: a pod it places gets no Bind record, no event
    and no node; once binds are allowed the next cycle binds it."""
    refusing = {"on": True}
    fc = FakeCluster(seed=1)
    fc.default_scheduler.stop()
    fc.default_scheduler = DefaultScheduler(
        RefusingClient(fc.server, lambda verb, args: refusing["on"] and verb == "bind"), fc.informers, fc.clock,
        trace=fc.trace, recorder=fc.recorder_for("default-scheduler"))
    fc.default_scheduler.start()
    fc.add_node("n1")
    _default_pod(fc, "p")
    fc.run(2)
    assert (fc.get("Pod", "p")["spec"].get("nodeName"), sched_trace(fc), events_of(fc, "default-scheduler")) == \
        (None, [], [])
    refusing["on"] = False
    fc.run(1)
    assert fc.get("Pod", "p")["spec"].get("nodeName") == "n1"
    assert sched_trace(fc) == [(3000, "default-scheduler", "Bind", "default/p", "n1")]
