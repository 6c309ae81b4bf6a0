"""``pods/log``: what a simulated container wrote, as ``kubectl logs`` shows it.

A simulated container runs no process, so its log is made of the lines its
lifecycle implies, each at the time it happened (from the pod's container
status): the start (image, node, the simulated work from the
``sim.volcano.sh/*`` annotations) and, once it has ended, its exit. Only lines
whose time has come are shown. The options follow the real endpoint:
``container`` (required when the pod has several: the API server does not
read ``kubectl.kubernetes.io/default-container``, kubectl does and names the
container), ``previous`` (the last terminated run), ``timestamps`` (RFC 3339
with nine fractional digits, as the kubelet writes them), ``tailLines``,
``sinceSeconds``, ``limitBytes``. An unscheduled pod has an empty log, as on a
real server; a container waiting to restart (``CrashLoopBackOff``) shows its last
run, as the kubelet serves it; one still waiting to start is 400 BadRequest
naming its reason.
"""

from __future__ import annotations

from typing import Any

from volcano.api.well_known import SIM_DURATION, SIM_EXIT_CODE, SIM_PROGRESS
from volcano.apiserver.errors import bad_request
from volcano.sim.clock import Clock

__all__ = ["pod_log"]


def _choose(pod: Any, container: str | None) -> str:
    spec = pod.get("spec") or {}
    names = [c.get("name") for c in spec.get("containers") or ()]
    init = [c.get("name") for c in spec.get("initContainers") or ()]
    name = pod["metadata"]["name"]
    if container is None:
        if len(names) == 1:
            return str(names[0])
        choices = f"a container name must be specified for pod {name}, choose one of: [{' '.join(names)}]"
        if init:
            choices += f" or one of the init containers: [{' '.join(init)}]"
        raise bad_request(choices)
    if container not in names and container not in init:
        raise bad_request(f"container {container} is not valid for pod {name}")
    return container


def _run_lines(pod: Any, container: str, state: Any, clock: Clock) -> list[tuple[int, str]]:
    """``(clock ms, line)`` of one run of ``container`` whose ``state`` is running or terminated."""
    spec = pod.get("spec") or {}
    annotations = pod["metadata"].get("annotations") or {}
    image = next((c.get("image", "") for c in spec.get("containers") or () if c.get("name") == container), "")
    running, terminated = state.get("running"), state.get("terminated")
    started = clock.parse_timestamp((running or terminated or {}).get("startedAt"))
    lines: list[tuple[int, str]] = []
    if started is not None:
        work = annotations.get(SIM_DURATION)
        what = f"simulated work {work} (progress: {annotations.get(SIM_PROGRESS, 'alone')})" if work \
            else "simulated work: runs until the pod is deleted"
        lines.append((started, f"volcano-sim: container {container} ({image}) started on node "
                               f"{spec.get('nodeName', '')}: {what}"))
    if terminated:
        finished = clock.parse_timestamp(terminated.get("finishedAt"))
        code = terminated.get("exitCode", annotations.get(SIM_EXIT_CODE, 0))
        reason = terminated.get("reason") or ("Completed" if code == 0 else "Error")
        lines.append((finished if finished is not None else started or 0,
                      f"volcano-sim: container {container} exited with code {code} ({reason})"))
    return lines


def _nano_timestamp(clock: Clock, ms: int) -> str:
    """The kubelet's log timestamp (Go's ``RFC3339NanoFixed``: always nine fractional digits)."""
    return clock.micro_timestamp(ms).removesuffix("Z") + "000Z"


def pod_log(pod: Any, clock: Clock, *, container: str | None = None, tail_lines: int | None = None,
            timestamps: bool = False, since_seconds: int | None = None, previous: bool = False,
            limit_bytes: int | None = None) -> str:
    """The log text of one container of ``pod`` (see the module docstring)."""
    name = _choose(pod, container)
    if not (pod.get("spec") or {}).get("nodeName"):
        return ""
    status = pod.get("status") or {}
    cs = next((c for c in list(status.get("containerStatuses") or ()) + list(status.get("initContainerStatuses")
                                                                             or ()) if c.get("name") == name), None)
    pod_name = pod["metadata"]["name"]
    if previous:
        state = (cs or {}).get("lastState") or {}
        if not state.get("terminated"):
            raise bad_request(f'previous terminated container "{name}" in pod "{pod_name}" not found')
    else:
        state = (cs or {}).get("state") or {}
        last = (cs or {}).get("lastState") or {}
        if not state.get("running") and not state.get("terminated") and last.get("terminated"):
            state = last  # waiting to restart: the kubelet serves the last run's log
        elif not state.get("running") and not state.get("terminated"):
            reason = (state.get("waiting") or {}).get("reason") or "ContainerCreating"
            raise bad_request(f'container "{name}" in pod "{pod_name}" is waiting to start: {reason}')
    now = clock.now_ms
    lines = [(t, text) for t, text in _run_lines(pod, name, state, clock) if t <= now]
    if since_seconds is not None:
        lines = [(t, text) for t, text in lines if t >= now - since_seconds * 1000]
    if tail_lines is not None:
        lines = lines[-tail_lines:] if tail_lines else []
    out = "".join(f"{_nano_timestamp(clock, t)} {text}\n" if timestamps else f"{text}\n" for t, text in lines)
    if limit_bytes is not None:
        out = out.encode()[:limit_bytes].decode(errors="ignore")
    return out
