"""The capacity plugin with ``enableHierarchy`` (scheduler reference §5.5): jobs belong in leaf
queues. A PodGroup in a queue that has children makes the hierarchy unusable for the session
(Volcano's capacity plugin stops scheduling when a job's queue is not a leaf), so not even a job
in a proper leaf is admitted or placed while it is there; once it goes, the leaf's job runs.
"""

from __future__ import annotations

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import pod, pod_group
from volcano.conformance.lib.waits import bound
from volcano.conformance.test_scheduling_support import make_queues, simple_queue

pytestmark = [pytest.mark.queue, pytest.mark.cluster(workers=1, cpu="4", control_plane=False)]

HIERARCHY_CONF = ('actions: "enqueue, allocate"\ntiers:\n- plugins:\n  - name: priority\n  - name: gang\n'
                  "- plugins:\n  - name: predicates\n  - name: capacity\n    enableHierarchy: true\n"
                  "  - name: nodeorder\n")


@pytest.mark.scheduler_conf(HIERARCHY_CONF)
def test_a_job_in_a_non_leaf_queue_stops_the_hierarchy(cluster: Cluster) -> None:
    """Queue ``inner`` (child of root) with child ``leaf``: a PodGroup in ``inner`` stays Pending, and
    so does one in ``leaf``; deleting the inner PodGroup lets the leaf's pod bind."""
    make_queues(cluster, simple_queue("inner", parent="root"))
    make_queues(cluster, simple_queue("leaf", parent="inner"))
    for q in ("inner", "leaf"):
        cluster.apply(pod_group(f"job-{q}", min_member=1, queue=q, min_resources={"cpu": "1"}))
        cluster.apply(pod(f"{q}-0", group=f"job-{q}", req={"cpu": "1"}))

    def phase(pg: str) -> str:
        return str((cluster.get("PodGroup", pg).get("status") or {}).get("phase") or "Pending")

    cluster.hold(lambda: phase("job-inner") == phase("job-leaf") == "Pending"
                 and not bound(cluster.get("Pod", "leaf-0")) and not bound(cluster.get("Pod", "inner-0")),
                 30, "both PodGroups stay Pending")
    cluster.delete("Pod", "inner-0")
    cluster.delete("PodGroup", "job-inner")
    cluster.wait_until(lambda: bound(cluster.get("Pod", "leaf-0")), 60, "the leaf's pod binds")
