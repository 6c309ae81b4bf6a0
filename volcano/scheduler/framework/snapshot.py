"""What a session is opened over: the scheduler cache's parsed view of the cluster."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from volcano.scheduler.framework.node import NodeSpec
from volcano.scheduler.framework.queue import QueueInfo
from volcano.scheduler.framework.resources import ResourceSpace
from volcano.scheduler.framework.task import TaskSpec, TaskStatus

__all__ = ["Snapshot"]


@dataclass
class Snapshot:
    """What a session is opened over: parsed nodes (ready ones, in node order),
    podgroups with their job priority, task specs, queues, and the resource space."""

    space: ResourceSpace
    nodes: list[NodeSpec]
    podgroups: list[tuple[Mapping[str, Any], int]]
    tasks: list[TaskSpec]
    queues: list[QueueInfo]
    default_queue: str = "default"
    priority_classes: Mapping[str, int] = field(default_factory=dict)
    overrides: Mapping[str, tuple[TaskStatus, str]] = field(default_factory=dict)
    """Task uid -> (status, node) the cache knows better than the pod (binds in flight,
    evictions sent)."""
    shared: dict[Any, Any] = field(default_factory=dict)
    """The backing store of ``Session.shared``: caches valid across sessions while
    the node set is unchanged (the cache hands the same dict to every snapshot
    until a node changes)."""
