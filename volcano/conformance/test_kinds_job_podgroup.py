"""The Job controller's PodGroup ``spec.minResources`` (controllers reference, PodGroup creation;
upstream ``calcPGMinResources``): the tasks are taken in priority order (higher pod priority class
first, then spec order); each task's ``minAvailable`` pods count first, up to the Job's
``minAvailable``; if that leaves pods to count, each task's pods beyond its ``minAvailable`` count next,
in the same order, until the Job's ``minAvailable`` is reached.

Shape: task ``a`` (3 pods of 1 CPU, minAvailable 1) and task ``b`` (2 pods of 2 CPUs, minAvailable
1), the Job's minAvailable from 2 to 5; with ``b`` of a higher priority class it counts first.
"""

from __future__ import annotations

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import Task, job
from volcano.conformance.lib.waits import pg_name
from volcano.conformance.test_scheduling_support import make_priority_classes

pytestmark = [pytest.mark.job_lifecycle, pytest.mark.cluster(workers=1, cpu="2")]


@pytest.mark.parametrize(("job_min", "b_first", "b_min", "cpu"), [
    (2, False, 1, "3"),   # a 1 + b 2: the tasks' minAvailable
    (3, False, 1, "4"),   # + one more a
    (4, False, 1, "5"),   # + two more a
    (5, False, 1, "7"),   # + two more a and one more b
    (3, True, 1, "5"),    # b first: b 2 + a 1, then one more b
    (4, True, 1, "6"),    # + one more a
    (4, True, 2, "6"),    # b's minAvailable is all its pods: b 4 + a 1, then one more a (b has none left)
])
def test_min_resources_counts_min_available_pods_first_in_priority_order(cluster: Cluster, job_min: int,
                                                                         b_first: bool, b_min: int, cpu: str) -> None:
    """Task ``b`` of minAvailable ``b_min``: the PodGroup asks ``cpu`` CPUs (and as many ``pods`` as the
    Job's minAvailable)."""
    make_priority_classes(cluster, {"kjp-high": 100})
    name = f"kjp-{job_min}-{'b' if b_first else 'a'}{b_min}"
    cluster.apply(job(name, [Task(name="a", rep=3, min_available=1, req={"cpu": "1"}),
                             Task(name="b", rep=2, min_available=b_min, req={"cpu": "2"},
                                  priority_class="kjp-high" if b_first else None)], min=job_min))
    cluster.wait_until(lambda: bool(pg_name(cluster, name)), 60, f"{name}'s PodGroup")
    spec = cluster.get("PodGroup", pg_name(cluster, name))["spec"]
    assert spec["minMember"] == job_min
    assert spec["minTaskMember"] == {"a": 1, "b": b_min}
    assert spec["minResources"].get("cpu") == cpu, spec["minResources"]
    assert spec["minResources"].get("pods") == str(job_min), spec["minResources"]
