"""Fair share between queues: proportion's deserved share by weight, capability, reclaim back to
the deserved share, and the seed documents' two-user scenario.

Expected numbers come from the proportion rules (reference: deserved is water-filled by weight over
the allocatable of *all* nodes, including tainted ones; ``allocatable`` admits a task only while
``allocated + request <= deserved``; reclaim takes only from queues above their deserved share).
Every test computes them from the cluster it runs on, so the cases hold on any backend.
"""

from __future__ import annotations

import pytest

from volcano.api.resources import node_allocatable
from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import Task, job, queue
from volcano.conformance.lib.sizing import cluster_size
from volcano.conformance.lib.waits import count_phase
from volcano.conformance.test_scheduling_support import CI_CONF, ONE_CPU, make_queues

pytestmark = pytest.mark.fairshare



def total_cpus(cluster: Cluster) -> int:
    """Whole CPUs of every node, tainted or not (what proportion divides)."""
    return sum(node_allocatable(n).get("cpu") for n in cluster.list("Node")) // 1000


def running(cluster: Cluster, job_name: str) -> int:
    return count_phase(cluster.job_pods(job_name), ("Running",))


def backlog(name: str, queue_name: str, replicas: int) -> dict:
    """A job of ``replicas`` one-CPU pods that run until deleted, any one of which may start alone."""
    return job(name, [Task(rep=replicas, min=1, req=ONE_CPU)], min=1, queue=queue_name)


def test_equal_weights_split_the_cluster_evenly(cluster: Cluster) -> None:
    rep = cluster_size(cluster, ONE_CPU)
    make_queues(cluster, queue("qa"), queue("qb"))
    cluster.apply([backlog("ja", "qa", rep), backlog("jb", "qb", rep)])
    cluster.wait_until(lambda: running(cluster, "ja") + running(cluster, "jb") == rep, 120, "cluster full")
    assert sorted([running(cluster, "ja"), running(cluster, "jb")]) == [rep // 2, rep - rep // 2]
    cluster.hold(lambda: running(cluster, "ja") + running(cluster, "jb") == rep, 30, "split is stable")


def test_weights_1_to_3_share_the_cluster_1_to_3(cluster: Cluster) -> None:
    """Allocation always serves the queue with the smallest allocated/deserved, so the two queues
    end with equal shares of their deserved amounts: about a quarter of the schedulable CPUs for
    weight 1, never more than its deserved quarter of all CPUs."""
    rep = cluster_size(cluster, ONE_CPU)
    make_queues(cluster, queue("light", weight=1), queue("heavy", weight=3))
    cluster.apply([backlog("jl", "light", rep), backlog("jh", "heavy", rep)])
    cluster.wait_until(lambda: running(cluster, "jl") + running(cluster, "jh") == rep, 120, "cluster full")
    light = running(cluster, "jl")
    assert abs(light - rep / 4) <= 1 and light <= total_cpus(cluster) // 4
    assert running(cluster, "jh") == rep - light


def test_capability_caps_a_queue_even_on_an_idle_cluster(cluster: Cluster) -> None:
    make_queues(cluster, queue("capped", capability={"cpu": "3"}))
    cluster.apply(backlog("jc", "capped", 8))
    cluster.wait_until(lambda: running(cluster, "jc") == 3, 120, "3 pods running")
    cluster.hold(lambda: running(cluster, "jc") == 3 and len(cluster.job_pods("jc")) == 8, 30,
                 "capability holds the queue at 3 CPUs")


@pytest.mark.reclaim
@pytest.mark.scheduler_conf(CI_CONF)
def test_reclaim_returns_the_over_deserved_part_to_a_new_queue(cluster: Cluster) -> None:
    """A queue that took the whole idle cluster gives back what exceeds its deserved share when
    another queue's jobs arrive, and no more. Both queues' work is one-pod jobs, as in upstream's
    reclaim e2e cases: reclaim serves *starving* jobs, and gang then offers no victims (each victim
    job has exactly minAvailable ready), so proportion's tier decides and stops at the deserved share.

    (With one big job of minAvailable 1 in the first queue, gang's tier-1 answer would offer all
    but one of its pods and bypass proportion's check; that is upstream behaviour, tracked in
    volcano-sh/volcano issues 4947, 4949 and 5896.)"""
    rep = cluster_size(cluster, ONE_CPU)
    half = total_cpus(cluster) // 2  # both queues' deserved cpu once both have demand
    make_queues(cluster, queue("first", reclaimable=True), queue("later"))
    cluster.apply([job(f"first-{i}", [Task(req=ONE_CPU)], queue="first") for i in range(rep)])

    def queue_running(prefix: str) -> int:
        return sum(running(cluster, f"{prefix}-{i}") for i in range(rep))

    cluster.wait_until(lambda: queue_running("first") == rep, 120, "first queue fills the cluster")
    cluster.apply([job(f"later-{i}", [Task(req=ONE_CPU)], queue="later") for i in range(rep)])
    cluster.wait_until(lambda: queue_running("first") == half and queue_running("later") == rep - half, 300,
                       "first back to its deserved share, the rest to the later queue")
    cluster.hold(lambda: queue_running("first") == half and queue_running("later") == rep - half, 60,
                 "no eviction below the deserved share")


def test_a_light_user_arriving_later_gets_the_next_free_cpus(cluster: Cluster) -> None:
    """The seed documents' fair-share scenario: alice queues a backlog of 4-CPU jobs, bob submits
    one a minute later; with equal queue weights bob's job starts as soon as the first of alice's
    jobs ends, before the rest of alice's backlog (FIFO would serve alice's backlog first)."""
    rep = cluster_size(cluster, ONE_CPU)
    make_queues(cluster, queue("alice"), queue("bob"))
    alice_jobs = rep // 4 * 2  # twice what fits at once
    for i in range(alice_jobs):
        cluster.apply(job(f"alice-{i}", [Task(rep=4, req=ONE_CPU, duration=f"{600 + 60 * i}s")], queue="alice"))
    cluster.sleep(60)
    cluster.apply(job("bob-0", [Task(rep=4, req=ONE_CPU, duration="600s")], queue="bob"))
    first_wave = rep // 4
    cluster.wait_until(lambda: running(cluster, "bob-0") == 4, 1800, "bob's job runs")
    later = [f"alice-{i}" for i in range(first_wave, alice_jobs)]
    assert all(running(cluster, j) == 0 and not any(p["spec"].get("nodeName") for p in cluster.job_pods(j))
               for j in later), "bob waited behind alice's backlog"
