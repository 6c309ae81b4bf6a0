"""The scheduler sets a pod's ``PodScheduled`` condition as Kubernetes' ``UpdatePodCondition`` does
(Volcano's ``taskUnschedulable`` calls it): the condition is replaced where it stands, and its
``lastTransitionTime`` moves only when its status changes, not when only its message or reason does."""

from __future__ import annotations

from typing import Any

import pytest

from volcano.scheduler.framework.status import updated_conditions
from volcano.testbed import FakeCluster

_T0, _T1 = "2024-01-01T00:00:00Z", "2024-01-01T00:05:00Z"
_NEW = {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": "m2"}


def test_a_new_condition_is_appended_with_the_time_now() -> None:
    ready = {"type": "Ready", "status": "True", "lastTransitionTime": _T0}
    assert updated_conditions([ready], _NEW, _T1) == [ready, {**_NEW, "lastTransitionTime": _T1}]


@pytest.mark.parametrize(("old_status", "expected_time"), [("False", _T0), ("True", _T1)])
def test_the_transition_time_moves_only_with_the_status(old_status: str, expected_time: str) -> None:
    old = {"type": "PodScheduled", "status": old_status, "reason": "Unschedulable", "message": "m1",
           "lastTransitionTime": _T0}
    after = {"type": "Initialized", "status": "True"}
    out = updated_conditions([old, after], _NEW, _T1)
    assert out == [{**_NEW, "lastTransitionTime": expected_time}, after]


def test_only_the_first_condition_of_the_type_is_replaced_and_the_input_is_not_changed() -> None:
    first = {"type": "PodScheduled", "status": "False", "message": "a", "lastTransitionTime": _T0}
    second = {"type": "PodScheduled", "status": "True", "message": "b"}
    conditions: list[dict[str, Any]] = [first, second]
    out = updated_conditions(conditions, _NEW, _T1)
    assert out == [{**_NEW, "lastTransitionTime": _T0}, second]
    assert conditions == [first, second] and first["message"] == "a"


@pytest.mark.parametrize("scheduler", ["volcano", "default-scheduler"])
def test_a_waiting_pod_keeps_its_transition_time_while_the_message_changes(scheduler: str) -> None:
    cluster = FakeCluster(seed=1)
    cluster.add_nodes(1, cpu="2", memory="4Gi")
    cluster.apply({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "big", "namespace": "default"},
                   "spec": {"schedulerName": scheduler, "containers": [
                       {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "4"}}}]}})
    cluster.run(3)
    first = next(c for c in cluster.get("Pod", "big")["status"]["conditions"] if c["type"] == "PodScheduled")
    cluster.add_nodes(1, prefix="more-", cpu="2", memory="4Gi")
    cluster.run(3)
    later = next(c for c in cluster.get("Pod", "big")["status"]["conditions"] if c["type"] == "PodScheduled")
    assert first["status"] == later["status"] == "False"
    assert later["message"] != first["message"]
    assert first.get("lastTransitionTime") and later["lastTransitionTime"] == first["lastTransitionTime"]
