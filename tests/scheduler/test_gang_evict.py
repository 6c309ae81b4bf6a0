"""gangpreempt / gangreclaim and their shared bundle helpers (catalogue §4.6, reference §4.8)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.scheduler.harness import HIGH_MID_LOW, PRE_T, Result, node, pg, pod, queue, res, run
from volcano.scheduler.actions.gang_evict import (
    Bundle,
    BundleType,
    apply_allowed,
    bundle_roi,
    create_job_bundles,
    pick_domains,
    select_bundles,
    sort_for_preempt,
    sort_for_reclaim,
    vec_le,
)
from volcano.scheduler.actions.gangpreempt import GangPreempt
from volcano.scheduler.actions.gangreclaim import GangReclaim
from volcano.scheduler.config import load_scheduler_conf
from volcano.scheduler.framework.conf import PluginOption, SchedulerConf, Tier
from volcano.scheduler.framework.model import JobInfo, TaskInfo
from volcano.scheduler.framework.plugin import Arguments
from volcano.scheduler.framework.points import CLUSTER_DOMAIN

PRE, PCS = PRE_T, HIGH_MID_LOW


def gang_conf(actions: tuple[str, ...] = ("gangpreempt",), **action_args: dict[str, Any]) -> SchedulerConf:
    """The gangevict suite's tiers (minus the plugins this product leaves out)."""
    t1 = Tier((PluginOption("priority"), PluginOption("gang", {"enablePreemptable": False}),
               PluginOption("conformance"), PluginOption("capacity")))
    t2 = Tier((PluginOption("predicates"), PluginOption("nodeorder")))
    return SchedulerConf(actions, (t1, t2), dict(action_args))


def P(name: str, node_name: str, phase: str, group: str, cpu: str = "1", **kw: Any) -> dict[str, Any]:
    return pod("ns", name, node_name=node_name, phase=phase, req=res(cpu, "1Gi"), group=group,
               labels=PRE if node_name else None, **kw)


def session_of(**objs: Any) -> Result:
    """A session over the objects with no action run."""
    return run(gang_conf(), actions=[], pcs=PCS, **objs)


def _tasks(job: JobInfo) -> list[TaskInfo]:
    return sorted(job.tasks.values(), key=lambda t: t.uid)


# -- configuration ---------------------------------------------------------------------------

def test_configuration_names_load_with_arguments() -> None:
    c = load_scheduler_conf("""
actions: "allocate, gangreclaim, gangpreempt"
tiers:
- plugins:
  - name: gang
configurations:
- name: gangpreempt
  arguments: {maxDomains: 3, allowWholeBundle: false}
""")
    assert c.actions == ("allocate", "gangreclaim", "gangpreempt")
    action = GangPreempt(Arguments(c.action_arguments("gangpreempt")))
    assert (action.max_domains, action.allow_whole_bundle) == (3, False)


@pytest.mark.parametrize("value", [0, -1])
def test_invalid_max_domains_falls_back_to_default(value: int) -> None:
    assert GangReclaim(Arguments({"maxDomains": value})).max_domains == 8
    assert GangReclaim(Arguments()).allow_whole_bundle is True


def test_unknown_gang_action_argument_is_named() -> None:
    with pytest.raises(ValueError, match="maxDomain"):
        load_scheduler_conf({"actions": "gangpreempt", "configurations": [
            {"name": "gangpreempt", "arguments": {"maxDomain": 2}}]})


# -- util ------------------------------------------------------------------------------------

def test_pick_domains_caps_and_dedups() -> None:
    assert pick_domains([["d1", "d2"], ["d2", "d3"]], 2, "top") == ["d1", "d2"]
    assert pick_domains([["d1", None, "d2"], ["d2", "d3"]], 0, "top") == ["d1", "d2", "d3"]


def test_pick_domains_fallback() -> None:
    assert pick_domains(None, 8, CLUSTER_DOMAIN) == [CLUSTER_DOMAIN]
    assert pick_domains([], 8, "") == []


def test_vec_le_compares_base_and_used_dims() -> None:
    assert vec_le(np.array([1, 0, 0, 5]), np.array([1, 0, 0, 5]))
    assert not vec_le(np.array([1, 0, 0, 5]), np.array([1, 9, 9, 4]))
    assert not vec_le(np.array([0, 0, 2]), np.array([5, 5, 1]))  # pods always compared


# -- bundles ---------------------------------------------------------------------------------

def _running_job(n: int, min_member: int, task_min: dict[str, int] | None = None,
                 priorities: list[int] | None = None) -> JobInfo:
    pods = [pod("ns", f"w-{i}", node_name="n1", phase="Running", req=res("1", "1Gi"), group="pg",
                labels={"volcano.sh/task-spec": "worker"}, priority=(priorities or [1] * n)[i],
                annotations={"volcano.sh/task-spec": "worker"}) for i in range(n)]
    r = session_of(nodes=[node("n1", res(16, "16Gi"))], queues=[queue("q")],
                   podgroups=[pg("pg", "ns", "q", min_member, "Running", task_min=task_min)], pods=pods)
    return r.session.jobs["ns/pg"]


def test_create_job_bundles_safe_and_whole() -> None:
    job = _running_job(5, 3, {"worker": 3})
    bundles = create_job_bundles(job, _tasks(job), 4)
    assert [(b.type, len(b.tasks)) for b in bundles] == [(BundleType.SAFE, 2), (BundleType.WHOLE, 3)]
    cost = bundles[1].global_
    assert cost is not None and int(cost[0]) == 5000  # breaking the job costs all its tasks


def test_create_job_bundles_not_ready_job_is_all_safe() -> None:
    job = _running_job(2, 10)
    bundles = create_job_bundles(job, _tasks(job), 4)
    assert [(b.type, len(b.tasks)) for b in bundles] == [(BundleType.SAFE, 2)]


def test_create_job_bundles_without_task_min_takes_lowest_priority_first() -> None:
    job = _running_job(4, 2, None, priorities=[5, 1, 3, 2])
    safe, whole = create_job_bundles(job, _tasks(job), 4)
    assert [t.name for t in safe.tasks] == ["w-1", "w-3"]
    assert [t.name for t in whole.tasks] == ["w-2", "w-0"]


def test_create_job_bundles_role_minimum_guards_role() -> None:
    ps = pod("ns", "v-ps-0", node_name="n1", phase="Running", req=res("1", "1Gi"), group="pg",
             annotations={"volcano.sh/task-spec": "ps"})
    workers = [pod("ns", f"v-worker-{i}", node_name="n1", phase="Running", req=res("1", "1Gi"), group="pg",
                   annotations={"volcano.sh/task-spec": "worker"}) for i in range(3)]
    r = session_of(nodes=[node("n1", res(16, "16Gi"))], queues=[queue("q")],
                   podgroups=[pg("pg", "ns", "q", 3, "Running", task_min={"ps": 1, "worker": 2})],
                   pods=[ps, *workers])
    job = r.session.jobs["ns/pg"]
    safe, whole = create_job_bundles(job, _tasks(job), 4)
    assert [t.spec.role for t in safe.tasks] == ["worker"]
    assert sorted(t.spec.role for t in whole.tasks) == ["ps", "worker", "worker"]


def _bundle(kind: BundleType, job: JobInfo, tasks: list[TaskInfo], local: int, global_: int = 0) -> Bundle:
    return Bundle(kind, job, tasks, np.array([local, 0, 0]), np.array([global_, 0, 0]))


def test_apply_allowed_whole_is_atomic_and_safe_shrinks() -> None:
    job = _running_job(3, 1)
    t1, t2, t3 = _tasks(job)
    out = apply_allowed([_bundle(BundleType.SAFE, job, [t1, t2], 2000), _bundle(BundleType.WHOLE, job, [t3], 1000)],
                        {t1.uid, "other"})
    assert [(b.type, [t.uid for t in b.tasks]) for b in out] == [(BundleType.SAFE, [t1.uid])]
    assert int(out[0].local[0]) == 1000


@pytest.mark.parametrize(("allow", "count"), [(False, 1), (True, 2)])
def test_select_bundles_respects_allow_whole(allow: bool, count: int) -> None:
    job = _running_job(2, 1)
    a, b = _tasks(job)
    bundles = [_bundle(BundleType.SAFE, job, [a], 1000), _bundle(BundleType.WHOLE, job, [b], 2000, 2000)]
    assert len(select_bundles(bundles, np.array([1500, 0, 0]), allow)) == count


def test_sort_for_preempt_type_then_roi() -> None:
    job = _running_job(3, 1)
    a, b, c = _tasks(job)
    low = _bundle(BundleType.WHOLE, job, [a], 1000, 4000)
    high = _bundle(BundleType.WHOLE, job, [b], 1000, 2000)
    safe = _bundle(BundleType.SAFE, job, [c], 500)
    items = [low, high, safe]
    need = np.array([1000, 0, 0])
    assert bundle_roi(high, need) == 0.5 and bundle_roi(safe, need) == float("inf")
    sort_for_preempt(items, need, lambda left, right: False)
    assert items == [safe, high, low]


def test_sort_for_reclaim_queue_order_then_job_uid() -> None:
    r = session_of(nodes=[node("n1", res(16, "16Gi"))], queues=[queue("qa"), queue("qb")],
                   podgroups=[pg("pa", "ns", "qa", 1, "Running"), pg("pb", "ns", "qb", 1, "Running"),
                              pg("pc", "ns", "qb", 1, "Running")],
                   pods=[P("a-0", "n1", "Running", "pa"), P("b-0", "n1", "Running", "pb"),
                         P("c-0", "n1", "Running", "pc")])
    jobs = r.session.jobs
    ba, bb, bc = (_bundle(BundleType.SAFE, jobs[f"ns/{g}"], _tasks(jobs[f"ns/{g}"]), 1000) for g in ("pa", "pb", "pc"))
    items = [bc, ba, bb]
    sort_for_reclaim(items, np.array([1000, 0, 0]), lambda left, right: left.name == "qb", r.session.queues)
    assert items == [bb, bc, ba]  # queue qb first, then job uid ascending


# -- victim selection per action -------------------------------------------------------------

def _preempt_session(victim_min: int, victim_pg_annotations: dict[str, str] | None = None) -> Result:
    victim = pg("victim", "ns", "q1", victim_min, "Running", pc_name="low")
    if victim_pg_annotations:
        victim["metadata"]["annotations"] = dict(victim_pg_annotations)
    return session_of(
        nodes=[node("n1", res(1, "1Gi"))], queues=[queue("q1")],
        podgroups=[victim, pg("preemptor", "ns", "q1", 1, "Inqueue", pc_name="high")],
        pods=[P("victim-0", "n1", "Running", "victim"), P("preemptor-0", "", "Pending", "preemptor")])


def _select(action: GangPreempt | GangReclaim, r: Result, job: str) -> list[str]:
    ssn = r.session
    j = ssn.jobs[job]
    pending = [t for t in j.tasks.values() if t.status.name == "Pending"]
    need = np.array(sum((t.vec for t in pending), np.zeros(len(ssn.space), dtype=np.int64)))
    bundles = action.select_domain_bundles(ssn, j, pending, need, CLUSTER_DOMAIN)
    return [t.key for b in bundles for t in b.tasks]


@pytest.mark.parametrize(("allow", "victims"), [(False, []), (True, ["ns/victim-0"])])
def test_gangpreempt_respects_allow_whole_bundle(allow: bool, victims: list[str]) -> None:
    action = GangPreempt(Arguments({"allowWholeBundle": allow}))
    assert _select(action, _preempt_session(1), "ns/preemptor") == victims


@pytest.mark.parametrize(("annotations", "victims"), [({"volcano.sh/preemptable": "false"}, []),
                                                      (None, ["ns/victim-0"])])
def test_gangpreempt_respects_victim_podgroup_preemptable(annotations: dict[str, str] | None,
                                                          victims: list[str]) -> None:
    assert _select(GangPreempt(), _preempt_session(1, annotations), "ns/preemptor") == victims


def test_gangreclaim_takes_only_reclaimable_other_queues() -> None:
    r = session_of(
        nodes=[node("n1", res(3, "3Gi"))],
        queues=[queue("q1", deserved=res(1, "1Gi")), queue("q2", reclaimable=True),
                queue("q3", reclaimable=False)],
        podgroups=[pg("r", "ns", "q1", 1, "Inqueue"), pg("v2", "ns", "q2", 1, "Running"),
                   pg("v3", "ns", "q3", 1, "Running")],
        pods=[P("v2-0", "n1", "Running", "v2"), P("v3-0", "n1", "Running", "v3"), P("r-0", "", "Pending", "r")])
    assert _select(GangReclaim(), r, "ns/r") == ["ns/v2-0"]


# -- whole actions ---------------------------------------------------------------------------

def _two_victims(victim_min: int, preemptor_size: int, pri: str = "high") -> Result:
    nodes = [node(f"n{i}", res(1, "1Gi")) for i in range(4)]
    pods = [P(f"va-{i}", f"n{i}", "Running", "va") for i in range(2)]
    pods += [P(f"vb-{i}", f"n{i + 2}", "Running", "vb") for i in range(2)]
    pods += [P(f"p-{i}", "", "Pending", "p") for i in range(preemptor_size)]
    return run(gang_conf(), nodes=nodes, queues=[queue("q", deserved=res(4, "4Gi"))], pcs=PCS, pods=pods,
               podgroups=[pg("va", "ns", "q", victim_min, "Running", pc_name="low"),
                          pg("vb", "ns", "q", victim_min, "Running", pc_name="low"),
                          pg("p", "ns", "q", preemptor_size, "Inqueue", pc_name=pri)])


def test_gangpreempt_harvests_safe_bundles_across_gangs() -> None:
    r = _two_victims(1, 2)
    assert sorted(r.evicted) == ["ns/va-0", "ns/vb-0"]  # equal priority: smallest uid first
    assert sorted(r.pipelined("ns/p")) == ["n0", "n2"]


def test_gangpreempt_breaks_exactly_one_gang_without_surplus() -> None:
    r = _two_victims(2, 2)
    assert sorted(r.evicted) == ["ns/vb-0", "ns/vb-1"]  # equal cost: the victim job ordered last goes
    assert len(r.pipelined("ns/p")) == 2


def test_gangpreempt_never_evicts_equal_priority() -> None:
    r = _two_victims(1, 2, pri="low")
    assert r.evicted == [] and r.pipelined("ns/p") == []


def test_gangpreempt_discards_when_demand_cannot_be_met() -> None:
    r = _two_victims(1, 5)  # 5 slots wanted, 4 nodes
    assert r.evicted == [] and r.pipelined("ns/p") == []
    assert r.statuses("ns/va") == {"Running": 2}


def _reclaim(victim_min: int, deserved_victim: int = 2, victim_guarantee: int = 0) -> Result:
    nodes = [node(f"n{i}", res(1, "1Gi")) for i in range(4)]
    q2: dict[str, Any] = queue("q2", deserved=res(deserved_victim, f"{deserved_victim}Gi"))
    if victim_guarantee:
        q2["spec"]["guarantee"] = {"resource": res(victim_guarantee, f"{victim_guarantee}Gi")}
    pods = [P(f"v-{i}", f"n{i}", "Running", "v") for i in range(4)]
    pods += [P(f"r-{i}", "", "Pending", "r") for i in range(2)]
    return run(gang_conf(("gangreclaim",)), nodes=nodes, pods=pods, pcs=PCS,
               queues=[queue("q1", deserved=res(2, "2Gi")), q2],
               podgroups=[pg("v", "ns", "q2", victim_min, "Running"), pg("r", "ns", "q1", 2, "Inqueue")])


def test_gangreclaim_takes_surplus_from_overusing_queue() -> None:
    r = _reclaim(2)
    assert sorted(r.evicted) == ["ns/v-0", "ns/v-1"]
    assert sorted(r.pipelined("ns/r")) == ["n0", "n1"]
    assert r.statuses("ns/v") == {"Running": 2, "Releasing": 2}


def test_gangreclaim_stops_at_guarantee() -> None:
    r = _reclaim(2, deserved_victim=2, victim_guarantee=3)
    assert r.evicted == [] and r.pipelined("ns/r") == []


def test_gangreclaim_leaves_queue_within_deserved() -> None:
    r = _reclaim(2, deserved_victim=4)
    assert r.evicted == []
