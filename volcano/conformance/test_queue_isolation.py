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
    conf_with,
    make_priority_classes,
    make_queues,
    ready,
    simple_queue,
)

SUITE = "schedulingaction"
Obj = dict[str, Any]
ONE_CPU = {"cpu": "1"}
PREEMPTABLE = {"volcano.sh/preemptable": "true"}
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


@pytest.mark.preemption
@pytest.mark.scheduler_conf(PREEMPT_ONLY_CONF)
@pytest.mark.upstream(SUITE, "preemption only works in the same queue")
def test_preemption_takes_no_victim_from_another_queue(cluster: Cluster) -> None:
    """Upstream #22 with nothing but the queue protecting the other queue's job: q2's job is
    low-priority, preemptable and has minAvailable 1 < replicas. q1's high-priority job finds no
    victim in q1 (the only job there has the same priority) and must not take q2's pods."""
    make_priority_classes(cluster, PRIORITIES)
    make_queues(cluster, simple_queue("q1-preemption"), simple_queue("q2-reference"))
    rep = cluster_size(cluster, ONE_CPU)
    half = rep // 2
    cluster.apply(_pjob("j1-q1", rep=half, task_min=1, queue="q1-preemption", priority_class="high-priority"))
    wait_tasks_ready(cluster, "j1-q1", half)
    cluster.apply(_pjob("j2-q2", rep=rep - half, task_min=1, queue="q2-reference", priority_class="low-priority"))
    wait_tasks_ready(cluster, "j2-q2", rep - half)
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
    make_priority_classes(cluster, PRIORITIES)
    make_queues(cluster, simple_queue("q1-preemption"), simple_queue("q2-reference"))
    rep = cluster_size(cluster, ONE_CPU)
    half = rep // 2
    cluster.apply(_pjob("j1-q1", rep=half, task_min=1, queue="q1-preemption", priority_class="low-priority"))
    wait_tasks_ready(cluster, "j1-q1", half)
    cluster.apply(_pjob("j2-q2", rep=rep - half, task_min=1, queue="q2-reference", priority_class="low-priority"))
    wait_tasks_ready(cluster, "j2-q2", rep - half)
    cluster.apply(_pjob("j3-q1", rep=half - 1, task_min=half - 1, queue="q1-preemption", priority_class="high-priority"))
    wait_tasks_ready(cluster, "j3-q1", half - 1)
    cluster.hold(lambda: ready(cluster, "j2-q2") == rep - half and ready(cluster, "j1-q1") == 1, 30,
                 "q1's low-priority job is down to one pod; q2's keeps all of its")
    assert _evicted(cluster, "j2-q2") == 0
