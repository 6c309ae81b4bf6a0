"""Scheduler actions: enqueue, allocate, backfill, preempt, reclaim (one module each)."""

from volcano.scheduler.actions.allocate import Allocate
from volcano.scheduler.actions.backfill import Backfill
from volcano.scheduler.actions.base import Action
from volcano.scheduler.actions.enqueue import Enqueue
from volcano.scheduler.actions.preempt import Preempt
from volcano.scheduler.actions.reclaim import Reclaim

__all__ = ["ACTIONS", "UNSUPPORTED_ACTIONS", "Action", "Allocate", "Backfill", "Enqueue", "Preempt", "Reclaim"]

ACTIONS: dict[str, type[Action]] = {
    cls.name: cls for cls in (Enqueue, Allocate, Backfill, Preempt, Reclaim)}
"""Implemented actions by name."""

UNSUPPORTED_ACTIONS = frozenset({"shuffle", "gangpreempt", "gangreclaim"})
"""Volcano actions not implemented here (the config loader names them)."""
