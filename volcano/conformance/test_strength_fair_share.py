"""Hierarchical DRF (drf with ``enableHierarchy``, scheduler reference §5.3): queues are ordered by
their dominant share divided by their weight in the ``volcano.sh/hierarchy`` tree, so two queues
competing for a full cluster split it in the ratio of their hierarchy weights."""

from __future__ import annotations

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import pod, pod_group, queue
from volcano.conformance.lib.waits import bound

pytestmark = pytest.mark.fairshare

HDRF_CONF = """\
actions: "enqueue, allocate"
tiers:
- plugins:
  - name: priority
  - name: gang
- plugins:
  - name: drf
    enableHierarchy: true
  - name: predicates
  - name: nodeorder
"""


def _hierarchy_queue(name: str, weight: int) -> dict:
    q = queue(name)
    q["metadata"]["annotations"] = {"volcano.sh/hierarchy": f"root/{name}",
                                    "volcano.sh/hierarchy-weights": f"1/{weight}"}
    return q


@pytest.mark.cluster(workers=2, cpu="4")
@pytest.mark.scheduler_conf(HDRF_CONF)
@pytest.mark.parametrize(("weights", "split"), [((1, 1), (4, 4)), ((1, 3), (2, 6)), ((3, 1), (6, 2))])
def test_hierarchy_weights_split_a_full_cluster(cluster: Cluster, weights: tuple[int, int],
                                                split: tuple[int, int]) -> None:
    """Queues ``qa`` and ``qb`` under ``root`` with hierarchy weights ``weights``, each with a job of
    8 one-CPU pods (minMember 1), waiting together while fillers hold both 4-CPU workers: once the
    fillers go, the 8 CPUs are shared in the ratio of the weights, whatever the creation order."""
    workers = [w["metadata"]["name"] for w in cluster.worker_nodes()]
    fillers = [f"filler-{i}" for i in range(len(workers))]
    cluster.apply([pod(f, req={"cpu": "4"}, node_selector={"kubernetes.io/hostname": w}, grace_seconds=0)
                   for f, w in zip(fillers, workers, strict=True)])
    cluster.wait_until(lambda: all(bound(cluster.get("Pod", f)) for f in fillers), 60, "fillers bound")
    for name, weight in zip(("qa", "qb"), weights, strict=True):
        cluster.apply(_hierarchy_queue(name, weight))
    for q in ("qb", "qa"):
        cluster.apply(pod_group(f"job-{q}", min_member=1, queue=q))
        cluster.apply([pod(f"{q}-{i}", group=f"job-{q}", req={"cpu": "1"}) for i in range(8)])
    cluster.wait_until(lambda: len([p for p in cluster.pods() if p["metadata"]["name"].startswith("q")]) == 16, 60,
                       "the 16 pods created")
    for f in fillers:
        cluster.delete("Pod", f)

    def placed() -> tuple[int, int]:
        pods = [p for p in cluster.pods() if bound(p) and not p["metadata"].get("deletionTimestamp")]
        return (sum(1 for p in pods if p["metadata"]["name"].startswith("qa-")),
                sum(1 for p in pods if p["metadata"]["name"].startswith("qb-")))

    cluster.wait_until(lambda: sum(placed()) == 8, 120, "the 8 CPUs taken")
    assert placed() == split
    cluster.hold(lambda: placed() == split, 20, f"the split stays {split}")


# gang's victim rule off (it would decide in the first tier, before drf is asked)
HDRF_RECLAIM_CONF = HDRF_CONF.replace('"enqueue, allocate"', '"enqueue, allocate, reclaim"').replace(
    "  - name: gang\n", "  - name: gang\n    enableReclaimable: false\n")


@pytest.mark.reclaim
@pytest.mark.cluster(workers=2, cpu="4")
@pytest.mark.scheduler_conf(HDRF_RECLAIM_CONF)
@pytest.mark.parametrize(("weights", "gang", "split"), [((1, 1), 1, (7, 1)), ((1, 1), 3, (5, 3)),
                                                        ((1, 1), 4, (8, 0)), ((1, 3), 5, (3, 5)),
                                                        ((1, 3), 6, (8, 0))])
def test_hierarchy_weights_decide_what_a_queue_reclaims(cluster: Cluster, weights: tuple[int, int], gang: int,
                                                        split: tuple[int, int]) -> None:
    """``qa`` runs 8 one-CPU pods (minMember 1) on both 4-CPU workers (12 CPUs with the control
    plane's, so CPU stays in demand and neither job is saturated); then ``qb`` (hierarchy weights
    ``weights`` against qa) brings 8 pods with minMember ``gang``. With gang's victim rule off, hdrf
    decides: qb may take a pod from qa while qb's weighted share with it stays below qa's without it
    (equal shares do not do), and reclaim stops once qb is no longer starving. With equal weights the
    third pod goes (3 < 5), the fourth would make 4 against 4; with qb weighing 3 the fifth goes
    (5 / 3 < 3), the sixth would make 2 against 2. A gang the rule cannot complete takes nothing."""
    for name, weight in zip(("qa", "qb"), weights, strict=True):
        cluster.apply(_hierarchy_queue(name, weight))
    cluster.apply(pod_group("job-qa", min_member=1, queue="qa"))
    cluster.apply([pod(f"qa-{i}", group="job-qa", req={"cpu": "1"}, grace_seconds=0) for i in range(8)])
    cluster.wait_until(lambda: sum(1 for p in cluster.pods() if bound(p)) == 8, 60, "qa runs 8 pods")
    cluster.apply(pod_group("job-qb", min_member=gang, queue="qb"))
    cluster.apply([pod(f"qb-{i}", group="job-qb", req={"cpu": "1"}, grace_seconds=0) for i in range(8)])

    def placed() -> tuple[int, int]:
        pods = [p for p in cluster.pods() if bound(p) and not p["metadata"].get("deletionTimestamp")]
        return (sum(1 for p in pods if p["metadata"]["name"].startswith("qa-")),
                sum(1 for p in pods if p["metadata"]["name"].startswith("qb-")))

    cluster.wait_until(lambda: placed() == split, 300, f"the split reaches {split}")
    cluster.hold(lambda: placed() == split, 60, f"the split stays {split}")


def _path_queue(name: str, path: str, weights: str) -> dict:
    q = queue(name)
    q["metadata"]["annotations"] = {"volcano.sh/hierarchy": path, "volcano.sh/hierarchy-weights": weights}
    return q


@pytest.mark.cluster(workers=2, cpu="4")
@pytest.mark.scheduler_conf(HDRF_CONF)
def test_an_inner_queue_counts_its_hungry_children_at_the_smaller_share(cluster: Cluster) -> None:
    """``root/a/x`` (weight 1), ``root/a/y`` (weight 3) and ``root/b``, each with 8 one-CPU pods waiting
    while fillers hold both workers (CPU stays in demand: the control plane's 4 CPUs count in the
    total). ``a``'s allocation is not the sum of its children's: a child that still wants more counts
    scaled to the smallest share among such children, so with x at 1 pod and y at 3, ``a`` counts as 2
    pods and goes before ``b`` at 3. The 8 CPUs end 2 / 3 / 3 (x / y / b), not the 1 / 3 / 4 that
    adding x's and y's pods up would give."""
    workers = [w["metadata"]["name"] for w in cluster.worker_nodes()]
    fillers = [f"filler-{i}" for i in range(len(workers))]
    cluster.apply([pod(f, req={"cpu": "4"}, node_selector={"kubernetes.io/hostname": w}, grace_seconds=0)
                   for f, w in zip(fillers, workers, strict=True)])
    cluster.wait_until(lambda: all(bound(cluster.get("Pod", f)) for f in fillers), 60, "fillers bound")
    cluster.apply([_path_queue("x", "root/a/x", "1/1/1"), _path_queue("y", "root/a/y", "1/1/3"),
                   _path_queue("b", "root/b", "1/1")])
    for q in ("x", "y", "b"):
        cluster.apply(pod_group(f"job-{q}", min_member=1, queue=q))
        cluster.apply([pod(f"{q}-{i}", group=f"job-{q}", req={"cpu": "1"}) for i in range(8)])
    cluster.wait_until(lambda: len([p for p in cluster.pods() if p["metadata"]["name"][:2] in ("x-", "y-", "b-")])
                       == 24, 60, "the 24 pods created")
    for f in fillers:
        cluster.delete("Pod", f)

    def placed() -> tuple[int, ...]:
        pods = [p for p in cluster.pods() if bound(p) and not p["metadata"].get("deletionTimestamp")]
        return tuple(sum(1 for p in pods if p["metadata"]["name"].startswith(f"{q}-")) for q in ("x", "y", "b"))

    cluster.wait_until(lambda: sum(placed()) == 8, 120, "the 8 CPUs taken")
    assert placed() == (2, 3, 3)
    cluster.hold(lambda: placed() == (2, 3, 3), 20, "the split stays")
