"""Scheduler plugins and the default registry.

``default_registry()`` returns a fresh ``PluginRegistry`` holding the plugins
implemented here (priority, gang, conformance, predicates) plus any of drf,
proportion, capacity, nodeorder, binpack, overcommit whose modules exist (each
found as the ``Plugin`` subclass whose ``name`` matches). ``VOLCANO_PLUGINS``
lists every plugin name Volcano registers, so the configuration loader can
tell "not yet supported" from "unknown".
"""

from __future__ import annotations

import importlib

from volcano.scheduler.framework.plugin import Plugin, PluginRegistry
from volcano.scheduler.plugins.conformance import ConformancePlugin
from volcano.scheduler.plugins.gang import GangPlugin
from volcano.scheduler.plugins.predicates import PredicatesPlugin
from volcano.scheduler.plugins.priority import PriorityPlugin

__all__ = ["OPTIONAL_PLUGINS", "VOLCANO_PLUGINS", "default_registry"]

OPTIONAL_PLUGINS = ("drf", "proportion", "capacity", "nodeorder", "binpack", "overcommit")
"""Plugins registered only when their module exists."""

VOLCANO_PLUGINS = frozenset({
    "drf", "gang", "deviceshare", "predicates", "priority", "nodeorder", "conformance", "binpack",
    "resource-strategy-fit", "tdm", "overcommit", "sla", "task-topology", "numa-aware", "cdp", "rescheduling",
    "usage", "pdb", "nodegroup", "network-topology-aware", "proportion", "capacity", "extender", "resourcequota"})
"""Every plugin name Volcano's factory registers."""


def _find(module_name: str, plugin_name: str) -> type[Plugin] | None:
    try:
        module = importlib.import_module(f"volcano.scheduler.plugins.{module_name}")
    except ModuleNotFoundError as exc:
        if exc.name == f"volcano.scheduler.plugins.{module_name}":
            return None
        raise
    for value in sorted(vars(module).items()):
        obj = value[1]
        if isinstance(obj, type) and issubclass(obj, Plugin) and obj is not Plugin and obj.name == plugin_name:
            return obj
    return None


def default_registry() -> PluginRegistry:
    """A new registry with every available plugin."""
    reg = PluginRegistry()
    builtin: tuple[type[Plugin], ...] = (PriorityPlugin, GangPlugin, ConformancePlugin, PredicatesPlugin)
    for cls in builtin:
        reg.register(cls)
    for name in OPTIONAL_PLUGINS:
        found = _find(name, name)
        if found is not None:
            reg.register(found)
    return reg
