"""Action base class and the action registry (a value, never a global).

An action is one step of a scheduling cycle (enqueue, allocate, ...): the
scheduler instantiates each configured action with its ``configurations``
arguments and calls ``execute(ssn)`` in configuration order. ``ARGUMENTS``
lists the keys the action understands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from volcano.scheduler.framework.extension import Extension, Registry

if TYPE_CHECKING:
    from volcano.scheduler.framework.session import Session

__all__ = ["Action", "ActionRegistry"]


class Action(Extension):
    """One step of a scheduling cycle; ``execute(ssn)`` runs it over a session."""

    ARGUMENTS: ClassVar[frozenset[str]] = frozenset({"predicateErrorCacheEnable"})

    def execute(self, ssn: Session) -> None:
        """Run the action."""
        raise NotImplementedError


class ActionRegistry(Registry[Action]):
    """Action classes by name; registering a name twice is an error."""

    kind = "action"
