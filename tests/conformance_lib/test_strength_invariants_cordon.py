"""The unusable-node invariant and the unschedulable taint: a cordoned node is unusable except to a pod
tolerating ``node.kubernetes.io/unschedulable`` with effect NoSchedule (or every effect)."""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.lib.invariants import check_invariants

Obj = dict[str, Any]
NS = "ns"


def _history(tolerations: list[Obj]) -> list[tuple[float, str, str, Obj]]:
    node: Obj = {"metadata": {"name": "n0"}, "spec": {"unschedulable": True},
                 "status": {"allocatable": {"cpu": "4", "pods": "110"},
                            "conditions": [{"type": "Ready", "status": "True"}]}}
    pending: Obj = {"metadata": {"name": "p", "namespace": NS},
                    "spec": {"schedulerName": "volcano", "tolerations": tolerations,
                             "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]},
                    "status": {"phase": "Pending"}}
    placed = {**pending, "spec": {**pending["spec"], "nodeName": "n0"}}
    return [(0.0, "Node", "ADDED", node), (0.0, "Pod", "ADDED", pending), (1.0, "Pod", "MODIFIED", placed)]


@pytest.mark.parametrize(("tolerations", "reported"), [
    ([], True),
    ([{"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"}], False),
    ([{"key": "node.kubernetes.io/unschedulable", "operator": "Exists"}], False),
    ([{"operator": "Exists"}], False),
    ([{"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoExecute"}], True),
    ([{"key": "node.kubernetes.io/unschedulable", "operator": "Equal", "value": "x", "effect": "NoSchedule"}], True),
    ([{"key": "other", "operator": "Exists", "effect": "NoSchedule"}], True),
])
def test_a_bind_to_a_cordoned_node_is_judged_by_the_pods_tolerations(tolerations: list[Obj], reported: bool) -> None:
    violations = check_invariants(_history(tolerations), gang_window=1.0)
    assert any("unusable node n0" in v for v in violations) == reported, violations
