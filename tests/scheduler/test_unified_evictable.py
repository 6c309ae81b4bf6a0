"""The ``unified_evictable`` extension point (reference §3.3) and the callbacks
gang, priority, conformance and capacity register for it (§5.1, §5.2, §5.5, §5.9)."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

from tests.scheduler.harness import HIGH_MID_LOW, PRE_T, Result, conf, node, opt, pg, pod, queue, res, run
from volcano.scheduler.actions.gang_evict import unified_evictable
from volcano.scheduler.framework.conf import PluginOption, SchedulerConf, Tier
from volcano.scheduler.framework.model import TaskInfo
from volcano.scheduler.framework.plugin import Plugin, PluginRegistry
from volcano.scheduler.framework.points import (
    ABSTAIN,
    CATALOGUE,
    GANG_PREEMPT,
    GANG_RECLAIM,
    PERMIT,
    REJECT,
    UNIFIED_EVICTABLE,
    EvictionContext,
    tier_intersect,
)
from volcano.scheduler.framework.session import Session

PRE, PCS = PRE_T, HIGH_MID_LOW


def _pod(name: str, group: str, ns: str = "ns", node_name: str = "n1", phase: str = "Running",
         **kw: Any) -> dict[str, Any]:
    return pod(ns, name, node_name=node_name, phase=phase, req=res(1, "1Gi"), group=group,
               labels=PRE if node_name else None, **kw)


# -- the point -------------------------------------------------------------------------------

def test_point_is_tier_intersection_without_enable_flag() -> None:
    point = UNIFIED_EVICTABLE
    assert CATALOGUE[point.name] is point and point.fold is tier_intersect
    assert point.flag is None


class _Toy(Plugin):
    """Registers a unified_evictable callback answering the uids in ``ANSWERS[name]``."""

    ANSWERS: ClassVar[dict[str, tuple[tuple[str, ...], int]]] = {}

    def open(self, ssn: Session) -> None:
        uids, vote = self.ANSWERS[self.name]

        def fn(_ctx: Any, cands: list[TaskInfo]) -> tuple[list[TaskInfo], int]:
            return [t for t in cands if t.uid in uids], vote

        ssn.add_fn(UNIFIED_EVICTABLE, fn)


def _toy_registry(answers: dict[str, tuple[tuple[str, ...], int]]) -> PluginRegistry:
    reg = PluginRegistry()
    for name in answers:
        cls = type(f"Toy_{name}", (_Toy,), {"name": name})
        reg.register(cls)
    _Toy.ANSWERS = dict(answers)
    return reg


def _toy_session(tiers: list[list[str]], answers: dict[str, tuple[tuple[str, ...], int]]) -> Result:
    # Every enable flag off (``opt`` with no points): the point has no flag, so it still runs.
    c = conf([], *[[opt(name) for name in tier] for tier in tiers])
    pods = [_pod(f"t{i}", "v") for i in range(3)]
    return run(c, nodes=[node("n1", res(4, "4Gi"))], queues=[queue("q")], pods=pods,
               podgroups=[pg("v", "ns", "q", 1, "Running"), pg("p", "ns", "q", 1, "Inqueue")],
               registry=_toy_registry(answers), actions=[])


def _ask(r: Result, kind: str = GANG_PREEMPT, job: str = "ns/p") -> list[str]:
    ssn = r.session
    cands = sorted((t for n in ssn.nodes for t in n.tasks.values()), key=lambda t: t.uid)
    return [t.uid for t in unified_evictable(ssn, EvictionContext(kind, ssn.jobs[job]), cands)]


@pytest.mark.parametrize(("tiers", "answers", "expected"), [
    # one tier: intersection, in the first contributor's order
    ([["a", "b"]], {"a": (("ns-t0", "ns-t1"), PERMIT), "b": (("ns-t1", "ns-t2"), PERMIT)}, ["ns-t1"]),
    # an abstaining plugin is skipped; a Reject vote counts like Permit
    ([["a", "b"]], {"a": (("ns-t0",), ABSTAIN), "b": (("ns-t1", "ns-t2"), REJECT)}, ["ns-t1", "ns-t2"]),
    # an empty answer makes the tier undecided: the next tier decides
    ([["a", "b"], ["c"]], {"a": (("ns-t0",), PERMIT), "b": ((), PERMIT), "c": (("ns-t2",), PERMIT)},
     ["ns-t2"]),
    # nobody decides: no victims
    ([["a"], ["b"]], {"a": ((), PERMIT), "b": (("ns-t0",), ABSTAIN)}, []),
    # an empty running intersection restarts from the next plugin's answer
    ([["a", "b", "c"]], {"a": (("ns-t0",), PERMIT), "b": (("ns-t1",), PERMIT), "c": (("ns-t2",), PERMIT)},
     ["ns-t2"]),
])
def test_session_folds_unified_evictable_by_tier_intersection(
        tiers: list[list[str]], answers: dict[str, tuple[tuple[str, ...], int]], expected: list[str]) -> None:
    assert _ask(_toy_session(tiers, answers)) == expected


# -- each plugin's callback --------------------------------------------------------------------

def _plugin_session(plugin: str, pods: list[dict[str, Any]], podgroups: list[dict[str, Any]],
                    queues: list[dict[str, Any]] | None = None) -> Result:
    c = SchedulerConf((), (Tier((PluginOption(plugin),)),))
    return run(c, nodes=[node("n1", res(8, "8Gi"))], queues=queues or [queue("q")], pods=pods,
               podgroups=podgroups, pcs=PCS, actions=[])


@pytest.mark.parametrize(("name", "registers"), [
    ("priority", True), ("gang", True), ("conformance", True), ("capacity", True), ("drf", False),
    ("proportion", False)])
def test_which_plugins_register_a_callback(name: str, registers: bool) -> None:
    c = SchedulerConf((), (Tier((PluginOption(name),)),))
    r = run(c, nodes=[node("n1", res(1, "1Gi"))], queues=[queue("q")], actions=[])
    assert r.session.has(UNIFIED_EVICTABLE) is registers


@pytest.mark.parametrize("kind", [GANG_PREEMPT, GANG_RECLAIM])
def test_gang_permits_every_candidate(kind: str) -> None:
    # minMember 2 with 2 running: the task-level gang rule would protect both.
    r = _plugin_session("gang", [_pod("v-0", "v"), _pod("v-1", "v")],
                        [pg("v", "ns", "q", 2, "Running"), pg("p", "ns", "q", 1, "Inqueue")])
    assert _ask(r, kind) == ["ns-v-0", "ns-v-1"]


def _priority_session() -> Result:
    return _plugin_session(
        "priority",
        [_pod("lo-0", "lo"), _pod("mid-0", "mid"), _pod("hi-0", "hi"), _pod("p-0", "p", node_name="", phase="Pending")],
        [pg("lo", "ns", "q", 1, "Running", pc_name="low"), pg("mid", "ns", "q", 1, "Running", pc_name="mid"),
         pg("hi", "ns", "q", 1, "Running", pc_name="high"), pg("p", "ns", "q", 1, "Inqueue", pc_name="mid")])


def test_priority_gangpreempt_keeps_strictly_lower_job_priority() -> None:
    assert _ask(_priority_session(), GANG_PREEMPT) == ["ns-lo-0"]


def test_priority_gangreclaim_permits_all() -> None:
    assert _ask(_priority_session(), GANG_RECLAIM) == ["ns-hi-0", "ns-lo-0", "ns-mid-0"]


@pytest.mark.parametrize("kind", [GANG_PREEMPT, GANG_RECLAIM])
def test_conformance_drops_system_critical_pods(kind: str) -> None:
    pods = [_pod("a-plain", "v"), _pod("b-cluster", "v", priority_class="system-cluster-critical"),
            _pod("c-node", "v", priority_class="system-node-critical"), _pod("d-sys", "s", ns="kube-system"),
            _pod("e-other-class", "v", priority_class="high")]
    r = _plugin_session("conformance", pods, [pg("v", "ns", "q", 1, "Running"), pg("s", "kube-system", "q", 1,
                                                                                     "Running"),
                                              pg("p", "ns", "q", 1, "Inqueue")])
    assert _ask(r, kind) == ["ns-a-plain", "ns-e-other-class"]


def test_capacity_is_wired_through_the_point() -> None:
    # gangpreempt: capacity permits all; gangreclaim: a queue within its deserved loses nothing,
    # so capacity answers [] and (alone in its tier) nobody decides.
    queues = [queue("q", deserved=res(4, "4Gi")), queue("r", deserved=res(4, "4Gi"))]
    r = _plugin_session("capacity", [_pod("v-0", "v"), _pod("v-1", "v")],
                        [pg("v", "ns", "q", 1, "Running"), pg("p", "ns", "r", 1, "Inqueue")], queues)
    assert _ask(r, GANG_PREEMPT) == ["ns-v-0", "ns-v-1"]
    assert _ask(r, GANG_RECLAIM) == []
    over = [queue("q", deserved=res(1, "1Gi")), queue("r", deserved=res(4, "4Gi"))]
    r = _plugin_session("capacity", [_pod("v-0", "v"), _pod("v-1", "v")],
                        [pg("v", "ns", "q", 1, "Running"), pg("p", "ns", "r", 1, "Inqueue")], over)
    assert _ask(r, GANG_RECLAIM) == ["ns-v-0"]


# -- a whole gangpreempt run -------------------------------------------------------------------

def _gang_conf(with_conformance: bool) -> SchedulerConf:
    t1 = [PluginOption("priority"), PluginOption("gang", {"enablePreemptable": False})]
    if with_conformance:
        t1.append(PluginOption("conformance"))
    t1.append(PluginOption("capacity"))
    return SchedulerConf(("gangpreempt",), (Tier(tuple(t1)), Tier((PluginOption("predicates"),))))


def _critical_run(protect: dict[str, Any], with_conformance: bool = True, all_critical: bool = False) -> Result:
    ns = protect.pop("ns", "ns")
    nodes = [node("n0", res(1, "1Gi")), node("n1", res(1, "1Gi"))]
    # va-0 is the victim the bundles offer first (lowest uid) unless it is protected.
    pods = [pod(ns, "va-0", node_name="n0", phase="Running", req=res(1, "1Gi"), group="va", labels=PRE, **protect),
            pod(ns, "va-1", node_name="n1", phase="Running", req=res(1, "1Gi"), group="va", labels=PRE,
                **protect if all_critical else {}),
            pod(ns, "p-0", req=res(1, "1Gi"), group="p")]
    return run(_gang_conf(with_conformance), nodes=nodes, pods=pods, pcs=PCS,
               queues=[queue("q", deserved=res(2, "2Gi"))],
               podgroups=[pg("va", ns, "q", 1, "Running", pc_name="low"),
                          pg("p", ns, "q", 1, "Inqueue", pc_name="high")])


CRITICAL = [{"priority_class": "system-cluster-critical"}, {"priority_class": "system-node-critical"},
            {"ns": "kube-system"}]


@pytest.mark.parametrize("protect", CRITICAL[:2])
def test_gangpreempt_never_evicts_a_system_critical_pod(protect: dict[str, Any]) -> None:
    r = _critical_run(dict(protect))
    assert r.evicted == ["ns/va-1"]
    assert r.pipelined("ns/p") == ["n1"]


def test_without_conformance_the_critical_pod_would_go_first() -> None:
    r = _critical_run({"priority_class": "system-cluster-critical"}, with_conformance=False)
    assert r.evicted == ["ns/va-0"]


def _kube_system_run(with_conformance: bool) -> Result:
    # Two lower-priority victim jobs; the kube-system one (lowest priority) is victimised first.
    nodes = [node("n0", res(1, "1Gi")), node("n1", res(1, "1Gi"))]
    pods = [pod("kube-system", "sys-0", node_name="n0", phase="Running", req=res(1, "1Gi"), group="sys", labels=PRE),
            pod("ns", "user-0", node_name="n1", phase="Running", req=res(1, "1Gi"), group="user", labels=PRE),
            pod("ns", "p-0", req=res(1, "1Gi"), group="p")]
    return run(_gang_conf(with_conformance), nodes=nodes, pods=pods, pcs=PCS,
               queues=[queue("q", deserved=res(2, "2Gi"))],
               podgroups=[pg("sys", "kube-system", "q", 1, "Running", pc_name="low"),
                          pg("user", "ns", "q", 1, "Running", pc_name="mid"),
                          pg("p", "ns", "q", 1, "Inqueue", pc_name="high")])


def test_gangpreempt_never_evicts_a_kube_system_pod() -> None:
    assert _kube_system_run(with_conformance=False).evicted == ["kube-system/sys-0"]
    r = _kube_system_run(with_conformance=True)
    assert r.evicted == ["ns/user-0"]
    assert r.pipelined("ns/p") == ["n1"]


@pytest.mark.parametrize("protect", CRITICAL)
def test_gangpreempt_with_only_critical_candidates_evicts_nothing(protect: dict[str, Any]) -> None:
    ns = protect.get("ns", "ns")
    r = _critical_run(dict(protect), all_critical=True)
    assert r.evicted == []
    assert r.pipelined(f"{ns}/p") == []
    assert r.statuses(f"{ns}/va") == {"Running": 2}
