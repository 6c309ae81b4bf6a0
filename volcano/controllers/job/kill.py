"""Volcano's ``killJob`` / ``killTarget``: mark pods out of sync and delete them.

``kill_pods(ctx, job, retain, target, update)`` kills a whole Job (``target``
None: version + 1; pods in a ``retain`` phase are kept, and so are finished pods
on the last retry) or one target (a task, a pod or a partition). The pods come
from the per-Job pod index, so a kill costs the pods it kills, not the Job's
size. Each pod is marked ``volcano.sh/controller-out-of-sync`` and deleted, in
name order; the counters are replaced by what the kill saw (terminating pods,
plus the phase of pods whose deletion failed). Then the update function, the
plugins' ``on_job_delete``, the status write and, for whole-Job kills, the
PodGroup's deletion.
"""

from __future__ import annotations

from typing import Any

from volcano.api.frozen import thaw
from volcano.api.well_known import TASK_SPEC
from volcano.apiserver.client import Obj
from volcano.apiserver.errors import ApiError
from volcano.controllers.job.common import ActionContext, JobSyncError, Target, count_pod, format_go_duration
from volcano.controllers.job.constants import ANN_CONTROLLER_OUT_OF_SYNC, LABEL_PARTITION_ID
from volcano.controllers.job.index import JobPods
from volcano.controllers.job.podgroup import podgroup_name
from volcano.controllers.job.state import RETAIN_SOFT, UpdateFn

__all__ = ["kill_pods"]


def _targets(jp: JobPods, target: Target) -> dict[str, Obj] | None:
    """The pods a targeted kill addresses; None when a partition has none (nothing to do)."""
    tp = jp.tasks.get(target.task)
    names = sorted(tp.pods) if tp is not None else []
    if target.kind == "task":
        return {n: jp.objects[n] for n in names}
    if target.kind == "pod":
        return {target.pod: jp.objects[target.pod]} if target.pod in names else {}
    if target.kind == "partition":
        found = {n: jp.objects[n] for n in names
                 if (jp.objects[n]["metadata"].get("labels") or {}).get(LABEL_PARTITION_ID) == target.partition}
        return found or None
    return {}


def kill_pods(ctx: ActionContext, job_obj: Obj, retain: frozenset[str], target: Target | None,
              update: UpdateFn | None) -> None:
    """Volcano's ``killPods`` for a whole job (``target`` None) or one target."""
    meta = job_obj["metadata"]
    if meta.get("deletionTimestamp"):
        return
    job = thaw(job_obj)
    ns, name = str(meta.get("namespace", "default")), str(meta["name"])
    status = job.setdefault("status", {})
    old_phase = (status.get("state") or {}).get("phase", "")
    jp = ctx.cache.job_pods(ns, name)
    counts: dict[str, int] = {"terminating": 0}
    task_counts: dict[str, Any] = {}
    if target is not None:
        found = _targets(jp, target)
        if found is None:
            return
        to_kill, total = found, len(found)
    else:
        status["version"] = int(status.get("version") or 0) + 1
        last_retry = int(status.get("retryCount") or 0) >= int(job["spec"].get("maxRetry") or 0) - 1
        keep = RETAIN_SOFT if last_retry else retain
        total = len(jp)
        counts["terminating"] = jp.terminating
        to_kill = {n: jp.objects[n] for n in jp.live_except(keep)}
    _kill(ctx, job_obj, ns, to_kill, total, counts, task_counts)

    for key in ("pending", "running", "succeeded", "failed", "terminating", "unknown"):
        status[key] = counts.get(key, 0)
    status["taskStatusCount"] = task_counts
    if update is not None and update(job, status):
        ctx.stamp(status)
    transition_ms = ctx.clock.parse_timestamp((status.get("state") or {}).get("lastTransitionTime")) or 0
    created_ms = ctx.clock.parse_timestamp(meta.get("creationTimestamp")) or 0
    status["runningDuration"] = format_go_duration(transition_ms - created_ms)
    for plugin in ctx.plugins(job):
        plugin.on_job_delete(job)
    if ctx.write_status(job, old_phase) is None:
        return
    if target is None:
        _delete_podgroup(ctx, job, ns, name)


def _kill(ctx: ActionContext, job_obj: Obj, ns: str, to_kill: dict[str, Obj], total: int,
          counts: dict[str, int], task_counts: dict[str, Any]) -> None:
    """Mark and delete each pod (name order); a failure is counted in the pod's phase and raised at the end."""
    errors: list[str] = []
    for pname in sorted(to_kill):
        pod = to_kill[pname]
        try:
            marked = ctx.client.patch("Pod", pname, {"metadata": {"annotations": {ANN_CONTROLLER_OUT_OF_SYNC: "true"}}},
                                      ns)
            ctx.cache.pod_written(marked)
        except ApiError as exc:
            if exc.code != 404:
                errors.append(f"failed to mark pod {pname} out of sync, err {exc.message}")
                continue
        if pod["metadata"].get("deletionTimestamp"):
            counts["terminating"] += 1
            continue
        try:
            ctx.delete_pod(pod)
        except ApiError as exc:
            errors.append(f"failed to delete pod {pname}, err {exc.message}")
            count_pod(pod, counts, task_counts, str((pod["metadata"].get("annotations") or {}).get(TASK_SPEC, "")))
            continue
        counts["terminating"] += 1
    if errors:
        ctx.recorder.event(job_obj, "Warning", "FailedDelete", f"Error deleting pods: {errors}")
        raise JobSyncError(f"failed to kill {len(errors)} pods of {total}")


def _delete_podgroup(ctx: ActionContext, job: dict[str, Any], ns: str, name: str) -> None:
    names = [podgroup_name(job)]
    if ctx.cache.podgroup(ns, name) is not None:
        names.append(name)  # the legacy name of PodGroups made before Volcano 1.5
    for pg_name in names:
        known = ctx.cache.podgroup(ns, pg_name)
        try:
            left = ctx.client.delete("PodGroup", pg_name, ns)
        except ApiError as exc:
            if exc.code != 404:
                raise
            if known is not None:
                ctx.cache.podgroup_removed(known, ctx.key(job))
            continue
        if left is not None:
            ctx.cache.podgroup_written(left, ctx.key(job))
        elif known is not None:
            ctx.cache.podgroup_removed(known, ctx.key(job))
        ctx.trace.record(ctx.clock.now_ms, "job-controller", "DeletePodGroup", ctx.key(job), pg_name)
        break
