"""Scheduler actions: enqueue, allocate, backfill, preempt, reclaim, gangpreempt, gangreclaim (one module each;
the two gang actions share ``gang_evict``)."""

from volcano.scheduler.actions.allocate import Allocate
from volcano.scheduler.actions.backfill import Backfill
from volcano.scheduler.actions.base import Action
from volcano.scheduler.actions.enqueue import Enqueue
from volcano.scheduler.actions.gangpreempt import GangPreempt
from volcano.scheduler.actions.gangreclaim import GangReclaim
from volcano.scheduler.actions.preempt import Preempt
from volcano.scheduler.actions.reclaim import Reclaim

__all__ = [
    "ACTIONS",
    "UNSUPPORTED_ACTIONS",
    "Action",
    "Allocate",
    "Backfill",
    "Enqueue",
    "GangPreempt",
    "GangReclaim",
    "Preempt",
    "Reclaim",
]

ACTIONS: dict[str, type[Action]] = {
    cls.name: cls for cls in (Enqueue, Allocate, Backfill, Preempt, Reclaim, GangPreempt, GangReclaim)}
"""Implemented actions by name."""

UNSUPPORTED_ACTIONS = frozenset({"shuffle"})
"""Volcano actions not implemented here (the config loader names them)."""
