"""predicates: a task evicted in this session leaves the plugin's view (Volcano's
DeallocateFunc removes the pod from the node snapshot), and comes back if the
eviction is undone."""

from __future__ import annotations

from typing import Any

from tests.scheduler.harness import Result, derived_conf, node, pc, pg, pod, queue, res, run
from volcano.scheduler.config import HELM_SCHEDULER_CONF_TEXT
from volcano.scheduler.framework.model import TaskStatus
from volcano.scheduler.framework.statement import Statement
from volcano.scheduler.plugins.predicates import PredicatesPlugin

CONF = derived_conf(HELM_SCHEDULER_CONF_TEXT, actions="allocate, preempt",
                    keep=("priority", "gang", "conformance", "predicates", "proportion", "nodeorder"))
PCS = [pc("low", 100), pc("mid", 500), pc("high", 1000)]
PRE = {"volcano.sh/preemptable": "true"}
HOST = "kubernetes.io/hostname"


def _anti(labels: dict[str, str]) -> dict[str, Any]:
    term = {"labelSelector": {"matchLabels": labels}, "topologyKey": HOST}
    return {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}


def _aff(labels: dict[str, str]) -> dict[str, Any]:
    term = {"labelSelector": {"matchLabels": labels}, "topologyKey": HOST}
    return {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}


def _scenario(actions: list[str] | None = None, preemptor_affinity: dict[str, Any] | None = None) -> Result:
    """One 4-CPU node holding a 1-CPU blocker (app=blocker, low priority); the pending
    high-priority pod (1 CPU, plenty of room) avoids blockers on the same host."""
    pods = [pod("ns", "blocker", node_name="n0", phase="Running", req=res(1), group="b",
                labels={"app": "blocker", **PRE}, priority=100),
            pod("ns", "hp", req=res(1), group="h", labels={"app": "hp"}, priority=1000,
                affinity=preemptor_affinity or _anti({"app": "blocker"}))]
    return run(CONF, nodes=[node("n0", res(4, "8Gi"))], pods=pods, queues=[queue("default")], pcs=PCS,
               actions=actions,
               podgroups=[pg("b", "ns", "default", 1, "Running", pc_name="low"),
                          pg("h", "ns", "default", 1, "Inqueue", pc_name="high")])


def test_normal_preemption_clears_an_anti_affinity_blocker() -> None:
    r = _scenario()
    assert r.evicted == ["ns/blocker"]
    assert r.pipelined("ns/h") == ["n0"]
    assert r.statuses("ns/b") == {"Releasing": 1}


def _plugin(r: Result) -> PredicatesPlugin:
    plugin = r.session.plugins["predicates"]
    assert isinstance(plugin, PredicatesPlugin)
    return plugin


def test_evicted_task_is_dropped_and_comes_back_when_the_eviction_is_undone() -> None:
    r = _scenario(actions=["allocate"])
    ssn = r.session
    hp = ssn.jobs["ns/h"].tasks["ns-hp"]
    blocker = ssn.jobs["ns/b"].tasks["ns-blocker"]
    assert ssn.predicate(hp).codes[0] != 0  # blocked by the running blocker
    stmt = Statement(ssn)
    stmt.evict(blocker, "preempt")
    assert blocker.status == TaskStatus.Releasing
    assert _plugin(r).evicted == {"ns-blocker"}
    assert ssn.predicate(hp).codes[0] == 0  # the evicted blocker no longer counts
    stmt.discard()
    assert blocker.status == TaskStatus.Running
    assert _plugin(r).evicted == set()
    assert ssn.predicate(hp).codes[0] != 0  # back in view


def test_evicted_task_no_longer_satisfies_pod_affinity() -> None:
    # The pending pod requires a co-located app=blocker pod: once the blocker is evicted
    # in the session nothing satisfies the term any more.
    r = _scenario(actions=[], preemptor_affinity=_aff({"app": "blocker"}))
    ssn = r.session
    hp = ssn.jobs["ns/h"].tasks["ns-hp"]
    assert ssn.predicate(hp).codes[0] == 0
    blocker = ssn.jobs["ns/b"].tasks["ns-blocker"]
    Statement(ssn).evict(blocker, "preempt")
    assert ssn.predicate(hp).codes[0] != 0


def test_tasks_releasing_before_the_session_stay_in_view() -> None:
    # A pod already terminating (Releasing at open) is still on the node for Kubernetes' filters.
    pods = [pod("ns", "blocker", node_name="n0", phase="Running", req=res(1), group="b",
                labels={"app": "blocker", **PRE}, deleting=True),
            pod("ns", "hp", req=res(1), group="h", labels={"app": "hp"}, affinity=_anti({"app": "blocker"}))]
    r = run(CONF, nodes=[node("n0", res(4, "8Gi"))], pods=pods, queues=[queue("default")], pcs=PCS, actions=[],
            podgroups=[pg("b", "ns", "default", 1, "Running"), pg("h", "ns", "default", 1, "Inqueue")])
    ssn = r.session
    assert ssn.jobs["ns/b"].tasks["ns-blocker"].status == TaskStatus.Releasing
    assert _plugin(r).evicted == set()
    assert ssn.predicate(ssn.jobs["ns/h"].tasks["ns-hp"]).codes[0] != 0


def _with_port(p: dict[str, Any], port: int) -> dict[str, Any]:
    p["spec"]["containers"][0]["ports"] = [{"containerPort": port, "hostPort": port, "protocol": "TCP"}]
    return p


def test_normal_preemption_frees_a_host_port() -> None:
    pods = [_with_port(pod("ns", "holder", node_name="n0", phase="Running", req=res(1), group="b", labels=PRE,
                           priority=100), 8080),
            _with_port(pod("ns", "hp", req=res(1), group="h", priority=1000), 8080)]
    r = run(CONF, nodes=[node("n0", res(4, "8Gi"))], pods=pods, queues=[queue("default")], pcs=PCS,
            podgroups=[pg("b", "ns", "default", 1, "Running", pc_name="low"),
                       pg("h", "ns", "default", 1, "Inqueue", pc_name="high")])
    assert r.evicted == ["ns/holder"]
    assert r.pipelined("ns/h") == ["n0"]
