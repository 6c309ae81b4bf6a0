"""Jobs of a queue that extends to other clusters (controllers reference §1.1, ``extendClusters``):
the Job controller marks the Job with the annotation ``volcano.sh/job-forwarding: "true"`` (a spec
update) and every pod it creates with the same label and annotation; a Job of a queue without
``extendClusters`` gets neither.
"""

from __future__ import annotations

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import Task, job, queue
from volcano.conformance.test_scheduling_support import make_queues

pytestmark = pytest.mark.job_lifecycle
FORWARDING = "volcano.sh/job-forwarding"


@pytest.mark.parametrize("extended", [True, False])
def test_a_queue_with_extend_clusters_marks_its_jobs_and_pods_for_forwarding(cluster: Cluster,
                                                                            extended: bool) -> None:
    """Queue ``fwd`` with one extra cluster (or none) and a Job of two pods in it."""
    q = queue("fwd")
    if extended:
        q["spec"]["extendClusters"] = [{"name": "member-1", "weight": 1}]
    make_queues(cluster, q)
    name = "forwarded"
    cluster.apply(job(name, [Task(name="a", rep=2, req={})], min=1, queue="fwd"))
    cluster.wait_until(lambda: len(cluster.job_pods(name)) == 2, 60, f"pods of {name} created")
    want = "true" if extended else None
    annotations = cluster.get("Job", name)["metadata"].get("annotations") or {}
    assert annotations.get(FORWARDING) == want
    for p in cluster.job_pods(name):
        meta = p["metadata"]
        assert ((meta.get("labels") or {}).get(FORWARDING), (meta.get("annotations") or {}).get(FORWARDING)) \
            == (want, want), meta["name"]
