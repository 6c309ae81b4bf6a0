"""The metrics sink: what preempt, reclaim and gang report reaches ``SchedulerMetrics``."""

from __future__ import annotations

from tests.scheduler.harness import conf, node, opt, pc, pg, pod, queue, res, run
from volcano.scheduler.metrics import SchedulerMetrics

PCS = [pc("high", 1000), pc("low", 10)]


def _preempt_cycle(metrics: SchedulerMetrics) -> list[str]:
    """One node full of a low-priority job; a high-priority job of one task waits."""
    c = conf(["preempt"], [opt("priority", "taskOrder", "jobOrder", "preemptable", "jobStarving"),
                           opt("gang", "jobPipelined", "jobStarving")], [opt("conformance", "preemptable")])
    r = run(c, nodes=[node("n1", res(2, "2Gi"))], queues=[queue("q")], pcs=PCS, metrics=metrics,
            podgroups=[pg("lo", "ns", "q", 1, "Running", pc_name="low"), pg("hi", "ns", "q", 1, pc_name="high"),
                       pg("stuck", "ns", "q", 2, pc_name="high")],
            pods=[pod("ns", "lo-0", node_name="n1", phase="Running", req=res(1, "1Gi"), group="lo"),
                  pod("ns", "lo-1", node_name="n1", phase="Running", req=res(1, "1Gi"), group="lo"),
                  pod("ns", "hi-0", req=res(1, "1Gi"), group="hi"),
                  pod("ns", "stuck-0", req=res(8, "1Gi"), group="stuck")])
    return r.evicted


def test_preempt_and_gang_report_through_the_sink() -> None:
    m = SchedulerMetrics()
    assert _preempt_cycle(m) == ["ns/lo-1"]
    value = m.registry.get_sample_value
    assert value("volcano_eviction_transactions_total", {"action": "preempt"}) == 1
    # One node scanned for hi-0 (stuck is invalid: minMember 2 with one task, so never a preemptor).
    assert value("volcano_total_preemption_attempts_total") == 1
    assert value("volcano_pod_preemption_victims") == 2  # both lo tasks offered on n1
    # gang's close: hi is pipelined, not ready (1 task short); stuck lacks 2; lo is ready
    assert value("volcano_unschedule_job_count") == 2
    assert value("volcano_unschedule_task_count", {"job_id": "stuck"}) == 2
    assert value("volcano_unschedule_task_count", {"job_id": "hi"}) == 1
    assert value("volcano_unschedule_task_count", {"job_id": "lo"}) == 0
    assert value("volcano_job_retry_counts_total", {"job_id": "stuck"}) == 1
    assert value("volcano_job_retry_counts_total", {"job_id": "lo"}) is None


def test_a_second_cycle_adds_to_the_counters_and_resets_the_gauges() -> None:
    m = SchedulerMetrics()
    _preempt_cycle(m)
    _preempt_cycle(m)
    value = m.registry.get_sample_value
    assert value("volcano_eviction_transactions_total", {"action": "preempt"}) == 2
    assert value("volcano_total_preemption_attempts_total") == 2
    assert value("volcano_job_retry_counts_total", {"job_id": "stuck"}) == 2
    assert value("volcano_unschedule_job_count") == 2
