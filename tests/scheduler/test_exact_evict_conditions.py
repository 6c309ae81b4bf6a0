"""The status the scheduler writes when it evicts a pod: the pod's own conditions other than ``Ready`` and
``DisruptionTarget`` kept in order, then exactly one ``Ready=False/Evict`` and one
``DisruptionTarget=True/PreemptionByScheduler`` (a condition type appears once in a pod's status)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from volcano.scheduler.scheduler import Scheduler

NOW = "2024-01-01T00:10:00Z"


class _Client:
    """Records the scheduler's writes instead of making them."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []

    def patch(self, kind: str, name: str, body: Any, namespace: str, subresource: str | None = None) -> None:
        self.calls.append(("patch", (kind, name, body, namespace, subresource)))

    def delete(self, kind: str, name: str, namespace: str) -> None:
        self.calls.append(("delete", (kind, name, namespace)))


def _evict(conditions: list[dict[str, Any]]) -> tuple[_Client, Any]:
    client = _Client()
    pod = {"metadata": {"name": "p", "namespace": "ns"}, "status": {"conditions": conditions}}
    stub = SimpleNamespace(
        client=client, name="volcano", cache=SimpleNamespace(releasing=set(), generation=4),
        _pod=lambda task: pod, _event=lambda *a: None, _now=lambda: NOW, _record=lambda *a: None)
    task = SimpleNamespace(job=None, name="p", namespace="ns", key="ns/p")
    Scheduler._evict(stub, None, task, "preempt")  # type: ignore[arg-type]
    return client, stub


def test_evicting_a_pod_already_marked_keeps_one_condition_of_each_type() -> None:
    before = [{"type": "PodScheduled", "status": "True"},
              {"type": "DisruptionTarget", "status": "True", "reason": "EvictionByEvictionAPI"},
              {"type": "Ready", "status": "True"},
              {"type": "ContainersReady", "status": "True"}]
    client, stub = _evict(before)
    assert client.calls == [
        ("patch", ("Pod", "p", {"status": {"conditions": [
            {"type": "PodScheduled", "status": "True"},
            {"type": "ContainersReady", "status": "True"},
            {"type": "Ready", "status": "False", "reason": "Evict",
             "message": "Pod is evicted, because of preempt", "lastTransitionTime": NOW},
            {"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler",
             "message": "volcano: preempting to accommodate a higher priority pod", "lastTransitionTime": NOW},
        ]}}, "ns", "status")),
        ("delete", ("Pod", "p", "ns")),
    ]
    assert stub.cache.releasing == {"ns/p"} and stub.cache.generation == 5
