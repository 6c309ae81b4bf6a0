"""A configuration without the gang plugin (scheduler reference §4.2 allocate, §7.5 session close):

* nothing holds a job back until ``minMember`` of its pods fit: allocate binds pod by pod, and as
  every job counts as ready after each placement the job goes back to the queue, where drf's share
  sends the next pod to the other job: two jobs of three one-CPU pods on four free CPUs run two each;
* the PodGroups stay ``Inqueue`` with ``status.running`` 2 (below their minMember of 3), carry no
  condition (the ``Unschedulable`` condition is gang's), and the session close still records the
  Warning ``Unschedulable`` "<pending>/<tasks> tasks in gang unschedulable: ..." on each;
* with gang (the CI configuration) the same two jobs end with the first running all three pods and
  the second none: its one placeable pod is discarded, as it cannot make the gang.

Shape: one worker of 4 CPUs and 16Gi, no control-plane node. A filler pod holds the four CPUs while
the two jobs are created, so both are pending in the session that finds the CPUs free.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import pod, pod_group
from volcano.conformance.lib.waits import bound
from volcano.conformance.test_scheduling_support import CI_CONF, conf_with

Obj = dict[str, Any]

NO_GANG = conf_with(CI_CONF, old="  - name: gang\n    enablePreemptable: false\n", new="")

pytestmark = [pytest.mark.scheduling_base,
              pytest.mark.cluster(workers=1, cpu="4", memory="16Gi", control_plane=False)]

JOBS = ("kg-a", "kg-b")
# The session close's Warnings while the filler holds the worker, then once two pods are binding and
# running (the recorder's spam filter may spend the PodGroup's tokens before the later ones).
PENDING_WARNINGS = {
    "3/3 tasks in gang unschedulable: pod group is not ready, 3 Pending, 3 minAvailable; Pending: 3 Unschedulable",
    *(f"1/3 tasks in gang unschedulable: pod group is not ready, 1 Pending, 2 {state}, 3 minAvailable; "
      "Pending: 1 Unschedulable" for state in ("Binding", "Running")),
}


def _start(cluster: Cluster) -> None:
    """The filler holds the worker while both jobs are created; then it goes."""
    cluster.apply(pod_group("kg-fill", min_member=1))
    cluster.apply(pod("kg-fill-0", group="kg-fill", req={"cpu": "4"}, grace_seconds=0))
    cluster.wait_until(lambda: bound(cluster.get("Pod", "kg-fill-0")), 60, "the filler binds")
    for name in JOBS:
        cluster.apply(pod_group(name, min_member=3))
        cluster.apply([pod(f"{name}-{i}", group=name, req={"cpu": "1"}, grace_seconds=0) for i in range(3)])
    cluster.sleep(5)
    assert not any(bound(cluster.get("Pod", f"{n}-{i}")) for n in JOBS for i in range(3))
    cluster.delete("PodGroup", "kg-fill")
    cluster.delete("Pod", "kg-fill-0")


def _bound(cluster: Cluster, name: str) -> int:
    return sum(bound(cluster.get("Pod", f"{name}-{i}")) for i in range(3))


def _status(cluster: Cluster, name: str) -> Obj:
    return dict(cluster.get("PodGroup", name).get("status") or {})


@pytest.mark.scheduler_conf(NO_GANG)
def test_without_gang_two_jobs_share_the_cpus_pod_by_pod(cluster: Cluster) -> None:
    """Without gang: two pods of each job bind, each PodGroup is Inqueue with running 2 and no
    condition, and each records the pending-task Warning."""
    _start(cluster)
    cluster.wait_until(lambda: [_bound(cluster, n) for n in JOBS] == [2, 2], 120, "two pods of each job bound")

    def settled() -> bool:
        return all(_status(cluster, n).get("running") == 2 for n in JOBS)

    cluster.wait_until(settled, 60, "both PodGroups count two running pods")
    cluster.hold(lambda: [_bound(cluster, n) for n in JOBS] == [2, 2], 10, "no third pod binds")
    for name in JOBS:
        status = _status(cluster, name)
        assert (status.get("phase"), status.get("running"), status.get("conditions")) == ("Inqueue", 2, None), status
        warnings = {e.get("message") for e in cluster.events("PodGroup", name)
                    if (e.get("type"), e.get("reason")) == ("Warning", "Unschedulable")}
        assert warnings and warnings <= PENDING_WARNINGS, warnings


@pytest.mark.scheduler_conf(CI_CONF)
def test_with_gang_the_first_job_runs_whole_and_the_second_waits(cluster: Cluster) -> None:
    """With gang: the first job binds all three pods and is Running; the second binds none, its one
    placeable pod discarded, and its PodGroup carries gang's ``Unschedulable`` condition."""
    _start(cluster)
    cluster.wait_until(lambda: _bound(cluster, "kg-a") == 3, 120, "kg-a runs whole")
    cluster.wait_until(lambda: _status(cluster, "kg-a").get("phase") == "Running", 60, "kg-a Running")
    cluster.hold(lambda: _bound(cluster, "kg-b") == 0, 10, "kg-b binds nothing")
    conditions = [(c.get("type"), c.get("status")) for c in _status(cluster, "kg-b").get("conditions") or []]
    assert ("Unschedulable", "True") in conditions, conditions
