"""The Job controller's operations: ``sync_job`` and ``kill_pods`` (Volcano's
``job_controller_actions.go``), executed for the transition the state table picks.

``sync_job`` initiates a Job (status Pending, plugins' ``on_job_add``, volume
claims, PodGroup) or refreshes an initiated one (plugins' ``on_job_update``,
PodGroup spec), then, only when the PodGroup exists and has left ``Pending``,
creates missing pods (honouring ``dependsOn``), deletes surplus or out-of-sync
pods and recomputes every counter from the pods; the state's update function
then decides the phase. ``kill_pods`` marks pods out-of-sync and deletes them
(a whole Job: version + 1, finished pods kept for soft kills or on the last
retry; a target: one task, pod or partition), replaces the counters with what
the kill saw, runs the plugins' ``on_job_delete`` and, for whole-Job kills,
deletes the PodGroup. Status is written only when it changed; each phase change
stamps ``lastTransitionTime`` and a condition (one per phase, newest last).
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from volcano.api.frozen import thaw
from volcano.api.well_known import TASK_SPEC
from volcano.apiserver.client import Client, Obj
from volcano.apiserver.errors import ApiError
from volcano.controllers.job.cache import JobCache
from volcano.controllers.job.constants import (
    ANN_CONTROLLER_OUT_OF_SYNC,
    ANN_JOB_FORWARDING,
    LABEL_PARTITION_ID,
    PHASE_PENDING,
)
from volcano.controllers.job.plugins import JobPlugin, PluginContext, PluginError, UnknownPluginError, build_plugins
from volcano.controllers.job.podgroup import DesiredSpecCache, build_podgroup, podgroup_name, podgroup_spec_update
from volcano.controllers.job.pods import build_pod, pod_name
from volcano.controllers.job.state import KILL_JOB, RETAIN_NONE, RETAIN_SOFT, SYNC, UpdateFn, transition
from volcano.sim.clock import Clock
from volcano.sim.rand import RandomStreams
from volcano.sim.trace import Trace

__all__ = ["EventSink", "JobActions", "JobSyncError", "Target", "format_go_duration", "normalize_status"]

_POD_PHASES = ("Pending", "Running", "Succeeded", "Failed")
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


_PHASE_KEYS: dict[str, tuple[str, str]] = {p: (p.lower(), p) for p in _POD_PHASES}
_UNKNOWN = ("unknown", "Unknown")


def _count(pod: Mapping[str, Any], counts: dict[str, int], task_counts: dict[str, Any], task: str) -> None:
    """Add one pod to the phase counters and to ``taskStatusCount[task]``."""
    status = pod.get("status")
    key, label = _PHASE_KEYS.get(status.get("phase") if status else None, _UNKNOWN)  # type: ignore[arg-type]
    counts[key] = counts.get(key, 0) + 1
    if task:
        entry = task_counts.get(task)
        if entry is None:
            entry = task_counts[task] = {"phase": {}}
        phases = entry["phase"]
        phases[label] = phases.get(label, 0) + 1


class JobActions:
    """Executes transitions against the API server; reads through a ``JobCache``."""

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

    # ----------------------------------------------------------------- helpers
    def _now(self) -> str:
        return self.clock.timestamp()

    def _plugins(self, job: Mapping[str, Any]) -> list[JobPlugin]:
        try:
            return build_plugins(job, PluginContext(self.client, self.streams))
        except UnknownPluginError as exc:
            raise JobSyncError(str(exc)) from exc

    def _key(self, job: Mapping[str, Any]) -> str:
        meta = job["metadata"]
        return f"{meta.get('namespace', '')}/{meta['name']}"

    def _stamp(self, status: dict[str, Any]) -> None:
        now = self._now()
        state = status.setdefault("state", {})
        state["lastTransitionTime"] = now
        phase = state.get("phase", "")
        conditions = [c for c in status.get("conditions") or [] if c.get("status") != phase]
        conditions.append({"status": phase, "lastTransitionTime": now})
        status["conditions"] = conditions

    def _write_status(self, job: dict[str, Any], old_phase: str) -> Obj | None:
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
            self.trace.record(self.clock.now_ms, "job-controller", "JobPhase", self._key(job),
                              f"{old_phase or '-'} -> {new_phase}")
        return written

    # --------------------------------------------------------------- dispatch
    def execute(self, job: Obj, action: str, target: Target | None = None) -> None:
        """Run ``action`` on ``job`` per the state table for its current phase."""
        phase = ((job.get("status") or {}).get("state") or {}).get("phase", "")
        t = transition(phase, action)
        if t.operation == SYNC:
            self.sync_job(job, t.update)
        elif t.operation == KILL_JOB:
            self.kill_pods(job, t.retain, None, t.update)
        else:
            self.kill_pods(job, RETAIN_NONE, target or Target(), t.update)

    # ------------------------------------------------------------------- sync
    def sync_job(self, job_obj: Obj, update: UpdateFn | None) -> None:
        """Volcano's ``syncJob`` (see the module docstring)."""
        meta = job_obj["metadata"]
        if meta.get("deletionTimestamp"):
            return
        job = thaw(job_obj)
        ns, name = str(meta.get("namespace", "default")), str(meta["name"])
        queue_name = str(job["spec"].get("queue") or "default")
        queue = self.cache.queue(queue_name)
        if queue is None:
            raise JobSyncError(f'queue.scheduling.volcano.sh "{queue_name}" not found')
        forwarding = bool((queue.get("spec") or {}).get("extendClusters"))
        if forwarding and (meta.get("annotations") or {}).get(ANN_JOB_FORWARDING) != "true":
            job.setdefault("metadata", {}).setdefault("annotations", {})[ANN_JOB_FORWARDING] = "true"
            job = thaw(self.client.update(job))
        plugins = self._plugins(job)
        phase = (job.get("status") or {}).get("state", {}).get("phase", "")
        if phase in ("", PHASE_PENDING):
            job = self._initiate(job, plugins)
        else:
            for plugin in plugins:
                plugin.on_job_update(job)
            self._create_or_update_podgroup(job)

        pg = self.cache.podgroup(ns, podgroup_name(job)) or self.cache.podgroup(ns, name)
        gate_open = False
        if pg is not None:
            pg_phase = (pg.get("status") or {}).get("phase") or ""
            gate_open = pg_phase not in ("", "Pending")
            self._record_podgroup_event(job, pg)

        old_status = normalize_status(job.get("status"))
        old_phase = (old_status.get("state") or {}).get("phase", "")
        if not gate_open:
            status = thaw(old_status)
            if update is not None:
                update(job, status)
            if normalize_status(status) == old_status:
                return
            self._stamp(status)
            job["status"] = status
            self._write_status(job, old_phase)
            return

        counts: dict[str, int] = {"terminating": 0}
        task_counts: dict[str, Any] = {}
        pods = self.cache.pods(ns, name)
        to_delete: list[Obj] = []
        creations: list[tuple[Mapping[str, Any], list[dict[str, Any]]]] = []
        for task in job["spec"].get("tasks") or []:
            tname = str(task.get("name", ""))
            existing = dict(pods.get(tname, {}))
            new_pods: list[dict[str, Any]] = []
            for i in range(int(task.get("replicas") or 0)):
                pname = pod_name(name, tname, i)
                pod = existing.pop(pname, None)
                if pod is None:
                    new_pod = build_pod(job, task, i, job_forwarding=forwarding, random_suffix=self._suffix)
                    for plugin in plugins:
                        try:
                            plugin.on_pod_create(new_pod, job)
                        except PluginError as exc:
                            raise JobSyncError(str(exc)) from exc
                    new_pods.append(new_pod)
                    continue
                if (pod["metadata"]).get("deletionTimestamp"):
                    counts["terminating"] += 1
                    continue
                if (pod["metadata"].get("annotations") or {}).get(ANN_CONTROLLER_OUT_OF_SYNC) == "true":
                    to_delete.append(pod)
                _count(pod, counts, task_counts, tname)
            creations.append((task, new_pods))
            to_delete.extend(existing[k] for k in sorted(existing))

        errors: list[str] = []
        for task, new_pods in creations:
            if not new_pods or (task.get("dependsOn") and not self._depends_on_ready(job, task)):
                continue
            for new_pod in new_pods:
                try:
                    created = self.client.create(new_pod)
                except ApiError as exc:
                    if exc.code != 409:
                        errors.append(f"failed to create pod {new_pod['metadata']['name']}, err: {exc.message}")
                    continue
                self.cache.pod_written(created)
                _count(created, counts, task_counts, str(task.get("name", "")))
        if errors:
            self.recorder.event(job_obj, "Warning", "FailedCreate", f"Error creating pods: {errors}")
            raise JobSyncError(f"failed to create {len(errors)} pods of {sum(len(p) for _, p in creations)}")

        del_errors: list[str] = []
        for pod in to_delete:
            try:
                self._delete_pod(pod)
            except ApiError as exc:
                del_errors.append(f"failed to delete pod {pod['metadata']['name']}, err {exc.message}")
                continue
            counts["terminating"] += 1
        if del_errors:
            self.recorder.event(job_obj, "Warning", "FailedDelete", f"Error deleting pods: {del_errors}")
            raise JobSyncError(f"failed to delete {len(del_errors)} pods of {len(to_delete)}")

        status = (job.get("status") or {})
        new_status: dict[str, Any] = {
            "state": thaw(status.get("state") or {}),
            "pending": counts.get("pending", 0), "running": counts.get("running", 0),
            "succeeded": counts.get("succeeded", 0), "failed": counts.get("failed", 0),
            "terminating": counts["terminating"], "unknown": counts.get("unknown", 0),
            "version": int(status.get("version") or 0),
            "minAvailable": int(job["spec"].get("minAvailable") or 0),
            "taskStatusCount": task_counts,
            "controlledResources": thaw(status.get("controlledResources") or {}),
            "conditions": thaw(status.get("conditions") or []),
            "retryCount": int(status.get("retryCount") or 0),
        }
        if update is not None:
            update(job, new_status)
        if normalize_status(new_status) == old_status:
            return
        self._stamp(new_status)
        job["status"] = new_status
        self._write_status(job, old_phase)

    def _suffix(self) -> str:
        rng = self.streams.stream("job-controller")
        return "".join(rng.choice(_ALNUM) for _ in range(12))

    def _initiate(self, job: dict[str, Any], plugins: list[JobPlugin]) -> dict[str, Any]:
        status = job.setdefault("status", {})
        if not (status.get("state") or {}).get("phase"):
            status["state"] = {"phase": PHASE_PENDING}
            status["minAvailable"] = int(job["spec"].get("minAvailable") or 0)
            self._stamp(status)
            written = self._write_status(job, "")
            if written is None:
                raise JobSyncError(f"job {self._key(job)} was deleted")
            job = thaw(written)
        for plugin in plugins:
            try:
                plugin.on_job_add(job)
            except ApiError as exc:
                self.recorder.event(job, "Warning", "PluginError",
                                    f"Execute plugin when job add failed, err: {exc.message}")
                raise
        job = self._volumes(job)
        try:
            self._create_or_update_podgroup(job)
        except ApiError as exc:
            self.recorder.event(job, "Warning", "PodGroupError", f"Failed to create PodGroup, err: {exc.message}")
            raise
        return job

    def _volumes(self, job: dict[str, Any]) -> dict[str, Any]:
        volumes = job["spec"].get("volumes") or []
        ns = job["metadata"].get("namespace", "default")
        need_update = False
        for vol in volumes:
            claim = str(vol.get("volumeClaimName") or "")
            exists = False
            if not claim:
                claim = f"{job['metadata']['name']}-pvc-{self._suffix()}"
                vol["volumeClaimName"] = claim
                need_update = True
            else:
                exists = self._pvc_exists(ns, claim)
            if exists:
                continue
            if vol.get("volumeClaim") is not None:
                pvc = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                       "metadata": {"name": claim, "namespace": ns,
                                    "ownerReferences": build_podgroup(job)["metadata"]["ownerReferences"]},
                       "spec": thaw(vol["volumeClaim"])}
                try:
                    self.client.create(pvc)
                except ApiError as exc:
                    if exc.code != 409:
                        self.recorder.event(job, "Warning", "PVCError", f"Failed to create PVC, err: {exc.message}")
                        raise
                job.setdefault("status", {}).setdefault("controlledResources", {})[f"volume-pvc-{claim}"] = claim
            else:
                msg = f"pvc {claim} is not found, the job will be in the Pending state until the PVC is created"
                self.recorder.event(job, "Warning", "PVCError", f"Failed to create PVC, err: {msg}")
                raise JobSyncError(msg)
        if need_update:
            status = job.get("status")
            job = thaw(self.client.update(job))
            job["status"] = status
        return job

    def _pvc_exists(self, ns: str, name: str) -> bool:
        try:
            self.client.get("PersistentVolumeClaim", name, ns)
            return True
        except ApiError as exc:
            if exc.code == 404:
                return False
            raise

    def _create_or_update_podgroup(self, job: Mapping[str, Any]) -> None:
        ns = str(job["metadata"].get("namespace", "default"))
        pg = self.cache.podgroup(ns, podgroup_name(job)) or self.cache.podgroup(ns, str(job["metadata"]["name"]))
        if pg is None:
            try:
                created = self.client.create(build_podgroup(job, self.cache.priority, self.desired))
                self.cache.podgroup_written(created, self._key(job))
                self.trace.record(self.clock.now_ms, "job-controller", "CreatePodGroup", self._key(job),
                                  podgroup_name(job))
            except ApiError as exc:
                if exc.code != 409:
                    raise
            return
        new_spec = podgroup_spec_update(pg, job, self.cache.priority, self.desired)
        if new_spec is not None:
            updated = thaw(pg)
            updated["spec"] = new_spec
            self.cache.podgroup_written(self.client.update(updated), self._key(job))

    def _record_podgroup_event(self, job: dict[str, Any], pg: Mapping[str, Any]) -> None:
        true = [c for c in (pg.get("status") or {}).get("conditions") or [] if c.get("status") == "True"]
        if not true:
            return
        latest = true[-1]
        if latest.get("type") == "Scheduled":
            return
        meta = job["metadata"]
        self.recorder.event(job, "Warning", "PodGroupPending",
                            f"PodGroup {meta.get('namespace', '')}:{meta['name']} "
                            f"{str(latest.get('type', '')).lower()}, reason: {latest.get('message', '')}")

    def _depends_on_ready(self, job: Mapping[str, Any], task: Mapping[str, Any]) -> bool:
        depends = task.get("dependsOn") or {}
        names = [str(n) for n in depends.get("name") or []]
        if not names:
            return True
        ready = [self._task_ready(job, n) for n in names]
        if depends.get("iteration") == "any" and len(names) > 1:
            return any(ready)
        return all(ready)

    def _task_ready(self, job: Mapping[str, Any], task_name: str) -> bool:
        task = next((t for t in job["spec"].get("tasks") or [] if t.get("name") == task_name), None)
        if task is None or task.get("minAvailable") is None:
            return True
        ns, name = str(job["metadata"].get("namespace", "default")), str(job["metadata"]["name"])
        ready = 0
        for i in range(int(task.get("replicas") or 0)):
            pod = self.cache.pod(ns, pod_name(name, task_name, i))
            if pod is None:
                continue
            status = pod.get("status") or {}
            phase = status.get("phase")
            if phase == "Succeeded" or (phase == "Running" and all(
                    cs.get("ready") for cs in status.get("containerStatuses") or [])):
                ready += 1
        return ready >= int(task["minAvailable"])

    def _delete_pod(self, pod: Obj) -> None:
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

    # ------------------------------------------------------------------- kill
    def kill_pods(self, job_obj: Obj, retain: frozenset[str], target: Target | None,
                  update: UpdateFn | None) -> None:
        """Volcano's ``killPods`` for a whole job (``target`` None) or one target."""
        meta = job_obj["metadata"]
        if meta.get("deletionTimestamp"):
            return
        job = thaw(job_obj)
        ns, name = str(meta.get("namespace", "default")), str(meta["name"])
        status = job.setdefault("status", {})
        old_phase = (status.get("state") or {}).get("phase", "")
        pods = self.cache.pods(ns, name)
        counts: dict[str, int] = {"terminating": 0}
        task_counts: dict[str, Any] = {}
        to_kill: dict[str, Obj] = {}
        total = 0
        if target is not None:
            task_pods = pods.get(target.task, {})
            if target.kind == "task":
                to_kill = dict(task_pods)
            elif target.kind == "pod" and target.pod in task_pods:
                to_kill = {target.pod: task_pods[target.pod]}
            elif target.kind == "partition":
                to_kill = {n: p for n, p in task_pods.items()
                           if (p["metadata"].get("labels") or {}).get(LABEL_PARTITION_ID) == target.partition}
                if not to_kill:
                    return
            total = len(to_kill)
        else:
            status["version"] = int(status.get("version") or 0) + 1
            last_retry = int(status.get("retryCount") or 0) >= int(job["spec"].get("maxRetry") or 0) - 1
            keep = RETAIN_SOFT if last_retry else retain
            for task in sorted(pods):
                for pname in sorted(pods[task]):
                    pod = pods[task][pname]
                    total += 1
                    if pod["metadata"].get("deletionTimestamp"):
                        counts["terminating"] += 1
                        continue
                    if (pod.get("status") or {}).get("phase") not in keep:
                        to_kill[pname] = pod
        errors: list[str] = []
        for pname in sorted(to_kill):
            pod = to_kill[pname]
            try:
                marked = self.client.patch("Pod", pname,
                                           {"metadata": {"annotations": {ANN_CONTROLLER_OUT_OF_SYNC: "true"}}}, ns)
                self.cache.pod_written(marked)
            except ApiError as exc:
                if exc.code != 404:
                    errors.append(f"failed to mark pod {pname} out of sync, err {exc.message}")
                    continue
            if pod["metadata"].get("deletionTimestamp"):
                counts["terminating"] += 1
                continue
            try:
                self._delete_pod(pod)
            except ApiError as exc:
                errors.append(f"failed to delete pod {pname}, err {exc.message}")
                _count(pod, counts, task_counts,
                       str((pod["metadata"].get("annotations") or {}).get(TASK_SPEC, "")))
                continue
            counts["terminating"] += 1
        if errors:
            self.recorder.event(job_obj, "Warning", "FailedDelete", f"Error deleting pods: {errors}")
            raise JobSyncError(f"failed to kill {len(errors)} pods of {total}")

        for key in ("pending", "running", "succeeded", "failed", "terminating", "unknown"):
            status[key] = counts.get(key, 0)
        status["taskStatusCount"] = task_counts
        if update is not None and update(job, status):
            self._stamp(status)
        transition_ms = self.clock.parse_timestamp((status.get("state") or {}).get("lastTransitionTime")) or 0
        created_ms = self.clock.parse_timestamp(meta.get("creationTimestamp")) or 0
        status["runningDuration"] = format_go_duration(transition_ms - created_ms)
        for plugin in self._plugins(job):
            plugin.on_job_delete(job)
        if self._write_status(job, old_phase) is None:
            return
        if target is None:
            names = [podgroup_name(job)]
            if self.cache.podgroup(ns, name) is not None:
                names.append(name)  # the legacy name of PodGroups made before Volcano 1.5
            for pg_name in names:
                known = self.cache.podgroup(ns, pg_name)
                try:
                    left = self.client.delete("PodGroup", pg_name, ns)
                except ApiError as exc:
                    if exc.code != 404:
                        raise
                    if known is not None:
                        self.cache.podgroup_removed(known, self._key(job))
                    continue
                if left is not None:
                    self.cache.podgroup_written(left, self._key(job))
                elif known is not None:
                    self.cache.podgroup_removed(known, self._key(job))
                self.trace.record(self.clock.now_ms, "job-controller", "DeletePodGroup", self._key(job), pg_name)
                break
