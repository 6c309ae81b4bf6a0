"""Runs every scenario under both schedulers, prints the comparison, writes the charts."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from volcano.demo.history import JobMetrics, PodHistory, job_metrics
from volcano.demo.scenarios import BASELINE, SCENARIOS, VOLCANO, Scenario
from volcano.testbed import FakeCluster

__all__ = ["RunResult", "run_demo", "run_scenario"]

STEP_S = 60.0
STALL_S = 600.0
"""A run stops as deadlocked once no job has been able to progress for this long."""


@dataclass
class RunResult:
    """One scenario under one scheduler."""

    scenario: Scenario
    scheduler: str
    end: float
    jobs: list[JobMetrics]
    history: PodHistory
    deadlocked: bool = False

    @property
    def finished(self) -> int:
        """Jobs whose pods all succeeded."""
        return sum(1 for j in self.jobs if j.finished_at is not None)

    @property
    def makespan(self) -> float | None:
        """When the last job finished (None when some never did)."""
        if self.finished < len(self.jobs):
            return None
        return max(j.finished_at or 0.0 for j in self.jobs)

    def wasted_pod_hours(self) -> float:
        """Pod-hours spent running while the pod's job could not progress."""
        return sum(j.wasted_seconds for j in self.jobs) / 3600

    def wasted_resource_hours(self) -> dict[str, float]:
        """CPU- and GPU-hours held while the job could not progress."""
        out: dict[str, float] = {}
        for j in self.jobs:
            for res, hours in j.wasted_resource_hours.items():
                out[res] = out.get(res, 0.0) + hours
        return out

    def first_start(self, prefix: str) -> float | None:
        """When the first pod of a job named ``prefix*`` started running."""
        starts = [iv[0][0] for lf in self.history.pods.values() if lf.job.startswith(prefix) and (iv := lf.intervals)]
        return min(starts) if starts else None


def run_scenario(scenario: Scenario, scheduler: str, *, seed: int = 0, out: TextIO | None = None) -> RunResult:
    """Run one scenario under ``scheduler`` until every job finished or the horizon passed."""
    cluster = FakeCluster(seed=seed)
    scenario.nodes(cluster)
    history = PodHistory()
    cluster.client.watch("Pod", lambda ev: history.observe(cluster.now, ev.type, ev.object))
    expected = scenario.submit(cluster, scheduler)
    tty = out is not None and out.isatty()
    last_report, last_progress, deadlocked, finished = -1.0, 0.0, False, 0
    while cluster.now < scenario.horizon_s:
        cluster.run(STEP_S)
        if history.progressing():
            last_progress = cluster.now
        done = job_metrics(history, cluster.now, expected)
        finished = sum(1 for j in done if j.finished_at is not None)
        deadlocked = finished < len(expected) and cluster.now - last_progress >= STALL_S
        over = finished == len(expected) or deadlocked
        if out is not None and (over or (tty and cluster.now - last_report >= 900)):
            # On a terminal the line is rewritten in place; in a log only the final line is written.
            last_report = cluster.now
            running = sum(1 for lf in history.pods.values() if lf.running_since is not None)
            out.write(f"{chr(13) if tty else ''}  {scenario.key:<12} {scheduler:<18} t={cluster.now / 60:6.0f} min  "
                      f"running pods {running:3d}  jobs finished {finished}/{len(expected)}   ")
            out.flush()
        if over:
            break
    if out is not None:
        if last_report < 0:  # the horizon passed before the last step's report
            out.write(f"  {scenario.key:<12} {scheduler:<18} stopped at t={cluster.now / 60:.0f} min  "
                      f"jobs finished {finished}/{len(expected)}")
        out.write("  DEADLOCKED: no job can progress\n" if deadlocked else "\n")
    history.close(cluster.now)
    return RunResult(scenario, scheduler, cluster.now, job_metrics(history, cluster.now, expected), history,
                     deadlocked)


def _fmt_time(seconds: float | None) -> str:
    return "never" if seconds is None else f"{seconds / 60:.0f} min"


def _outcome(r: RunResult) -> str:
    if r.deadlocked:
        return f"deadlocked (stopped at {_fmt_time(r.end)})"
    return _fmt_time(r.makespan)


def _row(r: RunResult) -> str:
    res = r.wasted_resource_hours()
    wasted = ", ".join(f"{h:.1f} {('GPU' if 'gpu' in k else 'CPU')}-h" for k, h in sorted(res.items())) or "0"
    return (f"| {r.scenario.key} | {r.scheduler} | {r.finished}/{len(r.jobs)} | {_outcome(r)} | "
            f"{r.wasted_pod_hours():.1f} | {wasted} |")


def run_demo(out_dir: str | Path = "out/demo", stream: TextIO = sys.stdout) -> int:
    """Run every scenario under both schedulers; print the table; write charts. Returns 0."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    stream.write("Volcano testbed demo: each seed scenario under the default scheduler and under Volcano\n"
                 "(simulated time; the real scheduler, controllers and kubelet decide everything)\n\n")
    results: list[tuple[RunResult, RunResult]] = []
    for sc in SCENARIOS:
        stream.write(f"{sc.title}\n  expected: {sc.expectation}\n")
        pair = (run_scenario(sc, BASELINE, out=stream), run_scenario(sc, VOLCANO, out=stream))
        results.append(pair)
        if sc.key == "fair-share":
            for r in pair:
                stream.write(f"  {r.scheduler}: bob's first pod started at {_fmt_time(r.first_start('bob'))}, "
                             f"alice's at {_fmt_time(r.first_start('alice'))}\n")
    table = ["| scenario | scheduler | jobs finished | makespan | wasted pod-hours | wasted resource-hours |",
             "|---|---|---|---|---|---|"] + [_row(r) for pair in results for r in pair]
    stream.write("\n" + "\n".join(table) + "\n")
    (out / "results.md").write_text("\n".join(table) + "\n")
    written = _charts(results, out)
    stream.write(f"\ncharts: {', '.join(str(p) for p in written) if written else 'skipped (matplotlib missing)'}\n")
    return 0


def _charts(results: list[tuple[RunResult, RunResult]], out: Path) -> list[Path]:
    try:
        from volcano.demo.charts import timeline_chart
    except ImportError:
        return []
    return [timeline_chart(pair, out / f"{pair[0].scenario.key}.png") for pair in results]


