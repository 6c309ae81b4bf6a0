"""``dependsOn`` with ``iteration`` (controllers reference §2.9): the pods of a task that depends on
other tasks are created once its dependencies are ready, all of them by default and with
``iteration: all``, at least one with ``iteration: any`` when more than one is named (``any`` over a
single name is the same as ``all``). A dependency is ready when at least its minAvailable pods run
with every container ready, or have succeeded.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import Task, job
from volcano.conformance.lib.waits import bound

pytestmark = pytest.mark.job_lifecycle
NOWHERE = {"kubernetes.io/hostname": "no-such-node"}


@pytest.mark.parametrize(("names", "iteration", "created"), [
    (["up", "down"], "any", True), (["up", "down"], "all", False), (["down"], "any", False),
    (["up"], "any", True)])
def test_a_dependent_task_waits_for_any_or_all_of_its_dependencies(cluster: Cluster, names: list[str],
                                                                   iteration: str, created: bool) -> None:
    """Task ``up`` (1 pod, runs) and task ``down`` (1 pod no node takes, so never ready); task ``after``
    depends on ``names`` with ``iteration``: its pod is created exactly when ``created``."""
    name = f"dep-{iteration}-{len(names)}-{names[0]}"
    spec = job(name, [Task(name="up", rep=1, min_available=1, req={"cpu": "100m"}),
                      Task(name="down", rep=1, min_available=1, req={"cpu": "100m"}, node_selector=NOWHERE),
                      Task(name="after", rep=1, min_available=1, req={"cpu": "100m"}, depends_on=names)], min=1)
    spec["spec"]["tasks"][2]["dependsOn"]["iteration"] = iteration
    cluster.apply(spec)

    def pod(task: str) -> dict[str, Any] | None:
        return cluster.try_get("Pod", f"{name}-{task}-0")

    cluster.wait_until(lambda: (p := pod("up")) is not None and bound(p)
                       and (p.get("status") or {}).get("phase") == "Running", 120, "the up pod runs")
    if created:
        cluster.wait_until(lambda: pod("after") is not None, 60, "the after pod created")
    else:
        cluster.hold(lambda: pod("after") is None and pod("down") is not None, 30, "no after pod")
