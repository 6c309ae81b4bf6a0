"""Kinds pinned whole: the scheduler's decision trace, its Events and its metrics registry.

For small scenarios (a gang that fits beside one that waits and one the overcommit plugin
turns away, a default-scheduler pod, a preemption, a reclaim, a bind the API server refuses,
an eviction whose pod delete is refused, PodGroup and Queue status writes refused) each test
compares the COMPLETE list of trace records of both schedulers (time, component, event,
object, detail), the complete list of Events the Volcano scheduler recorded (object, type,
reason, message, count) and every sample of the scheduler's metrics registry. Every scenario
runs twice, with ``Scheduler.reuse`` on (the product's path) and off (the reference path),
against the same expectation.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import pytest

from tests.scheduler.kinds_support import (
    RefusingClient,
    Sample,
    TraceRecord,
    bound,
    counter_samples,
    enqueued,
    events_of,
    gang,
    podgroup,
    pods,
    priority_class,
    queue,
    samples,
    sched_trace,
)
from volcano.scheduler.config import DEFAULT_SCHEDULER_CONF_TEXT
from volcano.scheduler.scheduler import Scheduler
from volcano.testbed import FakeCluster

REUSE = pytest.mark.parametrize("reuse", [True, False], ids=["reuse", "reference"])

PREEMPT_CONF = DEFAULT_SCHEDULER_CONF_TEXT.replace("allocate, backfill", "allocate, preempt, backfill").replace(
    "  - name: overcommit\n", "")
"""The built-in configuration with preempt before backfill and without overcommit."""
RECLAIM_CONF = PREEMPT_CONF.replace("preempt", "reclaim")
DEFAULT_ACTIONS = ("allocate", "backfill", "enqueue")


def cluster(reuse: bool, conf: str | None = None,
            refuse: Callable[[str, tuple[Any, ...]], bool] | None = None) -> FakeCluster:
    """A cluster whose schedulers take ``reuse``; with ``refuse``, the Volcano scheduler is a new one
    over a client that refuses those writes (500 InternalError)."""
    fc = FakeCluster(seed=1, scheduler_conf=conf)
    if refuse is not None:
        fc.scheduler.stop()
        fc.scheduler = Scheduler(RefusingClient(fc.server, refuse), fc.informers, fc.clock,
                                 conf=fc.scheduler_config, streams=fc.streams, trace=fc.trace,
                                 recorder=fc.recorder_for("volcano"))
        fc.scheduler.start()
    fc.scheduler.reuse = reuse
    fc.default_scheduler.reuse = reuse
    return fc


def latencies(cycles: int, actions: Iterable[str] = DEFAULT_ACTIONS) -> list[Sample]:
    """The latency histograms' count and sum samples after ``cycles`` cycles, each of which took
    no simulated time (so every observation is 0): one end-to-end, one open-session and one
    per-action observation a cycle, as upstream's ``OpenSession`` observes its duration every
    cycle; no job scheduled since its creation observed."""
    out: list[Sample] = []
    for action in actions:
        out.append(("volcano_action_scheduling_latency_milliseconds_count", (("action", action),), float(cycles)))
        out.append(("volcano_action_scheduling_latency_milliseconds_sum", (("action", action),), 0.0))
    out += [("volcano_e2e_job_scheduling_latency_milliseconds_count", (), 0.0),
            ("volcano_e2e_job_scheduling_latency_milliseconds_sum", (), 0.0),
            ("volcano_e2e_scheduling_latency_milliseconds_count", (), float(cycles)),
            ("volcano_e2e_scheduling_latency_milliseconds_sum", (), 0.0),
            ("volcano_open_session_duration_milliseconds_count", (), float(cycles)),
            ("volcano_open_session_duration_milliseconds_sum", (), 0.0)]
    return out


def registry(cycles: int, action: str = "", **counters: Any) -> list[Sample]:
    """Every sample of the registry after ``cycles`` zero-time cycles of the default actions (and ``action``):
    the latencies and ``counter_samples(**counters)``, sorted."""
    actions = (*DEFAULT_ACTIONS, action) if action else DEFAULT_ACTIONS
    return sorted(latencies(cycles, actions) + counter_samples(**counters))


def refused_evictions(seconds: Iterable[int]) -> list[TraceRecord]:
    """Each of those seconds, the eviction of ``lo-0`` for ``hi`` then its refusal."""
    return [record for t in seconds for record in (
        (t * 1000, "volcano", "Evict", "default/lo-0", "n1 preempt"),
        (t * 1000, "volcano", "EvictFailed", "default/lo-0", "InternalError"))]


def _scheduled(pod: str, node: str) -> tuple[str, str, str, str, str, int]:
    return ("Pod", pod, "Normal", "Scheduled", f"Successfully assigned default/{pod} to {node}", 1)


def _placed(group: str, placements: list[tuple[str, str]], binding: str) -> list[tuple[str, str, str, str, str, int]]:
    """The Scheduled event of each (pod, node), then the group's one Unschedulable event of the cycle
    that placed them all, whose gang summary is ``pod group is ready, <binding>``."""
    return [*[_scheduled(p, n) for p, n in placements],
            ("PodGroup", group, "Warning", "Unschedulable",
             f"0/{len(placements)} tasks in gang unschedulable: pod group is ready, {binding}", 1)]


@REUSE
def test_gangs_that_fit_wait_and_are_turned_away(reuse: bool) -> None:
    """Two 2-cpu nodes: gang ``fits`` (two 2-cpu pods) binds at once; gang ``waits`` (the same) finds
    no room; ``big`` asks 100 cpu of minResources, which overcommit refuses every cycle with a
    PodGroup event whose message the trace carries; a default-scheduler pod binds through the
    default scheduler."""
    fc = cluster(reuse)
    fc.add_node("n1", cpu="2")
    fc.add_node("n2", cpu="2")
    gang(fc, "fits", 2, 2, "2")
    gang(fc, "waits", 2, 2, "2")
    podgroup(fc, "big", 1, min_resources={"cpu": "100"})
    pods(fc, "big", 1, "1")
    pods(fc, "", 1, "0", scheduler="default-scheduler")
    fc.run(3)
    overused = "resource in cluster is overused: overused cpu"
    assert sched_trace(fc) == [
        (1000, "volcano", "Unschedulable", "default/big", overused),
        enqueued(1000, "fits"),
        enqueued(1000, "waits"),
        bound(1000, "fits-0", "n1"),
        bound(1000, "fits-1", "n2"),
        bound(1000, "solo-0", "n1", "default-scheduler"),
        (2000, "volcano", "Unschedulable", "default/big", overused),
        (3000, "volcano", "Unschedulable", "default/big", overused),
    ]
    waits = "pod group is not ready, 2 Pending, 2 minAvailable; Pending: 2 Unschedulable"
    big = "pod group is not ready, 1 Pending, 1 minAvailable; Pending: 1 Unschedulable"
    assert events_of(fc, "volcano") == [
        *_placed("fits", [("fits-0", "n1"), ("fits-1", "n2")], "2 Binding, 2 minAvailable"),
        ("Pod", "waits-1", "Warning", "FailedScheduling", waits, 1),
        ("Pod", "waits-0", "Warning", "FailedScheduling", waits, 1),
        ("Pod", "big-0", "Warning", "FailedScheduling", big, 1),
        ("PodGroup", "big", "Normal", "Unschedulable", overused, 3),
        ("PodGroup", "waits", "Warning", "Unschedulable", f"2/2 tasks in gang unschedulable: {waits}", 3),
        ("PodGroup", "big", "Warning", "Unschedulable", f"1/1 tasks in gang unschedulable: {big}", 3),
        ("PodGroup", "fits", "Normal", "Scheduled", "pod group is ready", 1),
    ]
    assert events_of(fc, "default-scheduler") == [_scheduled("solo-0", "n1")]
    assert samples(fc.scheduler.metrics.registry) == registry(
        3, retries={"big": 3, "waits": 3}, unscheduled_jobs=2, unscheduled_tasks={"big": 1, "fits": 0, "waits": 2})


def _low_then_high(fc: FakeCluster, seconds: int) -> None:
    """One 2-cpu node filled by job ``lo`` (two 1-cpu pods, class low, minMember 1); 2 s later job
    ``hi`` (one 1-cpu pod, class high) arrives; then ``seconds`` more."""
    fc.add_node("n1", cpu="2")
    priority_class(fc, "high", 1000)
    priority_class(fc, "low", 10)
    gang(fc, "lo", 1, 2, "1", priority_class="low")
    fc.run(2)
    gang(fc, "hi", 1, 1, "1", priority_class="high")
    fc.run(seconds)


LO_HI_TRACE = [enqueued(1000, "lo"), bound(1000, "lo-1", "n1"), bound(1000, "lo-0", "n1"), enqueued(3000, "hi")]
"""The trace of ``_low_then_high`` up to the preemption."""


LO_EVENTS = [
    *_placed("lo", [("lo-1", "n1"), ("lo-0", "n1")], "1 minAvailable, 2 Binding"),
    ("PodGroup", "lo", "Normal", "Scheduled", "pod group is ready", 2),
]
HI_PIPELINED = ("PodGroup", "hi", "Warning", "Unschedulable",
                "0/1 tasks in gang unschedulable: pod group is not ready, 1 Pipelined, 1 minAvailable")
HI_NOMINATED = ("Pod", "hi-0", "Warning", "FailedScheduling",
                "Pod default/hi-0 can possibly be assigned to n1, once resource is released and minAvailable is "
                "satisfied", 1)


@REUSE
def test_preemption_evicts_one_victim_and_binds_after_its_grace_period(reuse: bool) -> None:
    """``hi`` preempts ``lo-0`` at 3 s (one node scanned, one victim); the preemptor stays pipelined
    until the victim's 30 s grace period ends and binds at 33 s."""
    fc = cluster(reuse, PREEMPT_CONF)
    _low_then_high(fc, 40)
    assert sched_trace(fc) == [
        *LO_HI_TRACE,
        (3000, "volcano", "Evict", "default/lo-0", "n1 preempt"),
        bound(33000, "hi-0", "n1"),
    ]
    assert events_of(fc, "volcano") == [
        *LO_EVENTS,
        ("PodGroup", "lo", "Normal", "Evict", "preempt", 1),
        ("Pod", "lo-0", "Warning", "Evict", "Pod is evicted, because of preempt", 1),
        HI_NOMINATED,
        (*HI_PIPELINED, 25),
        _scheduled("hi-0", "n1"),
    ]
    assert samples(fc.scheduler.metrics.registry) == registry(
        42, "preempt", evictions={"preempt": 1}, retries={"hi": 30}, victims=1, attempts=1, unscheduled_jobs=0,
        unscheduled_tasks={"hi": 0, "lo": 0})


@REUSE
def test_a_refused_pod_delete_is_an_evict_failed_record_every_cycle(reuse: bool) -> None:
    """The same preemption over a client that refuses every pod delete: each cycle evicts ``lo-0``
    again (an eviction transaction and a preemption attempt counted each time) and records
    ``EvictFailed`` with the error's reason; the victim keeps running."""
    fc = cluster(reuse, PREEMPT_CONF, refuse=lambda verb, args: verb == "delete" and args[0] == "Pod")
    _low_then_high(fc, 3)
    assert sched_trace(fc) == [*LO_HI_TRACE, *refused_evictions((3, 4, 5))]
    assert events_of(fc, "volcano") == [
        *LO_EVENTS,
        HI_NOMINATED,
        ("PodGroup", "lo", "Normal", "Evict", "preempt", 3),
        ("Pod", "lo-0", "Warning", "Evict", "Pod is evicted, because of preempt", 3),
        (*HI_PIPELINED, 3),
    ]
    assert fc.get("Pod", "lo-0")["status"]["phase"] == "Running"
    assert samples(fc.scheduler.metrics.registry) == registry(
        5, "preempt", evictions={"preempt": 3}, retries={"hi": 3}, victims=1, attempts=3, unscheduled_jobs=1,
        unscheduled_tasks={"hi": 1, "lo": 0})


@REUSE
def test_reclaim_evicts_from_the_queue_over_its_share(reuse: bool) -> None:
    """Queue ``qa`` fills the 2-cpu node; a job of queue ``qb`` (equal weight) reclaims one cpu at 3 s."""
    fc = cluster(reuse, RECLAIM_CONF)
    fc.add_node("n1", cpu="2")
    queue(fc, "qa")
    queue(fc, "qb")
    gang(fc, "a", 1, 2, "1", queue_name="qa")
    fc.run(2)
    gang(fc, "b", 1, 1, "1", queue_name="qb")
    fc.run(5)
    assert sched_trace(fc) == [
        enqueued(1000, "a", "qa"),
        bound(1000, "a-1", "n1"),
        bound(1000, "a-0", "n1"),
        enqueued(3000, "b", "qb"),
        (3000, "volcano", "Evict", "default/a-0", "n1 reclaim"),
    ]
    pipelined = "0/1 tasks in gang unschedulable: pod group is not ready, 1 Pipelined, 1 minAvailable"
    assert events_of(fc, "volcano") == [
        *_placed("a", [("a-1", "n1"), ("a-0", "n1")], "1 minAvailable, 2 Binding"),
        ("PodGroup", "a", "Normal", "Scheduled", "pod group is ready", 2),
        ("PodGroup", "a", "Normal", "Evict", "reclaim", 1),
        ("Pod", "a-0", "Warning", "Evict", "Pod is evicted, because of reclaim", 1),
        ("PodGroup", "b", "Warning", "Unschedulable",
         f"{pipelined}. Origin reason is b-0: 0/1 nodes are unavailable: 1 Insufficient cpu.", 1),
        ("Pod", "b-0", "Warning", "FailedScheduling",
         "Pod default/b-0 can possibly be assigned to n1, once resource is released and minAvailable is "
         "satisfied", 1),
        ("PodGroup", "b", "Warning", "Unschedulable", pipelined, 4),
    ]
    assert samples(fc.scheduler.metrics.registry) == registry(
        7, "reclaim", evictions={"reclaim": 1}, retries={"b": 5}, unscheduled_jobs=1,
        unscheduled_tasks={"a": 0, "b": 1})


@REUSE
def test_a_refused_bind_is_traced_and_written_on_the_pod(reuse: bool) -> None:
    """A gang of two 2-cpu pods on two 2-cpu nodes, the API refusing every bind of ``g-1``: each cycle
    records its ``Bind`` then ``BindFailed`` (node and the error's reason), a FailedScheduling
    event naming the node and the error's message, and the pod's PodScheduled=False/SchedulerError."""
    fc = cluster(reuse, refuse=lambda verb, args: verb == "bind" and args[0] == "g-1")
    fc.add_node("n1", cpu="2")
    fc.add_node("n2", cpu="2")
    gang(fc, "g", 2, 2, "2")
    fc.run(2)
    refused = [(t, "volcano", "BindFailed", "default/g-1", "n2 InternalError") for t in (1000, 2000)]
    assert sched_trace(fc) == [
        enqueued(1000, "g"),
        bound(1000, "g-0", "n1"),
        bound(1000, "g-1", "n2"),
        refused[0],
        bound(2000, "g-1", "n2"),
        refused[1],
    ]
    failed = "failed to bind to node n2: Internal error occurred: refused by the test"
    assert events_of(fc, "volcano") == [
        _scheduled("g-0", "n1"),
        ("PodGroup", "g", "Warning", "Unschedulable",
         "0/2 tasks in gang unschedulable: pod group is ready, 2 Binding, 2 minAvailable", 1),
        ("Pod", "g-1", "Warning", "FailedScheduling", failed, 2),
        ("PodGroup", "g", "Warning", "Unschedulable",
         "0/2 tasks in gang unschedulable: pod group is ready, 1 Binding, 1 Running, 2 minAvailable", 1),
    ]
    assert fc.get("Pod", "g-1")["status"]["conditions"] == [
        {"type": "PodScheduled", "status": "False", "reason": "SchedulerError", "message": failed,
         "lastTransitionTime": "2024-01-01T00:00:01Z"}]
    assert fc.get("Pod", "g-1")["spec"].get("nodeName") is None


@REUSE
def test_refused_status_writes_are_traced_per_object(reuse: bool) -> None:
    """PodGroup updates and Queue status patches refused: each cycle records
    ``PodGroupStatusUpdateFailed`` for the PodGroup and ``QueueStatusUpdateFailed`` for each queue
    (sorted by name) with the error's reason; the job is enqueued again as its phase never lands."""
    fc = cluster(reuse, refuse=lambda verb, args: (verb == "update" and args[0].get("kind") == "PodGroup")
                 or (verb == "patch" and args[0] == "Queue"))
    fc.add_node("n1", cpu="2")
    gang(fc, "g", 1, 1, "1")
    fc.run(2)

    def refused(ms: int) -> list[TraceRecord]:
        return [(ms, "volcano", "PodGroupStatusUpdateFailed", "default/g", "InternalError"),
                *[(ms, "volcano", "QueueStatusUpdateFailed", q, "InternalError") for q in ("default", "root")]]

    assert sched_trace(fc) == [
        enqueued(1000, "g"), bound(1000, "g-0", "n1"), *refused(1000), enqueued(2000, "g"), *refused(2000)]
    assert fc.get("PodGroup", "g").get("status", {}).get("phase", "Pending") == "Pending"
    assert "allocated" not in (fc.get("Queue", "default").get("status") or {})


def _waiting_gang(reuse: bool) -> FakeCluster:
    """Two 2-cpu nodes; gang ``waits`` (two 2-cpu pods) then gang ``fits`` (two 1-cpu pods)."""
    fc = cluster(reuse)
    fc.add_node("n1", cpu="2")
    fc.add_node("n2", cpu="2")
    gang(fc, "waits", 2, 2, "2")
    gang(fc, "fits", 2, 2, "1")
    return fc


@REUSE
def test_a_waiting_gangs_status_is_written_once_and_kept(reuse: bool) -> None:
    """Gang ``fits`` (two 1-cpu pods) takes a cpu of each 2-cpu node; gang ``waits`` (two 2-cpu pods) cannot
    fit: its PodGroup's Unschedulable condition (with the first session's transition id and time and the fit
    error of its first pod) and its pods' PodScheduled=False conditions are written at 1 s and left as they are
    by the next cycles, which compute the same."""
    fc = _waiting_gang(reuse)
    fc.run(1.5)
    versions = [fc.get(k, n)["metadata"]["resourceVersion"] for k, n in
                (("PodGroup", "waits"), ("Pod", "waits-0"), ("Pod", "waits-1"))]
    fc.run(3)
    assert [fc.get(k, n)["metadata"]["resourceVersion"] for k, n in
            (("PodGroup", "waits"), ("Pod", "waits-0"), ("Pod", "waits-1"))] == versions
    fit_error = "0/2 nodes are unavailable: 2 Insufficient cpu."
    assert fc.get("PodGroup", "waits")["status"] == {"phase": "Inqueue", "conditions": [{
        "type": "Unschedulable", "status": "True", "transitionID": "volcano-session-1",
        "lastTransitionTime": "2024-01-01T00:00:01Z", "reason": "NotEnoughResources",
        "message": "2/2 tasks in gang unschedulable: pod group is not ready, 2 Pending, 2 minAvailable; Pending: 2 "
                   f"Unschedulable. Origin reason is waits-0: {fit_error}"}]}
    pending = "pod group is not ready, 2 Pending, 2 minAvailable; Pending: 2 Unschedulable"
    # The pod whose fit failed carries its fit error; the other one the gang's message with it as the origin.
    for name, message in (("waits-0", fit_error), ("waits-1", f"{pending}. Origin reason is waits-0: {fit_error}")):
        assert fc.get("Pod", name)["status"]["conditions"] == [
            {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": message,
             "lastTransitionTime": "2024-01-01T00:00:01Z"}], name


@REUSE
def test_a_waiting_gangs_conditions_follow_a_new_fit_error(reuse: bool) -> None:
    """The same waiting gang; at 3 s a third, too small node joins: the next cycle rewrites the fit error
    (now over 3 nodes) into the PodGroup's condition and both pods' PodScheduled=False conditions, the
    reason staying ``Unschedulable`` and the pods' transition times kept (the status did not change)."""
    fc = _waiting_gang(reuse)
    fc.run(3)
    fc.add_node("n3", cpu="1")
    fc.run(2)
    fit_error = "0/3 nodes are unavailable: 3 Insufficient cpu."
    pending = "pod group is not ready, 2 Pending, 2 minAvailable; Pending: 2 Unschedulable"
    for name, message in (("waits-0", fit_error), ("waits-1", f"{pending}. Origin reason is waits-0: {fit_error}")):
        assert fc.get("Pod", name)["status"]["conditions"] == [
            {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": message,
             "lastTransitionTime": "2024-01-01T00:00:01Z"}], name
    assert fc.get("PodGroup", "waits")["status"]["conditions"][0]["message"] == \
        f"2/2 tasks in gang unschedulable: {pending}. Origin reason is waits-0: {fit_error}"


@REUSE
def test_a_gang_discarded_with_one_member_placed_keeps_its_events_once(reuse: bool) -> None:
    """Nodes of 2 cpu, ``n2`` tainted; a gang of two 2-cpu pods: each cycle places ``g-0`` on n1, finds no node
    for ``g-1`` and discards. After two minutes each pod has its one FailedScheduling event (count 1: the
    condition is already on the pod, so it is neither written nor recorded again) and the PodGroup its
    Unschedulable event (aggregated by the event recorder: count 25)."""
    fc = cluster(reuse)
    fc.add_node("n1", cpu="2")
    fc.add_node("n2", cpu="2", taints=["dedicated=x:NoSchedule"])
    gang(fc, "g", 2, 2, "2")
    fc.run(120)
    assert sched_trace(fc) == [enqueued(1000, "g")]
    taint = "0/2 nodes are unavailable: 1 Insufficient cpu, 1 node(s) had untolerated taint {dedicated: x}."
    placed = "Pod default/g-0 can possibly be assigned to n1, once minAvailable is satisfied"
    assert events_of(fc, "volcano") == [
        ("Pod", "g-0", "Warning", "FailedScheduling", placed, 1),
        ("Pod", "g-1", "Warning", "FailedScheduling", taint, 1),
        ("PodGroup", "g", "Warning", "Unschedulable",
         "2/2 tasks in gang unschedulable: pod group is not ready, 2 Pending, 2 minAvailable; Pending: 1 "
         f"Schedulable, 1 Unschedulable. Origin reason is g-1: {taint}", 25),
    ]
    assert [fc.get("Pod", n)["status"]["conditions"] for n in ("g-0", "g-1")] == [
        [{"type": "PodScheduled", "status": "False", "reason": reason, "message": message,
          "lastTransitionTime": "2024-01-01T00:00:01Z"}]
        for reason, message in (("Schedulable", placed), ("Unschedulable", taint))]
