"""Volcano's ``syncJob``: initiate or refresh a Job, then count, create and delete its pods.

``sync_job(ctx, job, update)`` initiates a Job (status Pending, plugins'
``on_job_add``, volume claims, PodGroup) or refreshes an initiated one (plugins'
``on_job_update``, PodGroup spec). Only when the PodGroup exists and has left
``Pending`` does it go on, in three steps:

1. *count* (``_plan``): from the per-Job pod index (``index.JobPodIndex``), in
   O(tasks) plus the pods to act on: terminating pods, phase counts of the
   others (``taskStatusCount``), the missing replicas (built, and edited by the
   plugins' ``on_pod_create``, in replica order), and the pods to delete
   (out-of-sync ones by replica, then those outside the desired range by name);
2. *create* (``_create_pods``) the missing pods of each task whose ``dependsOn``
   is satisfied; each created pod is counted in its phase;
3. *delete* (``_delete_pods``); each deleted pod counts as terminating.

The state's update function then decides the phase; the status is written only
when it changed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from volcano.api.frozen import thaw
from volcano.apiserver.client import Obj
from volcano.apiserver.errors import ApiError
from volcano.controllers.job.common import ActionContext, JobSyncError, count_label, count_pod, normalize_status
from volcano.controllers.job.constants import ANN_JOB_FORWARDING, PHASE_PENDING
from volcano.controllers.job.plugins import JobPlugin, PluginError
from volcano.controllers.job.podgroup import build_podgroup, podgroup_name, podgroup_spec_update
from volcano.controllers.job.pods import build_pod
from volcano.controllers.job.state import UpdateFn

__all__ = ["create_or_update_podgroup", "sync_job"]

_LABELS = ("Pending", "Running", "Succeeded", "Failed", "Unknown")


@dataclass
class _Plan:
    """What one sync found (step 1) and does (steps 2 and 3)."""

    counts: dict[str, int] = field(default_factory=lambda: {"terminating": 0})
    task_counts: dict[str, Any] = field(default_factory=dict)
    creations: list[tuple[Mapping[str, Any], list[dict[str, Any]]]] = field(default_factory=list)
    to_delete: list[Obj] = field(default_factory=list)


def sync_job(ctx: ActionContext, job_obj: Obj, update: UpdateFn | None) -> None:
    """Volcano's ``syncJob`` (see the module docstring)."""
    meta = job_obj["metadata"]
    if meta.get("deletionTimestamp"):
        return
    job = thaw(job_obj)
    ns, name = str(meta.get("namespace", "default")), str(meta["name"])
    queue_name = str(job["spec"].get("queue") or "default")
    queue = ctx.cache.queue(queue_name)
    if queue is None:
        raise JobSyncError(f'queue.scheduling.volcano.sh "{queue_name}" not found')
    forwarding = bool((queue.get("spec") or {}).get("extendClusters"))
    if forwarding and (meta.get("annotations") or {}).get(ANN_JOB_FORWARDING) != "true":
        # ``annotations: null`` is Go's nil map: no annotations (setdefault would keep the None).
        job["metadata"]["annotations"] = {**(job["metadata"].get("annotations") or {}), ANN_JOB_FORWARDING: "true"}
        job = thaw(ctx.client.update(job))
    plugins = ctx.plugins(job)
    phase = (job.get("status") or {}).get("state", {}).get("phase", "")
    if phase in ("", PHASE_PENDING):
        job = _initiate(ctx, job, plugins)
    else:
        for plugin in plugins:
            plugin.on_job_update(job)
        create_or_update_podgroup(ctx, job)

    pg = ctx.cache.podgroup(ns, podgroup_name(job)) or ctx.cache.podgroup(ns, name)
    gate_open = False
    if pg is not None:
        pg_phase = (pg.get("status") or {}).get("phase") or ""
        gate_open = pg_phase not in ("", "Pending")
        _record_podgroup_event(ctx, job, pg)

    old_status = normalize_status(job.get("status"))
    old_phase = (old_status.get("state") or {}).get("phase", "")
    if not gate_open:
        _write_status(ctx, job, thaw(old_status), old_status, old_phase, update)
        return

    plan = _plan(ctx, job, plugins, forwarding)
    _create_pods(ctx, job_obj, job, plan)
    _delete_pods(ctx, job_obj, plan)
    _finish(ctx, job, plan, update, old_status, old_phase)


def _plan(ctx: ActionContext, job: dict[str, Any], plugins: list[JobPlugin], forwarding: bool) -> _Plan:
    """Step 1: count the pods and decide what to create and delete, from the pod index."""
    meta = job["metadata"]
    jp = ctx.cache.job_pods(str(meta.get("namespace", "default")), str(meta["name"]))
    plan = _Plan()
    counts, task_counts = plan.counts, plan.task_counts
    for task in job["spec"].get("tasks") or []:
        tname = str(task.get("name", ""))
        tp = jp.task(tname)
        tp.set_replicas(int(task.get("replicas") or 0))
        new_pods: list[dict[str, Any]] = []
        for i in tp.missing_sorted():
            new_pod = build_pod(job, task, i, job_forwarding=forwarding, random_suffix=ctx.suffix)
            for plugin in plugins:
                try:
                    plugin.on_pod_create(new_pod, job)
                except PluginError as exc:
                    raise JobSyncError(str(exc)) from exc
            new_pods.append(new_pod)
        counts["terminating"] += tp.terminating
        for label in _LABELS:
            n = tp.phases.get(label, 0)
            if n:
                count_label(label.lower(), label, counts, task_counts, tname, n)
        plan.to_delete.extend(jp.objects[n] for n in tp.out_of_sync_sorted())
        plan.creations.append((task, new_pods))
        plan.to_delete.extend(jp.objects[n] for n in tp.surplus_sorted())
    return plan


def _create_pods(ctx: ActionContext, job_obj: Obj, job: dict[str, Any], plan: _Plan) -> None:
    """Step 2: create the missing pods of the tasks whose dependencies are ready."""
    errors: list[str] = []
    for task, new_pods in plan.creations:
        if not new_pods or (task.get("dependsOn") and not _depends_on_ready(ctx, job, task)):
            continue
        for new_pod in new_pods:
            try:
                created = ctx.client.create(new_pod)
            except ApiError as exc:
                if exc.code != 409:
                    errors.append(f"failed to create pod {new_pod['metadata']['name']}, err: {exc.message}")
                continue
            ctx.cache.pod_written(created)
            count_pod(created, plan.counts, plan.task_counts, str(task.get("name", "")))
    if errors:
        ctx.recorder.event(job_obj, "Warning", "FailedCreate", f"Error creating pods: {errors}")
        raise JobSyncError(f"failed to create {len(errors)} pods of {sum(len(p) for _, p in plan.creations)}")


def _delete_pods(ctx: ActionContext, job_obj: Obj, plan: _Plan) -> None:
    """Step 3: delete the out-of-sync and surplus pods; each counts as terminating."""
    errors: list[str] = []
    for pod in plan.to_delete:
        try:
            ctx.delete_pod(pod)
        except ApiError as exc:
            errors.append(f"failed to delete pod {pod['metadata']['name']}, err {exc.message}")
            continue
        plan.counts["terminating"] += 1
    if errors:
        ctx.recorder.event(job_obj, "Warning", "FailedDelete", f"Error deleting pods: {errors}")
        raise JobSyncError(f"failed to delete {len(errors)} pods of {len(plan.to_delete)}")


def _finish(ctx: ActionContext, job: dict[str, Any], plan: _Plan, update: UpdateFn | None,
            old_status: dict[str, Any], old_phase: str) -> None:
    """The new status from the counts; the update function decides the phase; written when changed."""
    counts = plan.counts
    status = (job.get("status") or {})
    new_status: dict[str, Any] = {
        "state": thaw(status.get("state") or {}),
        "pending": counts.get("pending", 0), "running": counts.get("running", 0),
        "succeeded": counts.get("succeeded", 0), "failed": counts.get("failed", 0),
        "terminating": counts["terminating"], "unknown": counts.get("unknown", 0),
        "version": int(status.get("version") or 0),
        "minAvailable": int(job["spec"].get("minAvailable") or 0),
        "taskStatusCount": plan.task_counts,
        "controlledResources": thaw(status.get("controlledResources") or {}),
        "conditions": thaw(status.get("conditions") or []),
        "retryCount": int(status.get("retryCount") or 0),
    }
    _write_status(ctx, job, new_status, old_status, old_phase, update)


def _write_status(ctx: ActionContext, job: dict[str, Any], status: dict[str, Any], old_status: Mapping[str, Any],
                  old_phase: str, update: UpdateFn | None) -> None:
    """Apply the state's ``update`` to ``status``; write it (stamped) only when it differs from ``old_status``."""
    if update is not None:
        update(job, status)
    if normalize_status(status) == old_status:
        return
    ctx.stamp(status)
    job["status"] = status
    ctx.write_status(job, old_phase)


def _initiate(ctx: ActionContext, job: dict[str, Any], plugins: list[JobPlugin]) -> dict[str, Any]:
    status = job.setdefault("status", {})
    if not (status.get("state") or {}).get("phase"):
        status["state"] = {"phase": PHASE_PENDING}
        status["minAvailable"] = int(job["spec"].get("minAvailable") or 0)
        ctx.stamp(status)
        written = ctx.write_status(job, "")
        if written is None:
            raise JobSyncError(f"job {ctx.key(job)} was deleted")
        job = thaw(written)
    for plugin in plugins:
        try:
            plugin.on_job_add(job)
        except ApiError as exc:
            ctx.recorder.event(job, "Warning", "PluginError",
                               f"Execute plugin when job add failed, err: {exc.message}")
            raise
    job = _volumes(ctx, job)
    try:
        create_or_update_podgroup(ctx, job)
    except ApiError as exc:
        ctx.recorder.event(job, "Warning", "PodGroupError", f"Failed to create PodGroup, err: {exc.message}")
        raise
    return job


def _volumes(ctx: ActionContext, job: dict[str, Any]) -> dict[str, Any]:
    """Give every volume a claim (a generated name when it has none, written back to the Job), create the
    claims that do not exist yet, and record each under ``status.controlledResources``."""
    volumes = job["spec"].get("volumes") or []
    ns = job["metadata"].get("namespace", "default")
    need_update = False
    for vol in volumes:
        claim = str(vol.get("volumeClaimName") or "")
        exists = False
        if not claim:
            claim = f"{job['metadata']['name']}-pvc-{ctx.suffix()}"
            vol["volumeClaimName"] = claim
            need_update = True
        else:
            exists = _pvc_exists(ctx, ns, claim)
        if not exists:
            _create_claim(ctx, job, vol, claim)
        # Every volume's claim is recorded, an existing named one included (upstream createJobIOIfNotExist).
        job.setdefault("status", {}).setdefault("controlledResources", {})[f"volume-pvc-{claim}"] = claim
    if need_update:
        status = job.get("status")
        job = thaw(ctx.client.update(job))
        job["status"] = status
    return job


def _create_claim(ctx: ActionContext, job: dict[str, Any], vol: dict[str, Any], claim: str) -> None:
    """Create the volume's claim from its ``volumeClaim`` template; without one the claim must exist
    already: a ``PVCError`` event, and the sync fails until it is created."""
    ns = job["metadata"].get("namespace", "default")
    if vol.get("volumeClaim") is not None:
        pvc = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
               "metadata": {"name": claim, "namespace": ns,
                            "ownerReferences": build_podgroup(job)["metadata"]["ownerReferences"]},
               "spec": thaw(vol["volumeClaim"])}
        try:
            ctx.client.create(pvc)
        except ApiError as exc:
            if exc.code != 409:
                ctx.recorder.event(job, "Warning", "PVCError", f"Failed to create PVC, err: {exc.message}")
                raise
    else:
        msg = f"pvc {claim} is not found, the job will be in the Pending state until the PVC is created"
        ctx.recorder.event(job, "Warning", "PVCError", f"Failed to create PVC, err: {msg}")
        raise JobSyncError(msg)


def _pvc_exists(ctx: ActionContext, ns: str, name: str) -> bool:
    try:
        ctx.client.get("PersistentVolumeClaim", name, ns)
        return True
    except ApiError as exc:
        if exc.code == 404:
            return False
        raise


def create_or_update_podgroup(ctx: ActionContext, job: Mapping[str, Any]) -> None:
    """Create the Job's PodGroup, or bring its spec up to date."""
    ns = str(job["metadata"].get("namespace", "default"))
    pg = ctx.cache.podgroup(ns, podgroup_name(job)) or ctx.cache.podgroup(ns, str(job["metadata"]["name"]))
    if pg is None:
        try:
            created = ctx.client.create(build_podgroup(job, ctx.cache.priority, ctx.desired))
            ctx.cache.podgroup_written(created, ctx.key(job))
            ctx.trace.record(ctx.clock.now_ms, "job-controller", "CreatePodGroup", ctx.key(job), podgroup_name(job))
        except ApiError as exc:
            if exc.code != 409:
                raise
        return
    new_spec = podgroup_spec_update(pg, job, ctx.cache.priority, ctx.desired)
    if new_spec is not None:
        updated = thaw(pg)
        updated["spec"] = new_spec
        ctx.cache.podgroup_written(ctx.client.update(updated), ctx.key(job))


def _record_podgroup_event(ctx: ActionContext, job: dict[str, Any], pg: Mapping[str, Any]) -> None:
    true = [c for c in (pg.get("status") or {}).get("conditions") or [] if c.get("status") == "True"]
    if not true:
        return
    latest = true[-1]
    if latest.get("type") == "Scheduled":
        return
    meta = job["metadata"]
    ctx.recorder.event(job, "Warning", "PodGroupPending",
                       f"PodGroup {meta.get('namespace', '')}:{meta['name']} "
                       f"{str(latest.get('type', '')).lower()}, reason: {latest.get('message', '')}")


def _depends_on_ready(ctx: ActionContext, job: Mapping[str, Any], task: Mapping[str, Any]) -> bool:
    depends = task.get("dependsOn") or {}
    names = [str(n) for n in depends.get("name") or []]
    if not names:
        return True
    ready = [_task_ready(ctx, job, n) for n in names]
    if depends.get("iteration") == "any" and len(names) > 1:
        return any(ready)
    return all(ready)


def _task_ready(ctx: ActionContext, job: Mapping[str, Any], task_name: str) -> bool:
    """At least the task's ``minAvailable`` replicas are Succeeded or Running with every container ready."""
    task = next((t for t in job["spec"].get("tasks") or [] if t.get("name") == task_name), None)
    if task is None or task.get("minAvailable") is None:
        return True
    meta = job["metadata"]
    tp = ctx.cache.job_pods(str(meta.get("namespace", "default")), str(meta["name"])).task(task_name)
    tp.set_replicas(int(task.get("replicas") or 0))
    return tp.ready >= int(task["minAvailable"])
