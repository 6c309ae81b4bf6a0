"""A bind the API server refuses (scheduler reference §1.8, §10.4): the scheduler records the failure
on the pod and resyncs the task, which is Pending again, and a later cycle binds it.

* the pod gets ``PodScheduled=False``, reason ``SchedulerError``, message ``failed to bind to node <n>:
  <the API error>``, and one Warning ``FailedScheduling`` with that message per failed bind (the
  recorder aggregates them: count = failures);
* the task is Pending again: the next cycle binds it (to the node its gang left free), a ``Scheduled``
  event follows, and the PodGroup reaches Running with both members;
* its gang partner, bound in the first cycle, is not disturbed;
* the binding sets ``PodScheduled=True`` (as kube-apiserver's does), replacing the SchedulerError condition.

Shape: two workers of 2 CPUs, no control plane; a gang of two 2-CPU pods, so each node holds one.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import pod, pod_group
from volcano.conformance.lib.waits import bound

Obj = dict[str, Any]

pytestmark = [pytest.mark.podgroup_status, pytest.mark.faults,
              pytest.mark.cluster(workers=2, cpu="2", control_plane=False)]

REFUSED = ("Operation cannot be fulfilled on pods \"{pod}\": the object has been modified; please apply your "
           "changes to the latest version and try again")


def _events(cluster: Cluster, name: str, reason: str) -> list[tuple[str, str, int]]:
    return [(e.get("type", ""), e.get("message", ""), int(e.get("count") or 1))
            for e in cluster.events("Pod", name) if e.get("reason") == reason]


def _condition(p: Obj) -> tuple[str, str, str] | None:
    for c in (p.get("status") or {}).get("conditions") or []:
        if c.get("type") == "PodScheduled":
            return c.get("status", ""), c.get("reason", ""), c.get("message", "")
    return None


def _gang(cluster: Cluster, failures: int) -> None:
    """The gang, with the scheduler's first ``failures`` binds of ``kf-1`` refused; returns once
    ``kf-0`` is bound and ``kf-1``'s first bind failed."""
    cluster.fail_binds("kf-1", times=failures)
    cluster.apply(pod_group("kf", min_member=2))
    for i in range(2):
        cluster.apply(pod(f"kf-{i}", group="kf", req={"cpu": "2"}, grace_seconds=0))
    cluster.wait_until(lambda: bool(_events(cluster, "kf-1", "FailedScheduling")), 60, "kf-1's bind fails")


@pytest.mark.parametrize("failures", [1, 2])
def test_a_refused_bind_is_reported_and_the_task_binds_in_a_later_cycle(cluster: Cluster, failures: int) -> None:
    """kf-1's first ``failures`` binds are refused: each leaves it unbound with the SchedulerError condition
    and one more FailedScheduling; the next cycle after the last binds it to the node its partner left
    free, and the PodGroup is Running with two members."""
    _gang(cluster, failures)
    first = cluster.get("Pod", "kf-0")
    assert bound(first), first
    free = ({n["metadata"]["name"] for n in cluster.worker_nodes()} - {first["spec"]["nodeName"]}).pop()
    message = f"failed to bind to node {free}: " + REFUSED.format(pod="kf-1")
    # the failure as written (read from the recorded history: over HTTP the next cycle may come first)
    refused = [o for _, kind, _, o in cluster.recorded_history()
               if kind == "Pod" and o["metadata"]["name"] == "kf-1" and _condition(o) is not None]
    assert refused and _condition(refused[0]) == ("False", "SchedulerError", message), refused[:1]
    assert not bound(refused[0]), refused[0]
    took = cluster.wait_until(lambda: bound(cluster.get("Pod", "kf-1")), 60, "kf-1 binds")
    # each retry is the next cycle's (one schedule period), not a back-off of its own
    assert took <= failures + 0.5, took
    assert cluster.get("Pod", "kf-1")["spec"]["nodeName"] == free
    assert _events(cluster, "kf-1", "FailedScheduling") == [("Warning", message, failures)]
    assert _events(cluster, "kf-1", "Scheduled") == [
        ("Normal", f"Successfully assigned {cluster.namespace}/kf-1 to {free}", 1)]
    assert [e[2] for e in _events(cluster, "kf-0", "Scheduled")] == [1]
    assert cluster.get("Pod", "kf-0")["metadata"]["uid"] == first["metadata"]["uid"]

    def running() -> bool:
        status = cluster.get("PodGroup", "kf").get("status") or {}
        return status.get("phase") == "Running" and status.get("running") == 2

    cluster.wait_until(running, 60, "kf Running with two members")


def test_the_binding_replaces_the_scheduler_error_condition(cluster: Cluster) -> None:
    """The binding that finally succeeds sets kf-1's PodScheduled to True in the same write (kube-apiserver's
    BindingREST: ``podutil.UpdatePodCondition``), replacing the SchedulerError condition whole: no reason,
    no message, and the binding's time as its transition time."""
    _gang(cluster, 1)
    cluster.wait_until(lambda: bound(cluster.get("Pod", "kf-1")), 60, "kf-1 binds")
    first = next(o for _, kind, _, o in cluster.recorded_history()
                 if kind == "Pod" and o["metadata"]["name"] == "kf-1" and bound(o))
    assert _condition(first) == ("True", "", ""), first.get("status")
    conditions = [c for c in first["status"]["conditions"] if c.get("type") == "PodScheduled"]
    assert len(conditions) == 1 and conditions[0].get("lastTransitionTime"), conditions
    cluster.sleep(5)
    assert _condition(cluster.get("Pod", "kf-1")) == ("True", "", "")
