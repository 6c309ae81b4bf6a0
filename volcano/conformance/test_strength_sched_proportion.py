"""proportion's allocatable check (scheduler reference §5.4): a task is allocated only while
``allocated + request <= capability`` for its queue, counting what the same scheduling cycle has
already allocated once each, so a gang exactly at the queue's capability runs and one pod more
does not.
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
