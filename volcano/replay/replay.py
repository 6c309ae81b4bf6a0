"""Drive a ``FakeCluster`` from a trace and record when each job was submitted, started and finished.

``replay(trace, ReplayConfig(...))`` builds a cluster of identical GPU nodes,
creates one Volcano Queue per queue of the trace, then walks simulated time:
at each job's submit time it creates the job, either

* ``mode="podgroup"`` (default): a PodGroup (``minMember`` = gang size) and its
  pods, as a batch framework's operator does, or
* ``mode="job"``: a Volcano Job (one task, ``minAvailable`` = replicas), through
  admission and the Job controller,

with each pod annotated ``sim.volcano.sh/duration`` so that the simulated
kubelet ends it after the job's duration. A watch on pods records, in
simulated milliseconds, when each job's gang was all running (its start: the
queueing delay is start minus submit) and when its last pod succeeded (its
finish), and every change of the GPUs held by running pods (the utilisation
curve). A finished job is deleted (``keep_finished=False``), as a TTL after
finishing would, so that a long replay holds only live objects.

The replay stops at ``seconds`` of simulated time (default: the last submit
time), or earlier once every job has finished. All randomness is the
cluster's seeded streams: the same trace, configuration and seed give the same
``ReplayResult`` apart from the wall and CPU times.
"""

from __future__ import annotations

import contextlib
import gc
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from volcano.replay.trace import TraceJob
from volcano.sim.collector import fewer_collections
from volcano.testbed import FakeCluster

__all__ = ["JobRecord", "ReplayConfig", "ReplayResult", "job_objects", "replay"]

_JOB_LABEL = "replay.volcano.sh/job"
_GPU = "nvidia.com/gpu"


@dataclass(frozen=True)
class ReplayConfig:
    """How to replay: the cluster (``nodes`` identical nodes of ``gpus_per_node`` GPUs,
    ``cpu`` and ``memory``), the seed, the scheduler configuration (text or path; None:
    Volcano's default), how jobs are created (``mode``: ``podgroup`` or ``job``), queue
    weights (queues not listed weigh 1), how long to run (``seconds``; None: until the
    last submit time), whether finished jobs stay in the cluster and whether the schedulers
    reuse work across cycles."""

    nodes: int = 1000
    gpus_per_node: int = 8
    cpu: str = "96"
    memory: str = "768Gi"
    seed: int = 0
    scheduler_conf: str | None = None
    mode: str = "podgroup"
    queue_weights: Mapping[str, int] = field(default_factory=dict)
    seconds: float | None = None
    keep_finished: bool = False
    namespace: str = "default"
    reuse: bool = True
    """Let the schedulers reuse work across cycles (``Scheduler.reuse``); ``False`` is the slower
    reference path, with the same results."""


@dataclass
class JobRecord:
    """One job's life in simulated milliseconds (-1: not reached)."""

    job: TraceJob
    submit_ms: int = -1
    start_ms: int = -1
    finish_ms: int = -1
    running: int = 0
    succeeded: int = 0


@dataclass
class ReplayResult:
    """What a replay recorded. ``gpu_changes``: ``(simulated ms, change in GPUs held by running
    pods)`` in time order; ``wall_s``/``cpu_s``: the process's wall and CPU seconds for the
    replay (cluster set-up included, ``setup_wall_s`` of it)."""

    config: ReplayConfig
    records: list[JobRecord]
    sim_ms: int
    total_gpus: int
    gpu_changes: list[tuple[int, int]]
    wall_s: float = 0.0
    cpu_s: float = 0.0
    setup_wall_s: float = 0.0


class _Recorder:
    """Watches pods and turns their phase changes into job starts, finishes and GPU changes."""

    def __init__(self, cluster: FakeCluster, records: Mapping[str, JobRecord], keep_finished: bool,
                 delete: Callable[[JobRecord], None]) -> None:
        self.clock = cluster.clock
        self.records = records
        self.keep_finished = keep_finished
        self.delete = delete
        self.state: dict[str, int] = {}
        """Pod name -> 1 running, 2 done (absent: not started)."""
        self.gpu_changes: list[tuple[int, int]] = []
        self.finished = 0
        # Over the in-process server, a status-only write that leaves ``status.phase`` as it was is
        # not looked at: this watch saw the version before it, whose phase did whatever it does.
        watch_changes: Any = type(cluster.client).__dict__.get("watch_changes")
        if watch_changes is not None:
            watch_changes(cluster.client, "Pod", self._on_change)
        else:
            cluster.client.watch("Pod", lambda event: self._on_pod(event.type, event.object))

    def _on_change(self, etype: str, obj: Any, previous: Any, change: frozenset[str] | None) -> None:
        if change is None or "phase" in change:
            self._on_pod(etype, obj)

    def _on_pod(self, etype: str, obj: Any) -> None:
        meta = obj["metadata"]
        record = self.records.get((meta.get("labels") or {}).get(_JOB_LABEL, ""))
        if record is None:
            return
        name = meta["name"]
        phase = (obj.get("status") or {}).get("phase")
        before = self.state.get(name, 0)
        now = self.clock.now_ms
        if phase == "Running" and before == 0:
            self.state[name] = 1
            self.gpu_changes.append((now, record.job.gpu))
            record.running += 1
            if record.running == record.job.gang_size and record.start_ms < 0:
                record.start_ms = now
        elif (phase in ("Succeeded", "Failed") or etype == "DELETED") and before == 1:
            self.state[name] = 2
            self.gpu_changes.append((now, -record.job.gpu))
            record.running -= 1
            if phase == "Succeeded":
                record.succeeded += 1
                if record.succeeded == record.job.gang_size:
                    record.finish_ms = now
                    self.finished += 1
                    if not self.keep_finished:
                        self.clock.call_at(now, self.delete, record)
        if etype == "DELETED":
            self.state.pop(name, None)


def _queue(name: str, weight: int) -> dict[str, Any]:
    return {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": name},
            "spec": {"weight": weight, "reclaimable": True}}


def _pod_spec(job: TraceJob) -> dict[str, Any]:
    requests = {"cpu": job.cpu, "memory": job.memory}
    if job.gpu:
        requests[_GPU] = str(job.gpu)
    return {"schedulerName": "volcano", "restartPolicy": "Never", "terminationGracePeriodSeconds": 0,
            "containers": [{"name": "main", "image": "trainer",
                            "resources": {"requests": requests, "limits": dict(requests)}}]}


def _duration(job: TraceJob) -> str:
    return f"{round(job.duration_s * 1000)}ms" if job.duration_s != int(job.duration_s) else f"{int(job.duration_s)}s"


def job_objects(job: TraceJob, mode: str, namespace: str = "default") -> list[dict[str, Any]]:
    """The objects that submit ``job``: a PodGroup and its pods, or one Volcano Job."""
    labels = {_JOB_LABEL: job.name}
    annotations = {"sim.volcano.sh/duration": _duration(job)}
    if mode == "job":
        return [{"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
                 "metadata": {"name": job.name, "namespace": namespace, "labels": dict(labels)},
                 "spec": {"schedulerName": "volcano", "queue": job.queue, "minAvailable": job.gang_size,
                          "tasks": [{"name": "worker", "replicas": job.gang_size,
                                     "template": {"metadata": {"labels": labels, "annotations": annotations},
                                                  "spec": _pod_spec(job)}}]}}]
    group: dict[str, Any] = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
                             "metadata": {"name": job.name, "namespace": namespace, "labels": dict(labels)},
                             "spec": {"minMember": job.gang_size, "queue": job.queue}}
    pods = [{"apiVersion": "v1", "kind": "Pod",
             "metadata": {"name": f"{job.name}-{k}", "namespace": namespace, "labels": dict(labels),
                          "annotations": {**annotations, "scheduling.k8s.io/group-name": job.name}},
             "spec": _pod_spec(job)} for k in range(job.gang_size)]
    return [group, *pods]


def _deleter(cluster: FakeCluster, mode: str, namespace: str) -> Callable[[JobRecord], None]:
    client = cluster.client

    def delete(record: JobRecord) -> None:
        name = record.job.name
        if mode == "job":
            client.delete("Job", name, namespace, propagation_policy="Background")
            return
        for k in range(record.job.gang_size):
            client.delete("Pod", f"{name}-{k}", namespace, grace_period_seconds=0)
        client.delete("PodGroup", name, namespace)

    return delete


_FREEZE_MS = 600_000
"""How often (simulated ms) a replay freezes its surviving objects out of the collector's scans."""


def _freeze() -> None:
    """Collect cyclic garbage, then move every surviving object to the permanent generation."""
    gc.collect()
    gc.freeze()


def _check(trace: Sequence[TraceJob], config: ReplayConfig) -> None:
    if config.mode not in ("podgroup", "job"):
        raise ValueError(f"mode: expected 'podgroup' or 'job', got {config.mode!r}")
    if config.nodes < 1 or config.gpus_per_node < 0:
        raise ValueError(f"nodes: expected at least 1 node of >= 0 GPUs, got {config.nodes} x {config.gpus_per_node}")
    for job in trace:
        if job.gang_size > config.nodes * 110:
            raise ValueError(f"job {job.name}: gang_size {job.gang_size} exceeds the cluster's pod capacity")


def replay(trace: Sequence[TraceJob], config: ReplayConfig | None = None, *,
           progress: Callable[[float, int, int], None] | None = None) -> ReplayResult:
    """Replay ``trace`` (sorted by submit time) on a new cluster shaped by ``config``.

    ``progress(simulated seconds, jobs finished, jobs submitted)`` is called after each
    submission instant (for a progress line; it must not touch the cluster).

    While it runs, the objects that survive each 10 simulated minutes are frozen out of the
    garbage collector's scans (``gc.freeze``, undone on return): the collector otherwise walks
    the whole cluster again and again. No simulated result depends on it."""
    config = config or ReplayConfig()
    _check(trace, config)
    wall0, cpu0 = time.perf_counter(), time.process_time()
    cluster = FakeCluster(seed=config.seed, scheduler_conf=config.scheduler_conf)
    cluster.trace.enabled = False
    cluster.scheduler.reuse = cluster.default_scheduler.reuse = config.reuse
    cluster.add_nodes(config.nodes, cpu=config.cpu, memory=config.memory, gpu=config.gpus_per_node)
    for name in sorted({j.queue for j in trace} - {"default"}):
        cluster.client.create(_queue(name, int(config.queue_weights.get(name, 1))))
    cluster.run(1)
    start_ms = cluster.clock.now_ms
    records = {j.name: JobRecord(j) for j in trace}
    recorder = _Recorder(cluster, records, config.keep_finished, _deleter(cluster, config.mode, config.namespace))
    setup_wall = time.perf_counter() - wall0
    _freeze()  # the cluster's long-lived objects leave the collector's scans (see _drive)
    try:
        # One collector setting for the whole drive, not one per ``cluster.run`` between submissions:
        # restoring the default threshold after each run let the next allocations start a young
        # collection of everything the run had allocated (about 6% of a saturated day's CPU).
        with fewer_collections(cluster.gc_threshold):
            _drive(cluster, trace, config, records, recorder, start_ms, progress)
    finally:
        gc.unfreeze()
    for record in records.values():
        for attr in ("start_ms", "finish_ms"):
            if getattr(record, attr) >= 0:
                setattr(record, attr, getattr(record, attr) - start_ms)
    changes = [(t - start_ms, d) for t, d in recorder.gpu_changes]
    return ReplayResult(config, list(records.values()), cluster.clock.now_ms - start_ms,
                        config.nodes * config.gpus_per_node, changes, wall_s=time.perf_counter() - wall0,
                        cpu_s=time.process_time() - cpu0, setup_wall_s=setup_wall)


def _drive(cluster: FakeCluster, trace: Sequence[TraceJob], config: ReplayConfig, records: dict[str, JobRecord],
           recorder: _Recorder, start_ms: int, progress: Callable[[float, int, int], None] | None) -> None:
    """Submit each job at its time, then run until the end or until every job has finished.

    Every ``_FREEZE_MS`` of simulated time the surviving objects are frozen out of the
    garbage collector's scans (``gc.freeze``): a full collection otherwise walks the whole
    cluster, over and over, as the heap grows. Simulated results do not depend on it."""
    next_freeze = cluster.clock.now_ms + _FREEZE_MS
    last_submit = max((j.submit_s for j in trace), default=0.0)
    end_ms = start_ms + round((config.seconds if config.seconds is not None else last_submit) * 1000)
    create = cluster.client.create
    for job in trace:
        at_ms = start_ms + round(job.submit_s * 1000)
        if at_ms > end_ms:
            break
        if at_ms > cluster.clock.now_ms:
            cluster.run((at_ms - cluster.clock.now_ms) / 1000)
        for obj in job_objects(job, config.mode, config.namespace):
            create(obj)
        records[job.name].submit_ms = at_ms - start_ms
        if cluster.clock.now_ms >= next_freeze:
            next_freeze = cluster.clock.now_ms + _FREEZE_MS
            _freeze()
        if progress is not None:
            progress((cluster.clock.now_ms - start_ms) / 1000, recorder.finished, len(trace))
    submitted = sum(1 for r in records.values() if r.submit_ms >= 0)
    while cluster.clock.now_ms < end_ms and recorder.finished < submitted:
        chunk_s = min(end_ms - cluster.clock.now_ms, 600_000) / 1000
        with contextlib.suppress(TimeoutError):  # the chunk ended first: report progress, go on
            cluster.run_until(lambda _c: recorder.finished >= submitted, timeout=chunk_s)
        _freeze()
        if progress is not None:
            progress((cluster.clock.now_ms - start_ms) / 1000, recorder.finished, len(trace))
