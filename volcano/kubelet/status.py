"""Pod and node status shapes the simulated kubelet writes.

Pure functions over Kubernetes-shaped dicts: they build the ``status`` a real
kubelet reports for a pod whose containers are running, waiting to restart or
terminated, and the node conditions and taints of a failed node. They never
mutate their inputs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = [
    "KUBELET_CONDITIONS",
    "TAINT_UNREACHABLE",
    "container_statuses",
    "node_ready_condition",
    "pod_conditions",
    "running_state",
    "terminated_state",
    "unreachable_taints",
    "waiting_state",
]

KUBELET_CONDITIONS = ("Initialized", "Ready", "ContainersReady")
"""Pod condition types the kubelet owns (``PodScheduled`` belongs to the scheduler)."""

TAINT_UNREACHABLE = "node.kubernetes.io/unreachable"


def running_state(started_at: str) -> dict[str, Any]:
    """``state`` of a running container."""
    return {"running": {"startedAt": started_at}}


def waiting_state(reason: str, message: str = "") -> dict[str, Any]:
    """``state`` of a container waiting to (re)start."""
    waiting: dict[str, Any] = {"reason": reason}
    if message:
        waiting["message"] = message
    return {"waiting": waiting}


def terminated_state(exit_code: int, started_at: str | None, finished_at: str,
                     container_id: str) -> dict[str, Any]:
    """``state`` of a terminated container; reason ``Completed`` for exit 0, else ``Error``."""
    terminated: dict[str, Any] = {
        "exitCode": exit_code,
        "reason": "Completed" if exit_code == 0 else "Error",
        "finishedAt": finished_at,
        "containerID": container_id,
    }
    if started_at is not None:
        terminated["startedAt"] = started_at
    return {"terminated": terminated}


def container_statuses(pod: Mapping[str, Any], *, state: Mapping[str, Any], ready: bool, started: bool,
                       restart_count: int, container_id: str,
                       last_state: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """One status per container of ``pod`` (sorted by name, as the kubelet sorts them),
    all in the same ``state``. Each container's id is ``container_id`` plus its index in hex (2 digits)."""
    containers = (pod.get("spec") or {}).get("containers") or []
    out: list[dict[str, Any]] = []
    for index, container in enumerate(containers):
        cid = f"{container_id}{index:02x}"
        image = container.get("image") or ""
        st_state = _with_container_id(state, cid)
        out.append({
            "name": container.get("name") or f"container-{index}",
            "image": image,
            "imageID": image,
            "containerID": cid,
            "ready": ready,
            "started": started,
            "restartCount": restart_count,
            "state": st_state,
            "lastState": _with_container_id(last_state, cid) if last_state else {},
        })
    out.sort(key=lambda s: s["name"])
    return out


def _with_container_id(state: Mapping[str, Any], cid: str) -> dict[str, Any]:
    result = {k: dict(v) for k, v in state.items()}
    term = result.get("terminated")
    if term is not None and "containerID" in term:
        term["containerID"] = cid
    return result


def pod_conditions(existing: Sequence[Mapping[str, Any]] | None, *, initialized: bool, ready: bool,
                   now: str, reason: str | None = None) -> list[dict[str, Any]]:
    """The pod's conditions after a kubelet status change.

    Conditions other than the kubelet's own (``PodScheduled``, ``DisruptionTarget``,
    ...) are kept; ``PodScheduled`` is added when missing. ``lastTransitionTime`` only
    moves when a condition's status changes. ``reason`` (e.g. ``PodCompleted``)
    goes on the not-ready ``Ready``/``ContainersReady`` conditions.
    """
    old = {c.get("type"): c for c in (existing or [])}
    wanted = {"Initialized": initialized, "Ready": ready, "ContainersReady": ready}
    result: list[dict[str, Any]] = []
    for ctype in ("Initialized", "Ready", "ContainersReady"):
        status = "True" if wanted[ctype] else "False"
        prev = old.get(ctype)
        cond: dict[str, Any] = {
            "type": ctype,
            "status": status,
            "lastProbeTime": None,
            "lastTransitionTime": prev.get("lastTransitionTime", now)
            if prev is not None and prev.get("status") == status else now,
        }
        if status == "False" and reason and ctype != "Initialized":
            cond["reason"] = reason
        result.append(cond)
    if "PodScheduled" not in old:
        result.append({"type": "PodScheduled", "status": "True", "lastProbeTime": None,
                       "lastTransitionTime": now})
    for cond_other in existing or []:
        if cond_other.get("type") not in KUBELET_CONDITIONS:
            result.append(dict(cond_other))
    return result


def node_ready_condition(ready: bool, now: str, previous: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The node ``Ready`` condition: ``True`` (KubeletReady) or, for an unreachable
    node, ``Unknown`` (NodeStatusUnknown) as the node lifecycle controller writes it."""
    if ready:
        status, reason, message = "True", "KubeletReady", "kubelet is posting ready status"
    else:
        status, reason, message = "Unknown", "NodeStatusUnknown", "Kubelet stopped posting node status."
    transition = now
    if previous is not None and previous.get("status") == status:
        transition = previous.get("lastTransitionTime", now)
    return {"type": "Ready", "status": status, "reason": reason, "message": message,
            "lastHeartbeatTime": now, "lastTransitionTime": transition}


def unreachable_taints(now: str) -> list[dict[str, Any]]:
    """The taints the node lifecycle controller puts on an unreachable node."""
    return [
        {"key": TAINT_UNREACHABLE, "effect": "NoSchedule", "timeAdded": now},
        {"key": TAINT_UNREACHABLE, "effect": "NoExecute", "timeAdded": now},
    ]
