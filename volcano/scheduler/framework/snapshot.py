"""What a session is opened over: the scheduler cache's parsed view of the cluster."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from volcano.scheduler.framework.node import NodeSpec
from volcano.scheduler.framework.queue import QueueInfo
from volcano.scheduler.framework.resources import ResourceSpace
from volcano.scheduler.framework.task import TaskSpec, TaskStatus

__all__ = ["CacheDelta", "Snapshot", "key_uid", "object_key"]


def object_key(obj: Mapping[str, Any]) -> str:
    """The scheduler cache's key of an object: ``namespace/name``, or ``name`` without a namespace."""
    meta = obj.get("metadata") or {}
    ns = meta.get("namespace")
    return f"{ns}/{meta.get('name')}" if ns else str(meta.get("name"))


def key_uid(key: str) -> str:
    """The job uid (``namespace/name``, namespace ``default`` when none) of a PodGroup's cache key."""
    return key if "/" in key else f"default/{key}"


class CacheDelta:
    """What changed in the scheduler cache since the snapshot before this one (``epoch`` - 1
    of the same ``source``). A carry that opened its last session over exactly that snapshot
    may visit only these; any other carry ignores them (``framework.build``)."""

    __slots__ = ("entered", "entries", "epoch", "jobs", "podgroups", "source")

    def __init__(self, source: object, epoch: int, podgroups: Mapping[str, None], entered: Mapping[str, None],
                 jobs: Mapping[str, None], entries: Mapping[str, tuple[Mapping[str, Any], int]]) -> None:
        self.source = source
        """The cache that took the snapshot (compared by identity)."""
        self.epoch = epoch
        """The snapshot's number in ``source`` (1 for its first)."""
        self.podgroups = podgroups
        """PodGroup keys replaced, created or deleted, or whose job priority moved."""
        self.entered = entered
        """PodGroup keys created (or created again) since, in the cache's order: the tail of ``entries``."""
        self.jobs = jobs
        """Job ids (``TaskSpec.job_id``) whose member pods or overrides changed."""
        self.entries = entries
        """The PodGroups of ``podgroups`` still present, by cache key, with their job priority (the
        very entries of ``Snapshot.podgroups``)."""


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
    members: Mapping[str, list[TaskSpec]] | None = None
    """``tasks`` grouped by ``TaskSpec.job_id`` ("" for pods of no job), each list in ``tasks``
    order and ordered by ``TaskSpec.seq``; None when not given (a session groups ``tasks``
    itself). The scheduler cache keeps the groups across snapshots and replaces a list when
    its members change, so an unchanged group is the very same list as in the last snapshot."""
    overrides_by_job: Mapping[str, dict[str, tuple[TaskStatus, str]]] | None = None
    """``overrides`` by the job id of each task (a fresh dict per job and snapshot); None when
    not given (a session groups them itself)."""
    unique_uids: bool | None = None
    """Whether no two tasks share a uid (None: not known; a session checks)."""
    registered: bool = False
    """Whether every resource name of the tasks' requests and the nodes' allocatable is
    registered in ``space`` already (the cache registers them as objects arrive)."""
    delta: CacheDelta | None = None
    """What changed since the cache's previous snapshot (None: not known)."""
