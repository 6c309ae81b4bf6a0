"""How the Job controller builds a task's pods (Volcano's ``createJobPod``).

``pod_name(job, task, i)`` is ``<job>-<task>-<i>``. ``build_pod`` copies the
task template (labels, annotations, spec), sets the namespace and a controller
ownerReference to the Job, inherits ``schedulerName`` and
``priorityClassName`` from the Job when the template has none, mounts the
Job's volumes in every regular container, and adds Volcano's labels and
annotations (task index, task spec, group name, job name, queue, job version,
template uid, retry count, NUMA policy, and the scheduler hints copied from the
Job). Job plugins then edit the pod (``OnPodCreate``); that happens elsewhere.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from volcano.api.accessors import appendable
from volcano.api.frozen import thaw
from volcano.api.well_known import GROUP_NAME, JOB_NAME, PREEMPTABLE, QUEUE_NAME, TASK_SPEC
from volcano.controllers.job.constants import (
    ANN_COOLDOWN_TIME,
    ANN_JDB_MAX_UNAVAILABLE,
    ANN_JDB_MIN_AVAILABLE,
    ANN_JOB_FORWARDING,
    ANN_JOB_RETRY_COUNT,
    ANN_JOB_VERSION,
    ANN_NUMA_POLICY,
    ANN_REVOCABLE_ZONE,
    ANN_TASK_INDEX,
    ANN_TEMPLATE_UID,
    LABEL_JOB_NAMESPACE,
    LABEL_PARTITION_ID,
)
from volcano.controllers.job.podgroup import job_owner_reference, podgroup_name

__all__ = ["build_pod", "pod_name", "volume_name"]


def pod_name(job_name: str, task_name: str, index: int) -> str:
    """``<job>-<task>-<index>``."""
    return f"{job_name}-{task_name}-{index}"


def volume_name(job_name: str, random_suffix: Callable[[], str]) -> str:
    """A pod volume name for a job volume: ``<job>-<12 random [0-9a-z]>``."""
    return f"{job_name}-{random_suffix()}"


def _mount_volumes(job_name: str, volumes: list[Any], pod_spec: dict[str, Any],
                   random_suffix: Callable[[], str] | None) -> None:
    """Add one PVC volume per distinct claim of the Job's ``volumes``, mounted in every container."""
    seen: set[str] = set()
    pod_volumes = appendable(pod_spec, "volumes")
    for vol in volumes:
        claim = str(vol.get("volumeClaimName") or "")
        if not claim or claim in seen:
            continue
        seen.add(claim)
        vname = volume_name(job_name, random_suffix or (lambda: f"{len(seen) - 1:012d}"))
        pod_volumes.append({"name": vname, "persistentVolumeClaim": {"claimName": claim}})
        for c in pod_spec.get("containers") or []:
            appendable(c, "volumeMounts").append({"name": vname, "mountPath": vol.get("mountPath", "")})


def _pod_annotations(job: Mapping[str, Any], task: Mapping[str, Any], index: int,
                     template_annotations: Mapping[str, str]) -> dict[str, str]:
    """The template's annotations plus what the Job controller stamps on each pod (upstream's createJobPod)."""
    meta, spec, status = job["metadata"], job.get("spec") or {}, job.get("status") or {}
    job_name, task_name = str(meta["name"]), str(task.get("name") or "")
    annotations = dict(template_annotations)
    annotations.update({
        ANN_TASK_INDEX: str(index),
        TASK_SPEC: task_name,
        GROUP_NAME: podgroup_name(job),
        JOB_NAME: job_name,
        QUEUE_NAME: str(spec.get("queue") or ""),
        ANN_JOB_VERSION: str(int(status.get("version") or 0)),
        ANN_TEMPLATE_UID: f"{job_name}-{task_name}",
        ANN_JOB_RETRY_COUNT: str(int(status.get("retryCount") or 0)),
    })
    if task.get("topologyPolicy"):
        annotations[ANN_NUMA_POLICY] = str(task["topologyPolicy"])
    job_ann = meta.get("annotations") or {}
    for key in (PREEMPTABLE, ANN_COOLDOWN_TIME, ANN_REVOCABLE_ZONE):
        if key in job_ann:
            annotations[key] = job_ann[key]
    if ANN_JDB_MIN_AVAILABLE in job_ann:
        annotations[ANN_JDB_MIN_AVAILABLE] = job_ann[ANN_JDB_MIN_AVAILABLE]
    elif ANN_JDB_MAX_UNAVAILABLE in job_ann:
        annotations[ANN_JDB_MAX_UNAVAILABLE] = job_ann[ANN_JDB_MAX_UNAVAILABLE]
    return annotations


def _pod_labels(job: Mapping[str, Any], task: Mapping[str, Any], index: int,
                template_labels: Mapping[str, str], job_forwarding: bool) -> dict[str, str]:
    """The template's labels plus the Job controller's (index, job, task, namespace, queue, forwarding,
    partition)."""
    meta, spec = job["metadata"], job.get("spec") or {}
    labels = dict(template_labels)
    labels.update({
        ANN_TASK_INDEX: str(index),
        JOB_NAME: str(meta["name"]),
        TASK_SPEC: str(task.get("name") or ""),
        LABEL_JOB_NAMESPACE: str(meta.get("namespace") or "default"),
        QUEUE_NAME: str(spec.get("queue") or ""),
    })
    job_labels = meta.get("labels") or {}
    for key in (PREEMPTABLE, ANN_COOLDOWN_TIME):
        if key in job_labels:
            labels[key] = job_labels[key]
    if job_forwarding:
        labels[ANN_JOB_FORWARDING] = "true"
    partition = task.get("partitionPolicy")
    if partition:
        size = int(partition.get("partitionSize") or 0)
        labels[LABEL_PARTITION_ID] = str(index // size if size > 0 else 0)
    return labels


def build_pod(job: Mapping[str, Any], task: Mapping[str, Any], index: int, *,
              job_forwarding: bool = False,
              random_suffix: Callable[[], str] | None = None) -> dict[str, Any]:
    """A new plain-dict pod for replica ``index`` of ``task`` (before plugins run).

    ``random_suffix`` yields the 12-character suffix of generated volume names
    (only used when the Job has volumes); without one the suffixes count up from
    ``000000000000``, so that two claims never share a volume name.
    """
    meta = job["metadata"]
    spec = job.get("spec") or {}
    job_name = str(meta["name"])
    namespace = str(meta.get("namespace") or "default")
    task_name = str(task.get("name") or "")
    template = thaw(task.get("template") or {})
    tmeta = template.get("metadata") or {}
    pod_spec: dict[str, Any] = template.get("spec") or {}
    name = pod_name(job_name, task_name, index)

    if not pod_spec.get("schedulerName") and spec.get("schedulerName"):
        pod_spec["schedulerName"] = spec["schedulerName"]
    if not pod_spec.get("priorityClassName") and spec.get("priorityClassName"):
        pod_spec["priorityClassName"] = spec["priorityClassName"]
    volumes = spec.get("volumes") or []
    if volumes:
        _mount_volumes(job_name, volumes, pod_spec, random_suffix)
    annotations = _pod_annotations(job, task, index, tmeta.get("annotations") or {})
    if job_forwarding:
        annotations[ANN_JOB_FORWARDING] = "true"
    labels = _pod_labels(job, task, index, tmeta.get("labels") or {}, job_forwarding)

    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "labels": labels,
            "annotations": annotations,
            "ownerReferences": [job_owner_reference(job)],
        },
        "spec": pod_spec,
    }
