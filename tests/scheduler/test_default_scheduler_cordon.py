"""The default-scheduler stand-in and a cordoned node (``spec.unschedulable``): it places no pod
there unless the pod tolerates ``node.kubernetes.io/unschedulable:NoSchedule``, as
kube-scheduler's NodeUnschedulable filter does. Written for a surviving mutant (docs/testing.md)."""

from __future__ import annotations

from typing import Any

import pytest

from volcano.testbed import FakeCluster

TOLERATE_CORDON = {"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"}


def _pod(name: str, tolerations: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "nginx",
                                            "resources": {"requests": {"cpu": "1"}}}]}
    if tolerations:
        spec["tolerations"] = tolerations
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "spec": spec}


@pytest.mark.parametrize(("tolerations", "placed"), [(None, False), ([TOLERATE_CORDON], True)])
def test_a_cordoned_node_takes_only_tolerating_pods(tolerations: list[dict[str, Any]] | None, placed: bool) -> None:
    c = FakeCluster()
    c.add_node("cordoned", cpu="4")
    c.client.patch("Node", "cordoned", {"spec": {"unschedulable": True}}, None)
    c.apply(_pod("p", tolerations))
    c.run(10)
    assert (c.get("Pod", "p")["spec"].get("nodeName") == "cordoned") is placed


def test_a_cordoned_node_is_skipped_for_an_open_one() -> None:
    c = FakeCluster()
    c.add_node("cordoned", cpu="8")
    c.add_node("open", cpu="2")
    c.client.patch("Node", "cordoned", {"spec": {"unschedulable": True}}, None)
    c.apply(_pod("p"))
    c.run(10)
    assert c.get("Pod", "p")["spec"].get("nodeName") == "open"
