"""A small fake cluster for Job controller tests: API server, informers, the controller,
and helpers that play the scheduler (PodGroup phases) and the kubelet (pod phases)."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest

from volcano.api.frozen import thaw
from volcano.apiserver import ApiServer, EventRecorder
from volcano.controllers.job.controller import JobController
from volcano.informers import InformerFactory
from volcano.sim import RandomStreams, SimClock, Trace

NS = "default"


def task(name: str, replicas: int = 1, *, min_available: int | None = None, cpu: str | None = "500m",
         policies: list[dict[str, Any]] | None = None, max_retry: int = 3, **extra: Any) -> dict[str, Any]:
    """A task as the Volcano mutating webhook leaves it."""
    container: dict[str, Any] = {"name": "main", "image": "busybox"}
    if cpu:
        container["resources"] = {"requests": {"cpu": cpu}, "limits": {"cpu": cpu}}
    out: dict[str, Any] = {
        "name": name, "replicas": replicas, "maxRetry": max_retry,
        "minAvailable": replicas if min_available is None else min_available,
        "template": {"spec": {"containers": [container], "restartPolicy": "Never"}},
    }
    if policies:
        out["policies"] = policies
    out.update(extra)
    return out


def job(name: str, tasks: list[dict[str, Any]], *, min_available: int | None = None,
        policies: list[dict[str, Any]] | None = None, max_retry: int = 3, queue: str = "default",
        **spec: Any) -> dict[str, Any]:
    """A Volcano Job as the mutating webhook leaves it (queue, schedulerName, maxRetry, minAvailable)."""
    body: dict[str, Any] = {
        "schedulerName": "volcano", "queue": queue, "maxRetry": max_retry, "tasks": tasks,
        "minAvailable": sum(t["minAvailable"] for t in tasks) if min_available is None else min_available,
    }
    if policies:
        body["policies"] = policies
    body.update(spec)
    return {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
            "metadata": {"name": name, "namespace": NS}, "spec": body}


def webhook_defaults(manifest: dict[str, Any]) -> dict[str, Any]:
    """Apply the mutating webhook's defaults to a raw manifest (queue, maxRetry, task minAvailable/maxRetry)."""
    out = copy.deepcopy(manifest)
    out.setdefault("metadata", {}).setdefault("namespace", NS)
    spec = out["spec"]
    spec.setdefault("queue", "default")
    spec.setdefault("schedulerName", "volcano")
    spec["maxRetry"] = spec.get("maxRetry") or 3
    for i, t in enumerate(spec["tasks"]):
        t.setdefault("name", f"default{i}")
        t.setdefault("minAvailable", t.get("replicas", 0))
        t["maxRetry"] = t.get("maxRetry") or 3
    if not spec.get("minAvailable"):
        spec["minAvailable"] = sum(t["minAvailable"] for t in spec["tasks"])
    return out


class Cluster:
    """The fake cluster plus scheduler/kubelet stand-ins driven by the test."""

    def __init__(self, seed: int = 7) -> None:
        self.clock = SimClock()
        self.streams = RandomStreams(seed)
        self.trace = Trace()
        self.server = ApiServer(self.clock, self.streams, trace=self.trace)
        self.informers = InformerFactory(self.server, self.clock)
        self.recorder = EventRecorder(self.server, self.clock, "vc-controller-manager")
        for q in ("root", "default"):
            self.server.create({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue",
                                "metadata": {"name": q}, "spec": {"weight": 1}})
        self.controller = JobController(self.controller_client(), self.informers, self.clock, streams=self.streams,
                                        trace=self.trace, recorder=self.recorder)
        self.controller.start()

    def controller_client(self) -> Any:
        """The client the Job controller writes through: the API server itself."""
        return self.server

    # ------------------------------------------------------------ reading
    def run(self, ms: int = 50) -> None:
        self.clock.run(until_ms=self.clock.now_ms + ms)

    def job(self, name: str) -> dict[str, Any]:
        return thaw(self.server.get("Job", name, NS))

    def status(self, name: str) -> dict[str, Any]:
        return self.job(name).get("status") or {}

    def phase(self, name: str) -> str:
        return str((self.status(name).get("state") or {}).get("phase", ""))

    def phases(self, name: str) -> list[str]:
        """Every phase the job went through, in order (from the decision trace)."""
        return [r.detail.split(" -> ")[1] for r in self.trace.records(component="job-controller", event="JobPhase",
                                                                      obj=f"{NS}/{name}")]

    def podgroup(self, job_name: str) -> dict[str, Any] | None:
        for pg in self.server.list("PodGroup", NS)["items"]:
            if pg["metadata"]["name"].startswith(f"{job_name}-") or pg["metadata"]["name"] == job_name:
                return thaw(pg)
        return None

    def pods(self, job_name: str) -> dict[str, dict[str, Any]]:
        out = {}
        for p in self.server.list("Pod", NS)["items"]:
            if (p["metadata"].get("labels") or {}).get("volcano.sh/job-name") == job_name:
                out[p["metadata"]["name"]] = thaw(p)
        return out

    def events(self, reason: str | None = None) -> list[dict[str, Any]]:
        return [e for e in self.server.list("Event", NS)["items"] if reason is None or e.get("reason") == reason]

    def snapshot(self) -> dict[str, Any]:
        out = {}
        for kind in ("Pod", "PodGroup", "ConfigMap", "Service", "Secret", "NetworkPolicy"):
            out[kind] = sorted(o["metadata"]["name"] for o in self.server.list(kind, NS)["items"])
        return out

    # ----------------------------------------------------- stand-ins
    def submit(self, manifest: dict[str, Any], ms: int = 50) -> None:
        self.server.create(manifest)
        self.run(ms)

    def set_pg_phase(self, job_name: str, phase: str = "Inqueue", ms: int = 50) -> None:
        pg = self.podgroup(job_name)
        assert pg is not None, f"no PodGroup for {job_name}"
        self.server.patch("PodGroup", pg["metadata"]["name"], {"status": {"phase": phase}}, NS)
        self.run(ms)

    def set_pod(self, name: str, phase: str, *, exit_code: int | None = None, restarts: int | None = None,
                ms: int = 50) -> None:
        pod = thaw(self.server.get("Pod", name, NS))
        status = pod.setdefault("status", {})
        status["phase"] = phase
        cs: dict[str, Any] = {"name": "main", "ready": phase == "Running", "restartCount": restarts or 0,
                              "state": {}}
        if phase in ("Succeeded", "Failed"):
            cs["state"] = {"terminated": {"exitCode": exit_code if exit_code is not None else
                                          (0 if phase == "Succeeded" else 1)}}
        elif phase == "Running":
            cs["state"] = {"running": {}}
        status["containerStatuses"] = [cs]
        self.server.update_status(pod)
        self.run(ms)

    def set_pods(self, job_name: str, phase: str, *, task: str | None = None, ms: int = 50) -> None:
        for name, pod in sorted(self.pods(job_name).items()):
            in_task = task is None or pod["metadata"]["labels"]["volcano.sh/task-spec"] == task
            if in_task and (pod.get("status") or {}).get("phase") != phase:
                self.set_pod(name, phase, ms=0)
        self.run(ms)

    def start(self, manifest: dict[str, Any]) -> str:
        """Submit, admit the PodGroup, run every pod: the job reaches Running."""
        name = manifest["metadata"]["name"]
        self.submit(manifest)
        self.set_pg_phase(name, "Inqueue")
        self.set_pods(name, "Running")
        return str(name)

    def delete_pod(self, name: str, ms: int = 50) -> None:
        self.server.delete("Pod", name, NS)
        self.run(ms)

    def command(self, job_name: str, action: str, ms: int = 50) -> None:
        uid = self.job(job_name)["metadata"]["uid"]
        self.server.create({"apiVersion": "bus.volcano.sh/v1alpha1", "kind": "Command",
                            "metadata": {"generateName": f"{job_name}-{action.lower()}-", "namespace": NS},
                            "action": action,
                            "target": {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "name": job_name,
                                       "uid": uid, "controller": True}})
        self.run(ms)


def fail_until_retry_limit(cluster: Cluster, name: str, *, max_retry: int) -> None:
    """Fail pod ``<name>-task-0`` of a one-pod job with policy PodFailed -> RestartJob and ``maxRetry``
    ``max_retry``: each of the first ``max_retry - 1`` failures restarts the job (Restarting, retryCount
    counts up, Running again once its group is Inqueue and its pod runs); the next one fails it."""
    for attempt in range(1, max_retry):
        cluster.set_pod(f"{name}-task-0", "Failed")
        assert cluster.phase(name) == "Restarting", (attempt, cluster.phases(name))
        assert cluster.status(name)["retryCount"] == attempt
        cluster.set_pg_phase(name)
        cluster.set_pods(name, "Running")
        assert cluster.phase(name) == "Running"
    cluster.set_pod(f"{name}-task-0", "Failed")
    assert cluster.phase(name) == "Failed"
    assert cluster.status(name)["retryCount"] == max_retry


class StubInformer:
    """A pod informer stand-in: a dict of objects and a resource version the test moves by hand."""

    def __init__(self) -> None:
        self.resource_version = "0"
        self.objects: dict[tuple[str, str], dict[str, Any]] = {}

    def get(self, name: str, namespace: str | None = None) -> dict[str, Any] | None:
        """The object ``namespace/name``, or None."""
        return self.objects.get((namespace or "", name))

    def list(self, namespace: str | None = None) -> list[dict[str, Any]]:
        """Every object, in key order."""
        return [self.objects[k] for k in sorted(self.objects)]

    def deliver(self, obj: dict[str, Any] | None, rv: int, key: tuple[str, str] | None = None) -> None:
        """A watch event at resource version ``rv``: ``obj`` stored, or (None) the object at ``key`` gone."""
        if obj is None:
            assert key is not None
            self.objects.pop(key, None)
        else:
            self.objects[(obj["metadata"]["namespace"], obj["metadata"]["name"])] = obj
        self.resource_version = str(rv)


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    yield Cluster()
