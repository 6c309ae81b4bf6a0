"""``pods/log`` of a container waiting to restart: the kubelet serves the last run's log (its
``validateContainerLogStatus`` looks at the last terminated state before the waiting reason); a
container that never ran is 400 naming the reason it waits for."""

from __future__ import annotations

from typing import Any

import pytest

from volcano.apiserver import ApiError
from volcano.apiserver.podlog import pod_log
from volcano.sim import SimClock


def _pod(clock: SimClock, status: dict[str, Any]) -> dict[str, Any]:
    return {"metadata": {"name": "p", "annotations": {"sim.volcano.sh/duration": "5s"}},
            "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "img"}]},
            "status": {"containerStatuses": [{"name": "c", **status}]}}


def test_a_crash_looping_container_shows_its_last_run() -> None:
    clock = SimClock()
    last = {"terminated": {"startedAt": clock.timestamp(1000), "finishedAt": clock.timestamp(6000), "exitCode": 1,
                           "reason": "Error"}}
    pod = _pod(clock, {"state": {"waiting": {"reason": "CrashLoopBackOff"}}, "lastState": last})
    clock.run(10_000)
    assert pod_log(pod, clock).splitlines() == [
        "volcano-sim: container c (img) started on node n1: simulated work 5s (progress: alone)",
        "volcano-sim: container c exited with code 1 (Error)"]
    assert pod_log(pod, clock) == pod_log(pod, clock, previous=True)


@pytest.mark.parametrize("reason", ["ContainerCreating", "PodInitializing"])
def test_a_container_that_never_ran_names_its_reason(reason: str) -> None:
    clock = SimClock()
    pod = _pod(clock, {"state": {"waiting": {"reason": reason}}})
    with pytest.raises(ApiError, match=f'container "c" in pod "p" is waiting to start: {reason}') as err:
        pod_log(pod, clock)
    assert err.value.code == 400
    bare = _pod(clock, {"state": {}})
    with pytest.raises(ApiError, match="is waiting to start: ContainerCreating"):
        pod_log(bare, clock)
