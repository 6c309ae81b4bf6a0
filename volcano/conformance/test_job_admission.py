"""Job conformance: upstream ``jobp`` "Job E2E Test: Test Admission service" (admission.go).

Each case submits the object upstream submits (same JSON shape, names and numbers) and checks the
client-visible outcome. Upstream only asserts "an error occurred"; here a denial must also be an
API rejection (HTTP 4xx, not a crash), name the offending field or value as Volcano's message
does, and store nothing. Accepted objects are read back and checked for the defaults upstream
expects.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import NGINX, Task, job, pod, pod_group, queue
from volcano.conformance.test_admission import denial

__all__: list[str] = []

Obj = dict[str, Any]
SUITE = "jobp"

pytestmark = pytest.mark.admission


# -- helpers -----------------------------------------------------------------------------------------

def _task(replicas: int = 2, *, name: str | None = None, requests: dict[str, str] | None = None,
          container_extra: Obj | None = None, **extra: Any) -> Obj:
    """A task as upstream's admission JSON writes it: one nginx container, restartPolicy Never."""
    container: Obj = {"image": "nginx", "imagePullPolicy": "IfNotPresent", "name": "nginx",
                      "resources": {"requests": dict(requests if requests is not None else {"cpu": "1"})}}
    container.update(container_extra or {})
    task: Obj = {"replicas": replicas,
                 "template": {"spec": {"containers": [container], "restartPolicy": "Never"}}}
    if name is not None:
        task["name"] = name
    task.update(extra)
    return task


def _raw_job(spec: Obj, name: str = "test-job") -> Obj:
    return {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": name}, "spec": spec}


def _rejected(cluster: Cluster, obj: Obj, *fragments: str) -> str:
    """``obj`` must be refused by the API (4xx) with a message containing every fragment
    (case-insensitive), and nothing may be stored. Returns the message."""
    kind, name = obj["kind"], obj["metadata"]["name"]
    d = denial(lambda: cluster.apply(obj))
    assert 400 <= d.code < 500, f"expected an API rejection (4xx), got {d}"
    message = d.message
    for fragment in fragments:
        assert fragment.lower() in message.lower(), f"rejection message should mention {fragment!r}: {message!r}"
    assert cluster.try_get(kind, name) is None, f"rejected {kind} {name} was stored"
    return message


def _pod_phase(cluster: Cluster, name: str) -> Callable[[], str | None]:
    def phase() -> str | None:
        obj = cluster.try_get("Pod", name)
        return None if obj is None else obj.get("status", {}).get("phase")
    return phase


def _wait_pod_running(cluster: Cluster, name: str, timeout: float = 300) -> None:
    phase = _pod_phase(cluster, name)
    cluster.wait_until(lambda: phase() == "Running", timeout, f"pod {name} Running")


def _wait_queue_state(cluster: Cluster, name: str, state: str, timeout: float = 600) -> None:
    def check() -> bool:
        q = cluster.try_get("Queue", name)
        return q is not None and q.get("status", {}).get("state") == state

    cluster.wait_until(check, timeout, f"queue {name} state {state}")


# -- accepted and defaulted --------------------------------------------------------------------------

@pytest.mark.upstream(SUITE, "Default queue would be added")
def test_default_queue_would_be_added(cluster: Cluster) -> None:
    cluster.apply(job("job-default-queue", [Task(name="taskname", rep=1, min=1, req={"cpu": "1"})], min=1))
    created = cluster.get("Job", "job-default-queue")
    assert created["spec"]["queue"] == "default"


@pytest.mark.upstream(SUITE, "Job mutate check")
def test_job_mutate_check(cluster: Cluster) -> None:
    busybox = _task(1)
    container = busybox["template"]["spec"]["containers"][0]
    container.update({"image": "busybox:1.24", "name": "busybox"})
    cluster.apply(_raw_job({"minAvailable": 1, "tasks": [_task(1), busybox]}))
    spec = cluster.get("Job", "test-job")["spec"]
    assert spec["queue"] == "default"
    assert spec["schedulerName"] == "volcano"
    assert [t["name"] for t in spec["tasks"]] == ["default0", "default1"]


@pytest.mark.upstream(SUITE, "job validate check: create job with privileged container")
def test_privileged_container_is_accepted(cluster: Cluster) -> None:
    task = _task(2, container_extra={"securityContext": {"privileged": True}})
    cluster.apply(_raw_job({"minAvailable": 1, "tasks": [task]}))
    stored = cluster.get("Job", "test-job")
    container = stored["spec"]["tasks"][0]["template"]["spec"]["containers"][0]
    assert container["securityContext"]["privileged"] is True


# -- pods and pod groups -----------------------------------------------------------------------------

def _nginx_pod(name: str, cpu: str, *, scheduler: str | None, annotations: dict[str, str] | None = None) -> Obj:
    """A bare pod as upstream builds it (nginx, requests = limits, default restart policy)."""
    obj = pod(name, req={"cpu": cpu}, restart_policy="Always", annotations=annotations)
    obj["spec"].pop("restartPolicy")
    if scheduler is None:
        obj["spec"].pop("schedulerName")
    else:
        obj["spec"]["schedulerName"] = scheduler
    assert obj["spec"]["containers"][0]["image"] == NGINX
    return obj


@pytest.mark.upstream(SUITE, "Create default-scheduler pod")
def test_create_default_scheduler_pod(cluster: Cluster) -> None:
    cluster.apply(_nginx_pod("pod-default-scheduler", "1", scheduler=None))
    _wait_pod_running(cluster, "pod-default-scheduler")
    assert cluster.get("Pod", "pod-default-scheduler")["spec"].get("nodeName")


@pytest.mark.upstream(SUITE, "Create volcano-scheduler pod")
def test_create_volcano_scheduler_pod(cluster: Cluster) -> None:
    cluster.apply(_nginx_pod("pod-volcano-scheduler", "1", scheduler="volcano"))
    _wait_pod_running(cluster, "pod-volcano-scheduler")
    assert cluster.get("Pod", "pod-volcano-scheduler")["spec"].get("nodeName")


@pytest.mark.upstream(SUITE, "Create volcano pod with volcano scheduler")
def test_create_volcano_pod_with_volcano_scheduler(cluster: Cluster) -> None:
    pg = pod_group("running-pg", min_member=1, min_resources={"cpu": "1"})
    del pg["spec"]["queue"]  # upstream leaves the queue to the CRD default
    cluster.apply(pg)

    def inqueue() -> bool:
        obj = cluster.try_get("PodGroup", "running-pg")
        return obj is not None and obj.get("status", {}).get("phase") == "Inqueue"

    cluster.wait_until(inqueue, 300, "podgroup running-pg Inqueue")
    cluster.apply(_nginx_pod("volcano-pod", "500m", scheduler="volcano",
                             annotations={"scheduling.k8s.io/group-name": "running-pg"}))
    _wait_pod_running(cluster, "volcano-pod")


@pytest.mark.upstream(SUITE, "Allow to create pod when podgroup is Pending")
def test_allow_pod_when_podgroup_pending(cluster: Cluster) -> None:
    pg = pod_group("pending-pg", min_member=1, min_resources={"cpu": "30"})
    del pg["spec"]["queue"]
    pg["status"] = {"phase": "Pending"}
    cluster.apply(pg)
    cluster.apply(_nginx_pod("pod-volcano", "1", scheduler="volcano",
                             annotations={"scheduling.k8s.io/group-name": "pending-pg"}))
    stored = cluster.get("Pod", "pod-volcano")
    assert stored["metadata"]["annotations"]["scheduling.k8s.io/group-name"] == "pending-pg"


# -- rejected jobs -----------------------------------------------------------------------------------

def _duplicate_task_names() -> Obj:
    busybox = _task(1, name="test")
    busybox["template"]["spec"]["containers"][0].update({"image": "busybox:1.24", "name": "busybox"})
    return {"minAvailable": 1, "tasks": [_task(1, name="test"), busybox]}


def _with_policies(*policies: Obj) -> Obj:
    return {"minAvailable": 1, "tasks": [_task(2)], "policies": list(policies)}


def _with_volumes(*volumes: Obj) -> Obj:
    return {"minAvailable": 1, "tasks": [_task(2)], "volumes": list(volumes)}


def _refused(upstream: str, case_id: str, spec: Obj, *fragments: str) -> Any:
    return pytest.param(spec, fragments, marks=pytest.mark.upstream(SUITE, upstream), id=case_id)


_CHECK = "job validate check: "
_NGINX_3 = {"minAvailable": 3, "schedulerName": "volcano", "queue": "default"}
REFUSED = [
    _refused("Invalid CPU unit", "invalid-cpu-unit",
             {**_NGINX_3, "tasks": [_task(3, name="default-nginx", requests={"cpu": "-1"})]}, "cpu"),
    _refused("Invalid memory unit", "invalid-memory-unit",
             {**_NGINX_3, "tasks": [_task(3, name="default-nginx", requests={"memory": "-1"})]}, "memory"),
    _refused(_CHECK + "duplicate task name check when create", "duplicate-task-name", _duplicate_task_names(),
             "duplicated task name"),
    _refused(_CHECK + "duplicate job policy event when create", "duplicate-policy-event",
             {**_with_policies({"event": "PodFailed", "action": "AbortJob"},
                               {"event": "PodFailed", "action": "RestartJob"}), "tasks": [_task(1)]},
             "duplicate", "PodFailed"),
    _refused(_CHECK + "minAvailable larger than replicas when create", "min-available-above-replicas",
             {"minAvailable": 2, "tasks": [_task(1)]}, "minAvailable"),
    _refused(_CHECK + "illegal plugin when create", "illegal-plugin",
             {"minAvailable": 1, "tasks": [_task(2)], "plugins": {"big_plugin": []}}, "big_plugin"),
    _refused(_CHECK + "illegal ttl when create", "illegal-ttl",
             {"minAvailable": 1, "tasks": [_task(2)], "ttlSecondsAfterFinished": -1}, "ttlSecondsAfterFinished"),
    _refused(_CHECK + "illegal minAvailable when create", "illegal-min-available",
             {"minAvailable": -1, "tasks": [_task(2)]}, "minAvailable"),
    _refused(_CHECK + "illegal maxRetry when create", "illegal-max-retry",
             {"minAvailable": 1, "maxRetry": -1, "tasks": [_task(2)]}, "maxRetry"),
    _refused(_CHECK + "no task spec when create", "no-task-spec", {"minAvailable": 1}, "task"),
    _refused(_CHECK + "illegal replicas when create", "illegal-replicas",
             {"minAvailable": 1, "tasks": [_task(-1)]}, "replicas"),
    _refused(_CHECK + "illegal task name when create", "illegal-task-name",
             {"minAvailable": 1, "tasks": [_task(2, name="Task-1")]}, "Task-1"),
    _refused(_CHECK + "policy event with exit code when create", "policy-event-with-exit-code",
             _with_policies({"event": "PodFailed", "action": "AbortJob", "exitCode": -1}),
             "must not specify event and exitCode simultaneously"),
    _refused(_CHECK + "policy event and exit code both nil when create", "policy-event-and-exit-code-nil",
             _with_policies({"action": "AbortJob"}), "either event and exitCode should be specified"),
    # Since Volcano v1.14 the CRD schema enumerates the events, so the schema refuses it (422) before the
    # webhook would ("invalid policy event").
    _refused(_CHECK + "invalid policy event when create", "invalid-policy-event",
             _with_policies({"event": "fakeEvent", "action": "AbortJob"}), "spec.policies[0].event",
             'Unsupported value: "fakeEvent"'),
    _refused(_CHECK + "invalid action when create", "invalid-policy-action",
             _with_policies({"event": "PodEvicted", "action": "fakeAction"}), "fakeAction", "invalid policy action"),
    _refused(_CHECK + "zero exitCode when create", "zero-exit-code",
             _with_policies({"action": "AbortJob", "exitCode": 0}), "not a valid error code"),
    _refused(_CHECK + "both any event and other events exist when create", "any-event-with-other-events",
             _with_policies({"event": "*", "action": "AbortJob"}, {"event": "PodFailed", "action": "RestartJob"}),
             "*"),
    _refused(_CHECK + "invalid volume mount when create", "invalid-volume-mount",
             _with_volumes({"mountPath": ""}), "mountPath"),
    _refused(_CHECK + "duplicate mount volume when create", "duplicate-mount-volume",
             _with_volumes({"mountPath": "/var", "volumeClaimName": "pvc1"},
                           {"mountPath": "/var", "volumeClaimName": "pvc2"}), "duplicated mountPath"),
    _refused(_CHECK + "vloume without volumeClaimName and volumeClaim when create", "volume-without-claim",
             _with_volumes({"mountPath": "/var"}), "either VolumeClaim or VolumeClaimName must be specified"),
    # Upstream repeats the same case under the same name; mirrored as written.
    _refused(_CHECK + "vloume without volumeClaimName and volumeClaim when create", "volume-without-claim-again",
             _with_volumes({"mountPath": "/var"}), "VolumeClaim"),
    _refused(_CHECK + "invalid queue when create", "invalid-queue",
             {"minAvailable": 1, "queue": "fakeQueue", "tasks": [_task(2)]}, "fakeQueue"),
    _refused(_CHECK + "create job with root queue", "root-queue",
             {"minAvailable": 1, "queue": "root", "tasks": [_task(2)]}, "root"),
]


@pytest.mark.parametrize(("spec", "fragments"), REFUSED)
def test_refused_job(cluster: Cluster, spec: Obj, fragments: tuple[str, ...]) -> None:
    """The API refuses job ``test-job`` of ``spec`` (4xx) with a message naming every fragment, and
    stores nothing."""
    _rejected(cluster, _raw_job(copy.deepcopy(spec)), *fragments)


@pytest.mark.upstream(SUITE, "job validate check: create job with non-leaf queue")
def test_non_leaf_queue(cluster: Cluster) -> None:
    cluster.apply(queue("q1", parent="root"))
    _wait_queue_state(cluster, "q1", "Open")
    cluster.apply(queue("q11", parent="q1"))
    _wait_queue_state(cluster, "q11", "Open")
    _rejected(cluster, _raw_job({"minAvailable": 1, "queue": "q1", "tasks": [_task(2)]}), "q1", "leaf")


# -- queues ------------------------------------------------------------------------------------------

@pytest.mark.queue
@pytest.mark.upstream(SUITE, "queue check: open queue can be deleted")
def test_open_queue_can_be_deleted(cluster: Cluster) -> None:
    q = queue("deleted-open-queue")
    q["status"] = {"state": "Open"}
    cluster.apply(q)
    _wait_queue_state(cluster, "deleted-open-queue", "Open")
    cluster.delete("Queue", "deleted-open-queue")
    cluster.wait_until(lambda: cluster.try_get("Queue", "deleted-open-queue") is None, 120,
                       "queue deleted-open-queue gone")
