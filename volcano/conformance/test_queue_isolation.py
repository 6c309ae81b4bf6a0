"""Queues as isolation boundaries: what preempt and reclaim may and may not take across them.

Siblings of upstream's ``schedulingaction`` cases (catalogue §3.2, preempt.go #22 and reclaim.go)
built so that nothing but the rule under test protects the victims: the other queue's job has
``minAvailable`` below its replicas (gang would let some of its pods go), its pods are
preemptable and of lower priority. Facts: the scheduler reference §3.3 (victim filters), §4
(preempt takes victims of the preemptor's own queue; reclaim skips an ``Overused`` reclaimer
queue) and §5.4 (proportion's deserved share and ``Overused``).
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import Task, job
from volcano.conformance.lib.sizing import cluster_size
from volcano.conformance.lib.waits import bound, wait_tasks_ready
from volcano.conformance.test_scheduling_support import (
    CI_CONF,
    ONE_CPU,
    PREEMPTABLE,
    conf_with,
    make_priority_classes,
    make_queues,
    ready,
    simple_queue,
)

SUITE = "schedulingaction"
Obj = dict[str, Any]
PRIORITIES = {"high-priority": 100, "low-priority": 10}
# Upstream's case #22 meant to drop reclaim (its modifier never assigned the new list); here it is dropped,
# so only preempt can move pods and the case is about preempt alone.
PREEMPT_ONLY_CONF = conf_with(CI_CONF, old='"enqueue, allocate, backfill, reclaim, preempt"',
                              new='"enqueue, allocate, backfill, preempt"')


def _pjob(name: str, *, rep: int, task_min: int, queue: str, priority_class: str) -> Obj:
    """A one-task Job of preemptable 1-CPU pods; ``minAvailable`` = ``task_min``."""
    return job(name, [Task(req=ONE_CPU, rep=rep, min=task_min, labels=dict(PREEMPTABLE))],
               queue=queue, priority_class=priority_class)


def _evicted(cluster: Cluster, job_name: str) -> int:
    """Warning ``Evict`` events on pods of ``job_name``."""
    return sum(1 for e in cluster.events(kind="Pod") if e.get("reason") == "Evict"
               and (e.get("involvedObject") or {}).get("name", "").startswith(f"{job_name}-"))


def _fill_two_queues(cluster: Cluster, *, j1_priority: str) -> tuple[int, int]:
    """Fill the cluster's one-CPU slots, all running and preemptable (minAvailable 1): ``j1-q1`` of
    priority ``j1_priority`` takes half of them in q1-preemption, low-priority ``j2-q2`` the rest in
    q2-reference. Returns (slots, half)."""
    make_priority_classes(cluster, PRIORITIES)
    make_queues(cluster, simple_queue("q1-preemption"), simple_queue("q2-reference"))
    rep = cluster_size(cluster, ONE_CPU)
    half = rep // 2
    cluster.apply(_pjob("j1-q1", rep=half, task_min=1, queue="q1-preemption", priority_class=j1_priority))
    wait_tasks_ready(cluster, "j1-q1", half)
    cluster.apply(_pjob("j2-q2", rep=rep - half, task_min=1, queue="q2-reference", priority_class="low-priority"))
    wait_tasks_ready(cluster, "j2-q2", rep - half)
    return rep, half


@pytest.mark.preemption
@pytest.mark.scheduler_conf(PREEMPT_ONLY_CONF)
@pytest.mark.upstream(SUITE, "preemption only works in the same queue")
def test_preemption_takes_no_victim_from_another_queue(cluster: Cluster) -> None:
    """Upstream #22 with nothing but the queue protecting the other queue's job: q2's job is
    low-priority, preemptable and has minAvailable 1 < replicas. q1's high-priority job finds no
    victim in q1 (the only job there has the same priority) and must not take q2's pods."""
    rep, half = _fill_two_queues(cluster, j1_priority="high-priority")
    cluster.apply(_pjob("j3-q1", rep=half, task_min=1, queue="q1-preemption", priority_class="high-priority"))
    cluster.wait_until(lambda: len(cluster.job_pods("j3-q1")) == half, 60, "j3-q1 pods created")
    cluster.hold(lambda: ready(cluster, "j2-q2") == rep - half and not any(bound(p) for p in cluster.job_pods("j3-q1")),
                 60, "q2's job keeps every pod; q1's preemptor stays unbound")
    assert ready(cluster, "j1-q1") == half
    assert _evicted(cluster, "j2-q2") == 0


@pytest.mark.preemption
@pytest.mark.scheduler_conf(PREEMPT_ONLY_CONF)
@pytest.mark.upstream(SUITE, "preemption only works in the same queue")
def test_preemption_takes_victims_from_its_own_queue(cluster: Cluster) -> None:
    """The positive twin of the case above: the same layout with q1's low-priority job
    low-priority (minAvailable 1) — now q1's preemptor (a gang of half - 1 pods; preempt serves a job
    only while it is starving, below its minAvailable) takes q1's pods, and still none of q2's."""
    rep, half = _fill_two_queues(cluster, j1_priority="low-priority")
    cluster.apply(_pjob("j3-q1", rep=half - 1, task_min=half - 1, queue="q1-preemption",
                        priority_class="high-priority"))
    wait_tasks_ready(cluster, "j3-q1", half - 1)
    cluster.hold(lambda: ready(cluster, "j2-q2") == rep - half and ready(cluster, "j1-q1") == 1, 30,
                 "q1's low-priority job is down to one pod; q2's keeps all of its")
    assert _evicted(cluster, "j2-q2") == 0


# Overcommit 2.0 lets every PodGroup of the case become Inqueue at once (the default 1.2 would hold the later
# gangs Pending, and reclaim serves no Pending job); what is under test is reclaim, not enqueue.
RECLAIM_CONF = conf_with(CI_CONF, old="  - name: overcommit\n",
                         new="  - name: overcommit\n    arguments:\n      overcommit-factor: 2.0\n")


@pytest.mark.reclaim
@pytest.mark.cluster(control_plane=False)
@pytest.mark.scheduler_conf(RECLAIM_CONF)
def test_reclaim_stops_at_each_queues_share(cluster: Cluster) -> None:
    """Three weight-1 queues on 4 x 4 CPUs (the proportion total is the workers' 16 CPUs). q1 runs 8
    pods and has a pending gang of 4 more; q2 runs 8; q3 then asks for a gang of 4. Proportion's
    shares: q3 4 (its whole request), q1 and q2 6 each. q3, below its share, is served first and
    reclaims 4 pods, 2 from each of q1 and q2, neither taken below its share; q1, at its share,
    gets nothing for its pending gang."""
    _three_queues(cluster)
    cluster.apply(job("j3", [Task(req=ONE_CPU, rep=4)], queue="q3"))
    wait_tasks_ready(cluster, "j3", 4)
    cluster.hold(lambda: ready(cluster, "j1") == 6 and ready(cluster, "j2") == 6 and ready(cluster, "j3") == 4
                 and not any(bound(p) for p in cluster.job_pods("j1-more")), 120,
                 "q1 and q2 at their share of 6, q3 at 4, q1's pending gang unbound")
    assert _evicted(cluster, "j1") == 2 and _evicted(cluster, "j2") == 2


@pytest.mark.reclaim
@pytest.mark.cluster(control_plane=False)
@pytest.mark.scheduler_conf(RECLAIM_CONF)
def test_overused_queue_does_not_reclaim(cluster: Cluster) -> None:
    """The layout above, but q3's gang fits no node (a node selector nothing matches): it still counts
    in proportion's request, so the shares stay q1 6, q2 6, q3 4, and q2 stays 2 pods above its
    share, reclaimable. q1 is above its CPU share (6 < 8) and must not take them for its pending gang.

    What refuses q1 is proportion's per-task ``Preemptive`` (allocated + task <= deserved on the
    task's dimensions; reference §5.4); without it q1 takes q2's two pods. The reclaim action's
    ``Overused`` skip (deserved <= allocated on *every* dimension of deserved, ``pods`` included)
    does not even fire: q1's deserved pods is its request of 10, above the 8 it runs. A queue with a
    pending task always asks for one pod more than it runs, so under proportion that skip can only
    fire when ``Preemptive`` would refuse anyway: a mutant dropping it is equivalent."""
    _three_queues(cluster, more=2)
    cluster.apply(job("j3", [Task(req=ONE_CPU, rep=4, node_selector={"kubernetes.io/hostname": "no-such-node"})],
                      queue="q3"))
    cluster.wait_until(lambda: len(cluster.job_pods("j3")) == 4, 60, "j3 pods created")
    cluster.hold(lambda: ready(cluster, "j1") == 8 and ready(cluster, "j2") == 8
                 and not any(bound(p) for p in cluster.job_pods("j1-more")), 120,
                 "nothing is reclaimed: q1 is overused, q3 fits no node")
    assert _evicted(cluster, "j2") == 0


def _three_queues(cluster: Cluster, more: int = 4) -> None:
    """q1 running 8 one-CPU pods plus a pending gang ``j1-more`` of ``more``; q2 running 8; q3 empty."""
    rep = cluster_size(cluster, ONE_CPU)
    assert rep == 16, "the shares are worked out for 16 one-CPU slots"
    make_queues(cluster, simple_queue("q1"), simple_queue("q2"), simple_queue("q3"))
    cluster.apply(job("j1", [Task(req=ONE_CPU, rep=8, labels=dict(PREEMPTABLE))], queue="q1"))
    wait_tasks_ready(cluster, "j1", 8)
    cluster.apply(job("j2", [Task(req=ONE_CPU, rep=8, labels=dict(PREEMPTABLE))], queue="q2"))
    wait_tasks_ready(cluster, "j2", 8)
    cluster.apply(job("j1-more", [Task(req=ONE_CPU, rep=more, labels=dict(PREEMPTABLE))], queue="q1"))
    cluster.wait_until(lambda: len(cluster.job_pods("j1-more")) == more, 60, "j1-more pods created")


@pytest.mark.preemption
@pytest.mark.scheduler_conf(PREEMPT_ONLY_CONF)
def test_a_preemptor_is_nominated_to_its_victims_node_and_binds_there(cluster: Cluster) -> None:
    """Pipelining: while its victims terminate (3 s of grace), each preemptor waits unbound with
    ``status.nominatedNodeName`` set to the node preempt chose, and then binds to that node
    (reference §4.2: the statement pipelines the preemptor; session close writes the nomination)."""
    make_priority_classes(cluster, PRIORITIES)
    rep = cluster_size(cluster, ONE_CPU)
    cluster.apply(_pjob("victims", rep=rep, task_min=1, queue="default", priority_class="low-priority"))
    wait_tasks_ready(cluster, "victims", rep)
    cluster.apply(_pjob("urgent", rep=2, task_min=2, queue="default", priority_class="high-priority"))
    wait_tasks_ready(cluster, "urgent", 2)
    # Read the nominations from the recorded history: the window in which a preemptor is
    # nominated and unbound is a few simulated seconds, which a poll over HTTP can miss.
    nominated: dict[str, str] = {}
    for _, kind, _, pod in cluster.recorded_history():
        labels = pod["metadata"].get("labels") or {}
        node = (pod.get("status") or {}).get("nominatedNodeName")
        if kind == "Pod" and labels.get("volcano.sh/job-name") == "urgent" and node and not bound(pod):
            nominated.setdefault(pod["metadata"]["name"], node)
    assert len(nominated) == 2, nominated
    placed = {p["metadata"]["name"]: p["spec"]["nodeName"] for p in cluster.job_pods("urgent")}
    assert placed == nominated
