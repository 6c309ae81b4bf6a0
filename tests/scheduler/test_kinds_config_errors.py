"""Kinds pinned whole: every refusal of the scheduler configuration loader, as its complete message
(where in the document, what is wrong), and the ConfigMap wrapper it accepts."""

from __future__ import annotations

import pytest

from volcano.scheduler.config import CONFIGMAP_KEY, SchedulerConfError, load_scheduler_conf

A = 'actions: "allocate"\n'
P = "scheduler configuration: "


@pytest.mark.parametrize(("text", "message"), [
    ("actions: 1\n", "actions: must be a comma-separated string, got 1"),
    ("tiers: []\n", "actions: must be a comma-separated string, got None"),
    ("- a\n- b\n", "document: expected a mapping, got list"),
    (A + "foo: 1\n", "foo: unknown top-level field"),
    ('actions: "allocate, nope"\n', "actions: unknown action 'nope'"),
    ('actions: "allocate, shuffle"\n', "actions: action 'shuffle' is not yet supported"),
    ('actions: "allocate,"\n', "actions: unknown action ''"),
    (A + "tiers: 3\n", "tiers: must be a list"),
    (A + "tiers:\n- 3\n", "tiers[0]: must be a mapping with a 'plugins' list"),
    (A + "tiers:\n- plugins: x\n", "tiers[0]: must be a mapping with a 'plugins' list"),
    (A + "tiers:\n- plugins:\n  - 5\n", "tiers[0].plugins[0]: must be a mapping with a string 'name'"),
    (A + "tiers:\n- plugins:\n  - name: 7\n", "tiers[0].plugins[0]: must be a mapping with a string 'name'"),
    (A + "tiers:\n- plugins: []\n- plugins:\n  - name: gang\n  - name: nope\n",
     "tiers[1].plugins[1]: unknown plugin 'nope'"),
    (A + "tiers:\n- plugins:\n  - name: sla\n", "tiers[0].plugins[0]: plugin 'sla' is not yet supported"),
    (A + 'tiers:\n- plugins:\n  - name: gang\n    enableJobOrder: "yes"\n',
     "tiers[0].plugins[0].enableJobOrder: must be a boolean, got 'yes'"),
    (A + "tiers:\n- plugins:\n  - name: gang\n    enableJobOrder: 1\n",
     "tiers[0].plugins[0].enableJobOrder: must be a boolean, got 1"),
    (A + "tiers:\n- plugins:\n  - name: gang\n    colour: red\n",
     "tiers[0].plugins[0]: unknown field 'colour' for plugin 'gang'"),
    (A + "tiers:\n- plugins:\n  - name: binpack\n    arguments: [1]\n",
     "tiers[0].plugins[0].arguments: must be a mapping"),
    (A + "tiers:\n- plugins:\n  - name: binpack\n    arguments:\n      binpack.weight: 1\n      nope: 1\n",
     "tiers[0].plugins[0].arguments: unknown argument 'nope' for plugin 'binpack'"),
    (A + "tiers:\n- plugins:\n  - name: drf\n    enableHierarchy: true\n  - name: proportion\n",
     "tiers[0]: proportion and drf with hierarchy enabled conflicts"),
    (A + "configurations: 1\n", "configurations: must be a list"),
    (A + "configurations:\n- 1\n", "configurations[0]: must be a mapping with a string 'name'"),
    (A + "configurations:\n- name: nope\n", "configurations[0]: unknown action 'nope'"),
    (A + "configurations:\n- name: preempt\n  arguments:\n    nope: 1\n",
     "configurations[0].arguments: unknown argument 'nope' for action 'preempt'"),
    (A + "metrics: 1\n", "metrics: must be a mapping"),
    ("kind: ConfigMap\ndata: {}\n", f"ConfigMap: has no data key '{CONFIGMAP_KEY}'"),
    ("kind: ConfigMap\ndata:\n  volcano-scheduler.conf: 'actions: 3'\n",
     "actions: must be a comma-separated string, got 3"),
])
def test_a_refused_configuration_names_where_and_what(text: str, message: str) -> None:
    with pytest.raises(SchedulerConfError) as err:
        load_scheduler_conf(text)
    assert str(err.value) == P + message


def test_broken_yaml_is_refused_as_yaml() -> None:
    with pytest.raises(SchedulerConfError) as err:
        load_scheduler_conf('actions: ["allocate"\n')
    assert str(err.value).startswith(P + "YAML: while parsing a flow sequence")
    assert "\n" not in str(err.value)


def test_a_configmap_wraps_a_whole_configuration() -> None:
    inner = ('actions: "enqueue, allocate"\ntiers:\n- plugins:\n  - name: gang\n    enableJobOrder: false\n'
             '  - name: binpack\n    arguments:\n      binpack.weight: 3\n'
             'configurations:\n- name: enqueue\n  arguments: {}\n')
    wrapped = {"kind": "ConfigMap", "data": {CONFIGMAP_KEY: inner}}
    got, direct = load_scheduler_conf(wrapped), load_scheduler_conf(inner)
    assert got == direct
    assert got.actions == ("enqueue", "allocate")
    assert [(o.name, dict(o.flags), dict(o.arguments)) for t in got.tiers for o in t.plugins] == [
        ("gang", {"enableJobOrder": False}, {}), ("binpack", {}, {"binpack.weight": 3})]
    assert got.action_arguments("enqueue") == {} and got.action_arguments("allocate") == {}
