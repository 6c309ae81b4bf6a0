"""Scheduling conformance: behaviours of the schedulers that no other case pinned down.

* Volcano's allocate, after a task of a role fails to fit, skips the role's other tasks in that visit
  ("has already predicated failed, skip") and goes on with the job's other roles while the job may still
  become ready without the failed role (``NeedContinueAllocating``): a Job whose first role can never fit
  still runs its other role when that alone meets ``minAvailable``.
* kube-scheduler (pods of ``default-scheduler``) queues a pod again when an update may make it
  schedulable: a pod refused by every node for a taint it does not tolerate is placed once an update
  adds the toleration (pod updates may add tolerations), with no other event in the cluster.

Every case uses only the backend-neutral ``cluster`` fixture; the nodes' taints are restored at the end.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import Task, job, plain, pod
from volcano.conformance.lib.waits import bound
from volcano.conformance.test_scheduling_support import taint_all_nodes, untaint_all_nodes

__all__: list[str] = []

Obj = dict[str, Any]
GAPS_TAINT: Obj = {"key": "example.com/gaps", "value": "x", "effect": "NoSchedule"}


@pytest.mark.scheduling_base
@pytest.mark.cluster(workers=1)
def test_a_default_scheduler_pod_is_placed_once_an_update_adds_the_toleration(
        cluster: Cluster, request: pytest.FixtureRequest) -> None:
    """Every node carries a NoSchedule taint: the pod stays unbound, ``PodScheduled=False``
    (``Unschedulable``); a merge patch adding the matching toleration gets it bound."""
    request.addfinalizer(lambda: untaint_all_nodes(cluster, GAPS_TAINT["key"]))
    taint_all_nodes(cluster, GAPS_TAINT)
    cluster.create(pod("gaps-tolerate", req={"cpu": "100m"}, scheduler="default-scheduler"))

    def refused() -> bool:
        conditions = (plain(cluster.get("Pod", "gaps-tolerate")).get("status") or {}).get("conditions") or []
        return any(c.get("type") == "PodScheduled" and c.get("status") == "False"
                   and c.get("reason") == "Unschedulable" for c in conditions)

    cluster.wait_until(refused, 120, "the pod is reported unschedulable")
    assert not bound(cluster.get("Pod", "gaps-tolerate"))
    toleration = {"key": GAPS_TAINT["key"], "operator": "Equal", "value": "x", "effect": "NoSchedule"}
    cluster.patch("Pod", "gaps-tolerate", {"spec": {"tolerations": [toleration]}})
    cluster.wait_until(lambda: bound(cluster.get("Pod", "gaps-tolerate")), 120, "the pod is bound once it tolerates")


@pytest.mark.scheduling_base
@pytest.mark.cluster(workers=2, cpu="4")
def test_a_role_that_cannot_fit_does_not_stop_the_jobs_other_role(cluster: Cluster) -> None:
    """Job ``minAvailable: 2`` with role ``a-big`` (2 pods whose node selector no node matches), ordered
    first, and role ``b-small`` (2 pods): both ``b-small`` pods are bound and the Job runs; the ``a-big``
    pods stay unbound."""
    cluster.apply(job("gaps-visit", [Task(name="a-big", rep=2, req={"cpu": "1"},
                                          node_selector={"example.com/gaps": "nowhere"}),
                                     Task(name="b-small", rep=2, req={"cpu": "1"})], min=2))

    def small_bound() -> bool:
        pods = cluster.job_pods("gaps-visit")
        return sum(1 for p in pods if "-b-small-" in p["metadata"]["name"] and bound(p)) == 2

    cluster.wait_until(small_bound, 180, "both b-small pods are bound")
    cluster.wait_until(lambda: (cluster.get("Job", "gaps-visit").get("status") or {}).get("state", {}).get("phase")
                       == "Running", 180, "the Job runs")
    big = [p for p in cluster.job_pods("gaps-visit") if "-a-big-" in p["metadata"]["name"]]
    assert len(big) == 2 and not any(bound(p) for p in big), [p["metadata"]["name"] for p in big]
