"""The Job controller's account of a PodGroup the scheduler cannot place (controllers reference
§2.3 step 4): each sync of a Job whose PodGroup's latest True condition is not ``Scheduled`` records a
``Warning`` event ``PodGroupPending`` on the Job, "PodGroup <namespace>:<job> <condition type in
lower case>, reason: <condition message>".
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import Task, job
from volcano.conformance.lib.waits import pod_group_of

pytestmark = pytest.mark.job_lifecycle
Obj = dict[str, Any]


@pytest.mark.cluster(workers=2, cpu="4", memory="16Gi", control_plane=False)
def test_a_job_reports_its_unschedulable_podgroup(cluster: Cluster) -> None:
    """Three 2.5-CPU pods, minAvailable 3, on two 4-CPU workers: the PodGroup is admitted (7.5 of 8
    CPUs) but only two pods fit, so it carries ``Unschedulable`` True; the Job gets a Warning
    ``PodGroupPending`` quoting that condition's message."""
    name = "pgpending"
    cluster.apply(job(name, [Task(name="t", rep=3, req={"cpu": "2500m"})], min=3))

    def condition() -> Obj | None:
        pg = pod_group_of(cluster, name)
        conds = ((pg or {}).get("status") or {}).get("conditions") or []
        return next((c for c in conds if c.get("type") == "Unschedulable" and c.get("status") == "True"), None)

    cluster.wait_until(lambda: condition() is not None, 120, "the Unschedulable condition")

    def reported() -> list[Obj]:
        return [e for e in cluster.events("Job", name) if e.get("reason") == "PodGroupPending"]

    cluster.wait_until(lambda: bool(reported()), 120, "a PodGroupPending event on the Job")
    cond = condition()
    assert cond is not None
    ns = cluster.get("Job", name)["metadata"]["namespace"]
    want = f"PodGroup {ns}:{name} unschedulable, reason: {cond['message']}"
    cluster.wait_until(lambda: any(e.get("message") == want for e in reported()), 60, repr(want))
    assert {e.get("type") for e in reported()} == {"Warning"}
