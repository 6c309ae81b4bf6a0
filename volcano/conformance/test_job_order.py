"""Job order inside one queue: DRF serves the job with the lower dominant share first.

Both jobs are ready gangs of equal priority, so neither priority nor gang's "not ready first"
decides and the order falls to drf's jobOrder (reference §5.3: the job with the smaller dominant
share of the cluster comes first; ties by creation time). Built from bare PodGroups and pods so
no controller recreates what the case deletes.
"""

from __future__ import annotations

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import pod, pod_group
from volcano.conformance.lib.sizing import cluster_size
from volcano.conformance.lib.waits import bound

pytestmark = pytest.mark.fairshare
ONE_CPU = {"cpu": "1"}


def _bound(cluster: Cluster, prefix: str) -> list[str]:
    return sorted(p["metadata"]["name"] for p in cluster.pods() if p["metadata"]["name"].startswith(prefix)
                  and bound(p) and not p["metadata"].get("deletionTimestamp"))


def _submit(cluster: Cluster, group: str, first: int, count: int) -> list[str]:
    names = [f"{group}-{i}" for i in range(first, first + count)]
    cluster.apply([pod(n, group=group, req=ONE_CPU, grace_seconds=0) for n in names])
    return names


@pytest.mark.parametrize("freed", [1, 4])
def test_freed_cpus_go_to_the_job_with_the_lower_dominant_share(cluster: Cluster, freed: int) -> None:
    """Job ``big`` runs 3/4 of the CPUs and ``small`` the last quarter; both have more pods
    pending. When ``freed`` of big's pods end, the freed CPUs go to small (lower share), although
    big is older and asked first."""
    rep = cluster_size(cluster, ONE_CPU)
    quarter = rep // 4
    cluster.apply(pod_group("big", min_member=1))
    _submit(cluster, "big", 0, rep - quarter)
    cluster.wait_until(lambda: len(_bound(cluster, "big-")) == rep - quarter, 120, "big runs 3/4 of the cluster")
    cluster.apply(pod_group("small", min_member=1))
    _submit(cluster, "small", 0, quarter + freed)
    cluster.wait_until(lambda: len(_bound(cluster, "small-")) == quarter, 120, "small runs the last quarter")
    _submit(cluster, "big", rep - quarter, freed)
    cluster.hold(lambda: len(_bound(cluster, "big-")) == rep - quarter, 10, "the cluster is full")
    for name in _bound(cluster, "big-")[:freed]:
        cluster.delete("Pod", name)
    cluster.wait_until(lambda: len(_bound(cluster, "small-")) == quarter + freed, 120,
                       f"small gets the {freed} freed CPUs")
    cluster.hold(lambda: len(_bound(cluster, "big-")) == rep - quarter - freed, 30, "big gets none of them")
