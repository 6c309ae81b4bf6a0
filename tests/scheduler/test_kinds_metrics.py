"""Kinds pinned whole: the scheduler's metrics registry, its families (name, type, help, labels),
its rendering, its samples before any cycle, and the bulk observation a skipped cycle makes."""

from __future__ import annotations

from typing import Any

from prometheus_client import generate_latest

from tests.scheduler.kinds_support import counter_samples, families, samples
from volcano.scheduler.metrics import SchedulerMetrics
from volcano.scheduler.scheduler import observe_zeros

FAMILIES = [
    ("volcano_e2e_scheduling_latency_milliseconds", "histogram", "E2e scheduling latency"),
    ("volcano_open_session_duration_milliseconds", "histogram", "Open session duration"),
    ("volcano_action_scheduling_latency_milliseconds", "histogram", "Action latency"),
    ("volcano_plugin_scheduling_latency_milliseconds", "histogram", "Plugin latency"),
    ("volcano_task_scheduling_latency_milliseconds", "histogram", "Task scheduling latency"),
    ("volcano_e2e_job_scheduling_latency_milliseconds", "histogram", "Job scheduling latency"),
    ("volcano_unschedule_task_count", "gauge", "Unschedulable tasks per job"),
    ("volcano_unschedule_job_count", "gauge", "Unschedulable jobs"),
    ("volcano_job_retry_counts", "counter", "Job retries"),
    ("volcano_pod_preemption_victims", "gauge", "Preemption victims"),
    ("volcano_total_preemption_attempts", "counter", "Preemption attempts"),
    ("volcano_eviction_transactions", "counter", "Committed eviction statements"),
    ("volcano_schedule_attempts", "counter", "Schedule attempts (never incremented)"),
]
LABELS = {
    "e2e_latency": (), "open_session": (), "action_latency": ("action",), "plugin_latency": ("plugin", "OnSession"),
    "task_latency": ("stage",), "job_latency": (), "unschedule_task_count": ("job_id",),
    "unschedule_job_count": (), "job_retry_counts": ("job_id",), "preemption_victims": (),
    "preemption_attempts": (), "eviction_transactions": ("action",), "schedule_attempts": ("result",),
}
BUCKETS = {"e2e_latency": (1, 5000, 20), "open_session": (1, 5000, 20), "action_latency": (1, 2000, 20),
           "plugin_latency": (0.1, 100, 15), "task_latency": (50, 60000, 30), "job_latency": (100, 120000, 30)}


def test_every_family_with_its_type_help_and_labels() -> None:
    m = SchedulerMetrics()
    assert families(m.registry) == FAMILIES
    assert {attr: tuple(getattr(m, attr)._labelnames) for attr in LABELS} == LABELS


def test_histogram_buckets_span_their_ranges_exponentially() -> None:
    """Each histogram's upper bounds: ``count`` bounds from ``lo`` to ``hi``, each the previous
    times the same factor, then +Inf."""
    m = SchedulerMetrics()
    for attr, (lo, hi, count) in BUCKETS.items():
        bounds = list(getattr(m, attr)._upper_bounds)
        assert len(bounds) == count + 1, attr
        assert bounds[-1] == float("inf"), attr
        assert abs(bounds[0] - lo) < 1e-9 and abs(bounds[count - 1] - hi) < 1e-6 * hi, attr
        factor = (hi / lo) ** (1 / (count - 1))
        assert all(abs(bounds[i + 1] / bounds[i] - factor) < 1e-9 for i in range(count - 1)), attr


def test_a_fresh_registry_renders_only_its_unlabelled_samples() -> None:
    """Before any cycle: the unlabelled histograms' zero counts and sums, the unlabelled gauges and
    counters at 0, and nothing of a labelled family (no label set used yet)."""
    m = SchedulerMetrics()
    assert samples(m.registry) == [
        ("volcano_e2e_job_scheduling_latency_milliseconds_count", (), 0.0),
        ("volcano_e2e_job_scheduling_latency_milliseconds_sum", (), 0.0),
        ("volcano_e2e_scheduling_latency_milliseconds_count", (), 0.0),
        ("volcano_e2e_scheduling_latency_milliseconds_sum", (), 0.0),
        ("volcano_open_session_duration_milliseconds_count", (), 0.0),
        ("volcano_open_session_duration_milliseconds_sum", (), 0.0),
        ("volcano_pod_preemption_victims", (), 0.0),
        ("volcano_total_preemption_attempts_total", (), 0.0),
        ("volcano_unschedule_job_count", (), 0.0),
    ]
    text = generate_latest(m.registry).decode()
    helps = [line for line in text.splitlines() if line.startswith("# HELP") and not line.endswith("_created")
             and "_created " not in line]
    assert helps == [f"# HELP {name}{'_total' if kind == 'counter' else ''} {doc}" for name, kind, doc in FAMILIES]
    assert "volcano_schedule_attempts_total" not in [line.split(" ")[0] for line in text.splitlines()
                                                     if not line.startswith("#")]


def test_the_sink_methods_set_and_add_exactly_what_they_name() -> None:
    m = SchedulerMetrics()
    m.count_preemption_attempts(0)
    m.count_preemption_attempts(3)
    m.count_preemption_attempts(2)
    m.set_preemption_victims(4)
    m.set_preemption_victims(2)
    m.count_eviction_transaction("preempt")
    m.count_eviction_transaction("reclaim")
    m.count_eviction_transaction("preempt")
    m.set_unschedulable_tasks("j1", 5)
    m.set_unschedulable_tasks("j2", 1)
    m.set_unschedulable_tasks("j1", 3)
    m.set_unschedulable_jobs(7)
    m.count_job_retry("j1")
    m.count_job_retry("j1")
    m.count_job_retry("j2")
    got = [s for s in samples(m.registry) if "latency" not in s[0] and "duration" not in s[0]]
    assert got == counter_samples(evictions={"preempt": 2, "reclaim": 1}, retries={"j1": 2, "j2": 1}, victims=2,
                                  attempts=5, unscheduled_jobs=7, unscheduled_tasks={"j1": 3, "j2": 1})


def test_bulk_zero_observations_equal_one_by_one_ones() -> None:
    """``observe_zeros`` (a skipped cycle's latencies) leaves every bucket, count and sum as that many
    single observations of 0 do, for 1 and for several runs, over observations already there."""
    for runs in (1, 2, 7):
        bulk, single = SchedulerMetrics(), SchedulerMetrics()
        for m in (bulk, single):
            m.e2e_latency.observe(3)
            m.action_latency.labels("allocate").observe(1500)
        observe_zeros(bulk.e2e_latency, runs)
        observe_zeros(bulk.action_latency.labels("allocate"), runs)
        for _ in range(runs):
            single.e2e_latency.observe(0)
            single.action_latency.labels("allocate").observe(0)
        assert samples(bulk.registry, buckets=True) == samples(single.registry, buckets=True)
        value = bulk.registry.get_sample_value
        assert value("volcano_e2e_scheduling_latency_milliseconds_bucket", {"le": "1.0"}) == runs
        assert value("volcano_e2e_scheduling_latency_milliseconds_count") == runs + 1
        assert value("volcano_action_scheduling_latency_milliseconds_bucket",
                     {"action": "allocate", "le": "1.0"}) == runs


def test_bulk_zero_observations_of_an_unknown_histogram_go_one_by_one() -> None:
    """A histogram whose bucket layout is not the client's gets ``runs`` plain ``observe(0)`` calls."""

    class Plain:
        def __init__(self) -> None:
            self.seen: list[Any] = []

        def observe(self, value: float) -> None:
            self.seen.append(value)

    h = Plain()
    observe_zeros(h, 4)
    assert h.seen == [0, 0, 0, 0]
    h2 = Plain()
    h2._buckets = [1, 2]  # type: ignore[attr-defined]
    h2._upper_bounds = [1.0]  # type: ignore[attr-defined]
    observe_zeros(h2, 3)
    assert h2.seen == [0, 0, 0]
