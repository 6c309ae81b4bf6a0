"""The capacity plugin's queue callbacks (scheduler reference §5.5):

* queue order: ``spec.priority`` first (Volcano v1.10+): the queue of higher priority goes first,
  whatever its share; shares decide only between queues of equal priority. Capacity registers no
  overused function, so a higher-priority queue with pods left keeps taking the next free CPU;
* allocatable: only an Open queue takes pods; a Closing queue (closed while a PodGroup remains,
  controllers reference §6.2) takes no new pod, even for a PodGroup already running in it;

and, under the default configuration, a queue's ``status.allocated`` counted in its ancestors.
"""

from __future__ import annotations

import pytest

from volcano.api.resources import Resources
from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import pod, pod_group, queue_command
from volcano.conformance.lib.waits import bound
from volcano.conformance.test_scheduling_support import make_queues, simple_queue

pytestmark = [pytest.mark.fairshare, pytest.mark.cluster(workers=2, cpu="4", control_plane=False)]

CAPACITY_CONF = ('actions: "enqueue, allocate"\ntiers:\n- plugins:\n  - name: priority\n  - name: gang\n'
                 "- plugins:\n  - name: predicates\n  - name: capacity\n  - name: nodeorder\n")


def _live_bound(cluster: Cluster, prefix: str) -> int:
    return sum(1 for p in cluster.pods() if p["metadata"]["name"].startswith(prefix) and bound(p)
               and not p["metadata"].get("deletionTimestamp"))


@pytest.mark.scheduler_conf(CAPACITY_CONF)
@pytest.mark.parametrize(("priorities", "split"), [((0, 10), (0, 8)), ((10, 0), (8, 0)), ((5, 5), (4, 4)),
                                                   ((0, 1), (0, 8))])
def test_the_higher_priority_queue_takes_the_freed_cluster(cluster: Cluster, priorities: tuple[int, int],
                                                           split: tuple[int, int]) -> None:
    """Queues ``qa`` and ``qb`` (deserved 4 CPUs each, ``spec.priority`` ``priorities``) each with a job of
    8 one-CPU pods (minMember 1) waiting while fillers hold both 4-CPU workers: once the fillers go,
    the higher-priority queue binds all 8; at equal priority the shares split the CPUs 4/4."""
    qa, qb = simple_queue("qa", deserved={"cpu": "4"}), simple_queue("qb", deserved={"cpu": "4"})
    qa["spec"]["priority"], qb["spec"]["priority"] = priorities
    make_queues(cluster, qa, qb)
    workers = sorted(w["metadata"]["name"] for w in cluster.worker_nodes())
    fillers = [f"filler-{i}" for i in range(len(workers))]
    cluster.apply([pod(f, req={"cpu": "4"}, node_selector={"kubernetes.io/hostname": w}, grace_seconds=0)
                   for f, w in zip(fillers, workers, strict=True)])
    cluster.wait_until(lambda: all(bound(cluster.get("Pod", f)) for f in fillers), 60, "fillers bound")
    for q in ("qa", "qb"):
        cluster.apply(pod_group(f"job-{q}", min_member=1, queue=q))
        cluster.apply([pod(f"{q}-{i}", group=f"job-{q}", req={"cpu": "1"}, grace_seconds=0) for i in range(8)])
    cluster.wait_until(lambda: sum(1 for p in cluster.pods() if p["metadata"]["name"][:3] in ("qa-", "qb-")) == 16,
                       60, "the 16 pods created")
    for f in fillers:
        cluster.delete("Pod", f)

    def placed() -> tuple[int, int]:
        return _live_bound(cluster, "qa-"), _live_bound(cluster, "qb-")

    cluster.wait_until(lambda: sum(placed()) == 8, 120, "8 CPUs taken")
    assert placed() == split
    cluster.hold(lambda: placed() == split, 20, f"the split stays {split}")


@pytest.mark.scheduler_conf(CAPACITY_CONF)
def test_a_closing_queue_takes_no_new_pod(cluster: Cluster) -> None:
    """A PodGroup runs one pod in queue ``shut``; after CloseQueue the queue is Closing and a second pod
    of the same PodGroup stays unbound."""
    make_queues(cluster, simple_queue("shut", deserved={"cpu": "4"}))
    cluster.apply(pod_group("grp", min_member=1, queue="shut"))
    cluster.apply(pod("grp-0", group="grp", req={"cpu": "1"}))
    cluster.wait_until(lambda: bound(cluster.get("Pod", "grp-0")), 60, "the first pod binds")
    cluster.apply(queue_command(cluster.get("Queue", "shut"), "CloseQueue"))

    def state() -> str:
        return str((cluster.get("Queue", "shut").get("status") or {}).get("state") or "")

    cluster.wait_until(lambda: state() == "Closing", 60, "the queue Closing")
    cluster.apply(pod("grp-1", group="grp", req={"cpu": "1"}))
    cluster.hold(lambda: state() == "Closing" and not bound(cluster.get("Pod", "grp-1")), 20,
                 "the Closing queue takes no new pod")


def _allocated(cluster: Cluster, q: str) -> Resources:
    return Resources.from_k8s((cluster.get("Queue", q).get("status") or {}).get("allocated") or {})


def test_a_queues_allocation_counts_in_its_ancestors(cluster: Cluster) -> None:
    """Scheduler reference §8.4: at session close each queue's ``status.allocated`` is the sum of its
    jobs' placed tasks and, as a queue named ``root`` exists, every ancestor up the ``spec.parent``
    chain (to root) counts them too. Queue ``cov-leaf`` (parent ``cov-mid``, parent root) runs two
    pods of 500m and 1Gi: cov-leaf, cov-mid and root each show 1 CPU and 2Gi."""
    make_queues(cluster, simple_queue("cov-mid", parent="root"))
    make_queues(cluster, simple_queue("cov-leaf", parent="cov-mid"))
    req = {"cpu": "500m", "memory": "1Gi"}
    cluster.apply(pod_group("leafjob", min_member=2, queue="cov-leaf"))
    cluster.apply([pod(f"leafjob-{i}", group="leafjob", req=req) for i in range(2)])

    def shown(*queues: str) -> tuple[tuple[int, int], ...]:
        return tuple((_allocated(cluster, q).get("cpu"), _allocated(cluster, q).get("memory")) for q in queues)

    two = (1000, 2 * 1024**3 * 1000)
    cluster.wait_until(lambda: shown("cov-leaf", "cov-mid", "root") == (two, two, two), 120,
                       "1 CPU and 2Gi in cov-leaf, cov-mid and root")
