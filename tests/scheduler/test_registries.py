"""The registries: every implemented action and plugin registered once, by its own name;
a second registration under a taken name is refused."""

from __future__ import annotations

import pytest

from volcano.scheduler.actions import UNSUPPORTED_ACTIONS, Allocate, GangPreempt, GangReclaim, default_actions
from volcano.scheduler.config import SchedulerConfError, load_scheduler_conf
from volcano.scheduler.framework.action import Action, ActionRegistry
from volcano.scheduler.framework.plugin import Plugin, PluginRegistry
from volcano.scheduler.plugins import VOLCANO_PLUGINS, default_registry
from volcano.scheduler.plugins.gang import GangPlugin


def test_gang_actions_are_registered_and_not_unsupported() -> None:
    actions = default_actions()
    assert actions.get("gangpreempt") is GangPreempt
    assert actions.get("gangreclaim") is GangReclaim
    assert not (UNSUPPORTED_ACTIONS & set(actions.names()))


def test_registries_hold_every_implementation_under_its_name() -> None:
    actions = default_actions()
    assert actions.names() == ["allocate", "backfill", "enqueue", "gangpreempt", "gangreclaim", "preempt", "reclaim"]
    plugins = default_registry()
    assert plugins.names() == ["binpack", "capacity", "conformance", "drf", "gang", "nodeorder", "overcommit",
                               "predicates", "priority", "proportion"]
    assert set(plugins.names()) <= VOLCANO_PLUGINS
    for reg in (actions, plugins):
        for name in reg.names():
            cls = reg.get(name)
            assert cls is not None and cls.name == name


def test_a_taken_name_is_refused() -> None:
    actions = default_actions()

    class Other(Action):
        name = "allocate"

    with pytest.raises(ValueError, match="action 'allocate' is already registered \\(Allocate\\)"):
        actions.register(Other)
    assert actions.get("allocate") is Allocate
    with pytest.raises(ValueError, match="plugin 'gang' is already registered"):
        PluginRegistry([GangPlugin, GangPlugin])

    class Nameless(Plugin):
        pass

    with pytest.raises(ValueError, match="plugin class Nameless has no name"):
        PluginRegistry([Nameless])


def test_copies_are_independent() -> None:
    base = ActionRegistry([Allocate])
    extended = base.copy()

    class Extra(Action):
        name = "extra"

    extended.register(Extra)
    assert "extra" in extended and "extra" not in base


def test_config_accepts_gang_actions_and_still_names_unsupported_ones() -> None:
    assert load_scheduler_conf('actions: "enqueue, gangreclaim, gangpreempt"\ntiers: []').actions == (
        "enqueue", "gangreclaim", "gangpreempt")
    with pytest.raises(SchedulerConfError, match="action 'shuffle' is not yet supported"):
        load_scheduler_conf('actions: "shuffle"\ntiers: []')


def test_config_checks_actions_against_the_registry_it_is_given() -> None:
    only_allocate = ActionRegistry([Allocate])
    assert load_scheduler_conf('actions: "allocate"\ntiers: []', actions=only_allocate).actions == ("allocate",)
    with pytest.raises(SchedulerConfError, match="unknown action 'enqueue'"):
        load_scheduler_conf('actions: "enqueue"\ntiers: []', actions=only_allocate)
