"""The Job controller's view of the cluster: watch-fed informers plus its own last writes.

Reads go through shared informers (Jobs, Pods, PodGroups, Queues,
PriorityClasses). Like Volcano's job cache, the controller also remembers the
Job objects it has just written, and ``job()`` returns whichever of the
informer's copy and the remembered one has the higher (integer)
resourceVersion, so consecutive requests never act on a status older than
the controller's own last write.

Pods are indexed by ``<namespace>/<job name>`` for pods whose controller
ownerReference is a Volcano Job and that carry the job-name, job-version
(integer) and task-spec annotations, as Volcano filters them.

The controller's own pod and PodGroup writes (creations, out-of-sync marks,
deletions) are laid over the informers (``overlay.WriteOverlay``) until the
informers deliver them: a pod the controller just deleted reads as terminating
or gone, a PodGroup it just deleted reads as absent, one it just created reads
as present, even for a request processed in the same instant.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from volcano.api.accessors import controller_of
from volcano.api.well_known import JOB_NAME, TASK_SPEC
from volcano.apiserver.client import Obj
from volcano.controllers.job.constants import ANN_JOB_VERSION, JOB_API_VERSION, JOB_KIND
from volcano.controllers.job.overlay import WriteOverlay

__all__ = ["POD_INDEX", "InformerLike", "JobCache", "job_pod_keys", "rv_int"]

POD_INDEX = "volcano-job"


class InformerLike(Protocol):
    """The part of an informer this cache uses."""

    resource_version: str

    def get(self, name: str, namespace: str | None = None) -> Obj | None:
        """Cached object or None."""
        ...

    def by_index(self, name: str, value: str) -> list[Obj]:
        """Objects whose index ``name`` yields ``value``."""
        ...


def rv_int(obj: Mapping[str, Any] | None) -> int:
    """``metadata.resourceVersion`` as an integer (-1 when absent or not numeric)."""
    if not obj:
        return -1
    try:
        return int((obj.get("metadata") or {}).get("resourceVersion") or -1)
    except (TypeError, ValueError):
        return -1


def job_pod_keys(pod: Mapping[str, Any]) -> list[str]:
    """Index function: ``[<ns>/<job>]`` for a pod the Job controller manages, else ``[]``."""
    ref = controller_of(pod)
    if ref is None or ref.get("apiVersion") != JOB_API_VERSION or ref.get("kind") != JOB_KIND:
        return []
    meta = pod.get("metadata") or {}
    ann = meta.get("annotations") or {}
    if JOB_NAME not in ann or TASK_SPEC not in ann:
        return []
    try:
        int(ann.get(ANN_JOB_VERSION, ""))
    except (TypeError, ValueError):
        return []
    return [f"{meta.get('namespace', '')}/{ann[JOB_NAME]}"]


class JobCache:
    """See the module docstring."""

    def __init__(self, jobs: InformerLike, pods: InformerLike, podgroups: InformerLike, queues: InformerLike,
                 priority_classes: InformerLike) -> None:
        self._jobs = jobs
        self._pods = pods
        self._podgroups = podgroups
        self._queues = queues
        self._pcs = priority_classes
        self._written: dict[str, Obj] = {}
        self._pod_writes = WriteOverlay(pods)
        self._pg_writes = WriteOverlay(podgroups)

    def job(self, namespace: str, name: str) -> Obj | None:
        """The freshest known copy of a Job, or None when it is gone."""
        cached = self._jobs.get(name, namespace)
        mine = self._written.get(f"{namespace}/{name}")
        if cached is None:
            return None
        if mine is not None and (mine.get("metadata") or {}).get("uid") == cached["metadata"].get("uid") \
                and rv_int(mine) > rv_int(cached):
            return mine
        return cached

    def remember(self, job: Obj) -> None:
        """Record a Job object this controller just wrote."""
        meta = job["metadata"]
        self._written[f"{meta.get('namespace', '')}/{meta['name']}"] = job

    def forget(self, key: str) -> None:
        """Drop what is remembered about a deleted Job."""
        self._written.pop(key, None)
        self._pod_writes.forget_group(key)
        self._pg_writes.forget_group(key)

    def pods(self, namespace: str, name: str) -> dict[str, dict[str, Obj]]:
        """The Job's pods as the controller knows them: task name -> pod name -> pod (names sorted).

        The informer's pods with the controller's not yet delivered pod writes laid over them."""
        group = f"{namespace}/{name}"
        found: dict[str, Obj] = {}
        for pod in self._pods.by_index(POD_INDEX, group):
            found[pod["metadata"]["name"]] = pod
        for pod_name in self._pod_writes.group_names(group):
            mine = self._pod_writes.resolve(namespace, pod_name, found.get(pod_name) or
                                            self._pods.get(pod_name, namespace))
            if mine is None or job_pod_keys(mine) != [group]:
                found.pop(pod_name, None)
            else:
                found[pod_name] = mine
        out: dict[str, dict[str, Obj]] = {}
        for pod_name in sorted(found):
            pod = found[pod_name]
            out.setdefault(pod["metadata"]["annotations"][TASK_SPEC], {})[pod_name] = pod
        return out

    def pod(self, namespace: str, name: str) -> Obj | None:
        """One pod as the controller knows it."""
        return self._pod_writes.get(name, namespace)

    def pod_written(self, pod: Obj) -> None:
        """Record a pod as the store returned it after one of the controller's writes."""
        self._pod_writes.wrote(pod, self._pod_group(pod))

    def pod_removed(self, pod: Obj) -> None:
        """Record that the store removed ``pod`` after the controller deleted it."""
        self._pod_writes.removed(pod, self._pod_group(pod))

    @staticmethod
    def _pod_group(pod: Obj) -> str:
        keys = job_pod_keys(pod)
        return keys[0] if keys else ""

    def podgroup(self, namespace: str, name: str) -> Obj | None:
        """A PodGroup as the controller knows it (informer copy, or the controller's newer write)."""
        return self._pg_writes.get(name, namespace)

    def podgroup_written(self, pg: Obj, job_key: str) -> None:
        """Record a PodGroup as the store returned it after the controller created or updated it."""
        self._pg_writes.wrote(pg, job_key)

    def podgroup_removed(self, pg: Obj, job_key: str) -> None:
        """Record that the store removed the PodGroup ``pg`` after the controller deleted it."""
        self._pg_writes.removed(pg, job_key)

    def queue(self, name: str) -> Obj | None:
        """A cached Queue."""
        return self._queues.get(name)

    def priority(self, class_name: str) -> int:
        """The value of a PriorityClass (0 when absent or unknown)."""
        if not class_name:
            return 0
        pc = self._pcs.get(class_name)
        return int(pc.get("value") or 0) if pc else 0
