"""Exact outcomes of Kubernetes' Priority admission and of the PriorityClass checks admission makes
(``plugin/pkg/admission/priority``): the default class chosen, each Forbidden reason, the update path."""

from __future__ import annotations

from typing import Any

import pytest

from volcano.admission.lookup import StaticView
from volcano.admission.priority import (
    PriorityError,
    admit_pod_priority,
    default_priority_class,
    resolve_priority_class,
    validate_priority_class,
)


def _pc(name: str, value: Any, *, default: Any = False, policy: str | None = None) -> dict[str, Any]:
    obj: dict[str, Any] = {"metadata": {"name": name}, "value": value, "globalDefault": default}
    if policy is not None:
        obj["preemptionPolicy"] = policy
    return obj


def _pod(**spec: Any) -> dict[str, Any]:
    return {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c"}], **spec}}


def test_default_class_is_the_lowest_marked_one_then_by_name() -> None:
    view = StaticView(priority_classes=[_pc("b", 5, default=True), _pc("a", 5, default=True),
                                        _pc("c", 1, default="true"), _pc("d", 9, default=True), _pc("e", 0)])
    chosen = default_priority_class(view)
    assert chosen is not None and chosen["metadata"]["name"] == "a"
    assert default_priority_class(StaticView(priority_classes=[_pc("x", 1)])) is None


@pytest.mark.parametrize(("name", "expected"), [
    ("high", (100, "Never")), ("plain", (7, "PreemptLowerPriority")), ("bad-value", (0, "PreemptLowerPriority")),
    ("system-node-critical", (2000001000, "PreemptLowerPriority")),
    ("system-cluster-critical", (2000000000, "PreemptLowerPriority")),
    ("missing", None)])
def test_resolve(name: str, expected: tuple[int, str] | None) -> None:
    view = StaticView(priority_classes=[_pc("high", 100, policy="Never"), _pc("plain", 7), _pc("bad-value", True)])
    assert resolve_priority_class(name, view) == expected


def test_stored_system_class_wins_over_the_built_in_value() -> None:
    view = StaticView(priority_classes=[_pc("system-node-critical", 2000001000, policy="Never")])
    assert resolve_priority_class("system-node-critical", view) == (2000001000, "Never")


def test_default_class_name_is_written_into_the_pod() -> None:
    view = StaticView(priority_classes=[_pc("dflt", 3, default=True, policy="Never")])
    pod = _pod()
    admit_pod_priority(pod, None, view)
    assert pod["spec"] == {"containers": [{"name": "c"}], "priorityClassName": "dflt", "priority": 3,
                           "preemptionPolicy": "Never"}


@pytest.mark.parametrize(("spec", "reason"), [
    ({"priorityClassName": "nope"}, "no PriorityClass with name nope was found"),
    ({"priorityClassName": "high", "priority": 5},
     "the integer value of priority (5) must not be provided in pod spec; priority admission controller computed "
     "100 from the given PriorityClass name"),
    ({"priority": 1},
     "the integer value of priority (1) must not be provided in pod spec; priority admission controller computed "
     "0 from the given PriorityClass name"),
    ({"priorityClassName": "high", "preemptionPolicy": "PreemptLowerPriority"},
     "the string value of PreemptionPolicy (PreemptLowerPriority) must not be provided in pod spec; priority "
     "admission controller computed Never from the given PriorityClass name"),
])
def test_refusals(spec: dict[str, Any], reason: str) -> None:
    view = StaticView(priority_classes=[_pc("high", 100, policy="Never")])
    with pytest.raises(PriorityError) as err:
        admit_pod_priority(_pod(**spec), None, view)
    assert err.value.reason == reason == str(err.value)


def test_matching_values_given_in_the_pod_are_accepted() -> None:
    view = StaticView(priority_classes=[_pc("high", 100, policy="Never")])
    pod = _pod(priorityClassName="high", priority=100, preemptionPolicy="Never")
    admit_pod_priority(pod, None, view)
    assert (pod["spec"]["priority"], pod["spec"]["preemptionPolicy"]) == (100, "Never")
    pod = _pod(priority=0)
    admit_pod_priority(pod, None, StaticView())
    assert (pod["spec"]["priority"], pod["spec"]["preemptionPolicy"]) == (0, "PreemptLowerPriority")
    assert "priorityClassName" not in pod["spec"]


def test_update_restores_the_stored_values() -> None:
    old = _pod(priority=9, preemptionPolicy="Never")
    new = _pod(priority=1, priorityClassName="nope")
    admit_pod_priority(new, old, StaticView())
    assert (new["spec"]["priority"], new["spec"]["preemptionPolicy"]) == (9, "Never")
    new = _pod(priority=1, preemptionPolicy="Never")
    admit_pod_priority(new, _pod(), StaticView())
    assert "priority" not in new["spec"] and "preemptionPolicy" not in new["spec"]


@pytest.mark.parametrize(("pc", "old", "causes"), [
    (_pc("ok", 1000000000), None, []),
    (_pc("big", 1000000001), None,
     ["value: Forbidden: maximum allowed value of a user defined priority is 1000000000"]),
    (_pc("neg", -5), None, []),
    ({"metadata": {"name": "none"}}, None, []),  # value is a plain int32: absent decodes as 0
    (_pc("system-node-critical", 2000001000), None, []),
    (_pc("p", 1, policy="Sometimes"), None,
     ['preemptionPolicy: Unsupported value: "Sometimes": supported values: "Never", "PreemptLowerPriority"']),
    (_pc("p", 2), _pc("p", 1), ["value: Forbidden: may not be changed in an update."]),
    (_pc("p", 1, policy="Never"), _pc("p", 1), ['preemptionPolicy: Invalid value: "Never": field is immutable']),
    (_pc("p", 1), _pc("p", 1, policy="PreemptLowerPriority"), []),
    (_pc("p", 1, policy="Never"), _pc("p", 1, policy="Never"), []),
])
def test_priority_class_causes(pc: dict[str, Any], old: dict[str, Any] | None, causes: list[str]) -> None:
    got, forbidden = validate_priority_class(pc, old, StaticView())
    assert (got, forbidden) == (causes, "")
    assert pc["preemptionPolicy"] in ("Never", "PreemptLowerPriority", "Sometimes")


@pytest.mark.parametrize(("pc", "field"), [
    (_pc("str", "5"), "value"), (_pc("flag", True), "value"), (_pc("system-mine", 1), "metadata.name"),
    (_pc("system-node-critical", 5), "value")])
def test_priority_class_refused_field(pc: dict[str, Any], field: str) -> None:
    """One cause, on the field named (the API server's own validation, which runs first, words these)."""
    causes, forbidden = validate_priority_class(pc, None, StaticView())
    assert [c.split(":", 1)[0] for c in causes] == [field] and forbidden == ""


def test_second_global_default_is_forbidden() -> None:
    view = StaticView(priority_classes=[_pc("first", 1, default=True), _pc("plain", 2)])
    assert validate_priority_class(_pc("second", 3, default=True), None, view) == (
        [], "PriorityClass first is already marked as default. Only one default can exist")
    assert validate_priority_class(_pc("first", 1, default=True), _pc("first", 1, default=True), view) == ([], "")
    assert validate_priority_class(_pc("third", 3, default=False), None, view) == ([], "")
