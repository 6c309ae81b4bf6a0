"""The PodGroup the Job controller makes for a Job (controllers reference §2.5): ``minMember``, the
per-task ``minTaskMember`` and ``minResources``, the resources of the ``minAvailable`` pods the
job needs first, taken from its tasks in the order of their templates' priority (highest first):

* when the tasks' own minimums add up to more than the job's ``minAvailable``, whole tasks are
  taken in priority order until ``minAvailable`` pods are covered;
* otherwise every task's own minimum first, then the spare replicas, highest priority first;

and the PodGroup follows a later change of the job's ``minAvailable`` or a task's replicas.
"""

from __future__ import annotations

import pytest

from volcano.api.quantity import parse_quantity
from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import Task, job
from volcano.conformance.lib.waits import pod_group_of
from volcano.conformance.test_scheduling_support import make_priority_classes

pytestmark = [pytest.mark.job_lifecycle, pytest.mark.podgroup_status]

PRIORITIES = {"pg-high": 100, "pg-low": 10}


def _tasks(task_min: int | None) -> list[Task]:
    """``low`` (listed first; 1 CPU a pod) and ``high`` (2 CPUs a pod), 2 replicas each."""
    return [Task(name="low", rep=2, min_available=task_min, req={"cpu": "1"}, priority_class="pg-low"),
            Task(name="high", rep=2, min_available=task_min, req={"cpu": "2"}, priority_class="pg-high")]


def _cpu(cluster: Cluster, name: str) -> tuple[int, int, float]:
    """(minMember, pods, cpu) of ``name``'s PodGroup minResources (``cpu``, ``requests.cpu`` and
    ``limits.cpu`` agree)."""
    pg = pod_group_of(cluster, name)
    assert pg is not None
    res = {k: parse_quantity(v) for k, v in (pg["spec"].get("minResources") or {}).items()}
    assert res["cpu"] == res["requests.cpu"] == res["limits.cpu"], res
    assert res["pods"] == res["count/pods"], res
    return int(pg["spec"]["minMember"]), int(res["pods"]), float(res["cpu"])


def _wait_pg(cluster: Cluster, name: str) -> None:
    cluster.wait_until(lambda: pod_group_of(cluster, name) is not None, 60, f"podgroup of {name} created")


@pytest.mark.parametrize(("task_min", "min_available", "cpu"), [
    # no task minimum (each counts its 2 replicas, 4 in all): high's pods first
    (None, 1, 2), (None, 2, 4), (None, 3, 5), (None, 4, 6),
    # task minimum 1 each (2 in all): one of each first, then high's spare, then low's
    (1, 2, 3), (1, 3, 5), (1, 4, 6),
])
def test_min_resources_take_the_higher_priority_task_first(cluster: Cluster, task_min: int | None,
                                                          min_available: int, cpu: int) -> None:
    """Tasks ``low`` (1 CPU a pod, priority 10) then ``high`` (2 CPUs, priority 100), 2 replicas each:
    the PodGroup's minResources hold ``min_available`` pods and ``cpu`` CPUs."""
    make_priority_classes(cluster, PRIORITIES)
    name = f"pgmin-{task_min or 0}-{min_available}"
    cluster.apply(job(name, _tasks(task_min), min=min_available))
    _wait_pg(cluster, name)
    assert _cpu(cluster, name) == (min_available, min_available, cpu)
    pg = pod_group_of(cluster, name)
    assert pg is not None
    want = 2 if task_min is None else task_min
    assert pg["spec"]["minTaskMember"] == {"low": want, "high": want}


def test_the_podgroup_follows_the_jobs_min_available_and_replicas(cluster: Cluster) -> None:
    """A job of ``low`` and ``high`` (2 replicas each, minAvailable 1): raising minAvailable to 3 and
    then high's replicas to 3 rewrites minMember and minResources; minTaskMember keeps the tasks'
    minAvailable, which the job webhook set from the replicas at creation."""
    make_priority_classes(cluster, PRIORITIES)
    name = "pgfollow"
    cluster.apply(job(name, _tasks(None), min=1))
    _wait_pg(cluster, name)
    assert _cpu(cluster, name) == (1, 1, 2)
    cluster.patch("Job", name, {"spec": {"minAvailable": 3}})
    cluster.wait_until(lambda: _cpu(cluster, name) == (3, 3, 5), 60, "minMember 3, minResources 5 CPUs")
    cluster.patch("Job", name, [{"op": "replace", "path": "/spec/tasks/1/replicas", "value": 3}],
                  patch_type="json")

    def member() -> dict[str, int]:
        pg = pod_group_of(cluster, name)
        return dict((pg or {}).get("spec", {}).get("minTaskMember") or {})

    # minAvailable 3 is below the tasks' minimums (2 + 2, the webhook's defaults at creation): whole
    # tasks in priority order, and high's three replicas (6 CPUs) now cover it
    cluster.wait_until(lambda: _cpu(cluster, name) == (3, 3, 6), 60, "minResources 6 CPUs")
    assert member() == {"low": 2, "high": 2}


@pytest.mark.parametrize(("given", "copied"), [
    ({"mode": "soft", "highestTierAllowed": 1}, {"mode": "soft", "highestTierAllowed": 1}),
    ({"mode": "hard", "highestTierName": "spine"}, {"mode": "hard", "highestTierName": "spine"}),
    ({"highestTierName": "leaf"}, {"mode": "hard", "highestTierName": "leaf"}),
])
def test_the_podgroup_carries_the_jobs_and_partitions_network_topology(cluster: Cluster, given: dict[str, object],
                                                                       copied: dict[str, object]) -> None:
    """The job's ``networkTopology`` (a tier by number or by name; ``mode`` hard unless given) is the
    PodGroup's, and a partitioned task's own one is its subGroupPolicy entry's."""
    name = "pgtopo-" + "-".join(str(v) for v in given.values())
    spec = job(name, [Task(name="plain", rep=1, req={"cpu": "1"})], min=1)
    parted = Task(name="parted", rep=2, req={"cpu": "1"}).manifest(name, 1)
    parted["partitionPolicy"] = {"totalPartitions": 1, "partitionSize": 2, "minPartitions": 1,
                                 "networkTopology": dict(given)}
    spec["spec"]["tasks"].append(parted)
    spec["spec"]["networkTopology"] = dict(given)
    cluster.apply(spec)
    _wait_pg(cluster, name)
    pg = pod_group_of(cluster, name)
    assert pg is not None
    assert pg["spec"]["networkTopology"] == copied
    [policy] = pg["spec"]["subGroupPolicy"]
    assert policy["name"] == "parted" and policy["networkTopology"] == copied, policy
