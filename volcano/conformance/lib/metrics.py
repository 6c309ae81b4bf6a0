"""Reading the scheduler's metrics as its ``/metrics`` endpoint serves them.

``parse_samples`` turns the Prometheus text exposition into ``MetricSample``
rows; ``sample_value`` finds one by name and labels. Go's Prometheus client
(Volcano's) exposes a counter under the name it was declared with, Python's
appends ``_total`` to every counter's sample: ``sample_value`` matches a
counter by either, so a case names every metric as upstream exposes it
(``volcano_job_retry_counts``). The ``_created`` samples Python's client adds
(Go's has none) are left out.
"""

from __future__ import annotations

from typing import Any

from volcano.conformance.backends.base import MetricSample

__all__ = ["parse_samples", "registry_samples", "sample_value"]


def parse_samples(text: str) -> list[MetricSample]:
    """Every sample of a text exposition, in the order served (``_created`` samples left out)."""
    from prometheus_client.parser import text_string_to_metric_families

    return [MetricSample(s.name, dict(s.labels), float(s.value), family.type)
            for family in text_string_to_metric_families(text) for s in family.samples
            if not s.name.endswith("_created")]


def registry_samples(registry: Any) -> list[MetricSample]:
    """``parse_samples`` of what a ``prometheus_client`` registry renders for a scrape."""
    from prometheus_client import generate_latest

    return parse_samples(generate_latest(registry).decode())


def sample_value(samples: list[MetricSample], name: str, **labels: str) -> float | None:
    """The value of sample ``name`` with exactly ``labels`` (a counter also as ``name_total``), or None."""
    for s in samples:
        if s.labels == labels and (s.name == name or (s.type == "counter" and s.name == f"{name}_total")):
            return s.value
    return None
