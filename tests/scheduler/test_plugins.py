"""Plugin tables: gang (§5.1), PodGroup phase (§5.2), priority (§5.6), predicates (§5.7), conformance."""

from __future__ import annotations

import pytest

from tests.scheduler.harness import conf, node, opt, pc, pg, pod, queue, res, run
from volcano.scheduler.framework.model import JobInfo, TaskInfo, TaskSpec, TaskStatus
from volcano.scheduler.framework.resources import ResourceSpace
from volcano.scheduler.framework.status import pod_group_phase
from volcano.scheduler.plugins.conformance import evictable
from volcano.scheduler.plugins.gang import should_skip_unschedulable_for_releasing

S = TaskStatus


def _job(
    min_member: int,
    tasks: list[tuple[TaskStatus, str]],
    phase: str = "Running",
    conditions: list[dict[str, str]] | None = None,
) -> JobInfo:
    space = ResourceSpace()
    group = pg("j", "ns", "q", min_member, phase)
    if conditions:
        group["status"]["conditions"] = conditions
    job = JobInfo(group, "default", 0, space)
    for i, (status, node_name) in enumerate(tasks):
        spec = TaskSpec(pod("ns", f"t-{i}", req=res(1), group="j"))
        job.add_task(TaskInfo(spec, spec.vec(space), status, node_name))
    return job


SKIP_CASES = {
    "partial termination": (2, [(S.Running, "node-1"), (S.Releasing, "node-2")], True),
    "pending replacement still needs condition": (
        2, [(S.Running, "node-1"), (S.Releasing, "node-2"), (S.Pending, "")], False),
    "pipelined replacement still needs condition": (
        2, [(S.Running, "node-1"), (S.Releasing, "node-2"), (S.Pipelined, "node-3")], False),
    "never scheduled releasing task is not counted": (1, [(S.Releasing, "")], False),
    "scheduled tasks below minAvailable": (3, [(S.Running, "node-1"), (S.Releasing, "node-2")], False),
}


@pytest.mark.parametrize(("min_member", "tasks", "skip"), list(SKIP_CASES.values()), ids=list(SKIP_CASES))
def test_should_skip_unschedulable_for_releasing(min_member, tasks, skip):  # type: ignore[no-untyped-def]
    assert should_skip_unschedulable_for_releasing(_job(min_member, tasks)) is skip


UNSCHED = [{"type": "Unschedulable", "status": "True", "transitionID": "s1"}]


PHASE_CASES = {
    "single pod terminating keeps Running": (1, "Running", [(S.Releasing, "node-1")], None, "Running"),
    "multi pod partial terminating keeps Running": (
        2, "Running", [(S.Running, "node-1"), (S.Releasing, "node-2")], None, "Running"),
    "all pods terminating keeps Running": (
        2, "Running", [(S.Releasing, "node-1"), (S.Releasing, "node-2")], None, "Running"),
    "never-scheduled pending pod deleted stays Pending": (
        2, "Pending", [(S.Releasing, ""), (S.Pending, "")], None, "Pending"),
    "all scheduled tasks completed": (2, "Running", [(S.Succeeded, "n"), (S.Succeeded, "n")], None, "Completed"),
    "scheduled releasing tasks below minMember fall to Pending": (
        2, "Running", [(S.Releasing, "node-1")], None, "Pending"),
    "running and unschedulable is Unknown": (
        2, "Running", [(S.Running, "node-1"), (S.Pending, "")], UNSCHED, "Unknown"),
    "Inqueue is sticky": (2, "Inqueue", [(S.Pending, ""), (S.Pending, "")], None, "Inqueue"),
    "an older session's condition does not make it Unknown": (
        2, "Running", [(S.Running, "node-1"), (S.Pending, "")],
        [{"type": "Unschedulable", "status": "True", "transitionID": "older"}], "Pending"),
}


@pytest.mark.parametrize(("min_member", "phase", "tasks", "conds", "expected"), list(PHASE_CASES.values()),
                         ids=list(PHASE_CASES))
def test_pod_group_phase(min_member, phase, tasks, conds, expected):  # type: ignore[no-untyped-def]
    assert pod_group_phase(_job(min_member, tasks, phase, conds), "s1") == expected


def test_priority_preempt_enabled() -> None:
    """priority TestPreempt case 1 (allocate + preempt; only priority)."""
    c = conf(["allocate", "preempt"],
             [opt("priority", "taskOrder", "jobOrder", "preemptable", "jobPipelined", "jobStarving")])
    pre = {"volcano.sh/preemptable": "true"}
    pods = [
        pod("ns1", "preemptee1", node_name="node1", phase="Running", req=res(3, "3G"), group="pg1", labels=pre),
        pod("ns1", "preemptee2", node_name="node1", phase="Running", req=res(3, "3G"), group="pg1", labels=pre,
            priority=1000),
        pod("ns2", "preemptor1", req=res(3, "3G"), group="pg2"),
    ]
    r = run(
        c,
        nodes=[node("node1", res(6, "6G")), node("node2", res(2, "2G"))],
        queues=[queue("q1", capability=res(6, "6G"))],
        pods=pods,
        podgroups=[pg("pg1", "ns1", "q1", 1, pc_name="low"), pg("pg2", "ns2", "q1", 1, pc_name="high")],
        pcs=[pc("low", 100), pc("high", 1000)],
    )
    assert r.evicted == ["ns1/preemptee1"]
    assert r.pipelined("ns2/pg2") == ["node1"]


def test_priority_preempt_disabled_victims() -> None:
    """priority TestPreempt case 2: the only candidate is not preemptable ⇒ nothing happens."""
    c = conf(["allocate", "preempt"],
             [opt("priority", "taskOrder", "jobOrder", "preemptable", "jobPipelined", "jobStarving")])
    pods = [
        pod("ns1", "preemptee1", node_name="node1", phase="Running", req=res(3, "3G"), group="pg1",
            labels={"volcano.sh/preemptable": "true"}),
        pod("ns1", "preemptee2", node_name="node2", phase="Running", req=res(3, "3G"), group="pg1",
            labels={"volcano.sh/preemptable": "false"}),
        pod("ns2", "preemptor1", req=res(3, "3G"), group="pg2"),
    ]
    r = run(
        c,
        nodes=[node("node1", res(3, "3G")), node("node2", res(3, "3G"))],
        queues=[queue("q1")],
        pods=pods,
        podgroups=[pg("pg1", "ns1", "q1", 1, pc_name="high"), pg("pg2", "ns2", "q1", 1, pc_name="low")],
        pcs=[pc("low", 100), pc("high", 1000)],
    )
    assert r.evicted == []
    assert r.pipelined("ns2/pg2") == []


ANTI = {
    "podAntiAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"role": "worker"}}, "topologyKey": "kubernetes.io/hostname"}
        ]
    }
}


def test_predicates_event_handler_rolls_back() -> None:
    """predicates TestEventHandler: pg1's tentative worker-1 is rolled back, pg2's pod takes node1."""
    c = conf(["allocate"], [opt("predicates", "predicate"), opt("gang", "jobReady", "jobPipelined"),
                            opt("priority", "jobOrder")])
    lab = {"role": "worker"}
    pods = [
        pod("ns1", "worker-1", req=res(3, "3k"), group="pg1", labels=lab, selector={"selector": "worker"},
            affinity=ANTI),
        pod("ns1", "worker-2", req=res(5, "5k"), group="pg1", labels=lab, affinity=ANTI),
        pod("ns1", "worker-3", req=res(4, "4k"), group="pg2", labels=lab, affinity=ANTI),
    ]
    r = run(
        c,
        nodes=[node("node1", res(14, "14k", pods=10), {"selector": "worker"}), node("node2", res(3, "3k"))],
        queues=[queue("q1", 0)],
        pods=pods,
        podgroups=[pg("pg1", "ns1", "q1", 2, pc_name="p2"), pg("pg2", "ns1", "q1", 1, pc_name="p1")],
        pcs=[pc("p1", 1), pc("p2", 2)],
    )
    assert r.binds == {"ns1/worker-3": "node1"}


def test_predicates_anti_affinity_blocks_preemption_that_cannot_help() -> None:
    """predicates TestPodAntiAffinity (normal preemption here): evicting worker-2 would not
    resolve the conflict with high-priority worker-1 ⇒ no eviction, nothing pipelined."""
    c = conf(["allocate", "preempt"], [opt("predicates", "predicate"), opt("priority", "preemptable", "jobStarving")])
    lab = {"role": "worker"}
    pods = [
        pod("c1", "worker-1", node_name="n1", phase="Running", req=res(3, "3G"), group="pg1", labels=lab,
            affinity=ANTI, priority=100000),
        pod("c1", "worker-2", node_name="n1", phase="Running", req=res(3, "3G"), group="pg1", labels=lab, priority=10),
        pod("c1", "worker-3", req=res(3, "3G"), group="pg2", labels=lab, affinity=ANTI, priority=100000),
    ]
    r = run(
        c,
        nodes=[node("n1", res(12, "12G", pods=2))],
        queues=[queue("q1", capability=res(9, "9G"))],
        pods=pods,
        podgroups=[pg("pg1", "c1", "q1", 0, "Running", pc_name="low"), pg("pg2", "c1", "q1", 1, pc_name="high")],
        pcs=[pc("low", 10), pc("high", 100000)],
    )
    assert r.evicted == []
    assert r.pipelined("c1/pg2") == []


@pytest.mark.parametrize(
    ("taints", "tolerations", "selector", "unsched", "reason"),
    [
        ([{"key": "k", "value": "v", "effect": "NoSchedule"}], [], None, False, "node(s) had untolerated taint {k: v}"),
        ([{"key": "k", "value": "v", "effect": "NoSchedule"}], [{"key": "k", "operator": "Exists"}], None, False, None),
        ([{"key": "k", "value": "v", "effect": "PreferNoSchedule"}], [], None, False, None),
        ([], [], {"zone": "a"}, False, "node(s) didn't match Pod's node affinity/selector"),
        ([], [], None, True, "node(s) were unschedulable"),
    ],
)
def test_predicates_static_filters(taints, tolerations, selector, unsched, reason):  # type: ignore[no-untyped-def]
    c = conf(["allocate"], [opt("predicates", "predicate")])
    p = pod("ns", "p", req=res(1), group="g", selector=selector)
    p["spec"]["tolerations"] = tolerations
    spec = {"taints": taints, "unschedulable": unsched}
    r = run(c, nodes=[node("n1", res(4), **spec)], queues=[queue("q")], pods=[p], podgroups=[pg("g", "ns", "q", 1)])
    if reason is None:
        assert r.binds == {"ns/p": "n1"}
    else:
        assert r.binds == {}
        cond = r.outcome.pod_conditions[0][1]
        assert cond["message"] == f"0/1 nodes are unavailable: 1 {reason}."


def test_predicates_host_port_conflict() -> None:
    c = conf(["allocate"], [opt("predicates", "predicate")])
    p1 = pod("ns", "a", node_name="n1", phase="Running", req=res(1), group="g")
    p2 = pod("ns", "b", req=res(1), group="h")
    for p in (p1, p2):
        p["spec"]["containers"][0]["ports"] = [{"containerPort": 80, "hostPort": 8080}]
    r = run(
        c,
        nodes=[node("n1", res(4)), node("n2", res(4))],
        queues=[queue("q")],
        pods=[p1, p2],
        podgroups=[pg("g", "ns", "q", 1, "Running"), pg("h", "ns", "q", 1)],
    )
    assert r.binds == {"ns/b": "n2"}


def test_conformance_protects_system_pods() -> None:
    sys_pod = TaskSpec(pod("kube-system", "test-pod", phase="Running", req=res(1), group="g"))
    user = TaskSpec(pod("test-namespace", "test-pod", phase="Running", req=res(1), group="g"))
    crit = TaskSpec(pod("x", "c", phase="Running", req=res(1), group="g", priority_class="system-node-critical"))
    space = ResourceSpace()
    kept = [t.spec.key for t in (TaskInfo(s, s.vec(space)) for s in (sys_pod, user, crit)) if evictable(t)]
    assert kept == ["test-namespace/test-pod"]
