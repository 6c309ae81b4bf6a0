"""Kubernetes' Priority admission and PriorityClass validation."""

from __future__ import annotations

from typing import Any

import pytest

from volcano.admission.lookup import StaticView
from volcano.admission.priority import (
    PriorityError,
    admit_pod_priority,
    default_priority_class,
    validate_priority_class,
)


def _pc(name: str, value: int, *, default: bool = False, policy: str | None = None) -> dict[str, Any]:
    obj: dict[str, Any] = {"metadata": {"name": name}, "value": value, "globalDefault": default}
    if policy:
        obj["preemptionPolicy"] = policy
    return obj


def _pod(**spec: Any) -> dict[str, Any]:
    return {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c"}], **spec}}


def test_named_class_sets_priority_and_policy() -> None:
    view = StaticView(priority_classes=[_pc("high", 1000, policy="Never")])
    pod = _pod(priorityClassName="high")
    admit_pod_priority(pod, None, view)
    assert (pod["spec"]["priority"], pod["spec"]["preemptionPolicy"]) == (1000, "Never")


def test_no_class_and_no_default_is_zero() -> None:
    pod = _pod()
    admit_pod_priority(pod, None, StaticView())
    assert pod["spec"]["priority"] == 0
    assert pod["spec"]["preemptionPolicy"] == "PreemptLowerPriority"
    assert "priorityClassName" not in pod["spec"]


def test_global_default_applies_lowest_value() -> None:
    view = StaticView(priority_classes=[_pc("b", 50, default=True), _pc("a", 10, default=True), _pc("c", 5)])
    assert default_priority_class(view) == _pc("a", 10, default=True)
    pod = _pod()
    admit_pod_priority(pod, None, view)
    assert (pod["spec"]["priority"], pod["spec"]["priorityClassName"]) == (10, "a")


def test_unknown_class_rejected() -> None:
    with pytest.raises(PriorityError, match=r"^no PriorityClass with name nope was found$"):
        admit_pod_priority(_pod(priorityClassName="nope"), None, StaticView())


@pytest.mark.parametrize(("name", "value"), [("system-node-critical", 2000001000),
                                             ("system-cluster-critical", 2000000000)])
def test_system_classes_built_in(name: str, value: int) -> None:
    pod = _pod(priorityClassName=name)
    admit_pod_priority(pod, None, StaticView())
    assert pod["spec"]["priority"] == value


def test_conflicting_priority_rejected() -> None:
    view = StaticView(priority_classes=[_pc("high", 1000)])
    with pytest.raises(PriorityError, match=r"the integer value of priority \(5\) must not be provided"):
        admit_pod_priority(_pod(priorityClassName="high", priority=5), None, view)
    with pytest.raises(PriorityError, match=r"PreemptionPolicy \(Never\) must not be provided"):
        admit_pod_priority(_pod(priorityClassName="high", preemptionPolicy="Never"), None, view)
    pod = _pod(priorityClassName="high", priority=1000)
    admit_pod_priority(pod, None, view)
    assert pod["spec"]["priority"] == 1000


def test_update_keeps_stored_priority() -> None:
    old = _pod(priority=7, preemptionPolicy="Never")
    new = _pod(priority=99)
    admit_pod_priority(new, old, StaticView())
    assert (new["spec"]["priority"], new["spec"]["preemptionPolicy"]) == (7, "Never")


def test_priority_class_validation() -> None:
    view = StaticView(priority_classes=[_pc("existing", 1, default=True)])
    pc = _pc("new", 10)
    assert validate_priority_class(pc, None, view) == ([], "")
    assert pc["preemptionPolicy"] == "PreemptLowerPriority"
    assert validate_priority_class(_pc("new", 10, default=True), None, view)[1] == \
        "PriorityClass existing is already marked as default. Only one default can exist"
    assert validate_priority_class(_pc("huge", 2_000_000_000), None, view)[0] == \
        ["value: Forbidden: maximum allowed value of a user defined priority is 1000000000"]
    assert "reserved" in validate_priority_class(_pc("system-mine", 1), None, view)[0][0]
    assert validate_priority_class(_pc("system-node-critical", 2000001000), None, view) == ([], "")
    assert validate_priority_class(_pc("x", 2), _pc("x", 1), view)[0] == \
        ["value: Forbidden: may not be changed in an update."]
