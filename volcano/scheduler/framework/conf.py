"""Scheduler configuration types (what ``volcano.scheduler.config`` parses into).

Kept in the framework so the session can read tiers without importing the
loader. Enable flags absent from the configuration default to True, except
``enableHierarchy`` and ``enabledClusterOrder`` (Volcano's ``defaults.go``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ENABLE_FLAGS", "FALSE_BY_DEFAULT", "PluginOption", "SchedulerConf", "Tier"]

ENABLE_FLAGS = (
    "enableJobOrder", "enableHierarchy", "enableJobReady", "enableJobPipelined", "enableTaskOrder",
    "enablePreemptable", "enableReclaimable", "enablePreemptive", "enableQueueOrder", "enabledClusterOrder",
    "enablePredicate", "enableBestNode", "enableNodeOrder", "enableTargetJob", "enableReservedNodes",
    "enableJobEnqueued", "enabledVictim", "enableJobStarving", "enabledOverused", "enabledAllocatable",
    "enabledHyperNodeOrder", "enabledSubJobReady", "enabledSubJobPipelined", "enabledSubJobOrder",
    "enabledHyperNodeGradient",
)
"""Every ``enable*`` flag of a plugin entry, spelt as Volcano spells them."""

FALSE_BY_DEFAULT = frozenset({"enableHierarchy", "enabledClusterOrder"})
"""Flags that are off unless set."""


@dataclass(frozen=True)
class PluginOption:
    """One plugin entry of a tier: name, explicit flags and arguments."""

    name: str
    flags: Mapping[str, bool] = field(default_factory=dict)
    arguments: Mapping[str, Any] = field(default_factory=dict)

    def enabled(self, flag: str | None) -> bool:
        """Whether the extension point gated by ``flag`` is on (None = always)."""
        if flag is None:
            return True
        value = self.flags.get(flag)
        if value is None:
            return flag not in FALSE_BY_DEFAULT
        return value


@dataclass(frozen=True)
class Tier:
    """A tier: plugins in configuration order."""

    plugins: tuple[PluginOption, ...]


@dataclass(frozen=True)
class SchedulerConf:
    """A whole scheduler configuration."""

    actions: tuple[str, ...]
    tiers: tuple[Tier, ...]
    configurations: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    metrics: Mapping[str, Any] = field(default_factory=dict)

    def action_arguments(self, action: str) -> Mapping[str, Any]:
        """The ``configurations`` arguments of ``action`` (empty when absent)."""
        return self.configurations.get(action, {})
