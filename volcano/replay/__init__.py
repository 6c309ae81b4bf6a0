"""Trace replay: drive a fake cluster from a job trace and measure what the scheduler made of it.

For researchers who want to see a scheduler configuration under a realistic
load: a seeded synthetic trace (``synthetic_trace``) or a user's CSV
(``read_trace``) is replayed on a ``FakeCluster`` of GPU nodes (``replay``), and
the result becomes a report (``build_report``): simulated seconds per wall
second, jobs completed, queueing delays and GPU utilisation over time.

>>> from volcano.replay import ReplayConfig, SyntheticSpec, build_report, replay, synthetic_trace
>>> trace = synthetic_trace(seed=1, spec=SyntheticSpec(nodes=4, hours=0.1, jobs=6))
>>> result = replay(trace, ReplayConfig(nodes=4, seed=1, seconds=3600))
>>> report = build_report(result)
>>> report["jobs"]["completed"] == report["jobs"]["submitted"] == 6
True
"""

from volcano.replay.replay import JobRecord, ReplayConfig, ReplayResult, job_objects, replay
from volcano.replay.report import build_report, plot_utilisation, render_summary, utilisation_series
from volcano.replay.trace import (
    COLUMNS,
    DEFAULT_QUEUES,
    SyntheticSpec,
    TraceError,
    TraceJob,
    read_trace,
    synthetic_trace,
    write_trace,
)

__all__ = [
    "COLUMNS",
    "DEFAULT_QUEUES",
    "JobRecord",
    "ReplayConfig",
    "ReplayResult",
    "SyntheticSpec",
    "TraceError",
    "TraceJob",
    "build_report",
    "job_objects",
    "plot_utilisation",
    "read_trace",
    "render_summary",
    "replay",
    "synthetic_trace",
    "utilisation_series",
    "write_trace",
]
