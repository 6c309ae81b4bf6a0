"""What plugins and actions report for the scheduler's metrics: a typed sink.

Volcano's actions call its metrics package directly (``metrics.Update…``); here
a session is handed a ``MetricsSink`` and plugins and actions report through it,
so the algorithm never reaches a metrics library and tests can read what was
reported. ``volcano.scheduler.metrics.SchedulerMetrics`` is the Prometheus
implementation; ``NO_METRICS`` drops everything (sessions built without one).
"""

from __future__ import annotations

from typing import Protocol

__all__ = ["NO_METRICS", "MetricsSink", "NoMetrics"]


class MetricsSink(Protocol):
    """The reports a session makes (names follow Volcano's ``pkg/scheduler/metrics``). Each
    method does nothing by default, so a sink that subclasses it implements only what it
    records."""

    def count_preemption_attempts(self, n: int) -> None:
        """``total_preemption_attempts`` += n (nodes the preempt scan visited)."""
        return None

    def set_preemption_victims(self, n: int) -> None:
        """``pod_preemption_victims`` = n (victims offered on the last node examined)."""
        return None

    def count_eviction_transaction(self, action: str) -> None:
        """``eviction_transactions_total{action}`` += 1 (a committed statement that evicted)."""
        return None

    def set_unschedulable_tasks(self, job: str, n: int) -> None:
        """``unschedule_task_count{job_id}`` = n at session close."""
        return None

    def set_unschedulable_jobs(self, n: int) -> None:
        """``unschedule_job_count`` = n at session close."""
        return None

    def count_job_retry(self, job: str) -> None:
        """``job_retry_counts{job_id}`` += 1 (the job was not ready at session close)."""
        return None


class NoMetrics(MetricsSink):
    """A sink that drops every report (the protocol's methods do nothing)."""


NO_METRICS: MetricsSink = NoMetrics()
"""The default sink of a session built without one."""
