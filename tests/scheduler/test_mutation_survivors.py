"""Tests written for mutants that survived a mutation run (``make mutation``, ``docs/testing.md``):
each pins a behaviour nothing asserted before."""

from __future__ import annotations

import pytest

from volcano.scheduler.config import SchedulerConfError, load_scheduler_conf

CONF = """\
actions: "allocate"
tiers:
- plugins:
  - name: gang
    enablePreemptable: {value}
"""


@pytest.mark.parametrize("value", ['"yes"', "1", "maybe"])
def test_a_non_boolean_plugin_flag_is_named_with_its_value(value: str) -> None:
    with pytest.raises(SchedulerConfError) as err:
        load_scheduler_conf(CONF.format(value=value))
    message = str(err.value)
    assert message.startswith("scheduler configuration: tiers[0].plugins[0].enablePreemptable: must be a boolean, got ")
    assert message.endswith(repr({'"yes"': "yes", "1": 1, "maybe": "maybe"}[value])), message


@pytest.mark.parametrize("value", ["true", "false"])
def test_a_boolean_plugin_flag_is_accepted(value: str) -> None:
    load_scheduler_conf(CONF.format(value=value))
