"""The ``make bench`` report: every workload kind gets its figure, target and verdict.

Synthetic pytest-benchmark JSON stands in for a run (the benchmarks themselves are too
slow for ``make test``); the report must render throughput, trace-replay and memory
rows without error and judge each against its target.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from benchmarks.report import figures, write_report


def _bench(extra: dict[str, Any]) -> dict[str, Any]:
    return {"extra_info": extra}


def _throughput(workload: str, pods_per_s: float) -> dict[str, Any]:
    return {"workload": workload, "size": "fast", "nodes": 5000, "measured_pods": 10000, "bound": 10000,
            "pods_per_s": pods_per_s, "pods_per_cpu_s": pods_per_s * 1.1, "p50": 0, "p90": 0, "p99": 0,
            "wall_s": 10000 / pods_per_s, "cpu_s": 10000 / pods_per_s / 1.1, "scheduler_cycles": 12,
            "sim_s_per_wall_s": 1.0, "rss_mib": 900.0}


def _data(*, facade: float, replay_wall: float, peak_mib: float) -> dict[str, Any]:
    replay = {"workload": "Replay", "size": "full", "nodes": 1000, "jobs": 20000, "simulated_s": 86400.0,
              "wall_s": replay_wall, "cpu_s": replay_wall * 0.9, "sim_s_per_wall_s": round(86400 / replay_wall, 1),
              "sim_s_per_cpu_s": round(86400 / replay_wall / 0.9, 1), "jobs_completed": 19000,
              "queueing_delay_mean_s": 30.0, "queueing_delay_p99_s": 900.0, "gpu_utilisation": 0.8,
              "target_wall_s": 600.0, "passed": replay_wall <= 600.0}
    memory = {"nodes": 5000, "pods": 50000, "bound": 50000, "wall_s": 60.0, "cpu_s": 58.0, "base_rss_mib": 60.0,
              "peak_rss_mib": peak_mib, "rss_mib": peak_mib - 10, "ru_maxrss_mib": peak_mib, "kib_per_pod": 15.0,
              "kib_per_node": 20.0, "size": "fast", "target_mib": 1024.0, "passed": peak_mib < 1024.0}
    return {"machine_info": {"python_version": "3.11"},
            "benchmarks": [_bench({"calibration": True, "cpu_s": 0.5}), _bench(_throughput("Facade", facade)),
                           _bench(replay), _bench(memory)]}


def _by_workload(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["workload"]: row for row in figures(data)["workloads"]}


def test_every_kind_of_workload_is_judged_against_its_target() -> None:
    good = _by_workload(_data(facade=2500.0, replay_wall=500.0, peak_mib=900.0))
    bad = _by_workload(_data(facade=1500.0, replay_wall=700.0, peak_mib=1100.0))
    for name in ("Facade", "Replay", "Memory-5000-50000"):
        assert good[name]["pass"] is True, name
        assert bad[name]["pass"] is False, name
    assert good["Replay"]["value"] == round(86400 / 500.0, 1)
    assert good["Memory-5000-50000"]["observed"] == 900.0
    assert good["Facade"]["pods_per_calibration"] == round(2500.0 * 1.1 * 0.5, 1)


def test_report_renders_replay_and_memory_tables(tmp_path: Path) -> None:
    path = write_report(_data(facade=1500.0, replay_wall=700.0, peak_mib=1100.0), tmp_path)
    text = path.read_text()
    assert "## Trace replay" in text and "| full | 1000 | 20000 | 86400.0 | 700.0 |" in text
    assert "## Memory" in text and "| 5000 | 50000 | 50000 | 1100.0 |" in text
    assert "| Replay | full | 123.4 simulated s / wall s | simulated day in <= 600 s wall | 700.0 | FAIL |" in text
    saved = json.loads((tmp_path / "figures.json").read_text())
    assert {r["workload"] for r in saved["workloads"]} == {"Facade", "Replay", "Memory-5000-50000"}
