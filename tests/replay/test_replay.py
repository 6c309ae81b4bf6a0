"""Replaying a trace on a fake cluster: jobs start as gangs, finish after their duration, the
report's figures follow from the records, and the same seed gives the same report."""

from __future__ import annotations

from typing import Any

import pytest

from volcano.replay import (
    ReplayConfig,
    SyntheticSpec,
    TraceJob,
    build_report,
    job_objects,
    render_summary,
    replay,
    synthetic_trace,
    utilisation_series,
)

SPEC = SyntheticSpec(nodes=4, hours=0.2, jobs=12)
CONFIG = ReplayConfig(nodes=4, seed=5, seconds=900, queue_weights={"prod": 4, "research": 3, "dev": 2, "batch": 1})


def job(name: str, submit: float, gang: int, gpu: int, duration: float, queue: str = "default") -> TraceJob:
    return TraceJob(name, submit, gang, "1", "1Gi", gpu, duration, queue)


@pytest.fixture(scope="module")
def synthetic() -> dict[str, Any]:
    return build_report(replay(synthetic_trace(5, SPEC), CONFIG))


def without_timing(report: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in report.items() if k != "timing"}


def test_a_gang_starts_whole_and_finishes_after_its_duration() -> None:
    # 2 nodes x 8 GPUs: "big" (2 pods x 8 GPUs) takes both nodes, "small" must wait until it ends.
    trace = [job("big", 0, 2, 8, 100), job("small", 10, 1, 4, 50)]
    result = replay(trace, ReplayConfig(nodes=2, seconds=600))
    big, small = result.records
    assert big.submit_ms == 0 and 0 <= big.start_ms < 5000 and big.finish_ms - big.start_ms >= 100_000
    assert small.submit_ms == 10_000 and small.start_ms >= big.finish_ms
    assert small.finish_ms - small.start_ms >= 50_000
    report = build_report(result)
    assert report["jobs"] == {"submitted": 2, "started": 2, "completed": 2, "queued": 0, "running": 0}
    delay = report["queueing_delay_s"]
    assert delay["max"] == pytest.approx((small.start_ms - 10_000) / 1000)
    assert delay["mean"] == pytest.approx((big.start_ms + small.start_ms - 10_000) / 2000)
    # The replay stops once every job has finished; 16 GPUs held for ~100 s, 4 for ~50 s.
    assert result.sim_ms == small.finish_ms
    held = 16 * (big.finish_ms - big.start_ms) + 4 * (small.finish_ms - small.start_ms)
    assert report["gpu_utilisation"]["mean"] == pytest.approx(held / (16 * result.sim_ms), abs=1e-6)


def test_a_job_that_never_fits_stays_queued_and_is_not_in_the_delays() -> None:
    result = replay([job("huge", 0, 3, 8, 60), job("ok", 0, 1, 1, 30)], ReplayConfig(nodes=2, seconds=120))
    report = build_report(result)
    assert report["jobs"]["queued"] == 1 and report["jobs"]["completed"] == 1
    assert report["queueing_delay_s"]["jobs"] == 1 and result.sim_ms == 120_000


def test_volcano_jobs_mode_replays_through_the_job_controller() -> None:
    result = replay([job("a", 0, 2, 4, 30), job("b", 5, 1, 8, 30)], ReplayConfig(nodes=1, mode="job", seconds=900))
    a, b = result.records
    assert a.finish_ms > a.start_ms >= 0 and b.start_ms >= a.finish_ms and b.finish_ms > b.start_ms


def test_job_objects_pod_group_and_pods() -> None:
    group, *pods = job_objects(job("x", 0, 3, 2, 90.5, "dev"), "podgroup")
    assert group["kind"] == "PodGroup" and group["spec"] == {"minMember": 3, "queue": "dev"}
    assert [p["metadata"]["name"] for p in pods] == ["x-0", "x-1", "x-2"]
    assert pods[0]["metadata"]["annotations"] == {"sim.volcano.sh/duration": "90500ms",
                                                  "scheduling.k8s.io/group-name": "x"}
    assert pods[0]["spec"]["containers"][0]["resources"]["requests"] == {
        "cpu": "1", "memory": "1Gi", "nvidia.com/gpu": "2"}


def test_utilisation_series_is_time_weighted_per_bin() -> None:
    # 8 of 16 GPUs from 500 ms to 2500 ms; bins of 1000 ms over 3000 ms.
    assert utilisation_series([(500, 8), (2500, -8)], 16, 3000, 1000) == [(0.0, 0.25), (1.0, 0.5), (2.0, 0.25)]
    # The last bin is shorter: its mean is over its own width.
    assert utilisation_series([(0, 16)], 16, 2500, 1000) == [(0.0, 1.0), (1.0, 1.0), (2.0, 1.0)]


def test_the_synthetic_replay_completes_jobs_and_reports_every_figure(synthetic: dict[str, Any]) -> None:
    assert synthetic["workload"]["jobs"] == 12 and synthetic["workload"]["total_gpus"] == 32
    jobs = synthetic["jobs"]
    assert jobs["submitted"] == 12 and jobs["completed"] >= 4
    assert jobs["completed"] + jobs["running"] + jobs["queued"] == jobs["submitted"]
    assert 0 < synthetic["gpu_utilisation"]["mean"] <= 1
    assert all(0 <= v <= 1 for _, v in synthetic["gpu_utilisation"]["series"])
    delay = synthetic["queueing_delay_s"]
    assert 0 <= delay["p50"] <= delay["p99"] <= delay["max"]
    assert synthetic["timing"]["wall_s"] > 0 and synthetic["timing"]["cpu_s"] > 0
    text = render_summary(synthetic)
    assert "12 jobs" in text and "GPU utilisation: mean" in text and "p99" in text


def test_the_same_seed_gives_the_same_report(synthetic: dict[str, Any]) -> None:
    again = build_report(replay(synthetic_trace(5, SPEC), CONFIG))
    assert without_timing(again) == without_timing(synthetic)
