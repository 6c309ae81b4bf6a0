"""What a demo run measures: pod lifetimes per job, from the cluster's watch stream.

Every pod of a demo workload carries the label ``demo.volcano.sh/job``. The
recorder follows pods through a watch and keeps, per pod, when it started
running, when it stopped, its requests and its job; the metrics are computed
from that afterwards.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

from volcano.api.resources import Resources, pod_requests

__all__ = ["JOB_LABEL", "JobMetrics", "PodHistory", "PodLife", "job_metrics"]

JOB_LABEL = "demo.volcano.sh/job"
GANG_LABEL = "demo.volcano.sh/needs"  # pods of the job that must run together for it to progress


@dataclass
class PodLife:
    """One pod's life as observed: creation, running interval, end."""

    job: str
    name: str
    needs: int
    requests: Resources
    created: float
    running_since: float | None = None
    ended: float | None = None
    succeeded: bool = False
    intervals: list[tuple[float, float | None]] = field(default_factory=list)


class PodHistory:
    """Records the lives of labelled pods from watch events (times in simulated seconds)."""

    def __init__(self) -> None:
        self.pods: dict[str, PodLife] = {}

    def observe(self, now: float, event_type: str, pod: dict[str, Any]) -> None:
        """Feed one watch event."""
        meta = pod["metadata"]
        labels = meta.get("labels") or {}
        job = labels.get(JOB_LABEL)
        if job is None:
            return
        key = f"{meta.get('namespace')}/{meta['name']}/{meta.get('uid')}"
        life = self.pods.get(key)
        if life is None:
            life = self.pods[key] = PodLife(job, meta["name"], int(labels.get(GANG_LABEL, "1")),
                                            pod_requests(pod), now)
        phase = (pod.get("status") or {}).get("phase")
        running = phase == "Running" and event_type != "DELETED"
        if running and life.running_since is None:
            life.running_since = now
            life.intervals.append((now, None))
        if not running and life.running_since is not None:
            life.intervals[-1] = (life.intervals[-1][0], now)
            life.running_since = None
        if life.ended is None and (phase in ("Succeeded", "Failed") or event_type == "DELETED"):
            life.ended = now
            life.succeeded = phase == "Succeeded"

    def progressing(self) -> bool:
        """Whether some job now runs at least as many pods as it needs (it can make progress)."""
        running: dict[str, int] = {}
        needs: dict[str, int] = {}
        for lf in self.pods.values():
            if lf.running_since is not None:
                running[lf.job] = running.get(lf.job, 0) + 1
            if lf.ended is None or not lf.succeeded:
                needs[lf.job] = max(needs.get(lf.job, 1), lf.needs)
        return any(count >= needs.get(job, 1) for job, count in running.items())

    def close(self, now: float) -> None:
        """End every open interval at ``now``."""
        for life in self.pods.values():
            if life.running_since is not None:
                life.intervals[-1] = (life.intervals[-1][0], now)


@dataclass
class JobMetrics:
    """Outcome of one job in one run."""

    job: str
    finished_at: float | None
    wasted_seconds: float
    wasted_resource_hours: dict[str, float]


def _merge(points: list[tuple[float, int]]) -> list[tuple[float, int]]:
    points.sort()
    out: list[tuple[float, int]] = []
    level = 0
    for t, delta in points:
        level += delta
        if out and out[-1][0] == t:
            out[-1] = (t, level)
        else:
            out.append((t, level))
    return out


def job_metrics(history: PodHistory, end: float, expected_pods: dict[str, int]) -> list[JobMetrics]:
    """Per job: when every expected pod had succeeded, and the pod-seconds and resource-hours its
    running pods held while fewer of its pods ran than it needs (the job could not progress).

    What a job needs at a time is the largest ``demo.volcano.sh/needs`` label among its pods
    that exist then and have not succeeded (a Spark driver alone needs 1; once it created its
    executors, 3)."""
    by_job: dict[str, list[PodLife]] = {}
    for life in history.pods.values():
        by_job.setdefault(life.job, []).append(life)
    out = []
    for job in sorted(expected_pods):
        lives = by_job.get(job, [])
        done = [lf for lf in lives if lf.succeeded]
        finished = max(lf.ended or 0.0 for lf in done) if len(done) >= expected_pods[job] else None
        running = _merge([(s, +1) for lf in lives for s, _ in lf.intervals]
                         + [(e if e is not None else end, -1) for lf in lives for _, e in lf.intervals]
                         # what the job needs changes when pods appear or succeed: evaluate there too
                         + [(lf.created, 0) for lf in lives] + [(lf.ended, 0) for lf in lives if lf.ended]
                         + [(end, 0)])
        wasted = 0.0
        hours: dict[str, float] = {}
        for (t0, level), (t1, _) in itertools.pairwise(running):
            needs = max((lf.needs for lf in lives if lf.created <= t0
                         and not (lf.succeeded and lf.ended is not None and lf.ended <= t0)), default=1)
            if 0 < level < needs:
                wasted += (t1 - t0) * level
                for lf in lives:
                    held = sum(min(e if e is not None else end, t1) - max(s, t0) for s, e in lf.intervals
                               if s < t1 and (e if e is not None else end) > t0)
                    for res in ("cpu", "nvidia.com/gpu"):
                        if lf.requests.get(res):
                            hours[res] = hours.get(res, 0.0) + held * lf.requests.get(res) / 1000 / 3600
        out.append(JobMetrics(job, finished, wasted, hours))
    return out
