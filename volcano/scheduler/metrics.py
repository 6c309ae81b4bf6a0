"""The scheduler's ``volcano_*`` Prometheus metrics, in a per-scheduler registry.

Names, labels and buckets follow Volcano's ``pkg/scheduler/metrics``. Latencies
are simulated milliseconds (a cycle takes no simulated time, so cycle/action
latencies are 0 unless the clock is advanced inside them); the job scheduling
latency (creation to allocation) is meaningful in simulated time.
``SchedulerMetrics`` is also the session's ``MetricsSink``: plugins and actions
report through its ``count_*``/``set_*`` methods.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

__all__ = ["SchedulerMetrics"]


def _exp_buckets(lo: float, hi: float, count: int) -> list[float]:
    """Prometheus' ExponentialBucketsRange."""
    factor = (hi / lo) ** (1 / (count - 1))
    return [lo * factor ** i for i in range(count)]


class SchedulerMetrics:
    """Every scheduler metric, registered in ``self.registry`` (never the global one);
    a ``volcano.scheduler.framework.metrics.MetricsSink``."""

    def __init__(self) -> None:
        r = self.registry = CollectorRegistry()
        ns = "volcano"
        self.e2e_latency = Histogram("e2e_scheduling_latency_milliseconds", "E2e scheduling latency",
                                     namespace=ns, registry=r, buckets=_exp_buckets(1, 5000, 20))
        self.open_session = Histogram("open_session_duration_milliseconds", "Open session duration",
                                      namespace=ns, registry=r, buckets=_exp_buckets(1, 5000, 20))
        self.action_latency = Histogram("action_scheduling_latency_milliseconds", "Action latency", ["action"],
                                        namespace=ns, registry=r, buckets=_exp_buckets(1, 2000, 20))
        self.plugin_latency = Histogram("plugin_scheduling_latency_milliseconds", "Plugin latency",
                                        ["plugin", "OnSession"], namespace=ns, registry=r,
                                        buckets=_exp_buckets(0.1, 100, 15))
        self.task_latency = Histogram("task_scheduling_latency_milliseconds", "Task scheduling latency", ["stage"],
                                      namespace=ns, registry=r, buckets=_exp_buckets(50, 60000, 30))
        self.job_latency = Histogram("e2e_job_scheduling_latency_milliseconds", "Job scheduling latency",
                                     namespace=ns, registry=r, buckets=_exp_buckets(100, 120000, 30))
        self.unschedule_task_count = Gauge("unschedule_task_count", "Unschedulable tasks per job", ["job_id"],
                                           namespace=ns, registry=r)
        self.unschedule_job_count = Gauge("unschedule_job_count", "Unschedulable jobs", namespace=ns, registry=r)
        self.job_retry_counts = Counter("job_retry_counts", "Job retries", ["job_id"], namespace=ns, registry=r)
        self.preemption_victims = Gauge("pod_preemption_victims", "Preemption victims", namespace=ns, registry=r)
        self.preemption_attempts = Counter("total_preemption_attempts", "Preemption attempts", namespace=ns,
                                           registry=r)
        self.eviction_transactions = Counter("eviction_transactions_total", "Committed eviction statements",
                                             ["action"], namespace=ns, registry=r)
        self.schedule_attempts = Counter("schedule_attempts_total", "Schedule attempts (never incremented)",
                                         ["result"], namespace=ns, registry=r)

    # -- MetricsSink ----------------------------------------------------------------------------
    def count_preemption_attempts(self, n: int) -> None:
        """``total_preemption_attempts`` += n."""
        if n:
            self.preemption_attempts.inc(n)

    def set_preemption_victims(self, n: int) -> None:
        """``pod_preemption_victims`` = n."""
        self.preemption_victims.set(n)

    def count_eviction_transaction(self, action: str) -> None:
        """``eviction_transactions_total{action}`` += 1."""
        self.eviction_transactions.labels(action).inc()

    def set_unschedulable_tasks(self, job: str, n: int) -> None:
        """``unschedule_task_count{job_id}`` = n."""
        self.unschedule_task_count.labels(job).set(n)

    def set_unschedulable_jobs(self, n: int) -> None:
        """``unschedule_job_count`` = n."""
        self.unschedule_job_count.set(n)

    def count_job_retry(self, job: str) -> None:
        """``job_retry_counts{job_id}`` += 1."""
        self.job_retry_counts.labels(job).inc()
