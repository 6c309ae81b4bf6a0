"""proportion's allocatable check (scheduler reference §5.4): a task is allocated only while
``allocated + request <= capability`` for its queue, counting what the same scheduling cycle has
already allocated once each, so a gang exactly at the queue's capability runs and one pod more
does not. Reclaim takes from a queue only while its allocation exceeds its deserved (weighted
water-filling of the cluster, exact to the millicore): one millicore over is enough, at the
deserved itself nothing is taken.
"""

from __future__ import annotations

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import pod, pod_group
from volcano.conformance.lib.waits import bound
from volcano.conformance.test_scheduling_support import CI_CONF, make_queues, simple_queue

pytestmark = pytest.mark.queue


@pytest.mark.cluster(workers=2, cpu="4")
@pytest.mark.scheduler_conf(CI_CONF)
@pytest.mark.parametrize(("gang", "runs"), [(3, True), (4, True), (5, False)])
def test_a_gang_runs_up_to_its_queues_capability(cluster: Cluster, gang: int, runs: bool) -> None:
    """A queue of capability 4 CPUs and a gang of ``gang`` one-CPU pods (minMember = pods) on 8 free
    CPUs: it runs at 4 pods and below; at 5 nothing binds."""
    make_queues(cluster, simple_queue("capped", capability={"cpu": "4"}))
    cluster.apply(pod_group("gang", min_member=gang, queue="capped"))
    names = [f"gang-{i}" for i in range(gang)]
    cluster.apply([pod(n, group="gang", req={"cpu": "1"}) for n in names])

    def placed() -> int:
        return sum(1 for n in names if bound(cluster.get("Pod", n)))

    if runs:
        cluster.wait_until(lambda: placed() == gang, 60, "the gang runs")
    else:
        cluster.hold(lambda: placed() == 0, 30, "nothing binds")


@pytest.mark.reclaim
@pytest.mark.cluster(workers=2, cpu="2", control_plane=False)
@pytest.mark.scheduler_conf(CI_CONF)
@pytest.mark.parametrize(("big", "reclaims"), [("2000m", True), ("1999m", False)])
def test_a_queue_one_millicore_over_its_deserved_loses_a_pod(cluster: Cluster, big: str, reclaims: bool) -> None:
    """Two queues of equal weight on 4 CPUs deserve 2 CPUs each. ``held`` runs a ``big`` pod on one
    worker and a 1m pod on the other; ``wanting`` asks for a 2-CPU pod, which fits nowhere. With
    ``held`` at 2001m (one millicore over its deserved) reclaim evicts one of its pods and the 2-CPU
    pod binds; at 2000m, exactly its deserved, nothing is reclaimed and it stays pending."""
    make_queues(cluster, simple_queue("held"), simple_queue("wanting"))
    workers = sorted(w["metadata"]["name"] for w in cluster.worker_nodes())
    held = []
    for name, cpu, worker in (("held-big", big, workers[0]), ("held-tiny", "1m", workers[1])):
        cluster.apply(pod_group(name, min_member=1, queue="held"))
        cluster.apply(pod(name, group=name, req={"cpu": cpu}, labels={"volcano.sh/preemptable": "true"},
                          node_selector={"kubernetes.io/hostname": worker}, grace_seconds=0))
        held.append(name)
    cluster.wait_until(lambda: all(bound(cluster.get("Pod", n)) for n in held), 60, "held pods bound")
    cluster.apply(pod_group("wanting", min_member=1, queue="wanting"))
    cluster.apply(pod("wanting", group="wanting", req={"cpu": "2"}))
    if reclaims:
        cluster.wait_until(lambda: bound(cluster.get("Pod", "wanting")), 120, "the 2-CPU pod binds")
        assert sum(1 for n in held if cluster.try_get("Pod", n) is not None) == 1, "one held pod evicted"
    else:
        cluster.hold(lambda: not bound(cluster.get("Pod", "wanting")) and all(
            cluster.try_get("Pod", n) is not None for n in held), 60, "nothing reclaimed")


@pytest.mark.cluster(workers=1, cpu="4", memory="8Gi", control_plane=False)
@pytest.mark.scheduler_conf(CI_CONF)
def test_queues_asking_more_memory_than_the_cluster_has_still_share_it(cluster: Cluster) -> None:
    """Queues ``qa`` and ``qb`` (weight 1) each ask 4 pods of 1 CPU and 3Gi of the one 4-CPU, 8Gi worker:
    the first round of proportion's water-filling hands out all the memory (4Gi each, nothing left),
    and each queue runs one pod (a third would not fit the node's memory)."""
    make_queues(cluster, simple_queue("qa"), simple_queue("qb"))
    for q in ("qa", "qb"):
        cluster.apply(pod_group(f"job-{q}", min_member=1, queue=q))
        cluster.apply([pod(f"{q}-{i}", group=f"job-{q}", req={"cpu": "1", "memory": "3Gi"}) for i in range(4)])

    def placed(q: str) -> int:
        return sum(1 for i in range(4) if bound(cluster.get("Pod", f"{q}-{i}")))

    cluster.wait_until(lambda: placed("qa") + placed("qb") == 2, 60, "two pods bound")
    assert (placed("qa"), placed("qb")) == (1, 1)
