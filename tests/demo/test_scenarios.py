"""The seed scenarios behave as the documents describe, under both schedulers.

Each scenario runs on a fresh FakeCluster with the real scheduler, controllers
and simulated kubelet; the assertions are the documents' claims.
"""

from __future__ import annotations

from functools import cache

import pytest

from volcano.demo.runner import RunResult, run_scenario
from volcano.demo.scenarios import BASELINE, SCENARIOS, VOLCANO

BY_KEY = {s.key: s for s in SCENARIOS}


@cache
def run(key: str, scheduler: str) -> RunResult:
    """Each scenario runs once per scheduler per session; the tests read the result."""
    return run_scenario(BY_KEY[key], scheduler)


@pytest.mark.parametrize("key", ["tf-gpu", "spark", "ps-worker-2", "ps-worker-5"])
def test_default_scheduler_deadlocks_and_wastes(key: str) -> None:
    r = run(key, BASELINE)
    assert r.deadlocked and r.finished == 0
    assert r.wasted_pod_hours() > 0


@pytest.mark.parametrize("key", ["tf-gpu", "spark", "ps-worker-1", "ps-worker-2", "ps-worker-5", "fair-share"])
def test_volcano_finishes_every_job_without_waste(key: str) -> None:
    r = run(key, VOLCANO)
    assert not r.deadlocked and r.finished == len(r.jobs)
    assert r.wasted_pod_hours() < 0.01  # at most pod start-up skew within a gang


def test_tf_gpu_runs_one_job_whole_then_the_other() -> None:
    r = run("tf-gpu", VOLCANO)
    a, b = sorted(r.jobs, key=lambda j: j.finished_at or 0.0)
    starts = {job: min(lf.intervals[0][0] for lf in r.history.pods.values() if lf.job == job)
              for job in ("tf-a", "tf-b")}
    second = b.job
    assert starts[second] >= (a.finished_at or 0.0)  # never 2 + 2 on the 4 GPUs


def test_spark_admits_two_applications_at_a_time() -> None:
    r = run("spark", VOLCANO)
    events = sorted([(s, +1) for lf in r.history.pods.values() if "exec" not in lf.name for s, _ in lf.intervals]
                    + [(e or r.end, -1) for lf in r.history.pods.values() if "exec" not in lf.name
                       for _, e in lf.intervals])
    level = peak = 0
    for _, delta in events:
        level += delta
        peak = max(peak, level)
    assert peak == 2  # two drivers (each with two executors) fit the six CPUs


def test_fair_share_gives_bob_cpus_before_alices_backlog() -> None:
    fifo, volcano = run("fair-share", BASELINE), run("fair-share", VOLCANO)
    bob_fifo, bob_volcano = fifo.first_start("bob"), volcano.first_start("bob")
    assert bob_fifo is not None and bob_volcano is not None
    assert bob_volcano < bob_fifo
