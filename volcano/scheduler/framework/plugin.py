"""Plugin base class and the plugin registry (a value, never a global).

A plugin is instantiated fresh for every session with its ``Arguments``; its
``open(ssn)`` registers callbacks for extension points (``ssn.add_fn(POINT, fn)``,
see ``points``) and event handlers; ``close(ssn)`` runs at session close.
``ARGUMENTS`` (exact keys) and ``ARGUMENT_PREFIXES`` declare what the
configuration may pass, so the loader can reject a misspelt argument.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from volcano.scheduler.framework.extension import Arguments, Extension, Registry

if TYPE_CHECKING:
    from volcano.scheduler.framework.session import Session

__all__ = ["Arguments", "Plugin", "PluginRegistry"]


class Plugin(Extension):
    """Base of every scheduler plugin (see the module docstring)."""

    def open(self, ssn: Session) -> None:
        """Register callbacks for this session."""

    def close(self, ssn: Session) -> None:
        """Session close hook (status writes, state cleanup)."""


class PluginRegistry(Registry[Plugin]):
    """Plugin classes by name; registering a name twice is an error. Pass one to the
    scheduler; tests build their own."""

    kind = "plugin"
