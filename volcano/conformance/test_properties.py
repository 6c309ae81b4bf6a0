"""Property scenarios: random small clusters, queues and gang jobs, run to quiescence on the
memory backend. Whatever the draw, the conformance invariants hold over the whole recorded
history, and every job either runs or its PodGroup explains why not (an ``Unschedulable``
condition or event).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from volcano.conformance.backends.base import ClusterShape, NodeShape
from volcano.conformance.backends.memory import MemoryCluster
from volcano.conformance.lib.builders import Task, job, queue
from volcano.conformance.lib.invariants import check_invariants
from volcano.conformance.lib.waits import READY_PHASES, count_phase, pod_group_of
from volcano.conformance.test_scheduling_support import make_queues

Obj = dict[str, Any]

job_spec = st.fixed_dictionaries({
    "rep": st.integers(1, 4),
    "min": st.integers(1, 4),
    "cpu": st.sampled_from(["500m", "1", "2"]),
    "queue": st.integers(0, 2),
    "duration": st.sampled_from([None, "20s", "60s"]),
})

scenario = st.fixed_dictionaries({
    "seed": st.integers(0, 2**16),
    "workers": st.integers(1, 3),
    "cpu": st.sampled_from(["2", "4"]),
    "queues": st.integers(1, 3),
    "jobs": st.lists(job_spec, min_size=1, max_size=5),
})


def _explained(cluster: MemoryCluster, name: str) -> bool:
    """The Job's PodGroup carries an Unschedulable condition or event."""
    pg = pod_group_of(cluster, name)
    if pg is None:
        return False
    conds = pg.get("status", {}).get("conditions") or []
    if any(c.get("type") == "Unschedulable" and c.get("status") == "True" for c in conds):
        return True
    pg_name = pg["metadata"]["name"]
    return any(e.get("reason") in ("Unschedulable", "FailedScheduling")
               and (e.get("involvedObject") or {}).get("name") == pg_name for e in cluster.events())


def _runs_or_ran(cluster: MemoryCluster, name: str, min_available: int) -> bool:
    phase = (cluster.try_get("Job", name) or {}).get("status", {}).get("state", {}).get("phase")
    if phase in ("Running", "Completed", "Completing"):
        return True
    return count_phase(cluster.job_pods(name), READY_PHASES) >= min_available


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenario)
@pytest.mark.gang
def test_random_gangs_keep_invariants_and_explain_waiting_jobs(s: dict[str, Any]) -> None:
    shape = ClusterShape(workers=s["workers"], node=NodeShape(cpu=s["cpu"], memory="8Gi"))
    cluster = MemoryCluster(shape, seed=s["seed"])
    try:
        queues = ["default"] + [f"pq{i}" for i in range(1, s["queues"])]
        if len(queues) > 1:
            make_queues(cluster, *(queue(q) for q in queues[1:]))
        mins: dict[str, int] = {}
        for i, j in enumerate(s["jobs"]):
            name = f"pj{i}"
            minimum = min(j["min"], j["rep"])
            mins[name] = minimum
            cluster.apply(job(name, [Task(req={"cpu": j["cpu"]}, rep=j["rep"], min=minimum,
                                          duration=j["duration"])],
                              queue=queues[j["queue"] % len(queues)]))
        cluster.sleep(30)
        # Nodes created before the backend's watches started are added to the front of the
        # history (a repeated ADDED of the same state is harmless).
        nodes = [(0.0, "Node", "ADDED", n) for n in cluster.list("Node", "*")]
        violations = check_invariants(nodes + cluster.recorded_history())
        assert not violations, violations
        for name, minimum in sorted(mins.items()):
            assert _runs_or_ran(cluster, name, minimum) or _explained(cluster, name), \
                f"job {name} neither runs nor has a PodGroup condition/event explaining why"
    finally:
        cluster.close()
