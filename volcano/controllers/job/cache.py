"""The Job controller's view of the cluster: watch-fed informers plus its own last writes.

Reads go through shared informers (Jobs, Pods, PodGroups, Queues,
PriorityClasses). Like Volcano's job cache, the controller also remembers the
Job objects it has just written, and ``job()`` returns whichever of the
informer's copy and the remembered one has the higher (integer)
resourceVersion, so consecutive requests never act on a status older than
the controller's own last write.

Pods are kept per Job (``<namespace>/<job name>``) by ``index.JobPodIndex`` for
pods whose controller ownerReference is a Volcano Job and that carry the job-name,
job-version (integer) and task-spec annotations, as Volcano filters them; the
index is fed by the pod handler (``observe_pod``) and keeps each Job's counters
up to date per event, so no read walks a Job's pods.

The controller's own pod and PodGroup writes (creations, out-of-sync marks,
deletions) are laid over the informers (the pod index, and
``overlay.WriteOverlay`` for PodGroups) until the informers deliver them: a pod
the controller just deleted reads as terminating or gone, a PodGroup it just
deleted reads as absent, one it just created reads as present, even for a
request processed in the same instant.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from volcano.apiserver.client import Obj
from volcano.controllers.job.index import JobPodIndex, JobPods, PodInformer, job_pod_keys
from volcano.controllers.job.overlay import WriteOverlay

__all__ = ["InformerLike", "JobCache", "job_pod_keys", "rv_int"]


class InformerLike(Protocol):
    """The part of an informer this cache uses."""

    resource_version: str

    def get(self, name: str, namespace: str | None = None) -> Obj | None:
        """Cached object or None."""
        ...



def rv_int(obj: Mapping[str, Any] | None) -> int:
    """``metadata.resourceVersion`` as an integer (-1 when absent or not numeric)."""
    if not obj:
        return -1
    try:
        return int((obj.get("metadata") or {}).get("resourceVersion") or -1)
    except (TypeError, ValueError):
        return -1


class JobCache:
    """See the module docstring."""

    def __init__(self, jobs: InformerLike, pods: PodInformer, podgroups: InformerLike, queues: InformerLike,
                 priority_classes: InformerLike) -> None:
        self._jobs = jobs
        self._queues = queues
        self._pcs = priority_classes
        self._written: dict[str, Obj] = {}
        self._pod_index = JobPodIndex(pods)
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
        self._pod_index.forget_job(key)
        self._pg_writes.forget_group(key)

    def observe_pod(self, etype: str, pod: Obj) -> bool:
        """A pod watch event (call first from the pod handler); whether the controller manages the
        pod (``job_pod_keys``): the handler has nothing more to do for one it does not.

        A pod it does not manage reaches the index only when the index tracks it (it was managed
        before, or the controller wrote it): for any other, the index's ``observe`` does nothing
        (it would only ask ``job_pod_keys`` again), so most pods of a cluster whose pods belong to
        PodGroups, not Jobs, cost one ownerReference read per event."""
        if self.tracks_pod(pod):  # the index's own order: it reads the pod, then the handler asks
            self._pod_index.observe(etype, pod)
            return bool(job_pod_keys(pod))
        managed = bool(job_pod_keys(pod))
        if managed:
            self._pod_index.observe(etype, pod)
        return managed

    def tracks_pod(self, pod: Obj) -> bool:
        """Whether the pod index holds an entry for ``pod``'s namespace and name."""
        meta = pod["metadata"]
        return (str(meta.get("namespace") or ""), str(meta["name"])) in self._pod_index._entries

    def job_pods(self, namespace: str, name: str) -> JobPods:
        """The Job's pods and counters as the controller knows them (informer copies with the
        controller's not yet delivered pod writes laid over them)."""
        return self._pod_index.job(f"{namespace}/{name}")

    def pods(self, namespace: str, name: str) -> dict[str, dict[str, Obj]]:
        """The Job's pods: task name -> pod name -> pod (names sorted). O(pods): for tests and tools."""
        return self.job_pods(namespace, name).by_task()

    def pod(self, namespace: str, name: str) -> Obj | None:
        """One pod as the controller knows it."""
        return self._pod_index.get(namespace, name)

    def pod_written(self, pod: Obj) -> None:
        """Record a pod as the store returned it after one of the controller's writes."""
        self._pod_index.wrote(pod)

    def pod_removed(self, pod: Obj) -> None:
        """Record that the store removed ``pod`` after the controller deleted it."""
        self._pod_index.removed(pod)

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
