"""Topology-aware (dry-run) preemption: victims whose removal the preemptor needs, reprieve, node pick."""

from __future__ import annotations

from typing import Any

import numpy as np

from tests.scheduler.harness import Result, derived_conf, node, pc, pg, pod, queue, res, run
from volcano.scheduler.actions.preempt import TopologyOptions, pick_candidate, select_victims_on_node
from volcano.scheduler.config import HELM_SCHEDULER_CONF_TEXT
from volcano.scheduler.framework.conf import SchedulerConf

CONF = derived_conf(HELM_SCHEDULER_CONF_TEXT, actions="allocate, preempt",
                    keep=("priority", "gang", "conformance", "predicates", "proportion", "nodeorder"),
                    configurations=[{"name": "preempt", "arguments": {"enableTopologyAwarePreemption": "true"}}])
PCS = [pc("low", 100), pc("mid", 500), pc("high", 1000)]
PRE = {"volcano.sh/preemptable": "true"}


def _term(labels: dict[str, str]) -> list[dict[str, Any]]:
    return [{"labelSelector": {"matchLabels": labels}, "topologyKey": "kubernetes.io/hostname"}]


def _anti(labels: dict[str, str]) -> dict[str, Any]:
    return {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": _term(labels)}}


def _scenario(conf: SchedulerConf = CONF, actions: list[str] | None = None, preemptor_cpu: int = 3) -> Result:
    """Per node: a blocker (mid) and a bystander (low) of 1 CPU on 4-CPU nodes; the
    preemptor job (high, 2 pods) needs ``preemptor_cpu`` CPU and avoids blockers."""
    pods = []
    for i in range(3):
        pods.append(pod("ns", f"blocker-{i}", node_name=f"n{i}", phase="Running", req=res(1), group="b",
                        labels={"app": "blocker", **PRE}, priority=500, affinity=_anti({"app": "blocker"})))
        pods.append(pod("ns", f"by-{i}", node_name=f"n{i}", phase="Running", req=res(1), group="y",
                        labels={"app": "by", **PRE}, priority=100))
    for i in range(2):
        pods.append(pod("ns", f"hp-{i}", req=res(preemptor_cpu), group="h", labels={"app": "hp"}, priority=1000,
                        affinity=_anti({"app": "blocker"})))
    return run(conf, nodes=[node(f"n{i}", res(4, "8Gi")) for i in range(3)], pods=pods, queues=[queue("default")],
               pcs=PCS, actions=actions,
               podgroups=[pg("b", "ns", "default", 1, "Running", pc_name="mid"),
                          pg("y", "ns", "default", 1, "Running", pc_name="low"),
                          pg("h", "ns", "default", 2, "Inqueue", pc_name="high")])


def test_only_the_anti_affinity_blockers_are_evicted() -> None:
    r = _scenario()
    assert r.evicted == ["ns/blocker-0", "ns/blocker-1"]  # bystanders reprieved: they do not block
    assert r.pipelined("ns/h") == ["n0", "n1"]


def test_bystander_is_victim_too_when_resources_need_it() -> None:
    r = _scenario(preemptor_cpu=4)
    assert sorted(r.evicted) == ["ns/blocker-0", "ns/blocker-1", "ns/by-0", "ns/by-1"]


def test_select_victims_leaves_session_unchanged() -> None:
    r = _scenario(actions=["allocate"])
    ssn = r.session
    before = (ssn.table.fidle.copy(), {n.name: sorted(n.tasks) for n in ssn.nodes})
    task = ssn.jobs["ns/h"].tasks["ns-hp-0"]
    victims = select_victims_on_node(ssn, task, ssn.queues["default"], ssn.nodes[2], lambda t: t.job is not task.job)
    assert [v.name for v in victims] == ["blocker-2"]
    assert np.array_equal(ssn.table.fidle, before[0])
    assert {n.name: sorted(n.tasks) for n in ssn.nodes} == before[1]


def test_num_candidates_bounds() -> None:
    opts = TopologyOptions()
    assert [opts.num_candidates(n) for n in (1, 5, 50, 5000)] == [1, 1, 5, 100]
    assert TopologyOptions(50, 3, 4).num_candidates(20) == 4


def test_pick_candidate_prefers_lower_victim_priorities_then_fewer() -> None:
    r = _scenario(actions=["allocate"])
    tasks = {t.name: t for j in r.session.jobs.values() for t in j.tasks.values()}
    b0, y0, y1 = tasks["blocker-0"], tasks["by-0"], tasks["by-1"]
    assert pick_candidate([(0, [b0]), (1, [y0])])[0] == 1  # lower top priority wins
    assert pick_candidate([(0, [y0, y1]), (1, [y1])])[0] == 1  # lower sum wins
    assert pick_candidate([(0, [y0]), (1, [y1])])[0] == 0  # full tie: first candidate
