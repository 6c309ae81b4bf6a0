"""Orders and gang validity the scheduler reads from pods and PodGroups (scheduler reference §5.1,
§5.2, §4.4.3), at their boundaries:

* task order within a job: a pod's priority is its ``spec.priority`` (which the API server sets to 0
  without a PriorityClass), replaced by a numeric ``volcano.sh/task-priority`` annotation; when only
  some pods of a job fit, the higher-priority ones bind;
* job order within a queue: the PodGroup's PriorityClass value, higher first, whatever the
  creation order;
* gang validity per task: a PodGroup whose ``minTaskMember`` asks more pods of a task (the
  ``volcano.sh/task-spec`` annotation) than exist is never scheduled; at the count itself it is;
* preemption inside a job: a pending pod of a running job evicts a pod of the same job only of a
  strictly lower task priority.
"""

from __future__ import annotations

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import pod, pod_group
from volcano.conformance.lib.waits import bound
from volcano.conformance.test_scheduling_support import CI_CONF, conf_with, make_priority_classes

pytestmark = pytest.mark.scheduling_base

PRIORITIES = {"order-high": 100, "order-low": 10}


def _bound_names(cluster: Cluster, prefix: str) -> list[str]:
    return sorted(p["metadata"]["name"] for p in cluster.pods() if p["metadata"]["name"].startswith(prefix)
                  and bound(p) and not p["metadata"].get("deletionTimestamp"))


def _filler(cluster: Cluster) -> str:
    """A pod holding the one worker's 4 CPUs (0 s grace); its name."""
    worker = cluster.worker_nodes()[0]["metadata"]["name"]
    cluster.apply(pod("filler", req={"cpu": "4"}, node_selector={"kubernetes.io/hostname": worker},
                      grace_seconds=0))
    cluster.wait_until(lambda: bound(cluster.get("Pod", "filler")), 60, "filler bound")
    return "filler"


@pytest.mark.cluster(workers=1, cpu="4", control_plane=False)
@pytest.mark.parametrize(("annotations", "winners"), [
    ({"t-0": "1", "t-1": "3", "t-2": "2", "t-3": "4"}, ["t-1", "t-3"]),
    # no annotation: the pod's spec.priority, 0 from the API server without a PriorityClass
    ({"t-0": "5", "t-1": "-1", "t-2": "-2", "t-3": None}, ["t-0", "t-3"]),
    ({"t-0": "x", "t-1": "-1", "t-2": "2", "t-3": "-1"}, ["t-0", "t-2"]),  # not a number: spec.priority
])
def test_the_higher_task_priority_pods_of_a_job_bind_first(cluster: Cluster, annotations: dict[str, str | None],
                                                           winners: list[str]) -> None:
    """One PodGroup (minMember 1) of four 2-CPU pods waits while a filler holds the one 4-CPU worker;
    once it goes, the two pods of highest ``volcano.sh/task-priority`` bind."""
    _filler(cluster)
    cluster.apply(pod_group("t", min_member=1))
    pods = []
    for name, value in sorted(annotations.items()):
        pods.append(pod(name, group="t", req={"cpu": "2"}, grace_seconds=0,
                        annotations={"volcano.sh/task-priority": value} if value is not None else None))
    cluster.apply(pods)
    cluster.wait_until(lambda: len([p for p in cluster.pods() if p["metadata"]["name"].startswith("t-")]) == 4, 60,
                       "the four pods created")
    cluster.delete("Pod", "filler")
    cluster.wait_until(lambda: len(_bound_names(cluster, "t-")) == 2, 60, "two pods bound")
    assert _bound_names(cluster, "t-") == winners
    cluster.hold(lambda: _bound_names(cluster, "t-") == winners, 20, f"only {winners} bound")


@pytest.mark.cluster(workers=1, cpu="4", control_plane=False)
@pytest.mark.parametrize("first", ["high", "low"])
def test_the_higher_priority_podgroup_of_a_queue_goes_first(cluster: Cluster, first: str) -> None:
    """Gangs ``high`` (PriorityClass 100) and ``low`` (10), 4 one-CPU pods each with minMember 4,
    created in either order while a filler holds the one 4-CPU worker: once it goes, high runs and
    low waits."""
    make_priority_classes(cluster, PRIORITIES)
    _filler(cluster)
    for name in (first, "low" if first == "high" else "high"):
        cluster.apply(pod_group(name, min_member=4, priority_class=f"order-{name}"))
        cluster.apply([pod(f"{name}-{i}", group=name, req={"cpu": "1"}, priority_class=f"order-{name}")
                       for i in range(4)])
    cluster.wait_until(lambda: len(cluster.pods()) == 9, 60, "every pod created")
    cluster.delete("Pod", "filler")
    cluster.wait_until(lambda: len(_bound_names(cluster, "high-")) == 4, 60, "high runs")
    cluster.hold(lambda: _bound_names(cluster, "low-") == [], 20, "low waits")


@pytest.mark.cluster(workers=2, cpu="4")
@pytest.mark.parametrize(("min_member", "pods_of_a", "runs"), [(2, 1, False), (2, 2, True), (2, 3, True), (1, 1, True)])
def test_min_task_member_needs_that_many_pods_of_the_task(cluster: Cluster, min_member: int, pods_of_a: int,
                                                          runs: bool) -> None:
    """A PodGroup with minTaskMember ``{a: 2}``, ``pods_of_a`` pods of task ``a`` (annotation
    ``volcano.sh/task-spec``) and one of task ``b``: with minMember 2 (not below the task minimums'
    sum) fewer than 2 pods of a make the gang invalid and nothing binds, 2 and more bind; with minMember
    1 the per-task check is skipped and one pod of a is enough."""
    cluster.apply(pod_group("roles", min_member=min_member, min_task_member={"a": 2}))
    names = [f"roles-a-{i}" for i in range(pods_of_a)] + ["roles-b-0"]
    cluster.apply([pod(n, group="roles", req={"cpu": "1"},
                       annotations={"volcano.sh/task-spec": "a" if "-a-" in n else "b"}) for n in names])
    if runs:
        cluster.wait_until(lambda: len(_bound_names(cluster, "roles-")) == len(names), 60, "every pod bound")
    else:
        cluster.hold(lambda: _bound_names(cluster, "roles-") == [], 30, "nothing binds")


# gang's starving rule off, so a job counts as starving by priority's alone: it has fewer pods placed
# than it has pods (gang's would want fewer than minMember).
PREEMPT_CONF = conf_with(conf_with(CI_CONF, old='"enqueue, allocate, backfill, reclaim, preempt"',
                                   new='"enqueue, allocate, preempt"'),
                         old="    enablePreemptable: false\n  - name: conformance\n",
                         new="    enablePreemptable: false\n    enableJobStarving: false\n  - name: conformance\n")


@pytest.mark.preemption
@pytest.mark.cluster(workers=1, cpu="4", control_plane=False)
@pytest.mark.scheduler_conf(PREEMPT_CONF)
@pytest.mark.parametrize(("running", "newcomer", "evicts"), [(1, 2, True), (2, 2, False), (3, 2, False)])
def test_a_pod_preempts_within_its_job_only_a_lower_task_priority(cluster: Cluster, running: int, newcomer: int,
                                                                 evicts: bool) -> None:
    """A PodGroup (minMember 1) runs two 2-CPU pods of task priority ``running`` on the one 4-CPU
    worker; a third pod of the group with task priority ``newcomer`` arrives (the job has fewer pods
    placed than it has: starving by priority's rule): it evicts a running pod of its own job only when
    theirs is strictly lower."""
    cluster.apply(pod_group("own", min_member=1))
    ann = {"volcano.sh/task-priority": str(running), "volcano.sh/preemptable": "true"}
    cluster.apply([pod(f"own-{i}", group="own", req={"cpu": "2"}, annotations=ann, grace_seconds=0)
                   for i in range(2)])
    cluster.wait_until(lambda: len(_bound_names(cluster, "own-")) == 2, 60, "two pods run")
    cluster.apply(pod("own-new", group="own", req={"cpu": "2"}, grace_seconds=0,
                      annotations={"volcano.sh/task-priority": str(newcomer)}))
    if evicts:
        cluster.wait_until(lambda: "own-new" in _bound_names(cluster, "own-"), 120, "own-new binds")
        assert len(_bound_names(cluster, "own-")) == 2
    else:
        cluster.hold(lambda: _bound_names(cluster, "own-") == ["own-0", "own-1"], 60, "nothing evicted")
