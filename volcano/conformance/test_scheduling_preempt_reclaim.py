"""Upstream ``test/e2e/schedulingaction`` re-expressed (catalogue §3.2), part 2: preempt.go and
reclaim.go. They run with upstream's CI scheduler configuration (reclaim and preempt enabled),
modified per case as upstream's ``ConfigMapCase`` modifiers do.

Pods of these jobs carry ``volcano.sh/preemptable: "true"`` as upstream's do. Negative outcomes
("stays pending", "is not evicted") are held over a window, never read once.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import Task, job, pod, pod_group
from volcano.conformance.lib.sizing import cluster_node_number, cluster_size
from volcano.conformance.lib.waits import READY_PHASES, bound, count_phase, wait_tasks_ready
from volcano.conformance.test_scheduling_support import (
    C1,
    C2,
    C4,
    CI_CONF,
    CI_CONF_NO_ENQUEUE,
    ONE_CPU,
    PREEMPTABLE,
    api_error,
    conf_with,
    make_priority_classes,
    make_queues,
    ready,
    remove_gates,
    set_queue_reclaimable,
    simple_queue,
    wait_pg_count,
)

SUITE = "schedulingaction"
Obj = dict[str, Any]
PRIORITIES = {"high-priority": 100, "middle-priority": 50, "low-priority": 10}
RECLAIM_PRIORITIES = {"low-priority": 10, "high-priority": 10000}
HOSTNAME = "kubernetes.io/hostname"
TOPOLOGY_PREEMPT_CONF = CI_CONF_NO_ENQUEUE + """\
configurations:
- name: preempt
  arguments:
    enableTopologyAwarePreemption: "true"
"""
CAPACITY_CONF = conf_with(CI_CONF, old="  - name: proportion\n", new="  - name: capacity\n")
CAPACITY_HIERARCHY_CONF = conf_with(CI_CONF, old="  - name: proportion\n",
                                    new="  - name: capacity\n    enableHierarchy: true\n")
ONE_BY_1 = {"cpu": "1", "memory": "1Gi"}


def _pjob(name: str, *, req: dict[str, str] = ONE_CPU, rep: int = 1, task_min: int = 1, **kw: Any) -> Obj:
    """A preemptable one-task Job as upstream's preempt cases build it."""
    task_kw = {k: kw.pop(k) for k in ("affinity",) if k in kw}
    labels = {**PREEMPTABLE, **kw.pop("labels", {})}
    return job(name, [Task(req=req, min=task_min, rep=rep, labels=labels, **task_kw)], **kw)


def _reclaim_job(name: str, req: dict[str, str], queue_name: str, pri: str | None = None) -> Obj:
    """Upstream ``CreateReclaimJob``: one preemptable pod."""
    return _pjob(name, req=req, queue=queue_name, priority_class=pri)


def _no_bound(cluster: Cluster, job_name: str) -> bool:
    return not any(bound(p) for p in cluster.job_pods(job_name))


def _fill_with_low_priority(cluster: Cluster, name: str) -> int:
    """The priority classes, then a low-priority job ``name`` taking every CPU slot, ready; the
    number of slots."""
    make_priority_classes(cluster, PRIORITIES)
    rep = cluster_size(cluster, ONE_CPU)
    cluster.apply(_pjob(name, rep=rep, priority_class="low-priority"))
    wait_tasks_ready(cluster, name, rep)
    return rep


def _half_gang_preemptor(rep: int) -> Obj:
    """High-priority job ``preemptor-1`` of ``rep`` pods that runs with half of them (minAvailable rep // 2)."""
    return _pjob("preemptor-1", rep=rep, min=rep // 2, priority_class="high-priority")


# -- preempt.go -----------------------------------------------------------------------------------

@pytest.mark.preemption
@pytest.mark.scheduler_conf(CI_CONF)
@pytest.mark.upstream(SUITE, "schedule high priority job without preemption when resource is enough")
def test_high_priority_without_preemption(cluster: Cluster) -> None:
    make_priority_classes(cluster, PRIORITIES)
    cluster.apply(_pjob("preemptee-0", priority_class="low-priority"))
    wait_tasks_ready(cluster, "preemptee-0", 1)
    cluster.apply(_pjob("preemptor-0", priority_class="high-priority"))
    wait_tasks_ready(cluster, "preemptor-0", 1)
    assert ready(cluster, "preemptee-0") == 1


@pytest.mark.preemption
@pytest.mark.scheduler_conf(CI_CONF_NO_ENQUEUE)
@pytest.mark.upstream(SUITE, "schedule high priority job with preemption when idle resource is NOT enough but "
                             "preemptee resource is enough")
def test_high_priority_with_preemption(cluster: Cluster) -> None:
    rep = _fill_with_low_priority(cluster, "preemptee-1")
    cluster.apply(_half_gang_preemptor(rep))
    wait_tasks_ready(cluster, "preemptor-1", rep // 2)
    wait_tasks_ready(cluster, "preemptee-1", rep // 2)


@pytest.mark.preemption
@pytest.mark.scheduler_conf(CI_CONF)
@pytest.mark.upstream(SUITE, "preemption doesn't work when podgroup is pending due to insufficient resource")
def test_no_preemption_for_pending_podgroup(cluster: Cluster) -> None:
    make_priority_classes(cluster, PRIORITIES)
    cluster.apply(pod_group("pending-pg", min_member=1, min_resources={"cpu": "30"}))
    rep = cluster_size(cluster, ONE_CPU)
    cluster.apply(_pjob("preemptee-2", rep=rep, priority_class="low-priority"))
    wait_tasks_ready(cluster, "preemptee-2", rep)
    cluster.apply(pod("preemptor-pod", req=ONE_CPU, group="pending-pg", priority_class="high-priority"))
    cluster.hold(lambda: ready(cluster, "preemptee-2") >= rep
                 and not bound(cluster.get("Pod", "preemptor-pod")), 30,
                 "no preemptee evicted for a pod whose PodGroup is not Inqueue")


@pytest.mark.preemption
@pytest.mark.scheduler_conf(CI_CONF)
@pytest.mark.upstream(SUITE, "preemption only works in the same queue")
def test_preemption_only_in_same_queue(cluster: Cluster) -> None:
    make_priority_classes(cluster, PRIORITIES)
    make_queues(cluster, simple_queue("q1-preemption"), simple_queue("q2-reference"))
    rep = cluster_size(cluster, ONE_CPU)
    half = rep // 2
    cluster.apply(_pjob("j1-q1", rep=half, task_min=half, queue="q1-preemption", priority_class="low-priority"))
    wait_tasks_ready(cluster, "j1-q1", half)
    cluster.apply(_pjob("j2-q2", rep=half, task_min=half, queue="q2-reference", priority_class="low-priority"))
    wait_tasks_ready(cluster, "j2-q2", half)
    cluster.apply(_pjob("j3-q1", rep=rep, task_min=half, queue="q1-preemption", priority_class="high-priority"))
    wait_tasks_ready(cluster, "j3-q1", half)
    # Upstream's remaining check (j1 ready >= 0) is vacuous; what it meant: the other queue's
    # job is untouched.
    cluster.hold(lambda: ready(cluster, "j2-q2") == half, 30, "j2-q2 keeps all its pods")


@pytest.mark.preemption
@pytest.mark.scheduler_conf(CI_CONF)
@pytest.mark.upstream(SUITE, "preemption doesn't work when total resource of idle resource and preemptee is NOT "
                             "enough")
def test_no_preemption_when_not_enough(cluster: Cluster) -> None:
    make_priority_classes(cluster, PRIORITIES)
    make_queues(cluster, simple_queue("q1-preemption"), simple_queue("q2-reference"))
    rep = cluster_size(cluster, ONE_CPU)
    cluster.apply(_pjob("j1-q1", queue="q1-preemption", priority_class="low-priority"))
    wait_tasks_ready(cluster, "j1-q1", 1)
    cluster.apply(_pjob("j2-q2", rep=rep // 2, task_min=rep // 2, queue="q2-reference",
                        priority_class="low-priority"))
    wait_tasks_ready(cluster, "j2-q2", rep // 2)
    cluster.apply(_pjob("j3-q1", rep=rep, task_min=rep, queue="q1-preemption", priority_class="high-priority"))
    cluster.hold(lambda: ready(cluster, "j3-q1") < rep and ready(cluster, "j1-q1") == 1
                 and ready(cluster, "j2-q2") == rep // 2, 300, "j3 cannot run; j1 and j2 keep their pods")


@pytest.mark.preemption
@pytest.mark.scheduler_conf(CI_CONF)
@pytest.mark.xfail(strict=True, reason="skipped upstream because Volcano fails it (issue 911); it fails the same "
                                       "way here: the high-priority gang (minAvailable = rep) never gets all rep "
                                       "pods by preemption")
@pytest.mark.upstream(SUITE, "multi-preemptor-jobs who are in different priority")
def test_multi_preemptor_jobs(cluster: Cluster) -> None:
    # Skipped upstream (issue 911); written as upstream specifies it.
    make_priority_classes(cluster, PRIORITIES)
    make_queues(cluster, simple_queue("q1-preemption"))
    rep = cluster_size(cluster, ONE_CPU)
    cluster.apply(_pjob("low-priority-job", rep=rep, queue="q1-preemption", priority_class="low-priority"))
    wait_tasks_ready(cluster, "low-priority-job", rep)
    cluster.apply(_pjob("middle-prority-job", rep=rep // 2, task_min=rep // 2, queue="q1-preemption",
                        priority_class="middle-priority"))
    wait_tasks_ready(cluster, "middle-prority-job", rep // 2)
    wait_tasks_ready(cluster, "low-priority-job", rep // 2)
    cluster.apply(_pjob("high-priority-job", rep=rep, task_min=rep, queue="q1-preemption",
                        priority_class="high-priority"))
    wait_tasks_ready(cluster, "high-priority-job", rep)
    assert ready(cluster, "low-priority-job") == 0
    assert ready(cluster, "middle-prority-job") == 0


@pytest.mark.preemption
@pytest.mark.scheduler_conf(CI_CONF_NO_ENQUEUE)
@pytest.mark.upstream(SUITE, "Jobs unschedulable due to scheduling gates will not preempt other jobs despite "
                             "sufficient preemptor")
def test_gated_jobs_do_not_preempt(cluster: Cluster) -> None:
    # Upstream forgot to set the gates on the preemptor (so its checks pass trivially); here the
    # preemptor's pods carry a gate, as the case's title means.
    rep = _fill_with_low_priority(cluster, "preemptee-1")
    preemptor = _half_gang_preemptor(rep)
    preemptor["spec"]["tasks"][0]["template"]["spec"]["schedulingGates"] = [{"name": "example.com/g1"}]
    cluster.apply(preemptor)
    cluster.wait_until(lambda: len(cluster.job_pods("preemptor-1")) >= rep // 2, 300, "preemptor pods created")
    cluster.hold(lambda: ready(cluster, "preemptee-1") == rep and _no_bound(cluster, "preemptor-1"), 30,
                 "gated preemptor evicts nothing")
    remove_gates(cluster, cluster.job_pods("preemptor-1"))
    wait_tasks_ready(cluster, "preemptor-1", rep // 2)
    wait_tasks_ready(cluster, "preemptee-1", rep // 2)


def _term(labels: dict[str, str]) -> list[Obj]:
    return [{"labelSelector": {"matchLabels": labels}, "topologyKey": HOSTNAME}]


@pytest.mark.preemption
@pytest.mark.scheduler_conf(TOPOLOGY_PREEMPT_CONF)
@pytest.mark.upstream(SUITE, "should preempt low priority pod with anti-affinity constraint")
def test_preempt_anti_affinity_victims(cluster: Cluster) -> None:
    make_priority_classes(cluster, PRIORITIES)
    rep = cluster_node_number(cluster)
    assert rep >= 2
    slots = cluster_size(cluster, ONE_CPU) // rep
    assert slots >= 3
    high_rep = rep - 1
    blocker, bystander = {"app": "blocker"}, {"app": "bystander"}
    cluster.apply(_pjob("blocker-job", rep=rep, labels=blocker, priority_class="middle-priority",
                        affinity={"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
                                                      _term(blocker)}}))
    wait_tasks_ready(cluster, "blocker-job", rep)
    cluster.apply(_pjob("bystander-job", rep=rep, labels=bystander, priority_class="low-priority",
                        affinity={"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": _term(blocker)},
                                  "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
                                                      _term(bystander)}}))
    wait_tasks_ready(cluster, "bystander-job", rep)
    cluster.apply(_pjob("high-priority-job", req={"cpu": str(slots - 1)}, rep=high_rep, task_min=high_rep,
                        labels={"app": "preemptor"}, priority_class="high-priority",
                        affinity={"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
                                                      _term(blocker)}}))
    wait_tasks_ready(cluster, "high-priority-job", high_rep)
    wait_tasks_ready(cluster, "bystander-job", rep)
    assert ready(cluster, "bystander-job") == rep
    cluster.wait_until(lambda: count_phase(cluster.job_pods("blocker-job"), READY_PHASES) == 1, 300,
                       "exactly one blocker pod left running")


# -- reclaim.go -----------------------------------------------------------------------------------

@pytest.mark.reclaim
@pytest.mark.cluster(workers=4, **ONE_BY_1)
@pytest.mark.scheduler_conf(CI_CONF)
@pytest.mark.upstream(SUITE, "Reclaim Case 1: New queue with job created no reclaim when resource is enough")
def test_reclaim_case_1(cluster: Cluster) -> None:
    make_queues(cluster, simple_queue("reclaim-q2"))
    cluster.apply(_reclaim_job("reclaim-j1", C1, "default"))
    wait_tasks_ready(cluster, "reclaim-j1", 1)
    cluster.apply(_reclaim_job("reclaim-j2", C1, "reclaim-q2"))
    wait_tasks_ready(cluster, "reclaim-j2", 1)
    make_queues(cluster, simple_queue("reclaim-q3"))
    cluster.apply(_reclaim_job("reclaim-j3", C1, "reclaim-q3"))
    wait_tasks_ready(cluster, "reclaim-j3", 1)
    for q in ("default", "reclaim-q2", "reclaim-q3"):
        wait_pg_count(cluster, q, "Running", 1)
    cluster.hold(lambda: all(ready(cluster, j) == 1 for j in ("reclaim-j1", "reclaim-j2", "reclaim-j3")), 30,
                 "no job reclaimed")


def _jobs_ready(cluster: Cluster, jobs: list[tuple[str, str, dict[str, str]]], *, rep: int = 1,
                pri: str | None = None) -> None:
    """Each ``(name, queue, request)`` as a preemptable job of ``rep`` pods (priority class
    ``pri``), applied and waited ready in turn."""
    for name, queue_name, req in jobs:
        cluster.apply(_pjob(name, req=req, rep=rep, queue=queue_name, priority_class=pri))
        wait_tasks_ready(cluster, name, rep)


def _running(cluster: Cluster, counts: dict[str, int]) -> None:
    """Wait until each queue has that many Running PodGroups."""
    for queue_name, n in counts.items():
        wait_pg_count(cluster, queue_name, "Running", n)


def _three_slots_two_jobs(cluster: Cluster, pri: str | None = None) -> None:
    cluster.apply(_reclaim_job("reclaim-j1", C1, "default", pri))
    wait_tasks_ready(cluster, "reclaim-j1", 1)
    cluster.apply(_reclaim_job("reclaim-j2", C1, "reclaim-q2", pri))
    wait_tasks_ready(cluster, "reclaim-j2", 1)


@pytest.mark.reclaim
@pytest.mark.cluster(workers=3, **ONE_BY_1)
@pytest.mark.scheduler_conf(CI_CONF)
@pytest.mark.upstream(SUITE, "Reclaim Case 3: New queue with job created no reclaim when job.PodGroup.Status.Phase "
                             "pending")
def test_reclaim_case_3(cluster: Cluster, request: pytest.FixtureRequest) -> None:
    # Skipped upstream as flaky (issue 3562); written as upstream specifies it. On simulated time it is
    # deterministic; on a cluster paced by the wall clock the PodGroup's Pending phase after the pods'
    # deletion can be too short to observe, as upstream found, so there it may fail without failing the run.
    if cluster.backend != "memory":
        request.applymarker(pytest.mark.xfail(strict=False, reason="flaky on wall-clock clusters (volcano #3562)"))
    make_priority_classes(cluster, RECLAIM_PRIORITIES)
    make_queues(cluster, simple_queue("reclaim-q2"))
    _three_slots_two_jobs(cluster)
    make_queues(cluster, simple_queue("reclaim-q3"))
    cluster.apply(_reclaim_job("reclaim-j3", C1, "reclaim-q3"))
    wait_tasks_ready(cluster, "reclaim-j3", 1)
    pods = cluster.job_pods("reclaim-j3")
    wait_pg_count(cluster, "default", "Running", 1)
    wait_pg_count(cluster, "reclaim-q2", "Running", 1)
    for p in pods:
        cluster.delete("Pod", p["metadata"]["name"])
    wait_pg_count(cluster, "reclaim-q3", "Pending", 1)


@pytest.mark.reclaim
@pytest.mark.cluster(workers=3, **ONE_BY_1)
@pytest.mark.scheduler_conf(CI_CONF)
@pytest.mark.parametrize(("running_pri", "refused_pri"), [
    pytest.param(None, None, id="case_4", marks=pytest.mark.upstream(
        SUITE, "Reclaim Case 4: New queue with job created no reclaim when new queue is not created")),
    pytest.param("high-priority", "low-priority", id="case_5", marks=pytest.mark.upstream(
        SUITE, "Reclaim Case 5: New queue with job created no reclaim when job or task is low-priority")),
])
def test_reclaim_nothing_for_a_job_of_a_missing_queue(cluster: Cluster, running_pri: str | None,
                                                       refused_pri: str | None) -> None:
    """Two jobs of priority class ``running_pri`` run in default and reclaim-q2; a third (of
    ``refused_pri``) naming queue reclaim-q3, which does not exist, is refused and not stored, and
    the two keep running."""
    make_priority_classes(cluster, RECLAIM_PRIORITIES)
    make_queues(cluster, simple_queue("reclaim-q2"))
    _three_slots_two_jobs(cluster, running_pri)
    api_error(cluster.apply, _reclaim_job("reclaim-j3", C1, "reclaim-q3", refused_pri))
    assert cluster.try_get("Job", "reclaim-j3") is None
    wait_pg_count(cluster, "default", "Running", 1)
    wait_pg_count(cluster, "reclaim-q2", "Running", 1)


@pytest.mark.reclaim
@pytest.mark.cluster(workers=3, **ONE_BY_1)
@pytest.mark.scheduler_conf(CI_CONF)
@pytest.mark.upstream(SUITE, "Reclaim Case 6: New queue with job created no reclaim when overused")
def test_reclaim_case_6(cluster: Cluster) -> None:
    make_priority_classes(cluster, RECLAIM_PRIORITIES)
    make_queues(cluster, simple_queue("reclaim-q2"), simple_queue("reclaim-q3"))
    _three_slots_two_jobs(cluster)
    cluster.apply(_reclaim_job("reclaim-j3", C1, "reclaim-q3"))
    wait_tasks_ready(cluster, "reclaim-j3", 1)
    cluster.apply(_reclaim_job("reclaim-j4", C1, "reclaim-q3"))
    cluster.sleep(10)
    wait_pg_count(cluster, "default", "Running", 1)
    wait_pg_count(cluster, "reclaim-q2", "Running", 1)
    wait_pg_count(cluster, "reclaim-q3", "Running", 1)
    wait_pg_count(cluster, "reclaim-q3", "Inqueue", 1)
    cluster.hold(lambda: _no_bound(cluster, "reclaim-j4") and ready(cluster, "reclaim-j1") == 1
                 and ready(cluster, "reclaim-j2") == 1, 30, "overused queue reclaims nothing")


def _pinned_to_a_missing_node() -> Obj:
    manifest = _reclaim_job("reclaim-j3", C1, "reclaim-q3")
    manifest["spec"]["tasks"][0]["template"]["spec"]["nodeName"] = "fake-node"
    return manifest


def _too_big() -> Obj:
    return _pjob("reclaim-j4", req=C4, queue="reclaim-q3")


@pytest.mark.reclaim
@pytest.mark.cluster(workers=3, **ONE_BY_1)
@pytest.mark.scheduler_conf(CI_CONF)
@pytest.mark.parametrize(("priorities", "build", "phase"), [
    # Upstream's comment calls case 7 a bug (the job is pending, its PodGroup Running): the pod
    # names its node directly, so the scheduler counts it as allocated (and bound).
    pytest.param(False, _pinned_to_a_missing_node, "Running", id="case_7", marks=pytest.mark.upstream(
        SUITE, "Reclaim Case 7:  New queue with job created no reclaim when job not satisfied with predicates")),
    pytest.param(True, _too_big, "Inqueue", id="case_8",
                 marks=pytest.mark.upstream(SUITE, "Reclaim Case 8: New queue with job created no reclaim when task "
                                                   "resources less than reclaimable resource")),
])
def test_reclaim_nothing_for_a_job_that_cannot_run(cluster: Cluster, priorities: bool, build: Any,
                                                    phase: str) -> None:
    """A third queue's job that cannot run anywhere (case 7: its pod names a missing node;
    case 8: it asks for more than any node has) reclaims nothing from the two running jobs."""
    manifest = build()
    if priorities:
        make_priority_classes(cluster, RECLAIM_PRIORITIES)
    make_queues(cluster, simple_queue("reclaim-q2"))
    _three_slots_two_jobs(cluster)
    make_queues(cluster, simple_queue("reclaim-q3"))
    cluster.apply(manifest)
    cluster.sleep(10)
    wait_pg_count(cluster, "default", "Running", 1)
    wait_pg_count(cluster, "reclaim-q2", "Running", 1)
    wait_pg_count(cluster, "reclaim-q3", phase, 1)
    pinned = phase == "Running"  # case 7's pod is bound by its own nodeName
    name = manifest["metadata"]["name"]
    cluster.hold(lambda: (pinned or _no_bound(cluster, name)) and ready(cluster, "reclaim-j1") == 1
                 and ready(cluster, "reclaim-j2") == 1, 30, "nothing reclaimed for a job that cannot run")


@pytest.mark.reclaim
@pytest.mark.cluster(workers=3, **ONE_BY_1)
@pytest.mark.scheduler_conf(CI_CONF)
@pytest.mark.upstream(SUITE, "Reclaim Case 9:  New queue with job created, all queues.spec.reclaimable is false, "
                             "no reclaim")
def test_reclaim_case_9(cluster: Cluster) -> None:
    make_queues(cluster, simple_queue("reclaim-q2"))
    _three_slots_two_jobs(cluster)
    make_queues(cluster, simple_queue("reclaim-q3"))
    set_queue_reclaimable(cluster, ["default", "reclaim-q2"], False)
    cluster.apply(_reclaim_job("reclaim-j3", C1, "reclaim-q3"))
    wait_tasks_ready(cluster, "reclaim-j3", 1)
    for q in ("default", "reclaim-q2", "reclaim-q3"):
        wait_pg_count(cluster, q, "Running", 1)


@pytest.mark.reclaim
@pytest.mark.cluster(workers=4, **ONE_BY_1)
@pytest.mark.scheduler_conf(CI_CONF)
@pytest.mark.upstream(SUITE, "Reclaim Case 10: Multi reclaimed queue")
def test_reclaim_case_10(cluster: Cluster) -> None:
    make_priority_classes(cluster, RECLAIM_PRIORITIES)
    make_queues(cluster, simple_queue("reclaim-q2"), simple_queue("reclaim-q3"), simple_queue("reclaim-q4"))
    _jobs_ready(cluster, [("reclaim-j1", "default", C1), ("reclaim-j2", "reclaim-q2", C1)], rep=2,
                pri="low-priority")
    _running(cluster, {"default": 1, "reclaim-q2": 1})
    _jobs_ready(cluster, [("reclaim-j3", "reclaim-q3", C1), ("reclaim-j4", "reclaim-q4", C1)], pri="high-priority")
    _running(cluster, {"reclaim-q3": 1, "reclaim-q4": 1})


@pytest.mark.reclaim
@pytest.mark.cluster(workers=4, cpu="2", memory="2Gi")
@pytest.mark.scheduler_conf(CAPACITY_CONF)
@pytest.mark.upstream(SUITE, "Capacity Reclaim Case 11: Multi reclaimed queue")
def test_capacity_reclaim_case_11(cluster: Cluster) -> None:
    make_priority_classes(cluster, RECLAIM_PRIORITIES)
    make_queues(cluster, *(simple_queue(q, deserved=d) for q, d in (
        ("reclaim-q1", {"cpu": "1", "memory": "1Gi"}), ("reclaim-q2", {"cpu": "1", "memory": "1Gi"}),
        ("reclaim-q3", {"cpu": "2", "memory": "2Gi"}), ("reclaim-q4", {"cpu": "4", "memory": "4Gi"}))))
    _jobs_ready(cluster, [("reclaim-j1", "reclaim-q1", C1), ("reclaim-j2", "reclaim-q2", C1)], rep=4,
                pri="low-priority")
    _running(cluster, {"reclaim-q1": 1, "reclaim-q2": 1})
    _jobs_ready(cluster, [("reclaim-j3", "reclaim-q3", C2), ("reclaim-j4", "reclaim-q4", C2),
                          ("reclaim-j5", "reclaim-q4", C1), ("reclaim-j6", "reclaim-q4", C1)], pri="high-priority")
    _running(cluster, {"reclaim-q3": 1, "reclaim-q4": 3})


@pytest.mark.reclaim
@pytest.mark.cluster(workers=4, cpu="2", memory="2Gi")
@pytest.mark.scheduler_conf(CAPACITY_HIERARCHY_CONF)
@pytest.mark.upstream(SUITE, "Capacity Reclaim Case 12: Multi reclaimed queue")
def test_capacity_reclaim_case_12(cluster: Cluster) -> None:
    make_priority_classes(cluster, {"low-priority": 10})
    four, two = {"cpu": "4", "memory": "4Gi"}, {"cpu": "2", "memory": "2Gi"}
    make_queues(cluster, simple_queue("reclaim-q1", deserved=four, parent="root"),
                simple_queue("reclaim-q2", deserved=four, parent="root"))
    make_queues(cluster, simple_queue("reclaim-q11", deserved=two, parent="reclaim-q1"),
                simple_queue("reclaim-q12", deserved=two, parent="reclaim-q1"))
    _jobs_ready(cluster, [("reclaim-j1", "reclaim-q2", C2), ("reclaim-j2", "reclaim-q11", C2)])
    _running(cluster, {"reclaim-q2": 1, "reclaim-q11": 1})
    _jobs_ready(cluster, [("reclaim-j3", "reclaim-q12", C1), ("reclaim-j4", "reclaim-q11", C1)], pri="low-priority")
    _running(cluster, {"reclaim-q12": 1, "reclaim-q11": 2})
