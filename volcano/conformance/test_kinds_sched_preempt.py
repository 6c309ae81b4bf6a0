"""Topology-aware preemption, the kinds of behaviour its arguments and its second phase give (scheduler
reference §4.4.5, preempt arguments; upstream ``preempt.go`` ``topologyAwarePreempt``).

* The dry run collects ``min(max(nodes x minCandidateNodesPercentage / 100, minCandidateNodesAbsolute),
  maxCandidateNodesAbsolute, nodes)`` candidate nodes and picks among those only: each argument at a
  value that gives one candidate and at the next one that gives two.
* The dry run serves the preemption between the tasks of one job too: a starving job's pending task
  evicts a running task of its own job of strictly lower pod priority, never one of equal priority.

Volcano starts the scan at a random node, this product at the first in node order (a documented
deviation for determinism): with one candidate the exact victim is checked in memory only; what every
backend shows is that one victim goes, and that with two candidates of three nodes the high-priority
victim on the first node stays (any two neighbours hold a low-priority one).
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import Task, job, pod, pod_group
from volcano.conformance.lib.waits import bound
from volcano.conformance.test_scheduling_support import (
    CI_CONF,
    CI_CONF_NO_ENQUEUE,
    PREEMPTABLE,
    conf_with,
    make_priority_classes,
)

Obj = dict[str, Any]

pytestmark = pytest.mark.preemption

PRIORITIES = {"kp-high": 50, "kp-low": 10, "kp-urgent": 100}


def _topology(base: str, **arguments: int) -> str:
    """``base`` with topology-aware preemption switched on and the preempt ``arguments`` given."""
    lines = "".join(f"    {key}: {value}\n" for key, value in arguments.items())
    return base + ('configurations:\n- name: preempt\n  arguments:\n    enableTopologyAwarePreemption: "true"\n'
                   + lines)


def _run(cluster: Cluster, name: str, priority: str, node: str | None = None) -> None:
    cluster.apply(pod_group(name, min_member=1, priority_class=priority))
    cluster.apply(pod(name, group=name, req={"cpu": "1"}, labels=dict(PREEMPTABLE), priority_class=priority,
                      grace_seconds=0, node_selector={"kubernetes.io/hostname": node} if node else None))


def _case(arguments: dict[str, int], candidates: int) -> Any:
    return pytest.param(candidates, marks=pytest.mark.scheduler_conf(_topology(CI_CONF_NO_ENQUEUE, **arguments)),
                        id="-".join(f"{k}={v}" for k, v in arguments.items()))


@pytest.mark.cluster(workers=3, cpu="1", control_plane=False)
@pytest.mark.parametrize("candidates", [
    _case({"minCandidateNodesAbsolute": 1}, 1),              # 3 x 10% = 0 nodes: the absolute floor, 1
    _case({"minCandidateNodesAbsolute": 2}, 2),
    _case({"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 2}, 2),
    _case({"minCandidateNodesPercentage": 66}, 1),           # 1.98 nodes: 1
    _case({"minCandidateNodesPercentage": 100, "maxCandidateNodesAbsolute": 1}, 1),
    _case({"minCandidateNodesPercentage": 100, "maxCandidateNodesAbsolute": 2}, 2),
    _case({"minCandidateNodesPercentage": 34, "minCandidateNodesAbsolute": 0}, 1),  # 1.02 nodes: 1
])
def test_the_candidate_count_follows_each_argument(cluster: Cluster, candidates: int) -> None:
    """Three full 1-CPU workers: ``v-0`` (priority 50) on the first, ``v-1`` and ``v-2`` (priority 10) on
    the others; a priority-100 pod preempts exactly one of them, nominated to (then bound on) that
    victim's node. With one candidate node the first node's ``v-0`` goes; with two, the lower-priority
    ``v-1``."""
    make_priority_classes(cluster, PRIORITIES)
    workers = sorted(w["metadata"]["name"] for w in cluster.worker_nodes())
    victims = {"v-0": "kp-high", "v-1": "kp-low", "v-2": "kp-low"}
    for (name, priority), worker in zip(victims.items(), workers, strict=True):
        _run(cluster, name, priority, worker)
    cluster.wait_until(lambda: all(bound(cluster.get("Pod", n)) for n in victims), 60, "victims bound")
    _run(cluster, "urgent", "kp-urgent")
    cluster.wait_until(lambda: bound(cluster.get("Pod", "urgent")), 120, "the preemptor binds")
    gone = [n for n in victims if cluster.try_get("Pod", n) is None]
    assert len(gone) == 1, gone
    node = cluster.get("Pod", "urgent")["spec"]["nodeName"]
    assert node == workers[int(gone[0][-1])], (node, gone)
    # The preemptor was pipelined with an eviction: its pod was nominated to the node it then bound to.
    nominated = {(obj.get("status") or {}).get("nominatedNodeName") for _, kind, _, obj in cluster.recorded_history()
                 if kind == "Pod" and obj["metadata"]["name"] == "urgent"} - {None, ""}
    assert nominated == {node}, nominated
    if candidates == 2:
        assert gone != ["v-0"], gone
    if cluster.backend == "memory":  # the scan's start is random in Volcano, the first node here
        assert gone == (["v-0"] if candidates == 1 else ["v-1"])


# gang's starving rule (ready + waiting < minAvailable) would call the ready job not starving; with it
# off the priority plugin's rule (ready + waiting < all tasks) decides.
_SELF_CONF = _topology(conf_with(CI_CONF, old="    enablePreemptable: false\n  - name: conformance",
                                 new="    enablePreemptable: false\n    enableJobStarving: false\n"
                                     "  - name: conformance"), minCandidateNodesPercentage=100)


@pytest.mark.cluster(workers=1, cpu="3", memory="16Gi", control_plane=False)
@pytest.mark.scheduler_conf(_SELF_CONF)
@pytest.mark.parametrize(("high_value", "preempts"), [(11, True), (10, False)])
def test_the_dry_run_evicts_a_lower_priority_task_of_the_own_job(cluster: Cluster, high_value: int,
                                                                 preempts: bool) -> None:
    """Task ``low`` (3 one-CPU pods, priority 10) fills the 3-CPU worker; task ``high`` (one pod,
    ``high_value``) depends on it, so it is created once the worker is full. The job (minAvailable 2)
    starves while the high pod waits: above 10 the dry run evicts one low pod and the high pod binds
    on the worker (2 low pods keep running); at 10 nothing goes and the high pod waits."""
    make_priority_classes(cluster, {"kp-own-low": 10, "kp-own-high": high_value})
    name = "kp-self"
    cluster.apply(job(name, [Task(name="low", rep=3, req={"cpu": "1"}, priority_class="kp-own-low",
                                  grace_seconds=0, labels=dict(PREEMPTABLE)),
                             Task(name="high", rep=1, req={"cpu": "1"}, priority_class="kp-own-high",
                                  grace_seconds=0, depends_on=["low"])], min=2))

    def of(task: str) -> list[Obj]:
        return [p for p in cluster.job_pods(name) if p["metadata"]["name"].startswith(f"{name}-{task}-")
                and not p["metadata"].get("deletionTimestamp")]

    cluster.wait_until(lambda: len(of("high")) == 1, 120, "the high pod created")
    if not preempts:
        cluster.hold(lambda: sum(bound(p) for p in of("low")) == 3 and not bound(of("high")[0]), 20,
                     "no low pod evicted, the high pod waits")
        return
    cluster.wait_until(lambda: bool(of("high")) and bound(of("high")[0]), 120, "the high pod binds")
    cluster.hold(lambda: sum(bound(p) for p in of("low")) == 2 and bound(of("high")[0]), 10,
                 "two low pods and the high pod run")
    evicted = {obj["metadata"]["name"] for _, kind, event, obj in cluster.recorded_history()
               if kind == "Pod" and event == "DELETED" and obj["metadata"]["name"].startswith(f"{name}-")}
    assert len(evicted) == 1 and evicted <= {f"{name}-low-{i}" for i in range(3)}, evicted
