"""The HTTP API under load: ``volcano serve`` beside kmock 0.8, through the official Python client.

Each server runs in a process of its own (``benchmarks.http_peer``), holding
``n - BATCH`` PodGroups before the measurement (n = 200 and 2,000). The
benchmark process then, sequentially through ``kubernetes.client.CustomObjectsApi``
over loopback: creates ``BATCH`` PodGroups (the store reaches n), gets ``GETS``
of them, and lists all n ``LISTS`` times. Figures go into ``extra_info`` (and
the report's "HTTP API" table): creates/s, gets/s, list p50/p99 in ms, and the
server's CPU seconds from ``/proc``. Targets (issue 9): >= 2,000 creates/s,
>= 5,000 gets/s, >= 20x kmock's creates/s at 2,000 objects.

The watch benchmark opens 100 concurrent watches (aiohttp, one event loop)
and writes ``WATCH_WRITES`` PodGroups at a steady rate, each stamped with the
monotonic time it was sent (one clock for both processes); delivery latency is
receipt minus send, over every (watcher, event) pair. Target: p99 < 50 ms.

With ``--benchmark-disable`` (the smoke run in ``make test``) the workloads
shrink to a few requests; kmock rows are skipped where the ``bench`` extra is
not installed.
"""

from __future__ import annotations

import asyncio
import os
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from benchmarks.http_peer import GROUP, PLURAL, VERSION, podgroup

kubernetes = pytest.importorskip("kubernetes", reason="the HTTP benchmarks need the 'kubernetes' package")

ROOT = Path(__file__).resolve().parents[1]
SIZES = (200, 2000)
BATCH, GETS, LISTS = 200, 2000, 20
WATCHERS, WATCH_WRITES, WATCH_RATE = 100, 200, 100.0


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` (Linux ``/proc``; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextmanager
def _peer(which: str, prefill: int) -> Iterator[tuple[str, int]]:
    """Run ``benchmarks.http_peer`` and yield (url, pid); it stops when we close its stdin."""
    proc = subprocess.Popen([sys.executable, "-m", "benchmarks.http_peer", which, str(prefill)], cwd=ROOT,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdin is not None
        ready, _w, _x = select.select([proc.stdout], [], [], 120)
        line = proc.stdout.readline() if ready else ""
        assert line.startswith("READY "), f"{which} did not start: {line!r}"
        yield line.split()[1], proc.pid
    finally:
        if proc.stdin is not None:
            proc.stdin.close()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _api_workload(url: str, pid: int, n: int, batch: int, gets: int, lists: int) -> dict[str, Any]:
    from kubernetes import client

    api = client.CustomObjectsApi(client.ApiClient(client.Configuration(host=url)))
    names = [f"bench-{i}" for i in range(batch)]
    out: dict[str, Any] = {"n": n}
    cpu0, server0, t0 = time.process_time(), _cpu_s(pid), time.perf_counter()
    for name in names:
        api.create_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, podgroup(name))
    wall = time.perf_counter() - t0
    out.update(creates=batch, creates_per_s=round(batch / wall),
               create_client_cpu_s=round(time.process_time() - cpu0, 3),
               create_server_cpu_s=round(_cpu_s(pid) - server0, 3))
    cpu0, server0, t0 = time.process_time(), _cpu_s(pid), time.perf_counter()
    for i in range(gets):
        got = api.get_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, names[i % batch])
    wall = time.perf_counter() - t0
    assert got["metadata"]["name"] == names[(gets - 1) % batch]
    out.update(gets=gets, gets_per_s=round(gets / wall), get_client_cpu_s=round(time.process_time() - cpu0, 3),
               get_server_cpu_s=round(_cpu_s(pid) - server0, 3))
    times = []
    for _ in range(lists):
        t0 = time.perf_counter()
        listed = api.list_namespaced_custom_object(GROUP, VERSION, "default", PLURAL)
        times.append((time.perf_counter() - t0) * 1000)
    assert len(listed["items"]) == n
    out.update(list_ms_p50=round(_percentile(times, 0.5), 2), list_ms_p99=round(_percentile(times, 0.99), 2))
    return out


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("server", ["volcano", "kmock"])
def test_http_api(benchmark: Any, server: str, n: int) -> None:
    if server == "kmock":
        pytest.importorskip("kmock", reason="kmock is the bench-only peer: pip install 'volcano[bench]'")
    small = benchmark.disabled
    batch, gets, lists = (10, 10, 2) if small else (BATCH, GETS, LISTS)
    if server == "kmock" and not small:
        gets = 400  # kmock serves a few dozen gets/s at these sizes; enough for a stable rate
    result: dict[str, Any] = {}

    def run() -> None:
        with _peer(server, n - batch) as (url, pid):
            result.update(_api_workload(url, pid, n, batch, gets, lists))

    benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info.update(http="api", server=server, **result)
    assert result["creates"] == batch


async def _watch_latencies(url: str, watchers: int, writes: int, rate: float) -> list[float]:
    import aiohttp
    import orjson

    path = f"{url}/apis/{GROUP}/{VERSION}/namespaces/default/{PLURAL}"
    latencies: list[float] = []
    timeout = aiohttp.ClientTimeout(total=120, sock_read=60)
    async with aiohttp.ClientSession(timeout=timeout, connector=aiohttp.TCPConnector(limit=0)) as session:
        async with session.get(path) as resp:
            rv = (await resp.json())["metadata"]["resourceVersion"]
        opened = 0
        all_open = asyncio.Event()

        async def watch() -> None:
            nonlocal opened
            async with session.get(f"{path}?watch=true&resourceVersion={rv}") as resp:
                opened += 1
                if opened == watchers:
                    all_open.set()
                seen = 0
                while seen < writes:
                    line = await resp.content.readline()
                    now = time.monotonic()
                    ev = orjson.loads(line)
                    sent = float(ev["object"]["metadata"]["annotations"]["bench/sent"])
                    latencies.append(now - sent)
                    seen += 1

        readers = [asyncio.ensure_future(watch()) for _ in range(watchers)]
        await asyncio.wait_for(all_open.wait(), 60)
        for i in range(writes):
            body = podgroup(f"w-{i}", **{"bench/sent": repr(time.monotonic())})
            async with session.post(path, json=body) as resp:
                assert resp.status == 201
            await asyncio.sleep(1 / rate)
        await asyncio.wait_for(asyncio.gather(*readers), 120)
    return latencies


def test_http_watch_latency(benchmark: Any) -> None:
    small = benchmark.disabled
    watchers, writes = (5, 5) if small else (WATCHERS, WATCH_WRITES)
    result: dict[str, Any] = {}

    def run() -> None:
        with _peer("volcano", 0) as (url, pid):
            server0, cpu0 = _cpu_s(pid), time.process_time()
            lat = asyncio.run(_watch_latencies(url, watchers, writes, WATCH_RATE))
            result.update(server_cpu_s=round(_cpu_s(pid) - server0, 3),
                          client_cpu_s=round(time.process_time() - cpu0, 3))
        assert len(lat) == watchers * writes
        result.update(watchers=watchers, writes=writes, write_rate=WATCH_RATE,
                      p50_ms=round(_percentile(lat, 0.5) * 1000, 2), p99_ms=round(_percentile(lat, 0.99) * 1000, 2),
                      max_ms=round(max(lat) * 1000, 2))

    benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info.update(http="watch", server="volcano", **result)
