"""Object builders mirroring upstream's e2e helpers (``test/e2e/util``).

Each builder returns a manifest dict. Work is described twice so the same
case runs on both backends: a real command for a real cluster, and the
``sim.volcano.sh/*`` annotations the simulated kubelet reads.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from volcano.api.frozen import thaw

__all__ = [
    "BUSYBOX",
    "NGINX",
    "Task",
    "batch_job",
    "deployment",
    "job",
    "job_command",
    "plain",
    "pod",
    "pod_group",
    "priority_class",
    "queue",
    "queue_command",
    "replica_set",
]

NGINX = "nginx:1.29.3-alpine"
BUSYBOX = "busybox"

Obj = dict[str, Any]


def _work(duration: str | None, exit_code: int, gang: bool = False) -> tuple[list[str] | None, dict[str, str]]:
    """Command (real cluster) and annotations (simulated kubelet) for a container's work."""
    annotations: dict[str, str] = {}
    if duration is None and exit_code == 0:
        return None, annotations  # runs until deleted (nginx)
    seconds = _seconds(duration) if duration is not None else 0
    annotations["sim.volcano.sh/duration"] = duration if duration is not None else "0s"
    if exit_code:
        annotations["sim.volcano.sh/exit-code"] = str(exit_code)
    if gang:
        annotations["sim.volcano.sh/progress"] = "gang"
    return ["/bin/sh", "-c", f"sleep {seconds}; exit {exit_code}"], annotations


def _seconds(duration: str) -> int:
    unit = {"s": 1, "m": 60, "h": 3600}.get(duration[-1:], 0)
    return int(float(duration[:-1]) * unit) if unit else int(float(duration))


@dataclass
class Task:
    """A task of a Volcano Job (upstream ``TaskSpec``)."""

    name: str | None = None
    rep: int = 1
    min: int | None = None
    req: dict[str, str] = field(default_factory=lambda: {"cpu": "1"})
    limit: dict[str, str] | None = None
    image: str = NGINX
    duration: str | None = None
    exit_code: int = 0
    gang_progress: bool = False
    restart_policy: str = "OnFailure"
    policies: list[Obj] | None = None
    priority_class: str | None = None
    max_retry: int | None = None
    min_available: int | None = None
    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    node_selector: dict[str, str] | None = None
    affinity: Obj | None = None
    tolerations: list[Obj] | None = None
    host_port: int | None = None
    grace_seconds: int = 3
    depends_on: list[str] | None = None

    def manifest(self, job_name: str, index: int) -> Obj:
        """The ``spec.tasks[]`` entry."""
        command, sim = _work(self.duration, self.exit_code, self.gang_progress)
        image = BUSYBOX if command and self.image == NGINX else self.image
        container: Obj = {
            "name": image.split("/")[-1].split(":")[0],
            "image": image,
            "imagePullPolicy": "IfNotPresent",
            "resources": {"requests": dict(self.req),
                          "limits": dict(self.limit if self.limit is not None else self.req)},
        }
        if command:
            container["command"] = command
        if self.host_port:
            container["ports"] = [{"containerPort": self.host_port, "hostPort": self.host_port}]
        spec: Obj = {"containers": [container], "restartPolicy": self.restart_policy,
                     "terminationGracePeriodSeconds": self.grace_seconds}
        for key, value in (("priorityClassName", self.priority_class), ("nodeSelector", self.node_selector),
                           ("affinity", self.affinity), ("tolerations", self.tolerations)):
            if value is not None:
                spec[key] = value
        meta: Obj = {}
        if self.labels:
            meta["labels"] = dict(self.labels)
        if self.annotations or sim:
            meta["annotations"] = {**sim, **self.annotations}
        task: Obj = {"name": self.name or f"{job_name}-task-{index}", "replicas": self.rep,
                     "template": {"metadata": meta, "spec": spec}}
        if self.min_available is not None:
            task["minAvailable"] = self.min_available
        if self.policies:
            task["policies"] = self.policies
        if self.max_retry is not None:
            task["maxRetry"] = max(0, self.max_retry)
        if self.depends_on:
            task["dependsOn"] = {"name": list(self.depends_on)}
        return task


def job(name: str, tasks: list[Task], *, min: int | None = None, queue: str | None = None,
        priority_class: str | None = None, policies: list[Obj] | None = None,
        plugins: dict[str, list[str]] | None = None, ttl: int | None = None, min_success: int | None = None,
        max_retry: int | None = None, namespace: str | None = None, annotations: dict[str, str] | None = None,
        labels: dict[str, str] | None = None) -> Obj:
    """A ``batch.volcano.sh/v1alpha1`` Job as upstream's ``CreateJob`` builds it:
    ``minAvailable`` = ``min`` if given else the sum of task ``min`` (default: replicas)."""
    spec: Obj = {
        "schedulerName": "volcano",
        "minAvailable": min if min else sum(t.min if t.min is not None else t.rep for t in tasks),
        "tasks": [t.manifest(name, i) for i, t in enumerate(tasks)],
    }
    for key, value in (("queue", queue), ("priorityClassName", priority_class), ("policies", policies),
                       ("plugins", plugins), ("ttlSecondsAfterFinished", ttl), ("minSuccess", min_success),
                       ("maxRetry", max_retry)):
        if value is not None:
            spec[key] = value
    meta: Obj = {"name": name}
    if namespace:
        meta["namespace"] = namespace
    if annotations:
        meta["annotations"] = dict(annotations)
    if labels:
        meta["labels"] = dict(labels)
    return {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": meta, "spec": spec}


def pod(name: str, *, req: dict[str, str] | None = None, node: str | None = None, scheduler: str = "volcano",
        group: str | None = None, duration: str | None = None, exit_code: int = 0, restart_policy: str = "Never",
        labels: dict[str, str] | None = None, annotations: dict[str, str] | None = None,
        node_selector: dict[str, str] | None = None, tolerations: list[Obj] | None = None,
        priority_class: str | None = None, grace_seconds: int | None = None, gang_progress: bool = False) -> Obj:
    """A bare Pod (upstream ``CreatePod``)."""
    command, sim = _work(duration, exit_code, gang_progress)
    container: Obj = {"name": "main", "image": BUSYBOX if command else NGINX,
                      "resources": {"requests": dict(req or {"cpu": "1"}), "limits": dict(req or {"cpu": "1"})}}
    if command:
        container["command"] = command
    spec: Obj = {"containers": [container], "restartPolicy": restart_policy, "schedulerName": scheduler}
    for key, value in (("nodeName", node), ("nodeSelector", node_selector), ("tolerations", tolerations),
                       ("priorityClassName", priority_class), ("terminationGracePeriodSeconds", grace_seconds)):
        if value is not None:
            spec[key] = value
    ann = {**sim, **(annotations or {})}
    if group:
        ann["scheduling.k8s.io/group-name"] = group
    meta: Obj = {"name": name}
    if ann:
        meta["annotations"] = ann
    if labels:
        meta["labels"] = dict(labels)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}


def pod_group(name: str, *, min_member: int, queue: str = "default", min_resources: dict[str, str] | None = None,
              priority_class: str | None = None, min_task_member: dict[str, int] | None = None) -> Obj:
    """A ``scheduling.volcano.sh/v1beta1`` PodGroup."""
    spec: Obj = {"minMember": min_member, "queue": queue}
    if min_resources:
        spec["minResources"] = dict(min_resources)
    if priority_class:
        spec["priorityClassName"] = priority_class
    if min_task_member:
        spec["minTaskMember"] = dict(min_task_member)
    return {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup", "metadata": {"name": name},
            "spec": spec}


def queue(name: str, *, weight: int = 1, capability: dict[str, str] | None = None,
          guarantee: dict[str, str] | None = None, deserved: dict[str, str] | None = None,
          reclaimable: bool | None = None, parent: str | None = None) -> Obj:
    """A Queue as upstream's ``CreateQueueWithQueueSpec`` makes it (deserved defaults to guarantee)."""
    spec: Obj = {"weight": weight}
    if capability:
        spec["capability"] = dict(capability)
    if guarantee:
        spec["guarantee"] = {"resource": dict(guarantee)}
        spec["deserved"] = dict(deserved or guarantee)
    elif deserved:
        spec["deserved"] = dict(deserved)
    if reclaimable is not None:
        spec["reclaimable"] = reclaimable
    if parent:
        spec["parent"] = parent
    return {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": name}, "spec": spec}


def plain(obj: Any) -> Any:
    """A deep, mutable copy (plain dicts and lists) of an object read from the cluster, to change
    and write back."""
    return thaw(obj)


def queue_command(stored_queue: Obj, action: str) -> Obj:
    """A ``bus.volcano.sh`` Command ``action`` (``OpenQueue``, ``CloseQueue``) for a queue as read from the
    cluster (its uid is the owner reference), as upstream's ``CreateQueueCommand`` and ``vcctl queue
    operate`` make it: in namespace ``default``, owned by and targeting the queue."""
    name = stored_queue["metadata"]["name"]
    ref = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "name": name,
           "uid": stored_queue["metadata"]["uid"], "controller": True, "blockOwnerDeletion": True}
    return {"apiVersion": "bus.volcano.sh/v1alpha1", "kind": "Command",
            "metadata": {"generateName": f"{name}-{action.lower()}-", "namespace": "default",
                         "ownerReferences": [ref]},
            "target": ref, "action": action}


def job_command(stored_job: Obj, action: str) -> Obj:
    """A ``bus.volcano.sh`` Command ``action`` (``AbortJob``, ``ResumeJob``, ``TerminateJob``, ...) for a
    Volcano Job as read from the cluster, as ``vcctl job suspend`` and its siblings create it: in the
    Job's namespace, owned by and targeting the Job."""
    meta = stored_job["metadata"]
    ref = {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "name": meta["name"], "uid": meta["uid"],
           "controller": True, "blockOwnerDeletion": True}
    return {"apiVersion": "bus.volcano.sh/v1alpha1", "kind": "Command",
            "metadata": {"generateName": f"{meta['name']}-{action.lower()}-", "namespace": meta["namespace"],
                         "ownerReferences": [ref]},
            "target": ref, "action": action}


def priority_class(name: str, value: int, *, global_default: bool = False) -> Obj:
    """A ``scheduling.k8s.io/v1`` PriorityClass."""
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
            "value": value, "globalDefault": global_default}


def _template(labels: dict[str, str], req: dict[str, str], scheduler: str) -> Obj:
    return {"metadata": {"labels": labels},
            "spec": {"schedulerName": scheduler, "restartPolicy": "Always",
                     "containers": [{"name": "nginx", "image": NGINX,
                                     "resources": {"requests": dict(req), "limits": dict(req)}}]}}


def deployment(name: str, replicas: int, req: dict[str, str], *, scheduler: str = "volcano") -> Obj:
    """An apps/v1 Deployment (upstream ``CreateDeployment``)."""
    labels = {"deployment.k8s.io": name}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"replicas": replicas, "selector": {"matchLabels": labels},
                     "template": _template(labels, req, scheduler)}}


def replica_set(name: str, replicas: int, req: dict[str, str], *, scheduler: str = "volcano") -> Obj:
    """An apps/v1 ReplicaSet (upstream ``CreateReplicaSet``)."""
    labels = {"replicaset.k8s.io": name}
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": name},
            "spec": {"replicas": replicas, "selector": {"matchLabels": labels},
                     "template": _template(labels, req, scheduler)}}


def batch_job(name: str, *, duration: str = "10s", exit_code: int = 0, backoff_limit: int = 6,
              scheduler: str = "volcano") -> Obj:
    """A batch/v1 Job (upstream ``CreateSampleK8sJob`` / ``CreateFailK8sJob``)."""
    command, sim = _work(duration, exit_code)
    restart = "Never" if exit_code else "OnFailure"
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name},
            "spec": {"backoffLimit": backoff_limit,
                     "template": {"metadata": {"annotations": sim},
                                  "spec": {"schedulerName": scheduler, "restartPolicy": restart,
                                           "containers": [{"name": "busybox", "image": BUSYBOX,
                                                           "command": command,
                                                           "resources": {"requests": {"cpu": "100m"}}}]}}}}
