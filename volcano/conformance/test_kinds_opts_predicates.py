"""predicates' switches and the ``enablePredicate`` flag (scheduler reference §2.3, §2.4, §5.6).

Each switch is a boolean argument read as Volcano's ``Arguments.GetBool`` reads it: a YAML bool, or a
string Go's ``strconv.ParseBool`` accepts (``"false"``, ``"0"``, ``"F"``, ``"true"``, ...); anything else
(a YAML int, a word ParseBool refuses) keeps the default, on. A check switched off lets a pod onto the
node that check would refuse:

* ``predicate.TaintTolerationEnable``: a pod without tolerations and the only worker tainted
  ``NoSchedule``;
* ``predicate.NodeAffinityEnable``: a pod whose required node affinity names a label no node has;
* ``predicate.PodAffinityEnable``: a pod with required anti-affinity to a pod on the only worker;
* ``predicate.NodePortsEnable``: a pod asking for the host port a pod on the only worker holds.

``enablePredicate: false`` on the predicates entry switches its whole hook off (the tainted node takes
the pod); the same flag on another plugin's entry changes nothing. Shape: one worker of 4 CPUs, no
control-plane node.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import pod
from volcano.conformance.lib.waits import bound

Obj = dict[str, Any]

pytestmark = [pytest.mark.scheduling_base, pytest.mark.cluster(workers=1, cpu="4", control_plane=False)]

TAINT = {"key": "opts", "value": "off", "effect": "NoSchedule"}


def _conf(args: str = "", flag: str = "", other_flag: str = "") -> str:
    """A configuration with predicates carrying ``args`` (YAML lines under ``arguments``) and
    ``flag`` (an entry line), and proportion carrying ``other_flag``."""
    entry = "  - name: predicates\n" + (f"    {flag}\n" if flag else "")
    if args:
        entry += "    arguments:\n" + "".join(f"      {line}\n" for line in args.split(";"))
    return ('actions: "enqueue, allocate"\ntiers:\n- plugins:\n  - name: priority\n  - name: gang\n'
            "- plugins:\n" + entry + "  - name: proportion\n" + (f"    {other_flag}\n" if other_flag else "")
            + "  - name: nodeorder\n")


def _lands(cluster: Cluster, name: str, on: bool) -> None:
    """``name`` binds (``on``), or stays without a node for a minute."""
    if on:
        cluster.wait_until(lambda: bound(cluster.get("Pod", name)), 60, f"{name} binds")
    else:
        cluster.hold(lambda: not bound(cluster.get("Pod", name)), 60, f"{name} stays unbound")


def _worker(cluster: Cluster) -> str:
    return str(cluster.worker_nodes()[0]["metadata"]["name"])


# (value as written in the YAML, whether the taint check stays on)
TAINT_VALUES = [
    (None, True), ("true", True), ("false", False), ('"false"', False), ('"true"', True), ('"0"', False),
    ('"F"', False), ('"1"', True), ("0", True), ('"no"', True),
]


@pytest.mark.parametrize(("value", "checked"), [
    pytest.param(v, c, id=str(v), marks=pytest.mark.scheduler_conf(
        _conf(f"predicate.TaintTolerationEnable: {v}" if v is not None else "")))
    for v, c in TAINT_VALUES
])
def test_taint_toleration_switch(cluster: Cluster, value: str | None, checked: bool) -> None:
    """A pod without tolerations reaches the only, tainted, worker exactly when the taint check is off
    (a YAML int or a word ParseBool refuses keeps it on)."""
    cluster.patch("Node", _worker(cluster), {"spec": {"taints": [dict(TAINT)]}}, namespace="")
    cluster.apply(pod("plain"))
    _lands(cluster, "plain", on=not checked)


@pytest.mark.parametrize(("checked",), [
    pytest.param(True, marks=pytest.mark.scheduler_conf(_conf("predicate.NodeAffinityEnable: \"true\"")), id="on"),
    pytest.param(False, marks=pytest.mark.scheduler_conf(_conf("predicate.NodeAffinityEnable: \"false\"")),
                 id="off"),
])
def test_node_affinity_switch(cluster: Cluster, checked: bool) -> None:
    """A pod requiring a label no node carries binds only with the node-affinity check off."""
    p = pod("picky")
    p["spec"]["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "opts", "operator": "In", "values": ["absent"]}]}]}}}
    cluster.apply(p)
    _lands(cluster, "picky", on=not checked)


@pytest.mark.parametrize(("checked",), [
    pytest.param(True, marks=pytest.mark.scheduler_conf(_conf()), id="default"),
    pytest.param(False, marks=pytest.mark.scheduler_conf(_conf("predicate.PodAffinityEnable: \"f\"")), id="f"),
    pytest.param(True, marks=pytest.mark.scheduler_conf(_conf("predicate.PodAffinityEnable: \"off\"")), id="off"),
])
def test_pod_affinity_switch(cluster: Cluster, checked: bool) -> None:
    """A pod with required anti-affinity to the pod already on the only worker binds only with the
    inter-pod affinity check off (``"f"`` is ParseBool's false; ``"off"`` is not a bool: default on)."""
    cluster.apply(pod("first", labels={"app": "solo"}))
    cluster.wait_until(lambda: bound(cluster.get("Pod", "first")), 60, "first binds")
    p = pod("second", labels={"app": "solo"})
    p["spec"]["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "solo"}}, "topologyKey": "kubernetes.io/hostname"}]}}
    cluster.apply(p)
    _lands(cluster, "second", on=not checked)


def _port_pod(name: str) -> Obj:
    p = pod(name)
    p["spec"]["containers"][0]["ports"] = [{"containerPort": 8080, "hostPort": 18080, "protocol": "TCP"}]
    return p


@pytest.mark.parametrize(("checked",), [
    pytest.param(True, marks=pytest.mark.scheduler_conf(_conf("predicate.NodePortsEnable: true")), id="true"),
    pytest.param(False, marks=pytest.mark.scheduler_conf(_conf("predicate.NodePortsEnable: \"FALSE\"")),
                 id="FALSE"),
])
def test_node_ports_switch(cluster: Cluster, checked: bool) -> None:
    """A second pod asking for a host port the first holds on the only worker binds only with the
    host-port check off."""
    cluster.apply(_port_pod("port-a"))
    cluster.wait_until(lambda: bound(cluster.get("Pod", "port-a")), 60, "port-a binds")
    cluster.apply(_port_pod("port-b"))
    _lands(cluster, "port-b", on=not checked)


@pytest.mark.parametrize(("checked",), [
    pytest.param(False, marks=pytest.mark.scheduler_conf(_conf(flag="enablePredicate: false")), id="off"),
    pytest.param(True, marks=pytest.mark.scheduler_conf(_conf(flag="enablePredicate: true")), id="on"),
    pytest.param(True, marks=pytest.mark.scheduler_conf(_conf(other_flag="enablePredicate: false")),
                 id="other-plugin-off"),
])
def test_enable_predicate_flag(cluster: Cluster, checked: bool) -> None:
    """``enablePredicate: false`` on predicates' entry lets a pod without tolerations onto the tainted
    worker; on another plugin's entry it leaves predicates' check on."""
    cluster.patch("Node", _worker(cluster), {"spec": {"taints": [dict(TAINT)]}}, namespace="")
    cluster.apply(pod("plain"))
    _lands(cluster, "plain", on=not checked)
