"""Exact errors of the scheduler configuration's ``configurations`` list: the entry's index, the field path
of its arguments, and the action named."""

from __future__ import annotations

import pytest

from volcano.scheduler.config import SchedulerConfError, load_scheduler_conf

TIERS = [{"plugins": [{"name": "gang"}]}]


@pytest.mark.parametrize(("configurations", "expected"), [
    ("nope", "scheduler configuration: configurations: must be a list"),
    ([{"name": "allocate"}, "x"], "scheduler configuration: configurations[1]: must be a mapping with a string 'name'"),
    ([{"arguments": {}}], "scheduler configuration: configurations[0]: must be a mapping with a string 'name'"),
    ([{"name": 3}], "scheduler configuration: configurations[0]: must be a mapping with a string 'name'"),
    ([{"name": "allocate"}, {"name": "bogus"}], "scheduler configuration: configurations[1]: unknown action 'bogus'"),
    ([{"name": "allocate"}, {"name": "preempt", "arguments": ["x"]}],
     "scheduler configuration: configurations[1].arguments: must be a mapping"),
    ([{"name": "allocate"}, {"name": "gangpreempt", "arguments": {"maxDomains": 1, "zz": 2}}],
     "scheduler configuration: configurations[1].arguments: unknown argument 'zz' for action 'gangpreempt'"),
])
def test_bad_configurations_entry(configurations: object, expected: str) -> None:
    with pytest.raises(SchedulerConfError) as err:
        load_scheduler_conf({"actions": "allocate", "tiers": TIERS, "configurations": configurations})
    assert str(err.value) == expected


def test_good_configurations_are_kept_per_action() -> None:
    conf = load_scheduler_conf({"actions": "allocate", "tiers": TIERS, "configurations": [
        {"name": "gangpreempt", "arguments": {"maxDomains": 2}}, {"name": "allocate"}]})
    assert conf.action_arguments("gangpreempt") == {"maxDomains": 2}
    assert conf.action_arguments("allocate") == {}
    assert conf.action_arguments("preempt") == {}
