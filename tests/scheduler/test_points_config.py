"""Extension-point combiners (reference §3.2/§3.3) and the configuration loader."""

from __future__ import annotations

import numpy as np
import pytest

from volcano.scheduler.config import (
    DEFAULT_SCHEDULER_CONF_TEXT,
    HELM_SCHEDULER_CONF_TEXT,
    SchedulerConfError,
    load_scheduler_conf,
)
from volcano.scheduler.framework import points as P
from volcano.scheduler.framework.conf import ENABLE_FLAGS


def const(v):  # type: ignore[no-untyped-def]
    return lambda *a: v


def test_first_nonzero() -> None:
    assert P.first_nonzero([[const(0), const(-1)], [const(1)]]) == -1
    assert P.first_nonzero([[const(0)], []]) == 0


def test_all_ok_and_verdicts() -> None:
    assert P.all_ok([[const(None)], [const("bad"), const("worse")]]) == "bad"
    a, b = P.Verdict(3), P.Verdict(3)
    a.fail(np.array([True, False, False]), "ra", True)
    b.fail(np.array([True, True, False]), "rb", False)
    v = P.verdicts([[const(a)], [const(None)], [const(b)]])
    assert v is not None
    assert [v.reasons[c - 1] if c else None for c in v.codes] == ["ra", "rb", None]
    assert v.unresolvable_mask().tolist() == [True, False, False]
    assert a.reasons == ["ra"] and b.codes.tolist() == [1, 1, 0]  # the plugins' verdicts are untouched
    assert P.verdicts([[const(None)], []]) is None


def test_score_sum() -> None:
    rows = np.array([0, 2])
    out = P.score_sum([[lambda task, rows: np.array([1.0, 2.0])], [lambda task, rows: rows * 0.25]], "task", rows)
    assert out.tolist() == [1.0, 2.5]


def test_tier_intersect_quirks() -> None:
    x, y, z = object(), object(), object()
    cands = [x, y, z]
    # intersection within a tier
    assert P.tier_intersect([[const(([x, y], 1)), const(([y, z], 1))]], None, cands) == [y]
    # abstain is skipped
    assert P.tier_intersect([[const(([], 0)), const(([x], 1))]], None, cands) == [x]
    # empty answer from a voter: the tier is undecided, fall through to the next tier
    assert P.tier_intersect([[const(([x], 1)), const(([], 1))], [const(([z], 1))]], None, cands) == [z]
    # an empty running intersection restarts from the next plugin
    assert P.tier_intersect([[const(([x], 1)), const(([y], 1)), const(([z], 1))]], None, cands) == [z]
    # Reject counts like Permit
    assert P.tier_intersect([[const(([y], -1))]], None, cands) == [y]
    assert P.tier_intersect([[const(([], 1))]], None, cands) is None


def test_tier_union() -> None:
    x, y = object(), object()
    assert P.tier_union([[const([]), const([])], [const([x]), const([x, y])]]) == [x, y]
    assert P.tier_union([[const([])]]) == []


def test_boolean_combiners() -> None:
    assert P.any_true([]) is False and P.any_true([[const(False)], [const(True)]]) is True
    assert P.all_true([]) is True and P.all_true([[const(True), const(False)]]) is False
    assert P.first_result([[const(None), const(("r", "m"))], [const(("x", "y"))]]) == ("r", "m")
    assert P.first_result([[const(None)]]) is None


def test_tier_vote() -> None:
    assert P.tier_vote([]) is True
    assert P.tier_vote([[const(1), const(-1)]]) is False
    assert P.tier_vote([[const(1)], [const(-1)]]) is True
    assert P.tier_vote([[const(0)], [const(-1)]]) is False


def test_call_all_and_first_tier_all() -> None:
    seen: list[int] = []
    P.call_all([[lambda: seen.append(1)], [lambda: seen.append(2)]])
    assert seen == [1, 2]
    assert P.first_tier_all([[], [const(True), const(False)], [const(True)]]) is False
    assert P.first_tier_all([[], [const(True)]]) is True
    assert P.first_tier_all([[], []]) is False


def test_catalogue_declares_each_point_once() -> None:
    declared = [v for v in vars(P).values() if isinstance(v, P.Point)]
    assert sorted(p.name for p in declared) == sorted(P.CATALOGUE)  # every constant is catalogued, once
    assert all(P.CATALOGUE[p.name] is p for p in declared)
    assert P.CATALOGUE["job_valid"].flag is None
    with pytest.raises(ValueError, match="'job_ready' is declared twice"):
        P.catalogue(P.JOB_READY, P.JOB_ORDER, P.Point("job_ready", None, P.all_true, "again"))


def test_every_flag_is_a_volcano_enable_flag() -> None:
    assert {p.flag for p in P.CATALOGUE.values()} - {None} <= set(ENABLE_FLAGS)


@pytest.mark.parametrize("text", [DEFAULT_SCHEDULER_CONF_TEXT, HELM_SCHEDULER_CONF_TEXT])
def test_volcano_confs_load_unchanged(text: str) -> None:
    conf = load_scheduler_conf(text)
    assert conf.actions == ("enqueue", "allocate", "backfill")
    assert conf.tiers[0].plugins[0].name == "priority"


def test_helm_flags_and_defaults() -> None:
    conf = load_scheduler_conf(HELM_SCHEDULER_CONF_TEXT)
    gang = conf.tiers[0].plugins[1]
    assert gang.enabled("enablePreemptable") is False
    assert gang.enabled("enableJobReady") is True
    assert gang.enabled("enableHierarchy") is False


def test_configmap_form() -> None:
    cm = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "volcano-scheduler-configmap"},
        "data": {"volcano-scheduler.conf": HELM_SCHEDULER_CONF_TEXT},
    }
    assert load_scheduler_conf(cm).tiers[1].plugins[-1].name == "binpack"


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ('actions: "enqueue, alocate"\ntiers: []', "unknown action 'alocate'"),
        ('actions: "shuffle"\ntiers: []', "action 'shuffle' is not yet supported"),
        ('actions: ""\ntiers: []', "unknown action ''"),
        ('actions: "allocate"\ntiers:\n- plugins:\n  - name: gangg', "unknown plugin 'gangg'"),
        ('actions: "allocate"\ntiers:\n- plugins:\n  - name: tdm', "plugin 'tdm' is not yet supported"),
        (
            'actions: "allocate"\ntiers:\n- plugins:\n  - name: predicates\n    arguments: {predicate.Foo: 1}',
            "unknown argument 'predicate.Foo'",
        ),
        (
            'actions: "allocate"\ntiers:\n- plugins:\n  - name: gang\n    enableJobRedy: true',
            "unknown field 'enableJobRedy'",
        ),
        ('actions: "allocate"\nconfigurations:\n- name: allocate\n  arguments: {bogus: 1}', "unknown argument 'bogus'"),
        (
            'actions: "allocate"\ntiers:\n- plugins:\n  - name: drf\n    enableHierarchy: true\n  - name: proportion',
            "proportion and drf with hierarchy enabled conflicts",
        ),
        ("actions: [allocate]", "must be a comma-separated string"),
    ],
)
def test_conf_errors_name_the_culprit(text: str, fragment: str) -> None:
    with pytest.raises(SchedulerConfError, match=None) as info:
        load_scheduler_conf(text)
    assert fragment in str(info.value)
