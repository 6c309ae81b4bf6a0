"""What the Job controller's sync and kill operations share (Volcano's ``job_controller_actions.go``
helpers): errors, the event sink, kill targets, Go-style durations, status normalisation,
pod counting, and ``ActionContext``, which holds the controller's client, cache and clock
and writes Job status (stamping a transition per phase change) and deletes pods.
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from volcano.api.frozen import thaw
from volcano.apiserver.client import Client, Obj
from volcano.apiserver.errors import ApiError
from volcano.controllers.job.cache import JobCache
from volcano.controllers.job.index import phase_label
from volcano.controllers.job.plugins import JobPlugin, PluginContext, UnknownPluginError, build_plugins
from volcano.controllers.job.podgroup import DesiredSpecCache
from volcano.sim.clock import Clock
from volcano.sim.rand import RandomStreams
from volcano.sim.trace import Trace

__all__ = ["ActionContext", "EventSink", "JobSyncError", "Target", "count_pod", "format_go_duration",
           "normalize_status"]

_ALNUM = string.digits + string.ascii_lowercase


class JobSyncError(Exception):
    """A sync could not complete (missing queue or PVC, plugin failure...); the request is retried."""


class EventSink(Protocol):
    """The part of an ``EventRecorder`` the controller uses."""

    def event(self, obj: Obj, type: str, reason: str, message: str) -> None:
        """Record one Kubernetes Event on ``obj``."""
        ...


@dataclass(frozen=True, slots=True)
class Target:
    """What a targeted kill addresses: ``kind`` is ``task``, ``pod``, ``partition`` or ``""`` (nothing)."""

    kind: str = ""
    task: str = ""
    pod: str = ""
    partition: str = ""


def format_go_duration(ms: int) -> str:
    """A millisecond span in Go's ``time.Duration`` string form (``1h2m3s``, ``4.5s``, ``0s``)."""
    if ms == 0:
        return "0s"
    sign = "-" if ms < 0 else ""
    ms = abs(ms)
    if ms < 1000:
        return f"{sign}{ms}ms"
    hours, rest = divmod(ms, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    seconds, millis = divmod(rest, 1000)
    sec = f"{seconds}.{millis:03d}".rstrip("0").rstrip(".") if millis else str(seconds)
    if hours:
        return f"{sign}{hours}h{minutes}m{sec}s"
    if minutes:
        return f"{sign}{minutes}m{sec}s"
    return f"{sign}{sec}s"


def normalize_status(status: Mapping[str, Any] | None) -> dict[str, Any]:
    """A status dict without zero / empty fields (as Go's ``omitempty`` serialises it)."""
    out: dict[str, Any] = {}
    for key, value in (status or {}).items():
        if value in (0, None, "", {}, []) and not isinstance(value, bool):
            continue
        out[key] = thaw(value)
    return out


def count_pod(pod: Mapping[str, Any], counts: dict[str, int], task_counts: dict[str, Any], task: str,
              n: int = 1) -> None:
    """Add ``n`` pods of ``pod``'s phase to the phase counters and to ``taskStatusCount[task]``."""
    key, label = phase_label(pod)
    count_label(key, label, counts, task_counts, task, n)


def count_label(key: str, label: str, counts: dict[str, int], task_counts: dict[str, Any], task: str,
                n: int = 1) -> None:
    """Add ``n`` pods of phase ``label`` (counter ``key``) to the counters and ``taskStatusCount[task]``."""
    counts[key] = counts.get(key, 0) + n
    if task:
        entry = task_counts.get(task)
        if entry is None:
            entry = task_counts[task] = {"phase": {}}
        phases = entry["phase"]
        phases[label] = phases.get(label, 0) + n


class ActionContext:
    """The controller's handles (client, cache, clock, recorder, streams, trace) and the
    helpers both operations use."""

    def __init__(self, client: Client, cache: JobCache, clock: Clock, recorder: EventSink,
                 streams: RandomStreams, trace: Trace) -> None:
        self.client = client
        self.cache = cache
        self.clock = clock
        self.recorder = recorder
        self.streams = streams
        self.trace = trace
        self.desired = DesiredSpecCache()
        """Each Job's desired PodGroup spec, reused while its spec is unchanged."""

    def now(self) -> str:
        """The clock's time as a ``metav1.Time`` string."""
        return self.clock.timestamp()

    def plugins(self, job: Mapping[str, Any]) -> list[JobPlugin]:
        """The Job's plugins (an unknown one is a ``JobSyncError``)."""
        try:
            return build_plugins(job, PluginContext(self.client, self.streams))
        except UnknownPluginError as exc:
            raise JobSyncError(str(exc)) from exc

    @staticmethod
    def key(job: Mapping[str, Any]) -> str:
        """``<namespace>/<name>`` of a Job."""
        meta = job["metadata"]
        return f"{meta.get('namespace', '')}/{meta['name']}"

    def stamp(self, status: dict[str, Any]) -> None:
        """Record a phase transition: ``state.lastTransitionTime`` and the phase's condition (newest last)."""
        now = self.now()
        state = status.setdefault("state", {})
        state["lastTransitionTime"] = now
        phase = state.get("phase", "")
        conditions = [c for c in status.get("conditions") or [] if c.get("status") != phase]
        conditions.append({"status": phase, "lastTransitionTime": now})
        status["conditions"] = conditions

    def write_status(self, job: dict[str, Any], old_phase: str) -> Obj | None:
        """Write ``job``'s (normalised) status; None when the Job is gone."""
        job["status"] = normalize_status(job.get("status"))
        try:
            written = self.client.update_status(job)
        except ApiError as exc:
            if exc.code == 404:
                return None
            raise
        self.cache.remember(written)
        new_phase = ((written.get("status") or {}).get("state") or {}).get("phase", "")
        if new_phase != old_phase:
            self.trace.record(self.clock.now_ms, "job-controller", "JobPhase", self.key(job),
                              f"{old_phase or '-'} -> {new_phase}")
        return written

    def suffix(self) -> str:
        """12 random ``[0-9a-z]`` from the controller's stream (generated volume and claim names)."""
        rng = self.streams.stream("job-controller")
        return "".join(rng.choice(_ALNUM) for _ in range(12))

    def delete_pod(self, pod: Obj) -> None:
        """Delete one pod and record what the store did (NotFound counts as gone); other errors raise."""
        meta = pod["metadata"]
        try:
            left = self.client.delete("Pod", str(meta["name"]), str(meta.get("namespace", "default")))
        except ApiError as exc:
            if exc.code != 404:
                raise
            left = None
        if left is None:
            self.cache.pod_removed(pod)
        else:
            self.cache.pod_written(left)
