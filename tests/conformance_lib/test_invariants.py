"""The conformance invariant checker on hand-written histories: each new check fires on the
violation it names and stays quiet at the boundary next to it."""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.lib.invariants import check_invariants

Obj = dict[str, Any]
History = list[tuple[float, str, str, Obj]]
NS = "ns"


def _node(name: str, cpu: str = "4") -> Obj:
    return {"metadata": {"name": name}, "status": {"allocatable": {"cpu": cpu, "pods": "110"},
                                                   "conditions": [{"type": "Ready", "status": "True"}]}}


def _queue(name: str, **spec: Any) -> Obj:
    return {"metadata": {"name": name}, "spec": {"weight": 1, **spec}, "status": {"state": "Open"}}


def _group(name: str, queue: str) -> Obj:
    return {"metadata": {"name": name, "namespace": NS, "uid": name}, "spec": {"minMember": 1, "queue": queue},
            "status": {"phase": "Running"}}


def _pod(name: str, group: str, *, node: str | None = None, nominated: str | None = None, cpu: str = "1") -> Obj:
    pod: Obj = {"metadata": {"name": name, "namespace": NS, "annotations": {"scheduling.k8s.io/group-name": group}},
                "spec": {"schedulerName": "volcano",
                         "containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]},
                "status": {"phase": "Running" if node else "Pending"}}
    if node:
        pod["spec"]["nodeName"] = node
    if nominated:
        pod["status"]["nominatedNodeName"] = nominated
    return pod


def _evict_event(pod: str, reason: str) -> Obj:
    return {"metadata": {"name": f"{pod}.evict", "namespace": NS}, "reason": "Evict", "type": "Warning",
            "involvedObject": {"kind": "Pod", "name": pod, "namespace": NS},
            "message": f"Pod is evicted, because of {reason}"}


def _cluster(queues: list[Obj], running: dict[str, int], nodes: int = 2) -> History:
    """Queues, ``nodes`` 4-CPU nodes and, per queue, ``running`` one-CPU pods bound round-robin."""
    h: History = [(0.0, "Node", "ADDED", _node(f"n{i}")) for i in range(nodes)]
    h += [(0.0, "Queue", "ADDED", q) for q in queues]
    slot = 0
    for q, count in sorted(running.items()):
        h.append((0.0, "PodGroup", "ADDED", _group(f"{q}-run", q)))
        for i in range(count):
            h.append((0.0, "Pod", "ADDED", _pod(f"{q}-run-{i}", f"{q}-run", node=f"n{slot % nodes}")))
            slot += 1
    return h


def _eviction(h: History, victim: str, reason: str, preemptor_queue: str, *, pending: int = 1) -> History:
    """At t=1: ``pending`` unbound pods of ``preemptor_queue``, the first nominated to the victim's
    node; the victim's Evict event."""
    node = next(o["spec"]["nodeName"] for _, k, _, o in h if k == "Pod" and o["metadata"]["name"] == victim)
    h = [*h, (1.0, "PodGroup", "ADDED", _group(f"{preemptor_queue}-new", preemptor_queue))]
    for i in range(pending):
        h.append((1.0, "Pod", "ADDED", _pod(f"{preemptor_queue}-new-{i}", f"{preemptor_queue}-new",
                                            nominated=node if i == 0 else None)))
    return [*h, (1.0, "Event", "ADDED", _evict_event(victim, reason))]


def test_preempt_victim_of_the_preemptors_queue_is_fine() -> None:
    h = _cluster([_queue("a"), _queue("b")], {"a": 4, "b": 4})
    assert check_invariants(_eviction(h, "a-run-0", "preempt", "a")) == []


def test_preempt_victim_of_another_queue_is_reported() -> None:
    h = _cluster([_queue("a"), _queue("b")], {"a": 4, "b": 4})
    violations = check_invariants(_eviction(h, "b-run-0", "preempt", "a"))
    assert len(violations) == 1 and "queue b evicted for preempt" in violations[0], violations


def test_an_eviction_nobody_is_nominated_for_is_not_judged() -> None:
    h = _cluster([_queue("a"), _queue("b")], {"a": 4, "b": 4})
    h = [*h, (1.0, "Event", "ADDED", _evict_event("b-run-0", "preempt"))]
    assert check_invariants(h) == []


def test_reclaim_for_the_victims_own_queue_is_reported() -> None:
    h = _cluster([_queue("a"), _queue("b")], {"a": 2, "b": 6})
    violations = check_invariants(_eviction(h, "b-run-0", "reclaim", "b"))
    assert len(violations) == 1 and "same queue" in violations[0], violations


@pytest.mark.parametrize(("a_running", "reported"), [(3, False), (4, False), (5, True), (6, True)])
def test_reclaim_by_a_queue_at_or_above_its_share_is_reported(a_running: int, reported: bool) -> None:
    """8 CPUs, queues a, b and default of weight 1; b runs 8 - a_running and asks for no more.
    b's share is at least min(8/3, its request), so a's is at most 8 - min(8/3, 8 - a_running):
    a reclaiming one more CPU is within that bound up to a_running 4 (5 <= 5.33), not from 5 on."""
    h = _cluster([_queue("a"), _queue("b"), _queue("default")], {"a": a_running, "b": 8 - a_running})
    violations = check_invariants(_eviction(h, "b-run-0", "reclaim", "a"))
    bound = 8 - min(8 / 3, 8 - a_running)
    assert (a_running + 1 > bound) is reported
    assert bool(violations) is reported, violations


def test_reclaim_share_check_is_off_with_guarantees_or_without_proportion() -> None:
    h = _cluster([_queue("a"), _queue("b", guarantee={"resource": {"cpu": "1"}})], {"a": 6, "b": 2})
    assert check_invariants(_eviction(h, "b-run-0", "reclaim", "a")) == []
    h = _cluster([_queue("a"), _queue("b")], {"a": 6, "b": 2})
    assert check_invariants(_eviction(h, "b-run-0", "reclaim", "a"), proportion=False) == []
    assert check_invariants(_eviction(h, "b-run-0", "reclaim", "a")) != []


def _job(retry: int, max_retry: int | None) -> Obj:
    spec: Obj = {} if max_retry is None else {"maxRetry": max_retry}
    return {"metadata": {"name": "j", "namespace": NS}, "spec": spec, "status": {"retryCount": retry}}


@pytest.mark.parametrize(("retry", "max_retry", "reported"), [
    (2, 2, False), (3, 2, True), (3, None, False), (4, None, True), (1, 1, False), (2, 1, True),
])
def test_retry_count_within_max_retry(retry: int, max_retry: int | None, reported: bool) -> None:
    violations = check_invariants([(0.0, "Job", "MODIFIED", _job(retry, max_retry))])
    assert bool(violations) is reported, violations
