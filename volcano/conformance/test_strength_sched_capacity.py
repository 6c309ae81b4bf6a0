"""The capacity plugin (scheduler reference §5.5), the queue plugin that uses the queues' declared
``deserved`` instead of proportion's weights, flat and with ``enableHierarchy``.

* queue order: the queue with the smaller share (allocated / deserved, its largest dimension) goes
  first and a queue without deserved (best effort) has share 1, after a queue with a deserved of
  equal share; allocate gives a ready job one pod per turn, so two queues competing for a full
  cluster end at their deserved split, and a best-effort queue gets only what is left once the
  other is past its deserved;
* allocation stops at the real capability (``allocated + request <= capability``, the limit itself
  allowed), and enqueue admits a PodGroup while ``minResources + allocated + inqueue`` stays within
  it;
* in a hierarchy a child inherits the cpu and memory its capability leaves unset from its parent,
  and its real capability is the parent's less its siblings' guarantees (plus its own guarantee).
"""

from __future__ import annotations

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import pod, pod_group
from volcano.conformance.lib.waits import bound
from volcano.conformance.test_scheduling_support import make_queues, simple_queue

pytestmark = pytest.mark.queue

CAPACITY_CONF = """\
actions: "enqueue, allocate"
tiers:
- plugins:
  - name: priority
  - name: gang
- plugins:
  - name: predicates
  - name: capacity
  - name: nodeorder
"""
HIERARCHY_CONF = CAPACITY_CONF.replace("  - name: capacity\n", "  - name: capacity\n    enableHierarchy: true\n")


def _live_bound(cluster: Cluster, prefix: str) -> int:
    return sum(1 for p in cluster.pods() if p["metadata"]["name"].startswith(prefix) and bound(p)
               and not p["metadata"].get("deletionTimestamp"))


def _fill_then_free(cluster: Cluster, jobs: dict[str, int]) -> None:
    """Fillers hold every worker while ``jobs`` ({queue: pods}, one-CPU pods, minMember 1, a PodGroup
    ``job-<queue>`` each) are created; then the fillers go, so every job competes for the whole cluster
    at once."""
    workers = [w["metadata"]["name"] for w in cluster.worker_nodes()]
    fillers = [f"filler-{i}" for i in range(len(workers))]
    cluster.apply([pod(f, req={"cpu": "4"}, node_selector={"kubernetes.io/hostname": w}, grace_seconds=0)
                   for f, w in zip(fillers, workers, strict=True)])
    cluster.wait_until(lambda: all(bound(cluster.get("Pod", f)) for f in fillers), 60, "fillers bound")
    for q, count in jobs.items():
        cluster.apply(pod_group(f"job-{q}", min_member=1, queue=q))
        cluster.apply([pod(f"{q}-{i}", group=f"job-{q}", req={"cpu": "1"}, grace_seconds=0) for i in range(count)])
    total = sum(jobs.values())
    cluster.wait_until(lambda: sum(1 for p in cluster.pods() if p["metadata"]["name"].startswith("q")) == total,
                       60, f"the {total} pods created")
    for f in fillers:
        cluster.delete("Pod", f)


def _split(cluster: Cluster, queues: tuple[str, ...], want: tuple[int, ...]) -> None:
    def placed() -> tuple[int, ...]:
        return tuple(_live_bound(cluster, f"{q}-") for q in queues)

    cluster.wait_until(lambda: sum(placed()) == sum(want), 120, f"{sum(want)} CPUs taken")
    assert placed() == want
    cluster.hold(lambda: placed() == want, 20, f"the split stays {want}")


@pytest.mark.fairshare
@pytest.mark.cluster(workers=2, cpu="4")
@pytest.mark.scheduler_conf(CAPACITY_CONF)
@pytest.mark.parametrize(("deserved", "split"), [((2, 6), (2, 6)), ((4, 4), (4, 4)), ((6, 2), (6, 2)),
                                                 ((1, 3), (2, 6))])
def test_two_queues_split_a_full_cluster_by_deserved(cluster: Cluster, deserved: tuple[int, int],
                                                     split: tuple[int, int]) -> None:
    """Queues ``qa`` and ``qb`` with deserved cpu ``deserved``, a job of 8 one-CPU pods each (minMember
    1) waiting while fillers hold both 4-CPU workers: once they go, the queue with the smaller share
    takes the next pod, so the 8 CPUs end split in the ratio of the deserved amounts."""
    make_queues(cluster, simple_queue("qa", deserved={"cpu": str(deserved[0])}),
                simple_queue("qb", deserved={"cpu": str(deserved[1])}))
    _fill_then_free(cluster, {"qb": 8, "qa": 8})
    _split(cluster, ("qa", "qb"), split)


@pytest.mark.fairshare
@pytest.mark.cluster(workers=2, cpu="4")
@pytest.mark.scheduler_conf(CAPACITY_CONF)
@pytest.mark.parametrize(("deserved", "split"), [(3, (4, 4)), (4, (5, 3)), (5, (6, 2)), (8, (8, 0))])
def test_a_best_effort_queue_gets_what_is_left_past_the_other_queues_deserved(
        cluster: Cluster, deserved: int, split: tuple[int, int]) -> None:
    """``qa`` deserves ``deserved`` CPUs, ``qb`` declares nothing (best effort: share 1). qa takes
    pods while its share is below 1 and, at exactly 1, once more (a queue with a deserved goes first
    at equal shares); past that qb's share 1 is the smaller and qb takes the rest."""
    make_queues(cluster, simple_queue("qa", deserved={"cpu": str(deserved)}), simple_queue("qb"))
    _fill_then_free(cluster, {"qb": 8, "qa": 8})
    _split(cluster, ("qa", "qb"), split)


@pytest.mark.cluster(workers=2, cpu="4")
@pytest.mark.scheduler_conf(CAPACITY_CONF)
@pytest.mark.parametrize("limit", [2, 3])
def test_allocation_stops_at_the_queue_capability(cluster: Cluster, limit: int) -> None:
    """A queue of capability ``limit`` CPUs and a job of 5 one-CPU pods (minMember 1) on 8 free CPUs:
    exactly ``limit`` pods bind (the capability itself is allowed, one more pod would pass it)."""
    make_queues(cluster, simple_queue("qcap", capability={"cpu": str(limit)}))
    cluster.apply(pod_group("job-qcap", min_member=1, queue="qcap"))
    cluster.apply([pod(f"qcap-{i}", group="job-qcap", req={"cpu": "1"}) for i in range(5)])
    cluster.wait_until(lambda: _live_bound(cluster, "qcap-") == limit, 60, f"{limit} pods bound")
    cluster.hold(lambda: _live_bound(cluster, "qcap-") == limit, 30, f"no more than {limit} pods bound")


@pytest.mark.cluster(workers=2, cpu="4")
@pytest.mark.scheduler_conf(CAPACITY_CONF)
@pytest.mark.parametrize(("milli", "admitted"), [(2999, True), (3000, True), (3001, False)])
def test_enqueue_admits_min_resources_up_to_the_capability(cluster: Cluster, milli: int, admitted: bool) -> None:
    """A queue of capability 3 CPUs: a PodGroup whose minResources ask ``milli`` millicores is admitted
    (Inqueue; its one pod binds) at most at the capability itself, else it stays Pending."""
    make_queues(cluster, simple_queue("qcap", capability={"cpu": "3"}))
    cluster.apply(pod_group("asks", min_member=1, queue="qcap", min_resources={"cpu": f"{milli}m"}))
    cluster.apply(pod("asks-0", group="asks", req={"cpu": "1"}))
    if admitted:
        cluster.wait_until(lambda: bound(cluster.get("Pod", "asks-0")), 60, "the pod binds")
        return
    cluster.hold(lambda: (cluster.get("PodGroup", "asks").get("status") or {}).get("phase", "Pending") == "Pending"
                 and not bound(cluster.get("Pod", "asks-0")), 60, "the PodGroup stays Pending")


@pytest.mark.cluster(workers=2, cpu="4")
@pytest.mark.scheduler_conf(HIERARCHY_CONF)
@pytest.mark.parametrize("parent_cpu", [2, 3])
def test_a_child_queue_inherits_its_parents_capability(cluster: Cluster, parent_cpu: int) -> None:
    """``parent`` (capability ``parent_cpu`` CPUs) has one child ``leaf`` with no capability: a job of 5
    one-CPU pods in ``leaf`` binds exactly ``parent_cpu`` of them."""
    make_queues(cluster, simple_queue("parent", parent="root", capability={"cpu": str(parent_cpu), "memory": "8Gi"}))
    make_queues(cluster, simple_queue("leaf", parent="parent"))
    cluster.apply(pod_group("job-leaf", min_member=1, queue="leaf"))
    cluster.apply([pod(f"leaf-{i}", group="job-leaf", req={"cpu": "1"}) for i in range(5)])
    cluster.wait_until(lambda: _live_bound(cluster, "leaf-") == parent_cpu, 60, f"{parent_cpu} pods bound")
    cluster.hold(lambda: _live_bound(cluster, "leaf-") == parent_cpu, 30, f"no more than {parent_cpu} bound")


@pytest.mark.cluster(workers=2, cpu="4")
@pytest.mark.scheduler_conf(HIERARCHY_CONF)
@pytest.mark.parametrize(("guarantee", "runs"), [(0, 4), (1, 3), (2, 2)])
def test_a_siblings_guarantee_comes_off_a_childs_real_capability(cluster: Cluster, guarantee: int,
                                                               runs: int) -> None:
    """``parent`` (capability 4 CPUs) has children ``kept`` (guarantee ``guarantee`` CPUs, no job) and
    ``busy``: busy's real capability is 4 less kept's guarantee, so a job of 6 one-CPU pods in busy
    binds ``runs`` of them although the cluster has 8 free CPUs."""
    # The parent guarantees what its children do: Volcano's queue webhook refuses a child guarantee its
    # parent's guarantee does not cover (a resource the parent leaves out counts as zero).
    make_queues(cluster, simple_queue("parent", parent="root", capability={"cpu": "4", "memory": "8Gi"},
                                      guarantee={"cpu": "2"}))
    kept = simple_queue("kept", parent="parent", guarantee={"cpu": str(guarantee)} if guarantee else None)
    make_queues(cluster, kept, simple_queue("busy", parent="parent"))
    cluster.apply(pod_group("job-busy", min_member=1, queue="busy"))
    cluster.apply([pod(f"busy-{i}", group="job-busy", req={"cpu": "1"}) for i in range(6)])
    cluster.wait_until(lambda: _live_bound(cluster, "busy-") == runs, 60, f"{runs} pods bound")
    cluster.hold(lambda: _live_bound(cluster, "busy-") == runs, 30, f"no more than {runs} bound")


def _reclaim_conf(level: int) -> str:
    """capacity with hierarchy deciding reclaim victims (in the first tier, gang's victim rule off)."""
    return ('actions: "enqueue, allocate, reclaim"\ntiers:\n- plugins:\n  - name: priority\n  - name: gang\n'
            "    enableReclaimable: false\n  - name: capacity\n    enableHierarchy: true\n    arguments:\n"
            f"      ancestorReclaimLevel: {level}\n- plugins:\n  - name: predicates\n  - name: nodeorder\n")


@pytest.mark.reclaim
@pytest.mark.cluster(workers=2, cpu="4", control_plane=False)
@pytest.mark.parametrize(("level", "pa_deserved", "gang", "runs"), [
    pytest.param(level, pa, gang, runs, marks=pytest.mark.scheduler_conf(_reclaim_conf(level)))
    for level, pa, gang, runs in [(1, 4, 4, 4), (1, 4, 5, 0), (1, 8, 4, 0), (0, 8, 4, 4)]
])
def test_reclaim_checks_the_victims_ancestors_up_to_the_level(cluster: Cluster, level: int, pa_deserved: int,
                                                             gang: int, runs: int) -> None:
    """Queues ``pa`` (deserved ``pa_deserved`` CPUs) > ``pa1`` (4) and ``pb`` (4) > ``pb1`` (4). A job in
    pa1 runs 8 one-CPU pods on the 8 CPUs; a job of 8 pods with minMember ``gang`` comes to pb1. A pod
    of pa1 is a victim while pa1 holds more than it deserves (4 pods at most), and, with
    ``ancestorReclaimLevel`` 1, while pa too holds more than its deserved: with pa deserving 8 nothing
    is taken; with level 0 pa is not looked at. A gang that cannot be completed takes nothing."""
    make_queues(cluster, simple_queue("pa", parent="root", deserved={"cpu": str(pa_deserved)}),
                simple_queue("pb", parent="root", deserved={"cpu": "4"}))
    make_queues(cluster, simple_queue("pa1", parent="pa", deserved={"cpu": "4"}),
                simple_queue("pb1", parent="pb", deserved={"cpu": "4"}))
    cluster.apply(pod_group("job-pa1", min_member=1, queue="pa1"))
    cluster.apply([pod(f"pa1-{i}", group="job-pa1", req={"cpu": "1"}, grace_seconds=0) for i in range(8)])
    cluster.wait_until(lambda: _live_bound(cluster, "pa1-") == 8, 60, "pa1 runs 8 pods")
    cluster.apply(pod_group("job-pb1", min_member=gang, queue="pb1"))
    cluster.apply([pod(f"pb1-{i}", group="job-pb1", req={"cpu": "1"}, grace_seconds=0) for i in range(8)])
    if runs:
        cluster.wait_until(lambda: _live_bound(cluster, "pb1-") == runs, 300, f"pb1 runs {runs} pods")
    want = (8 - runs, runs)
    cluster.hold(lambda: (_live_bound(cluster, "pa1-"), _live_bound(cluster, "pb1-")) == want, 60,
                 f"pa1 and pb1 run {want}")


FLAT_RECLAIM_CONF = ('actions: "enqueue, allocate, reclaim"\ntiers:\n- plugins:\n  - name: priority\n  - name: gang\n'
                     "    enableReclaimable: false\n    enableJobStarving: false\n  - name: capacity\n- plugins:\n"
                     "  - name: predicates\n"
                     "  - name: nodeorder\n")


@pytest.mark.reclaim
@pytest.mark.cluster(workers=2, cpu="4", control_plane=False)
@pytest.mark.scheduler_conf(FLAT_RECLAIM_CONF)
def test_a_queue_reclaims_only_up_to_its_deserved(cluster: Cluster) -> None:
    """Queues ``qa`` and ``qb`` deserve 2 CPUs each; a job in qa runs 8 one-CPU pods on the 8 CPUs.
    A job of 8 pods in qb (minMember 1) reclaims while qb's allocation after the pod stays within its
    deserved: it gets 2 pods, though qa still holds 6, more than its own deserved. (gang's
    JobStarving is off, so priority's decides: the job starves while it has fewer than its 8 pods.)"""
    make_queues(cluster, simple_queue("qa", deserved={"cpu": "2"}), simple_queue("qb", deserved={"cpu": "2"}))
    cluster.apply(pod_group("job-qa", min_member=1, queue="qa"))
    cluster.apply([pod(f"qa-{i}", group="job-qa", req={"cpu": "1"}, grace_seconds=0) for i in range(8)])
    cluster.wait_until(lambda: _live_bound(cluster, "qa-") == 8, 60, "qa runs 8 pods")
    cluster.apply(pod_group("job-qb", min_member=1, queue="qb"))
    cluster.apply([pod(f"qb-{i}", group="job-qb", req={"cpu": "1"}, grace_seconds=0) for i in range(8)])
    cluster.wait_until(lambda: _live_bound(cluster, "qb-") == 2, 120, "qb runs 2 pods")
    cluster.hold(lambda: (_live_bound(cluster, "qa-"), _live_bound(cluster, "qb-")) == (6, 2), 20,
                 "qa and qb run (6, 2)")


@pytest.mark.reclaim
@pytest.mark.cluster(workers=1, cpu="4", memory="8Gi", control_plane=False)
@pytest.mark.scheduler_conf(FLAT_RECLAIM_CONF)
def test_a_victim_asking_one_millicore_counts_on_cpu(cluster: Cluster) -> None:
    """Queue ``qa`` (deserved 1 CPU) holds ``hog`` (2 CPUs, not preemptable) and ``fat`` (1m CPU, 6Gi):
    2.001 CPUs, past its deserved on cpu, the one dimension of ``fat``'s request its deserved has.
    ``needy`` in ``qb`` (deserved 2 CPUs) wants 1 CPU and 6Gi, which only ``fat``'s memory can free:
    ``fat`` is reclaimed and ``needy`` runs."""
    make_queues(cluster, simple_queue("qa", deserved={"cpu": "1"}), simple_queue("qb", deserved={"cpu": "2"}))
    cluster.apply([pod_group("hog", min_member=1, queue="qa"), pod_group("fat", min_member=1, queue="qa")])
    cluster.apply([pod("hog", group="hog", req={"cpu": "2", "memory": "1Gi"}, grace_seconds=0,
                       labels={"volcano.sh/preemptable": "false"}),
                   pod("fat", group="fat", req={"cpu": "1m", "memory": "6Gi"}, grace_seconds=0)])
    cluster.wait_until(lambda: _live_bound(cluster, "hog") + _live_bound(cluster, "fat") == 2, 60, "qa's pods run")
    cluster.apply(pod_group("needy", min_member=1, queue="qb"))
    cluster.apply(pod("needy", group="needy", req={"cpu": "1", "memory": "6Gi"}, grace_seconds=0))
    cluster.wait_until(lambda: _live_bound(cluster, "needy") == 1, 120, "needy runs")
    assert (_live_bound(cluster, "hog"), _live_bound(cluster, "fat")) == (1, 0)
