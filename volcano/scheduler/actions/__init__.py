"""Scheduler actions: enqueue, allocate, backfill, preempt, reclaim, gangpreempt, gangreclaim (one module each;
the two gang actions share ``gang_evict``).

``default_actions()`` builds the registry of every action implemented here, as one
explicit list; ``UNSUPPORTED_ACTIONS`` names the Volcano actions that are not, so the
configuration loader can say "not yet supported" rather than "unknown".
"""

from volcano.scheduler.actions.allocate import Allocate
from volcano.scheduler.actions.backfill import Backfill
from volcano.scheduler.actions.enqueue import Enqueue
from volcano.scheduler.actions.gangpreempt import GangPreempt
from volcano.scheduler.actions.gangreclaim import GangReclaim
from volcano.scheduler.actions.preempt import Preempt
from volcano.scheduler.actions.reclaim import Reclaim
from volcano.scheduler.framework.action import Action, ActionRegistry

__all__ = [
    "UNSUPPORTED_ACTIONS",
    "Action",
    "ActionRegistry",
    "Allocate",
    "Backfill",
    "Enqueue",
    "GangPreempt",
    "GangReclaim",
    "Preempt",
    "Reclaim",
    "default_actions",
]

UNSUPPORTED_ACTIONS = frozenset({"shuffle"})
"""Volcano actions not implemented here (the config loader names them)."""


def default_actions() -> ActionRegistry:
    """A new registry holding every action implemented here."""
    return ActionRegistry([Enqueue, Allocate, Backfill, Preempt, Reclaim, GangPreempt, GangReclaim])
