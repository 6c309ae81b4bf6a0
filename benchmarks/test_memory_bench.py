"""Memory at scale: peak RSS of a cluster of 5,000 nodes with 50,000 and 100,000 bound pods.

Each case runs the SchedulingBasic shape (one PodGroup of one pod per pod,
100m CPU and 500Mi each, on nodes of 4 CPUs and 32Gi) in a fresh interpreter
(``python -m benchmarks.test_memory_bench NODES PODS``), so that the figure is
that process's own: its peak resident set (``VmHWM`` in ``/proc/self/status``,
the same as ``getrusage(RUSAGE_SELF).ru_maxrss``) once every pod is bound, and
its RSS then. The target (issue 11): 50,000 bound pods under 1 GiB.

Sizes: ``make test`` (benchmarks disabled) runs a smoke size of each case;
``make bench`` the 50,000-pod case; ``BENCH_SIZE=full`` both.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from typing import Any

import pytest

SIZE = os.environ.get("BENCH_SIZE", "fast")
TARGET_MIB = {"50k": 1024.0}
"""Peak RSS targets per case (MiB)."""

CASES = {"50k": (5000, 50000), "100k": (5000, 100000)}
SMOKE = {"50k": (50, 500), "100k": (50, 1000)}


def _status_kib(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def measure(nodes: int, pods: int) -> dict[str, Any]:
    """Run the workload here and return its memory figures (call in a fresh interpreter)."""
    from benchmarks.harness import run_workload
    from benchmarks.workloads import Size, Workload

    base_kib = _status_kib("VmRSS")
    w = Workload(f"Memory-{nodes}-{pods}", "pods", fast=Size(nodes, 0, pods), full=Size(nodes, 0, pods))
    result = run_workload(w, Size(nodes, 0, pods))
    return {"nodes": nodes, "pods": pods, "bound": result.bound, "wall_s": round(result.wall_s, 3),
            "cpu_s": round(result.cpu_s, 3), "base_rss_mib": round(base_kib / 1024, 1),
            "peak_rss_mib": round(_status_kib("VmHWM") / 1024, 1), "rss_mib": round(_status_kib("VmRSS") / 1024, 1),
            "ru_maxrss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            "kib_per_pod": round(result.kib_per_pod, 2), "kib_per_node": round(result.kib_per_node, 2)}


def run_isolated(nodes: int, pods: int) -> dict[str, Any]:
    """``measure`` in a fresh interpreter; its figures."""
    proc = subprocess.run([sys.executable, "-m", "benchmarks.test_memory_bench", str(nodes), str(pods)],
                          check=False, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"memory run {nodes} nodes / {pods} pods failed: {proc.stderr.strip()[-2000:]}")
    figures: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return figures


@pytest.mark.parametrize("case", list(CASES))
def test_memory(benchmark: Any, case: str) -> None:
    which = "smoke" if benchmark.disabled and SIZE == "fast" else SIZE
    if which == "fast" and case != "50k":
        pytest.skip("the 100,000-pod case runs with BENCH_SIZE=full")
    nodes, pods = SMOKE[case] if which == "smoke" else CASES[case]
    figures = benchmark.pedantic(run_isolated, args=(nodes, pods), rounds=1, iterations=1)
    target = TARGET_MIB.get(case) if which != "smoke" else None
    benchmark.extra_info.update(figures, size=which, target_mib=target,
                                passed=None if target is None else figures["peak_rss_mib"] < target)
    assert figures["bound"] == pods, f"only {figures['bound']}/{pods} pods bound"
    assert figures["peak_rss_mib"] >= figures["rss_mib"] > figures["base_rss_mib"] > 0


if __name__ == "__main__":
    print(json.dumps(measure(int(sys.argv[1]), int(sys.argv[2]))))
