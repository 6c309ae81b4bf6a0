"""Exact ``pods/log`` text of simulated containers (``volcano.apiserver.podlog``): the start line with the
image, node and simulated work; the exit line with the code (the status's, else the annotation's, else 0)
and the reason (the status's, else ``Completed`` for 0 and ``Error`` otherwise); and each query option."""

from __future__ import annotations

from typing import Any

import pytest

from volcano.api.well_known import SIM_DURATION, SIM_EXIT_CODE, SIM_PROGRESS
from volcano.apiserver import ApiError
from volcano.apiserver.podlog import pod_log
from volcano.sim import SimClock


def _pod(state: dict[str, Any], annotations: dict[str, str] | None = None, *, last: dict[str, Any] | None = None,
         containers: tuple[str, ...] = ("main",), node: str = "n1") -> dict[str, Any]:
    status: dict[str, Any] = {"name": containers[0], "state": state}
    if last is not None:
        status["lastState"] = last
    return {"metadata": {"name": "p", "annotations": annotations or {}},
            "spec": {"nodeName": node, "containers": [{"name": c, "image": f"img-{c}:1"} for c in containers]},
            "status": {"containerStatuses": [status]}}


def _clock(now_s: int) -> SimClock:
    clock = SimClock()
    clock.run(now_s * 1000)
    return clock


def _at(clock: SimClock, s: int) -> str:
    return clock.timestamp(s * 1000)


START = "volcano-sim: container main (img-main:1) started on node n1: "


@pytest.mark.parametrize(("annotations", "work"), [
    ({}, "simulated work: runs until the pod is deleted"),
    ({SIM_DURATION: "30s"}, "simulated work 30s (progress: alone)"),
    ({SIM_DURATION: "30s", SIM_PROGRESS: "gang"}, "simulated work 30s (progress: gang)"),
    ({SIM_PROGRESS: "gang"}, "simulated work: runs until the pod is deleted"),
])
def test_running_container_start_line(annotations: dict[str, str], work: str) -> None:
    clock = _clock(10)
    pod = _pod({"running": {"startedAt": _at(clock, 2)}}, annotations)
    assert pod_log(pod, clock) == f"{START}{work}\n"


@pytest.mark.parametrize(("terminated", "annotations", "exit_line"), [
    ({"exitCode": 0}, {}, "exited with code 0 (Completed)"),
    ({"exitCode": 3}, {SIM_EXIT_CODE: "7"}, "exited with code 3 (Error)"),
    ({}, {SIM_EXIT_CODE: "7"}, "exited with code 7 (Error)"),
    ({}, {}, "exited with code 0 (Completed)"),
    ({"exitCode": 137, "reason": "OOMKilled"}, {}, "exited with code 137 (OOMKilled)"),
    ({"exitCode": 0, "reason": ""}, {}, "exited with code 0 (Completed)"),
])
def test_terminated_container_exit_line(terminated: dict[str, Any], annotations: dict[str, str],
                                        exit_line: str) -> None:
    clock = _clock(10)
    state = {"terminated": {"startedAt": _at(clock, 2), "finishedAt": _at(clock, 5), **terminated}}
    assert pod_log(_pod(state, annotations), clock) == (
        f"{START}simulated work: runs until the pod is deleted\nvolcano-sim: container main {exit_line}\n")


def test_lines_whose_time_has_not_come_are_not_shown() -> None:
    clock = _clock(4)
    state = {"terminated": {"startedAt": _at(clock, 2), "finishedAt": _at(clock, 5), "exitCode": 0}}
    assert pod_log(_pod(state), clock) == f"{START}simulated work: runs until the pod is deleted\n"


def test_timestamps_tail_since_and_limit() -> None:
    clock = _clock(10)
    state = {"terminated": {"startedAt": _at(clock, 2), "finishedAt": _at(clock, 5), "exitCode": 1}}
    pod = _pod(state)
    first = f"{START}simulated work: runs until the pod is deleted"
    second = "volcano-sim: container main exited with code 1 (Error)"
    assert pod_log(pod, clock, timestamps=True) == (
        f"2024-01-01T00:00:02.000000000Z {first}\n2024-01-01T00:00:05.000000000Z {second}\n")
    assert pod_log(pod, clock, tail_lines=1) == f"{second}\n"
    assert pod_log(pod, clock, tail_lines=0) == ""
    assert pod_log(pod, clock, tail_lines=5) == f"{first}\n{second}\n"
    assert pod_log(pod, clock, since_seconds=5) == f"{second}\n"   # from t=5 on (inclusive)
    assert pod_log(pod, clock, since_seconds=4) == ""  # from t=6 on
    assert pod_log(pod, clock, since_seconds=8) == f"{first}\n{second}\n"
    assert pod_log(pod, clock, limit_bytes=11) == "volcano-sim"
    assert pod_log(pod, clock, limit_bytes=0) == ""


def test_previous_and_waiting() -> None:
    clock = _clock(10)
    last = {"terminated": {"startedAt": _at(clock, 1), "finishedAt": _at(clock, 2), "exitCode": 2}}
    waiting = _pod({"waiting": {"reason": "CrashLoopBackOff"}}, last=last)
    expected = (f"{START}simulated work: runs until the pod is deleted\n"
                "volcano-sim: container main exited with code 2 (Error)\n")
    assert pod_log(waiting, clock) == expected  # waiting to restart: the last run
    assert pod_log(waiting, clock, previous=True) == expected
    running = _pod({"running": {"startedAt": _at(clock, 3)}})
    with pytest.raises(ApiError) as err:
        pod_log(running, clock, previous=True)
    assert (err.value.code, err.value.message) == (400, 'previous terminated container "main" in pod "p" not found')
    for state, reason in (({"waiting": {"reason": "ErrImagePull"}}, "ErrImagePull"),
                          ({"waiting": {}}, "ContainerCreating"), ({}, "ContainerCreating")):
        with pytest.raises(ApiError) as err:
            pod_log(_pod(state), clock)
        assert (err.value.code, err.value.reason, err.value.message) == (
            400, "BadRequest", f'container "main" in pod "p" is waiting to start: {reason}')


def test_container_choice() -> None:
    clock = _clock(10)
    pod = _pod({"running": {"startedAt": _at(clock, 3)}}, containers=("main", "side"))
    with pytest.raises(ApiError) as err:
        pod_log(pod, clock)
    assert err.value.message == "a container name must be specified for pod p, choose one of: [main side]"
    with pytest.raises(ApiError) as err:
        pod_log(pod, clock, container="other")
    assert (err.value.code, err.value.message) == (400, "container other is not valid for pod p")
    assert pod_log(pod, clock, container="main").startswith("volcano-sim: container main (img-main:1) started")
    assert pod_log(_pod({}, node=""), clock) == ""  # unscheduled: empty, whatever the state
