"""Queues as the scheduler sees them (an immutable parse of a Queue object)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from volcano.api import accessors
from volcano.scheduler.framework.resources import scheduler_resources

__all__ = ["QueueInfo"]


class QueueInfo:
    """A Queue as the scheduler sees it (immutable parse)."""

    __slots__ = ("capability", "creation", "deserved", "guarantee", "name", "obj", "parent", "priority",
                 "reclaimable", "state", "uid", "weight")

    def __init__(self, obj: Mapping[str, Any]) -> None:
        spec = obj.get("spec") or {}
        self.obj = obj
        self.name = accessors.name(obj)
        self.uid = self.name
        self.creation: str = accessors.meta(obj).get("creationTimestamp") or ""
        self.weight = int(spec.get("weight") or 1)
        self.priority = int(spec.get("priority") or 0)
        self.capability = scheduler_resources(spec.get("capability"), field="spec.capability") \
            if spec.get("capability") else None
        gres = (spec.get("guarantee") or {}).get("resource")
        self.guarantee = scheduler_resources(gres, field="spec.guarantee.resource") if gres else None
        self.deserved = scheduler_resources(spec.get("deserved"), field="spec.deserved") \
            if spec.get("deserved") else None
        self.reclaimable = spec.get("reclaimable") is not False
        self.parent: str = spec.get("parent") or ""
        self.state: str = accessors.status(obj).get("state") or ""
