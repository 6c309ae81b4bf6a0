"""The scheduler's latency histograms have upstream's buckets (scheduler reference, metrics table):
Prometheus' ``ExponentialBucketsRange(min, max, count)``, so the first bound is ``min``, the last
finite one ``max``, ``count`` of them in all, each the previous times one factor."""

from __future__ import annotations

import math
from itertools import pairwise

import pytest

from volcano.scheduler.metrics import SchedulerMetrics

# (metric, labels to observe under, min, max, count) as the reference lists them
HISTOGRAMS = [
    ("volcano_e2e_scheduling_latency_milliseconds", {}, 1, 5000, 20),
    ("volcano_open_session_duration_milliseconds", {}, 1, 5000, 20),
    ("volcano_action_scheduling_latency_milliseconds", {"action": "allocate"}, 1, 2000, 20),
    ("volcano_plugin_scheduling_latency_milliseconds", {"plugin": "gang", "OnSession": "OnSessionOpen"}, 0.1, 100, 15),
    ("volcano_task_scheduling_latency_milliseconds", {"stage": "Bound"}, 50, 60000, 30),
    ("volcano_e2e_job_scheduling_latency_milliseconds", {}, 100, 120000, 30),
]


def _bounds(metrics: SchedulerMetrics, name: str, labels: dict[str, str]) -> list[float]:
    """The finite ``le`` bounds of ``name``'s buckets (observed once, so labelled ones exist)."""
    short = name.removeprefix("volcano_")
    histogram = next(v for v in vars(metrics).values() if getattr(v, "_name", None) == f"volcano_{short}")
    (histogram.labels(**labels) if labels else histogram).observe(1.0)
    bounds = [float(s.labels["le"]) for family in metrics.registry.collect() if family.name == name
              for s in family.samples if s.name == f"{name}_bucket"]
    return [b for b in bounds if math.isfinite(b)]


@pytest.mark.parametrize(("name", "labels", "low", "high", "count"), HISTOGRAMS)
def test_histogram_buckets_are_upstreams_exponential_range(name: str, labels: dict[str, str], low: float,
                                                           high: float, count: int) -> None:
    bounds = _bounds(SchedulerMetrics(), name, labels)
    assert len(bounds) == count
    assert bounds[0] == pytest.approx(low, rel=1e-12)
    assert bounds[-1] == pytest.approx(high, rel=1e-12)
    ratios = [later / earlier for earlier, later in pairwise(bounds)]
    assert max(ratios) == pytest.approx(min(ratios), rel=1e-9)
