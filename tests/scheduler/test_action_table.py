"""The action table registers every implemented action itself (no side registration elsewhere)."""

from __future__ import annotations

import pytest

from volcano.scheduler.actions import ACTIONS, UNSUPPORTED_ACTIONS, GangPreempt, GangReclaim
from volcano.scheduler.config import SchedulerConfError, load_scheduler_conf


def test_gang_actions_are_in_the_table_and_not_unsupported() -> None:
    assert ACTIONS["gangpreempt"] is GangPreempt
    assert ACTIONS["gangreclaim"] is GangReclaim
    assert "gangpreempt" not in UNSUPPORTED_ACTIONS and "gangreclaim" not in UNSUPPORTED_ACTIONS
    assert not (UNSUPPORTED_ACTIONS & set(ACTIONS))


def test_table_keys_are_the_action_names() -> None:
    assert sorted(ACTIONS) == ["allocate", "backfill", "enqueue", "gangpreempt", "gangreclaim", "preempt", "reclaim"]
    assert all(cls.name == name for name, cls in ACTIONS.items())


def test_config_accepts_gang_actions_and_still_names_unsupported_ones() -> None:
    assert load_scheduler_conf('actions: "enqueue, gangreclaim, gangpreempt"\ntiers: []').actions == (
        "enqueue", "gangreclaim", "gangpreempt")
    with pytest.raises(SchedulerConfError, match="action 'shuffle' is not yet supported"):
        load_scheduler_conf('actions: "shuffle"\ntiers: []')
