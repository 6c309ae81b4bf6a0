"""The invariant checker's gang check (check 1) follows its ``gang`` switch: a gang bound below its
``minMember`` is reported with the gang plugin configured and not without it."""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.lib.invariants import check_invariants

Obj = dict[str, Any]
NS = "ns"


def _history(bound: int) -> list[tuple[float, str, str, Obj]]:
    """One 4-CPU node, a PodGroup of minMember 3 and three pods, ``bound`` of them bound at t=1."""
    node = {"metadata": {"name": "n0"}, "status": {"allocatable": {"cpu": "4", "pods": "110"},
                                                   "conditions": [{"type": "Ready", "status": "True"}]}}
    group = {"metadata": {"name": "g", "namespace": NS, "uid": "g"}, "spec": {"minMember": 3, "queue": "default"},
             "status": {"phase": "Inqueue"}}
    h: list[tuple[float, str, str, Obj]] = [(0.0, "Node", "ADDED", node), (0.0, "PodGroup", "ADDED", group)]
    for i in range(3):
        pod: Obj = {"metadata": {"name": f"g-{i}", "namespace": NS,
                                 "annotations": {"scheduling.k8s.io/group-name": "g"}},
                    "spec": {"schedulerName": "volcano",
                             "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]},
                    "status": {"phase": "Pending"}}
        h.append((0.0, "Pod", "ADDED", pod))
        if i < bound:
            placed = {**pod, "spec": {**pod["spec"], "nodeName": "n0"}, "status": {"phase": "Running"}}
            h.append((1.0, "Pod", "MODIFIED", placed))
    return h


@pytest.mark.parametrize(("bound", "gang", "reported"), [(2, True, True), (3, True, False), (2, False, False)])
def test_the_gang_check_follows_its_switch(bound: int, gang: bool, reported: bool) -> None:
    violations = check_invariants(_history(bound), gang=gang)
    assert [v for v in violations if "below minMember 3" in v] == (
        ["t=1.000s gang ns/g has 2 pods bound, below minMember 3"] if reported else []), violations
