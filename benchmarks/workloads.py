"""Benchmark workloads as data, in the shape of Kubernetes' ``scheduler_perf``:
create nodes, create queues, create the initial pods, then create the measured
pods and measure until the last one is bound.

Each workload has a ``fast`` size (what ``make bench`` and CI run) and a
``full`` size (``make bench-full``, the sizes the published anchors use).
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["ANCHORS", "WORKLOADS", "Size", "Target", "Workload", "size_of"]


@dataclass(frozen=True)
class Size:
    """How big one run is."""

    nodes: int
    initial: int
    measured: int


@dataclass(frozen=True)
class Target:
    """A workload's target: ``metric`` (a key of the result's figures) ``op`` (``>=`` or ``<=``) ``value``."""

    metric: str
    op: str
    value: float
    text: str

    def met(self, figures: dict[str, float]) -> bool | None:
        """Whether the figures meet the target (None when the metric is missing)."""
        got = figures.get(self.metric)
        if got is None:
            return None
        return got >= self.value if self.op == ">=" else got <= self.value


@dataclass(frozen=True)
class Workload:
    """One benchmark workload.

    ``shape``: ``pods`` (one PodGroup of one pod per pod), ``gang`` (PodGroups of
    ``gang_size`` pods, minMember = gang size), ``jobs`` (Volcano Jobs of one pod,
    through admission and the Job controller), ``bigjob`` (one Volcano Job whose
    task has ``measured`` replicas, minAvailable = replicas; measured until the Job
    is Running), ``facade`` (``pods`` created through one ``FakeCluster.apply`` of
    every PodGroup and pod), ``idle`` (``initial`` pods bound and running, then
    ``measured`` simulated seconds with nothing to do), ``preempt`` (low-priority pods fill
    the cluster, then high-priority pods preempt them), ``reclaim`` (four weighted
    queues, jobs arriving faster than they finish). ``Memory`` is ``pods`` at the
    size of the memory target (5,000 nodes and 50,000 pods bound).
    """

    name: str
    shape: str
    fast: Size
    full: Size
    cpu: str = "4"
    memory: str = "32Gi"
    pods_per_node: int = 110
    pod_cpu: str = "100m"
    pod_memory: str = "500Mi"
    gang_size: int = 1
    queues: tuple[int, ...] = ()
    actions: str = "enqueue, allocate, backfill"
    extra: dict[str, str] = field(default_factory=dict)
    isolated: bool = False
    """Run in a fresh interpreter, so that its RSS and memory per node / per pod
    are not masked by memory earlier workloads freed (and the process kept)."""
    smoke: Size | None = None
    """The size ``make test`` runs (benchmarks disabled), when smaller than ``fast``."""
    target: Target | None = None
    """What the report checks (pass/fail)."""


WORKLOADS: tuple[Workload, ...] = (
    Workload("SchedulingBasic", "pods", fast=Size(5000, 1000, 10000), full=Size(5000, 1000, 10000),
             smoke=Size(50, 10, 200),
             target=Target("pods_per_s", ">=", 680.0, ">= 680 pods/s (kube-scheduler CI floor)")),
    Workload("Facade", "facade", fast=Size(5000, 0, 10000), full=Size(5000, 0, 10000), smoke=Size(50, 0, 200),
             target=Target("pods_per_s", ">=", 2000.0, ">= 2,000 pods/s, one FakeCluster.apply")),
    Workload("Idle-1000", "idle", fast=Size(1000, 1000, 86400), full=Size(1000, 1000, 7 * 86400),
             smoke=Size(20, 20, 3600),
             target=Target("sim_s_per_wall_s", ">=", 100_000.0, ">= 100,000 simulated s per wall s")),
    Workload("Gang", "gang", fast=Size(5000, 0, 10000), full=Size(5000, 0, 10000), smoke=Size(50, 0, 200),
             gang_size=10),
    Workload("Jobs", "jobs", fast=Size(1000, 0, 2000), full=Size(5000, 0, 10000), smoke=Size(20, 0, 100)),
    Workload("Preemption", "preempt", fast=Size(1000, 4000, 1000), full=Size(5000, 20000, 5000),
             smoke=Size(20, 80, 20),
             pod_cpu="1", pod_memory="1Gi", actions="enqueue, allocate, preempt, backfill"),
    Workload("Reclaim", "reclaim", fast=Size(200, 0, 4000), full=Size(1000, 0, 20000), smoke=Size(10, 0, 200),
             queues=(1, 2, 3, 4),
             pod_cpu="1", pod_memory="1Gi", actions="enqueue, allocate, reclaim, backfill"),
    Workload("Scaling-500", "pods", fast=Size(500, 100, 2000), full=Size(500, 1000, 10000),
             smoke=Size(10, 10, 200)),
    Workload("Scaling-1000", "pods", fast=Size(1000, 100, 2000), full=Size(1000, 1000, 10000),
             smoke=Size(20, 10, 200)),
    Workload("Scaling-2000", "pods", fast=Size(2000, 100, 2000), full=Size(2000, 1000, 10000),
             smoke=Size(40, 10, 200)),
    Workload("Scaling-5000", "pods", fast=Size(5000, 100, 2000), full=Size(5000, 1000, 10000),
             smoke=Size(100, 10, 200)),
    Workload("Scaling-10000", "pods", fast=Size(10000, 100, 2000), full=Size(10000, 1000, 10000),
             smoke=Size(200, 10, 200)),
    Workload("Memory", "pods", fast=Size(5000, 0, 50000), full=Size(5000, 0, 50000), smoke=Size(50, 0, 500),
             isolated=True,
             target=Target("rss_mib", "<=", 1024.0, "< 1 GiB RSS")),
    Workload("BigJob-500", "bigjob", fast=Size(1000, 0, 500), full=Size(1000, 0, 500), smoke=Size(20, 0, 100)),
    Workload("BigJob-2000", "bigjob", fast=Size(1000, 0, 2000), full=Size(1000, 0, 2000), smoke=Size(20, 0, 100),
             target=Target("running_wall_s", "<=", 5.0, "Running in <= 5 s wall")),
    Workload("BigJob-10000", "bigjob", fast=Size(1000, 0, 10000), full=Size(1000, 0, 10000),
             smoke=Size(20, 0, 100)),
)

ANCHORS: tuple[tuple[str, str, float], ...] = (
    ("kube-scheduler scheduler_perf CI floor", "SchedulingBasic 5,000 nodes / 10,000 pods", 680.0),
    ("kube-scheduler scheduler_perf CI floor", "SchedulingBasic 5,000 nodes / 50,000 pods", 810.0),
    ("kube-scheduler scheduler_perf CI floor", "PreemptionAsync 5,000 nodes", 570.0),
    ("Godel (ByteDance)", "30,000 nodes, 48 cores", 1000.0),
    ("YuniKorn", "2,000 nodes (kubemark)", 204.0),
    ("YuniKorn", "KWOK", 833.0),
    ("Volcano tuning guide", "10,000 one-pod Jobs end to end on kind (8 cores)", 55.0),
)


def size_of(workload: Workload, which: str) -> Size:
    """The ``fast``, ``full`` or ``smoke`` size of a workload (``smoke`` falls back to ``fast``)."""
    if which == "smoke":
        return workload.smoke or workload.fast
    return workload.full if which == "full" else workload.fast
