"""Runs one benchmark workload on a FakeCluster and measures it.

The whole cluster runs: API server, admission, controllers, scheduler and
simulated kubelet, on one simulated clock, in this process. Throughput is
pods bound per wall second, measured as ``scheduler_perf`` does: the bound
count is sampled every wall second while the measured pods are scheduled;
the average is measured pods over the time from their creation to the last
bind.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import yaml

from benchmarks.workloads import WORKLOADS, Size, Workload, size_of
from volcano.testbed import FakeCluster

__all__ = ["BenchResult", "rss_bytes", "run_isolated", "run_workload", "scheduler_conf"]

_DEFAULT_TIERS = [
    {"plugins": [{"name": "priority"}, {"name": "gang", "enablePreemptable": False}, {"name": "conformance"}]},
    {"plugins": [{"name": "overcommit"}, {"name": "drf", "enablePreemptable": False}, {"name": "predicates"},
                 {"name": "proportion"}, {"name": "nodeorder"}, {"name": "binpack"}]},
]


_STALL_MS = 600_000
"""Simulated time without a new bind after which a run is declared stuck."""


def scheduler_conf(actions: str) -> str:
    """Volcano's default plugin tiers with the workload's actions."""
    return yaml.safe_dump({"actions": actions, "tiers": _DEFAULT_TIERS}, sort_keys=False)


def rss_bytes() -> int:
    """Resident set size of this process now."""
    with open(f"/proc/{os.getpid()}/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@dataclass
class BenchResult:
    """What one run measured."""

    workload: str
    nodes: int
    measured: int
    bound: int
    wall_s: float
    sim_s: float
    samples: list[float] = field(default_factory=list)
    setup_s: float = 0.0
    rss_before: int = 0
    rss_after: int = 0
    cycles: int = 0
    cpu_s: float = 0.0
    """Process CPU time over the measured window (robust to other load on the machine)."""
    rss_nodes: int = 0
    """RSS after the nodes were added, before any pod."""
    initial: int = 0
    running_wall_s: float = 0.0
    """``bigjob``: wall seconds from the Job's creation until it is Running (0 otherwise)."""
    running_cpu_s: float = 0.0
    """``bigjob``: CPU seconds from the Job's creation until it is Running (0 otherwise)."""
    curve: list[tuple[float, float]] = field(default_factory=list)
    """``idle``: (simulated seconds, CPU seconds) at each simulated hour of the measured window."""

    @property
    def kib_per_node(self) -> float:
        """RSS growth from adding the nodes, per node (KiB)."""
        return (self.rss_nodes - self.rss_before) / 1024 / self.nodes if self.nodes else 0.0

    @property
    def kib_per_pod(self) -> float:
        """RSS growth from creating and binding every pod (initial and measured), per pod (KiB)."""
        pods = self.initial + self.bound
        return (self.rss_after - self.rss_nodes) / 1024 / pods if pods else 0.0

    @property
    def pods_per_s(self) -> float:
        """Average throughput: measured pods bound per wall second."""
        return self.bound / self.wall_s if self.wall_s > 0 else 0.0

    def percentile(self, q: float) -> float:
        """A percentile of the 1-second throughput samples (0 when there are none)."""
        if not self.samples:
            return 0.0
        s = sorted(self.samples)
        return s[min(len(s) - 1, int(q / 100 * len(s)))]

    def as_dict(self) -> dict[str, Any]:
        """JSON-able figures for the pytest-benchmark ``extra_info``."""
        return {"workload": self.workload, "nodes": self.nodes, "measured_pods": self.measured,
                "bound": self.bound, "wall_s": round(self.wall_s, 3), "sim_s": round(self.sim_s, 3),
                "pods_per_s": round(self.pods_per_s, 1), "p50": round(self.percentile(50), 1),
                "p90": round(self.percentile(90), 1), "p99": round(self.percentile(99), 1),
                "setup_s": round(self.setup_s, 3), "rss_mib": round(self.rss_after / 2**20, 1),
                "rss_growth_mib": round((self.rss_after - self.rss_before) / 2**20, 1),
                "sim_s_per_wall_s": round(self.sim_s / self.wall_s, 2) if self.wall_s else 0.0,
                "scheduler_cycles": self.cycles, "cpu_s": round(self.cpu_s, 3),
                "pods_per_cpu_s": round(self.bound / self.cpu_s, 1) if self.cpu_s > 0 else 0.0,
                "kib_per_node": round(self.kib_per_node, 1), "kib_per_pod": round(self.kib_per_pod, 1),
                "running_wall_s": round(self.running_wall_s, 3), "running_cpu_s": round(self.running_cpu_s, 3),
                "sim_s_per_cpu_s": round(self.sim_s / self.cpu_s, 1) if self.cpu_s > 0 else 0.0,
                "curve": [[round(a, 1), round(b, 4)] for a, b in self.curve],
                "cpu_us_per_pod": round(self.cpu_s / self.bound * 1e6, 1) if self.bound else 0.0}


class _BindCounter:
    """Counts pods that got a node, from the pod watch."""

    def __init__(self, cluster: FakeCluster, label: str) -> None:
        self.label = label
        self.bound: set[str] = set()
        cluster.client.watch("Pod", self._on_pod)

    def _on_pod(self, event: Any) -> None:
        obj = event.object
        if obj["spec"].get("nodeName") and (obj["metadata"].get("labels") or {}).get("bench") == self.label:
            self.bound.add(obj["metadata"]["name"])


def _pod(name: str, w: Workload, label: str, *, group: str | None, priority: str | None = None,
         duration: str | None = None) -> dict[str, Any]:
    ann = {"scheduling.k8s.io/group-name": group} if group else {}
    if duration:
        ann["sim.volcano.sh/duration"] = duration
    spec: dict[str, Any] = {"schedulerName": "volcano", "restartPolicy": "Never", "terminationGracePeriodSeconds": 0,
                            "containers": [{"name": "c", "image": "pause",
                                            "resources": {"requests": {"cpu": w.pod_cpu, "memory": w.pod_memory}}}]}
    if priority:
        spec["priorityClassName"] = priority
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "labels": {"bench": label}, "annotations": ann},
            "spec": spec}


def _group(name: str, members: int, queue: str = "default", priority: str | None = None) -> dict[str, Any]:
    # A PodGroup's priority (spec.priorityClassName) is its job's priority, which
    # Volcano's priority plugin compares between jobs when choosing victims.
    spec: dict[str, Any] = {"minMember": members, "queue": queue}
    if priority:
        spec["priorityClassName"] = priority
    return {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
            "metadata": {"name": name, "namespace": "default"}, "spec": spec}


def _job(name: str, w: Workload, label: str) -> dict[str, Any]:
    template = _pod(name, w, label, group=None)
    return {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"schedulerName": "volcano", "minAvailable": 1,
                     "tasks": [{"name": "t", "replicas": 1,
                                "template": {"metadata": {"labels": {"bench": label}}, "spec": template["spec"]}}]}}


def _big_job(name: str, replicas: int, w: Workload, label: str) -> dict[str, Any]:
    job = _job(name, w, label)
    job["spec"]["minAvailable"] = replicas
    job["spec"]["tasks"][0].update(name="worker", replicas=replicas)
    return job


def _job_phase(c: FakeCluster, name: str) -> str:
    return str(((c.get("Job", name).get("status") or {}).get("state") or {}).get("phase") or "")


def _submit(c: FakeCluster, w: Workload, count: int, label: str, *, priority: str | None = None) -> None:
    create = c.client.create
    if w.shape == "facade":
        objects: list[dict[str, Any]] = []
        for g in range(count):
            objects.append(_group(f"{label}-pg-{g}", 1))
            objects.append(_pod(f"{label}-{g}-0", w, label, group=f"{label}-pg-{g}"))
        c.apply(objects)
        return
    if w.shape == "bigjob":
        create(_big_job(f"{label}-big", count, w, label))
        return
    if w.shape == "jobs":
        for i in range(count):
            create(_job(f"{label}-{i}", w, label))
        return
    queues = [f"q{i}" for i in range(len(w.queues))] or ["default"]
    duration = "60s" if w.shape == "reclaim" else None
    gang = max(1, w.gang_size)
    for g in range(count // gang):
        group = f"{label}-pg-{g}"
        create(_group(group, gang, queues[g % len(queues)], priority))
        for k in range(gang):
            create(_pod(f"{label}-{g}-{k}", w, label, group=group, priority=priority, duration=duration))


def _setup(w: Workload, size: Size) -> tuple[FakeCluster, int]:
    """The cluster with nodes, queues and the initial pods bound, and the RSS
    right after the nodes were added (before any pod)."""
    c = FakeCluster(seed=0, scheduler_conf=scheduler_conf(w.actions))
    c.trace.enabled = False
    c.add_nodes(size.nodes, cpu=w.cpu, memory=w.memory, pods=w.pods_per_node)
    c.run(2)
    gc.collect()
    rss_nodes = rss_bytes()
    for i, weight in enumerate(w.queues):
        c.apply({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": f"q{i}"},
                 "spec": {"weight": weight, "reclaimable": True}})
    if w.shape == "preempt":
        for name, value in (("low", 0), ("high", 1000)):
            c.apply({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
                     "value": value})
    c.run(2)
    if w.shape == "facade":
        # One PodGroup and pod first, so that their schemas are compiled outside the measured window.
        warm = _BindCounter(c, "warmup")
        c.apply([_group("warmup-pg", 1), _pod("warmup-0", w, "warmup", group="warmup-pg")])
        c.run_until(lambda _c: len(warm.bound) >= 1, timeout=600)
        c.delete("Pod", "warmup-0")
        c.delete("PodGroup", "warmup-pg")
        c.run(30)
    if w.shape == "bigjob":
        # One small Job first, so that its schema is compiled and the code paths are warm
        # outside the measured window (as in the one-pod Jobs workload's steady state).
        _submit(c, w, 1, "warmup")
        c.run_until(lambda _c: _job_phase(_c, "warmup-big") == "Running", timeout=600)
        c.delete("Job", "warmup-big")
        c.run(30)
    if size.initial:
        initial = _BindCounter(c, "initial")
        _submit(c, w, size.initial, "initial", priority="low" if w.shape == "preempt" else None)
        c.run_until(lambda _c: len(initial.bound) >= size.initial, timeout=3600)
    return c, rss_nodes


def _cycles(c: FakeCluster) -> int:
    scheduler = getattr(c, "scheduler", None)
    return int(getattr(scheduler, "cycles", 0))


def _run_idle(w: Workload, size: Size) -> BenchResult:
    """Nodes and ``initial`` pods bound and running, then ``measured`` simulated seconds with nothing to do,
    CPU noted at every simulated hour."""
    gc.collect()
    rss_before = rss_bytes()
    c, rss_nodes = _setup(w, size)
    c.run(10)
    gc.collect()
    gc.freeze()
    sim_start, start, cpu_start, cycles_start = c.clock.now_ms, time.perf_counter(), time.process_time(), _cycles(c)
    curve: list[tuple[float, float]] = [(0.0, 0.0)]
    left = size.measured
    while left > 0:
        chunk = min(3600, left)
        c.run(chunk)
        left -= chunk
        curve.append(((c.clock.now_ms - sim_start) / 1000, time.process_time() - cpu_start))
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    gc.unfreeze()
    return BenchResult(w.name, size.nodes, 0, 0, wall, (c.clock.now_ms - sim_start) / 1000, [], 0.0, rss_before,
                       rss_bytes(), cycles=_cycles(c) - cycles_start, cpu_s=cpu, rss_nodes=rss_nodes,
                       initial=size.initial, curve=curve)


def run_workload(w: Workload, size: Size, *, sample_every_s: float = 1.0) -> BenchResult:
    """Set the cluster up (not measured), then create the measured pods and run until they are bound."""
    if w.shape == "idle":
        return _run_idle(w, size)
    gc.collect()
    rss_before = rss_bytes()
    t0 = time.perf_counter()
    c, rss_nodes = _setup(w, size)
    setup_s = time.perf_counter() - t0
    if os.environ.get("BENCH_GC", "freeze") == "freeze":
        # The set-up objects (nodes, queues, initial pods) live for the whole run:
        # move them out of the collector's generations so that full collections
        # during the measured window do not traverse them again and again.
        gc.collect()
        gc.freeze()
    counter = _BindCounter(c, "measured")
    sim_start = c.clock.now_ms
    start = time.perf_counter()
    cpu_start, cycles_start = time.process_time(), _cycles(c)
    _submit(c, w, size.measured, "measured", priority="high" if w.shape == "preempt" else None)
    samples: list[float] = []
    next_sample, last_count = start + sample_every_s, 0
    # A run that binds nothing for ten simulated minutes is stuck: stop it
    # there (the benchmark then fails on the bound count) instead of idling
    # through hours of empty scheduling cycles.
    progress_count, progress_ms = 0, c.clock.now_ms
    running_wall = running_cpu = 0.0

    def done(_c: FakeCluster) -> bool:
        """Checked after each simulated millisecond's work (``run_until``): samples the bound count
        every wall second; true when every measured pod is bound (``bigjob``: the Job Running) or
        the run is stuck."""
        nonlocal next_sample, last_count, progress_count, progress_ms, running_wall, running_cpu
        bound = len(counter.bound)
        if bound >= size.measured:
            if w.shape != "bigjob":
                return True
            if _job_phase(c, "measured-big") == "Running":
                running_wall, running_cpu = time.perf_counter() - start, time.process_time() - cpu_start
                return True
        if bound != progress_count:
            progress_count, progress_ms = bound, c.clock.now_ms
        elif c.clock.now_ms - progress_ms > _STALL_MS:
            return True
        now = time.perf_counter()
        if now >= next_sample:
            samples.append((bound - last_count) / (now - next_sample + sample_every_s))
            last_count, next_sample = bound, now + sample_every_s
        return False

    # Through the facade, as a user runs a cluster (run_until, with its collector settings);
    # after four simulated hours the run stops (and fails on the bound count).
    with contextlib.suppress(TimeoutError):
        c.run_until(done, timeout=4 * 3600)
    wall = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    if w.shape == "bigjob":
        wall, cpu = running_wall or wall, running_cpu or cpu
    gc.unfreeze()
    gc.collect()
    return BenchResult(w.name, size.nodes, size.measured, len(counter.bound), wall,
                       (c.clock.now_ms - sim_start) / 1000, samples, setup_s, rss_before, rss_bytes(),
                       cycles=_cycles(c) - cycles_start, cpu_s=cpu, rss_nodes=rss_nodes, initial=size.initial,
                       running_wall_s=running_wall, running_cpu_s=running_cpu)


def run_isolated(w: Workload, which: str) -> BenchResult:
    """``run_workload`` for ``w`` at size ``which`` (``fast``/``full``/``smoke``) in a fresh
    interpreter, so that its memory figures start from an empty process."""
    proc = subprocess.run([sys.executable, "-m", "benchmarks.harness", w.name, which], check=False,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"isolated run of {w.name} ({which}) failed: {proc.stderr.strip()[-2000:]}")
    return BenchResult(**json.loads(proc.stdout.strip().splitlines()[-1]))


def main(argv: list[str]) -> int:
    """``python -m benchmarks.harness WORKLOAD SIZE``: run one workload and print
    its ``BenchResult`` fields as one JSON line (what ``run_isolated`` reads)."""
    if len(argv) != 3:
        print("usage: python -m benchmarks.harness WORKLOAD fast|full|smoke", file=sys.stderr)
        return 2
    by_name = {w.name: w for w in WORKLOADS}
    if argv[1] not in by_name or argv[2] not in ("fast", "full", "smoke"):
        print(f"unknown workload {argv[1]!r} or size {argv[2]!r} (workloads: {sorted(by_name)})", file=sys.stderr)
        return 2
    w = by_name[argv[1]]
    print(json.dumps(dataclasses.asdict(run_workload(w, size_of(w, argv[2])))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
