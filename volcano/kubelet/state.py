"""The simulated kubelet's own bookkeeping: what it runs on each node.

Plain mutable records owned by ``SimKubelet``; nothing here talks to the API
server. ``timestamp`` renders simulated time as Kubernetes' RFC 3339 form.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from volcano.api.resources import Resources
from volcano.kubelet.config import SimSpec
from volcano.sim import TimerHandle

__all__ = ["NodeState", "PodStage", "PodState"]

class PodStage(Enum):
    """Where an admitted pod is in the kubelet's lifecycle."""

    STARTING = "starting"      # admitted; containers start after the start delay
    RUNNING = "running"        # containers running
    RESTARTING = "restarting"  # a container exited and waits to start again
    TERMINATED = "terminated"  # rejected, or containers ended for good


@dataclass(slots=True, eq=False)
class PodState:
    """One pod the kubelet has admitted (or rejected).

    ``remaining_ms`` is the work left in the current container run at
    ``segment_start_ms`` while ``progressing``; otherwise the work left now.
    """

    key: str
    namespace: str
    name: str
    uid: str
    node: str
    stage: PodStage = PodStage.STARTING
    spec: SimSpec | None = None
    requests: Resources = field(default_factory=Resources)
    restart_policy: str = "Always"
    group: str | None = None
    restart_count: int = 0
    remaining_ms: int = 0
    progressing: bool = False
    segment_start_ms: int = 0
    killing: bool = False
    timer: TimerHandle | None = None
    kill_timer: TimerHandle | None = None
    kill_at_ms: int = 0
    pod_ip: str = ""
    start_time: str = ""
    started_at: str | None = None
    container_id: str = ""
    last_state: dict[str, Any] | None = None


@dataclass(slots=True, eq=False)
class NodeState:
    """One node as its kubelet sees it: capacity, admitted pods, up or down."""

    name: str
    allocatable: Resources = field(default_factory=Resources)
    used: Resources = field(default_factory=Resources)
    pods: dict[str, PodState] = field(default_factory=dict)
    down: bool = False
    host_ip: str = ""
    pod_cidr: str = ""
    next_ip: int = 0
    eviction_timers: list[TimerHandle] = field(default_factory=list)
