"""No poison pills: what a component does with an object it cannot use.

An object that a component cannot read (written before validation existed,
straight to storage, or a value the server cannot refuse) must not stop the
component, nor the cluster. ``UnusableObjects.handle`` is called where a
component fails to read one object: when the server would refuse the object
today (``volcano.apiserver.validation.problem`` names the field and the
value), the component skips it and one Warning Event ``InvalidObject`` per
object version says so; when the object is valid, the failure is a bug and
propagates.

The informer runs every handler under this guard; components with their own
parse points (the scheduler's session, the job controller) call it too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from volcano.api.quantity import QuantityRangeError
from volcano.apiserver.client import Obj
from volcano.apiserver.validation import problem

__all__ = ["DATA_ERRORS", "REASON", "Reporter", "UnusableObjects", "component_of"]

DATA_ERRORS: tuple[type[BaseException], ...] = (ValueError, TypeError, KeyError, AttributeError, IndexError,
                                                 ArithmeticError, RecursionError)
"""What reading a malformed object raises."""

Reporter = Callable[[str, Obj, str], None]
"""``fn(component, obj, message)``: record the Warning Event."""

REASON = "InvalidObject"
"""The reason of the Warning Event."""


class UnusableObjects:
    """Skips and reports objects components cannot use (see the module docstring)."""

    def __init__(self) -> None:
        self.reporter: Reporter | None = None
        self.skipped = 0
        self._seen: set[tuple[str, str, str]] = set()

    def handle(self, component: str, obj: Any, exc: BaseException) -> None:
        """``component`` failed with ``exc`` reading ``obj``: skip and report it, or re-raise for a valid one."""
        if isinstance(exc, QuantityRangeError):  # valid, but beyond the component's arithmetic
            why: str | None = str(exc)
        else:
            why = problem(obj) if isinstance(obj, dict) else f"not an object: {obj!r}"
        if why is None:
            raise exc
        meta = obj.get("metadata") if isinstance(obj, dict) else None
        meta = meta if isinstance(meta, dict) else {}
        key = (component, str(meta.get("uid", "")), str(meta.get("resourceVersion", "")))
        self.skipped += 1
        if key in self._seen:
            return
        if len(self._seen) > 4096:
            self._seen.clear()
        self._seen.add(key)
        where = f"{meta.get('namespace')}/{meta.get('name')}" if meta.get("namespace") else str(meta.get("name"))
        kind = obj.get("kind") if isinstance(obj, dict) else type(obj).__name__
        message = f"{component} skipped {kind} {where}: {why}"
        if self.reporter is not None and meta.get("name"):
            self.reporter(component, obj, message)


def component_of(fn: Any) -> str:
    """The component a handler belongs to: its owner's class name, else the function's name."""
    owner = getattr(fn, "__self__", None)
    return type(owner).__name__ if owner is not None else str(getattr(fn, "__qualname__", fn))
