"""Turns pytest-benchmark JSON into the Markdown report, ``figures.json`` and the charts.

Usage: ``python -m benchmarks.report out/bench/benchmark.json out/bench``.

The report opens with one row per workload: its headline figure, its target
and pass/fail (``workloads.Target``), plus the BigJob cost-per-pod flatness
check. Figures are also shown normalised by the calibration workload
(``test_throughput.calibrate``, a fixed pure-Python loop timed in the same run):
pods per calibration unit = pods per CPU second x calibration CPU seconds, which
compares across machines. Charts: throughput and memory against node count
(``scaling.png``), CPU per pod against job size (``jobsize.png``) and CPU against
simulated time on an idle cluster (``simtime.png``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from benchmarks.workloads import ANCHORS, WORKLOADS

__all__ = ["figures", "scaling_slope", "write_report"]

_HEADLINE = {"bigjob": ("running_wall_s", "s wall to Running"), "idle": ("sim_s_per_wall_s", "simulated s / wall s")}
_FLATNESS = 1.5
"""BigJob: the largest CPU per pod over the smallest, at most this."""


def _infos(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [b.get("extra_info", {}) for b in data.get("benchmarks", [])]


def _rows(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The pod-throughput workloads (``workloads.WORKLOADS`` run by the harness)."""
    return [i for i in _infos(data) if i.get("workload") and "measured_pods" in i]


def _replays(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The trace replays (``test_replay_bench``)."""
    return [i for i in _infos(data) if i.get("workload") == "Replay"]


def _memory(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The memory runs, each in its own interpreter (``test_memory_bench``)."""
    return [i for i in _infos(data) if "peak_rss_mib" in i and "kib_per_pod" in i]


def _calibration(data: dict[str, Any]) -> float | None:
    infos = [b["extra_info"] for b in data.get("benchmarks", []) if b.get("extra_info", {}).get("calibration")]
    return float(infos[0]["cpu_s"]) if infos else None


def figures(data: dict[str, Any]) -> dict[str, Any]:
    """Every workload's headline figure, target and pass/fail, normalised figures, and the
    BigJob flatness check (what ``figures.json`` holds)."""
    calib = _calibration(data)
    by_name = {w.name: w for w in WORKLOADS}
    out: list[dict[str, Any]] = []
    for r in _rows(data):
        w = by_name.get(r["workload"])
        shape = w.shape if w is not None else ""
        metric, unit = _HEADLINE.get(shape, ("pods_per_s", "pods/s"))
        row: dict[str, Any] = {"workload": r["workload"], "size": r.get("size", ""), "metric": metric, "unit": unit,
                               "value": r.get(metric), "cpu_s": r.get("cpu_s"), "wall_s": r.get("wall_s"),
                               "pods_per_cpu_s": r.get("pods_per_cpu_s"), "target": None, "pass": None}
        if w is not None and w.target is not None:
            row.update(target=w.target.text, target_metric=w.target.metric, target_value=w.target.value,
                       observed=r.get(w.target.metric), **{"pass": w.target.met(r)})
        if calib:
            if r.get("pods_per_cpu_s"):
                row["pods_per_calibration"] = round(r["pods_per_cpu_s"] * calib, 1)
            if r.get("sim_s_per_cpu_s"):
                row["sim_s_per_calibration"] = round(r["sim_s_per_cpu_s"] * calib, 1)
        out.append(row)
    out += [_replay_row(r) for r in _replays(data)] + [_memory_row(r) for r in _memory(data)]
    big = [r for r in _rows(data) if r["workload"].startswith("BigJob-") and r.get("cpu_us_per_pod")]
    flat: dict[str, Any] | None = None
    if len(big) >= 2:
        costs = [r["cpu_us_per_pod"] for r in big]
        ratio = max(costs) / min(costs)
        flat = {"sizes": [r["measured_pods"] for r in big], "cpu_us_per_pod": costs, "ratio": round(ratio, 2),
                "target": f"max / min CPU per pod <= {_FLATNESS}", "pass": ratio <= _FLATNESS}
    return {"calibration_cpu_s": calib, "workloads": out, "bigjob_flatness": flat}


def _replay_row(r: dict[str, Any]) -> dict[str, Any]:
    """A trace replay's headline: simulated seconds per wall second; target the wall time (full day only)."""
    target = r.get("target_wall_s")
    return {"workload": "Replay", "size": r.get("size", ""), "metric": "sim_s_per_wall_s",
            "unit": "simulated s / wall s", "value": r.get("sim_s_per_wall_s"),
            "cpu_s": r.get("cpu_s"), "wall_s": r.get("wall_s"),
            "target": None if target is None else f"simulated day in <= {target:g} s wall",
            "target_metric": "wall_s", "target_value": target, "observed": r.get("wall_s"), "pass": r.get("passed")}


def _memory_row(r: dict[str, Any]) -> dict[str, Any]:
    """A memory run's headline: peak RSS; target below ``target_mib`` where one is set."""
    target = r.get("target_mib")
    return {"workload": f"Memory-{r['nodes']}-{r['pods']}", "size": r.get("size", ""), "metric": "peak_rss_mib",
            "unit": "MiB peak RSS", "value": r.get("peak_rss_mib"), "cpu_s": r.get("cpu_s"), "wall_s": r.get("wall_s"),
            "target": None if target is None else f"peak RSS < {target:g} MiB", "target_metric": "peak_rss_mib",
            "target_value": target, "observed": r.get("peak_rss_mib"), "pass": r.get("passed")}


def _verdict(ok: bool | None) -> str:
    return "-" if ok is None else ("pass" if ok else "FAIL")


def _targets_section(figs: dict[str, Any]) -> list[str]:
    lines = ["## Figures and targets", "",
             f"Calibration: {figs['calibration_cpu_s']} CPU s for the fixed pure-Python workload "
             "(normalised = per CPU second x calibration CPU seconds).", "",
             "| workload | size | figure | target | observed | result | CPU s | wall s | normalised |",
             "|---|---|---:|---|---:|---|---:|---:|---:|"]
    for r in figs["workloads"]:
        norm = r.get("pods_per_calibration", r.get("sim_s_per_calibration", "-"))
        lines.append(f"| {r['workload']} | {r['size']} | {r['value']} {r['unit']} | {r['target'] or '-'} | "
                     f"{r.get('observed', '-')} | {_verdict(r['pass'])} | {r['cpu_s']} | {r['wall_s']} | {norm} |")
    flat = figs.get("bigjob_flatness")
    if flat:
        lines += ["", f"BigJob cost per pod (CPU µs) at {flat['sizes']} replicas: {flat['cpu_us_per_pod']}; "
                      f"max / min {flat['ratio']} ({flat['target']}): {_verdict(flat['pass'])}."]
    return [*lines, ""]


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
    figs = figures(data)
    lines = ["# Scheduling throughput", "",
             f"Machine: {machine.get('cpu', {}).get('brand_raw', machine.get('processor', '?'))}, "
             f"Python {machine.get('python_version', '?')}. Whole fake cluster in one process "
             "(API server, admission, controllers, Volcano scheduler, simulated kubelet), wall clock.", "",
             *_targets_section(figs),
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
    lines += _replay_section(_replays(data)) + _memory_section(_memory(data))
    lines += _http_section(data)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "report.md"
    path.write_text("\n".join(lines) + "\n")
    (out / "figures.json").write_text(json.dumps(figs, indent=2) + "\n")
    _chart(rows, out)
    _cost_charts(rows, out)
    return path


def _replay_section(rows: list[dict[str, Any]]) -> list[str]:
    """The "Trace replay" table (``benchmarks/test_replay_bench.py``)."""
    if not rows:
        return []
    lines = ["", "## Trace replay (synthetic trace, nodes of 8 GPUs)", "",
             "| size | nodes | jobs | simulated s | wall s | CPU s | sim s / wall s | sim s / CPU s | completed | "
             "queueing delay mean s | p99 s | GPU utilisation |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    lines += [f"| {r.get('size', '')} | {r['nodes']} | {r['jobs']} | {r['simulated_s']} | {r['wall_s']} | "
              f"{r['cpu_s']} | {r['sim_s_per_wall_s']} | {r.get('sim_s_per_cpu_s', '-')} | {r['jobs_completed']} | "
              f"{r['queueing_delay_mean_s']} | {r['queueing_delay_p99_s']} | {r['gpu_utilisation']} |" for r in rows]
    return lines


def _memory_section(rows: list[dict[str, Any]]) -> list[str]:
    """The "Memory" table (``benchmarks/test_memory_bench.py``): each run in a fresh interpreter."""
    if not rows:
        return []
    lines = ["", "## Memory (bound pods, each run in its own interpreter)", "",
             "| nodes | pods | bound | peak RSS MiB | RSS MiB after | base RSS MiB | KiB per node | KiB per pod | "
             "wall s | CPU s |", "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    lines += [f"| {r['nodes']} | {r['pods']} | {r['bound']} | {r['peak_rss_mib']} | {r['rss_mib']} | "
              f"{r['base_rss_mib']} | {r['kib_per_node']} | {r['kib_per_pod']} | {r['wall_s']} | {r['cpu_s']} |"
              for r in rows]
    return lines


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


def _cost_charts(rows: list[dict[str, Any]], out: Path) -> None:
    """``jobsize.png`` (CPU per pod against BigJob replicas) and ``simtime.png`` (CPU against
    simulated time on the idle cluster), when there are rows for them and matplotlib is present."""
    big = sorted((r for r in rows if r["workload"].startswith("BigJob-") and r.get("cpu_us_per_pod")),
                 key=lambda r: r["measured_pods"])
    idle = [r for r in rows if r.get("curve")]
    if not big and not idle:
        return
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    if big:
        fig, ax = plt.subplots(figsize=(7, 4))
        ax.plot([r["measured_pods"] for r in big], [r["cpu_us_per_pod"] for r in big], "o-", label="CPU µs per pod")
        ax.set_xscale("log")
        ax.set_xlabel("replicas of the one Volcano Job")
        ax.set_ylabel("CPU µs per pod (creation to Running)")
        ax.set_ylim(bottom=0)
        ax.set_title("Cost per pod against job size")
        fig.tight_layout()
        fig.savefig(out / "jobsize.png", dpi=90)
        plt.close(fig)
    if idle:
        fig, ax = plt.subplots(figsize=(7, 4))
        for r in idle:
            curve = r["curve"]
            ax.plot([p[0] / 3600 for p in curve], [p[1] for p in curve], ".-",
                    label=f"{r['workload']} ({r['nodes']} nodes)")
        ax.set_xlabel("simulated hours")
        ax.set_ylabel("CPU seconds")
        ax.set_title("Cost against simulated time (idle, steady-state cluster)")
        ax.legend()
        fig.tight_layout()
        fig.savefig(out / "simtime.png", dpi=90)
        plt.close(fig)


def main(argv: list[str]) -> int:
    """Entry point: ``report.py JSON OUT_DIR``."""
    src, out = Path(argv[1]), Path(argv[2])
    print(write_report(json.loads(src.read_text()), out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
