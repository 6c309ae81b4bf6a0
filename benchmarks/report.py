"""Turns pytest-benchmark JSON into the Markdown report and the scaling chart.

Usage: ``python -m benchmarks.report out/bench/benchmark.json out/bench``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from benchmarks.workloads import ANCHORS

__all__ = ["scaling_slope", "write_report"]


def _rows(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [b["extra_info"] for b in data.get("benchmarks", []) if b.get("extra_info", {}).get("workload")]


def scaling_slope(rows: list[dict[str, Any]]) -> float | None:
    """Least-squares slope of wall microseconds per pod against node count (Scaling-* rows)."""
    pts = [(r["nodes"], r["wall_s"] / r["measured_pods"] * 1e6) for r in rows
           if r["workload"].startswith("Scaling-") and r["measured_pods"]]
    if len(pts) < 2:
        return None
    n = len(pts)
    mx, my = sum(x for x, _ in pts) / n, sum(y for _, y in pts) / n
    den = sum((x - mx) ** 2 for x, _ in pts)
    return sum((x - mx) * (y - my) for x, y in pts) / den if den else None


def _own(row: dict[str, Any], key: str) -> str:
    """A memory-growth figure, only for workloads measured in their own interpreter."""
    return str(row.get(key, "-")) if row.get("isolated") else "-"


def write_report(data: dict[str, Any], out: Path) -> Path:
    """Write ``report.md`` (and ``scaling.png`` when matplotlib is present) into ``out``."""
    rows = _rows(data)
    machine = data.get("machine_info", {})
    lines = ["# Scheduling throughput", "",
             f"Machine: {machine.get('cpu', {}).get('brand_raw', machine.get('processor', '?'))}, "
             f"Python {machine.get('python_version', '?')}. Whole fake cluster in one process "
             "(API server, admission, controllers, Volcano scheduler, simulated kubelet), wall clock.", "",
             "| workload | size | nodes | measured pods | bound | pods/s (avg) | pods per CPU s | p50 | p90 | p99 | "
             "wall s | CPU s | cycles | sim s / wall s | RSS MiB | KiB per node+pod | KiB per node | KiB per pod |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        objects = r["nodes"] + r["measured_pods"]
        per_obj = round(r["rss_mib"] * 1024 / objects, 1) if objects else 0.0
        lines.append(f"| {r['workload']} | {r.get('size', '')} | {r['nodes']} | {r['measured_pods']} | {r['bound']} | "
                     f"{r['pods_per_s']} | {r.get('pods_per_cpu_s', '')} | {r['p50']} | {r['p90']} | {r['p99']} | "
                     f"{r['wall_s']} | {r.get('cpu_s', '')} | {r.get('scheduler_cycles', '')} | "
                     f"{r['sim_s_per_wall_s']} | {r['rss_mib']} | {per_obj} | {_own(r, 'kib_per_node')} | "
                     f"{_own(r, 'kib_per_pod')} |")
    lines += ["", "Pods/s is measured pods over the wall time from their creation to the last bind "
              "(creation through the API server and admission is inside the window). Pods per CPU s divides by "
              "the process CPU time instead, which other load on the machine does not inflate. The 1-second "
              "percentiles are 0 when one scheduling cycle lasts longer than a second: Volcano binds at the end "
              "of its session, so binds arrive in bursts, one per cycle.",
              "", "RSS is the whole benchmark process after the run (all workloads run in one process, so it is an "
              "upper bound for any single one), except for workloads run in their own interpreter (Memory). For those, "
              "KiB per node is the RSS growth from adding the nodes and KiB per pod the growth from creating and "
              "binding every pod, initial and measured (API server objects, informer caches, scheduler cache, "
              "kubelet state, events); in a shared process freed memory is reused, so growth means nothing "
              "there and the columns show -."]
    lines += ["", "## Anchors (published figures, other schedulers, other machines)", "",
              "| system | workload | pods/s |", "|---|---|---:|"]
    lines += [f"| {who} | {what} | {rate:g} |" for who, what, rate in ANCHORS]
    slope = scaling_slope(rows)
    if slope is not None:
        lines += ["", f"Scaling: wall time per pod grows by {slope * 1000:.3f} µs per 1,000 nodes "
                      "(least-squares over the Scaling-* rows)."]
    lines += _http_section(data)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "report.md"
    path.write_text("\n".join(lines) + "\n")
    _chart(rows, out)
    return path


def _http_section(data: dict[str, Any]) -> list[str]:
    """The "HTTP API" tables (``benchmarks/test_http_bench.py``): volcano serve beside kmock."""
    infos = [b["extra_info"] for b in data.get("benchmarks", []) if b.get("extra_info", {}).get("http")]
    api = sorted((i for i in infos if i["http"] == "api"), key=lambda i: (i["n"], i["server"] != "volcano"))
    watch = [i for i in infos if i["http"] == "watch"]
    if not api and not watch:
        return []
    lines = ["", "## HTTP API (volcano serve, kmock 0.8 as the peer)", "",
             "Official Python client, sequential requests over loopback; each server in its own process, holding "
             "n PodGroups after the creates. CPU columns: client (this process) and server seconds per 1,000 "
             "requests.", "",
             "| server | n | creates/s | gets/s | list p50 ms | list p99 ms | create CPU s/1k (client, server) | "
             "get CPU s/1k (client, server) |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for i in api:
        per_k = lambda cpu, count: round(cpu / count * 1000, 3)  # noqa: E731
        lines.append(f"| {i['server']} | {i['n']} | {i['creates_per_s']} | {i['gets_per_s']} | {i['list_ms_p50']} | "
                     f"{i['list_ms_p99']} | {per_k(i['create_client_cpu_s'], i['creates'])}, "
                     f"{per_k(i['create_server_cpu_s'], i['creates'])} | {per_k(i['get_client_cpu_s'], i['gets'])}, "
                     f"{per_k(i['get_server_cpu_s'], i['gets'])} |")
    by = {(i["server"], i["n"]): i for i in api}
    for n in sorted({i["n"] for i in api}):
        ours, peer = by.get(("volcano", n)), by.get(("kmock", n))
        if ours and peer and peer["creates_per_s"]:
            lines.append(f"\nAt {n} objects volcano serve creates {ours['creates_per_s'] / peer['creates_per_s']:.0f}x "
                         "as fast as kmock.")
    for w in watch:
        lines += ["", f"Watch delivery: {w['watchers']} concurrent watchers, {w['writes']} writes at "
                      f"{w['write_rate']:g}/s: p50 {w['p50_ms']} ms, p99 {w['p99_ms']} ms, max {w['max_ms']} ms "
                      f"(server CPU {w['server_cpu_s']} s, client CPU {w['client_cpu_s']} s)."]
    return lines


def _chart(rows: list[dict[str, Any]], out: Path) -> None:
    scaling = sorted((r for r in rows if r["workload"].startswith("Scaling-")), key=lambda r: r["nodes"])
    if not scaling:
        return
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    fig, ax1 = plt.subplots(figsize=(8, 4.5))
    nodes = [r["nodes"] for r in scaling]
    ax1.plot(nodes, [r["pods_per_s"] for r in scaling], "o-", color="tab:blue", label="pods/s")
    ax1.set_xlabel("nodes")
    ax1.set_ylabel("pods bound per wall second", color="tab:blue")
    ax2 = ax1.twinx()
    ax2.plot(nodes, [r["rss_mib"] for r in scaling], "s--", color="tab:red", label="RSS MiB")
    ax2.set_ylabel("resident memory (MiB)", color="tab:red")
    ax1.set_title("SchedulingBasic throughput and memory against node count")
    fig.tight_layout()
    fig.savefig(out / "scaling.png", dpi=90)
    plt.close(fig)


def main(argv: list[str]) -> int:
    """Entry point: ``report.py JSON OUT_DIR``."""
    src, out = Path(argv[1]), Path(argv[2])
    print(write_report(json.loads(src.read_text()), out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
