"""Scheduler plugins and the default registry.

``default_registry()`` returns a fresh ``PluginRegistry`` holding every plugin
implemented here, as one explicit list (Kubernetes' ``NewInTreeRegistry``).
Modules here that are not plugins are the libraries some plugins share:
``affinity_scores`` (nodeorder's preferred-affinity scorers), ``capacity_hierarchy``
and ``drf_hierarchy`` (queue trees). ``VOLCANO_PLUGINS`` lists every plugin name
Volcano registers, so the configuration loader can tell "not yet supported" from
"unknown".
"""

from __future__ import annotations

from volcano.scheduler.framework.plugin import PluginRegistry
from volcano.scheduler.plugins.binpack import BinpackPlugin
from volcano.scheduler.plugins.capacity import CapacityPlugin
from volcano.scheduler.plugins.conformance import ConformancePlugin
from volcano.scheduler.plugins.drf import DrfPlugin
from volcano.scheduler.plugins.gang import GangPlugin
from volcano.scheduler.plugins.nodeorder import NodeorderPlugin
from volcano.scheduler.plugins.overcommit import OvercommitPlugin
from volcano.scheduler.plugins.predicates import PredicatesPlugin
from volcano.scheduler.plugins.priority import PriorityPlugin
from volcano.scheduler.plugins.proportion import ProportionPlugin

__all__ = ["VOLCANO_PLUGINS", "default_registry"]

VOLCANO_PLUGINS = frozenset({
    "drf", "gang", "deviceshare", "predicates", "priority", "nodeorder", "conformance", "binpack",
    "resource-strategy-fit", "tdm", "overcommit", "sla", "task-topology", "numa-aware", "cdp", "rescheduling",
    "usage", "pdb", "nodegroup", "network-topology-aware", "proportion", "capacity", "extender", "resourcequota"})
"""Every plugin name Volcano's factory registers."""


def default_registry() -> PluginRegistry:
    """A new registry holding every plugin implemented here."""
    return PluginRegistry([
        PriorityPlugin, GangPlugin, ConformancePlugin, PredicatesPlugin, NodeorderPlugin, DrfPlugin,
        ProportionPlugin, CapacityPlugin, BinpackPlugin, OvercommitPlugin])
