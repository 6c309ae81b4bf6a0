"""Job conformance: upstream ``jobp`` "Job E2E Test: Test Admission service" (admission.go).

Each case submits the object upstream submits (same JSON shape, names and numbers) and checks the
client-visible outcome. Upstream only asserts "an error occurred"; here a denial must also be an
API rejection (HTTP 4xx, not a crash), name the offending field or value as Volcano's message
does, and store nothing. Accepted objects are read back and checked for the defaults upstream
expects.
"""

from __future__ import annotations

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

@pytest.mark.upstream(SUITE, "Invalid CPU unit")
def test_invalid_cpu_unit(cluster: Cluster) -> None:
    spec = {"minAvailable": 3, "schedulerName": "volcano", "queue": "default",
            "tasks": [_task(3, name="default-nginx", requests={"cpu": "-1"})]}
    _rejected(cluster, _raw_job(spec), "cpu")


@pytest.mark.upstream(SUITE, "Invalid memory unit")
def test_invalid_memory_unit(cluster: Cluster) -> None:
    spec = {"minAvailable": 3, "schedulerName": "volcano", "queue": "default",
            "tasks": [_task(3, name="default-nginx", requests={"memory": "-1"})]}
    _rejected(cluster, _raw_job(spec), "memory")


@pytest.mark.upstream(SUITE, "job validate check: duplicate task name check when create")
def test_duplicate_task_name(cluster: Cluster) -> None:
    busybox = _task(1, name="test")
    busybox["template"]["spec"]["containers"][0].update({"image": "busybox:1.24", "name": "busybox"})
    _rejected(cluster, _raw_job({"minAvailable": 1, "tasks": [_task(1, name="test"), busybox]}),
              "duplicated task name")


@pytest.mark.upstream(SUITE, "job validate check: duplicate job policy event when create")
def test_duplicate_job_policy_event(cluster: Cluster) -> None:
    spec = {"minAvailable": 1, "tasks": [_task(1)],
            "policies": [{"event": "PodFailed", "action": "AbortJob"},
                         {"event": "PodFailed", "action": "RestartJob"}]}
    _rejected(cluster, _raw_job(spec), "duplicate", "PodFailed")


@pytest.mark.upstream(SUITE, "job validate check: minAvailable larger than replicas when create")
def test_min_available_larger_than_replicas(cluster: Cluster) -> None:
    _rejected(cluster, _raw_job({"minAvailable": 2, "tasks": [_task(1)]}), "minAvailable")


@pytest.mark.upstream(SUITE, "job validate check: illegal plugin when create")
def test_illegal_plugin(cluster: Cluster) -> None:
    spec = {"minAvailable": 1, "tasks": [_task(2)], "plugins": {"big_plugin": []}}
    _rejected(cluster, _raw_job(spec), "big_plugin")


@pytest.mark.upstream(SUITE, "job validate check: illegal ttl when create")
def test_illegal_ttl(cluster: Cluster) -> None:
    spec = {"minAvailable": 1, "tasks": [_task(2)], "ttlSecondsAfterFinished": -1}
    _rejected(cluster, _raw_job(spec), "ttlSecondsAfterFinished")


@pytest.mark.upstream(SUITE, "job validate check: illegal minAvailable when create")
def test_illegal_min_available(cluster: Cluster) -> None:
    _rejected(cluster, _raw_job({"minAvailable": -1, "tasks": [_task(2)]}), "minAvailable")


@pytest.mark.upstream(SUITE, "job validate check: illegal maxRetry when create")
def test_illegal_max_retry(cluster: Cluster) -> None:
    _rejected(cluster, _raw_job({"minAvailable": 1, "maxRetry": -1, "tasks": [_task(2)]}), "maxRetry")


@pytest.mark.upstream(SUITE, "job validate check: no task spec when create")
def test_no_task_spec(cluster: Cluster) -> None:
    _rejected(cluster, _raw_job({"minAvailable": 1}), "task")


@pytest.mark.upstream(SUITE, "job validate check: illegal replicas when create")
def test_illegal_replicas(cluster: Cluster) -> None:
    _rejected(cluster, _raw_job({"minAvailable": 1, "tasks": [_task(-1)]}), "replicas")


@pytest.mark.upstream(SUITE, "job validate check: illegal task name when create")
def test_illegal_task_name(cluster: Cluster) -> None:
    _rejected(cluster, _raw_job({"minAvailable": 1, "tasks": [_task(2, name="Task-1")]}), "Task-1")


def _policy_job(policy: Obj) -> Obj:
    return _raw_job({"minAvailable": 1, "tasks": [_task(2)], "policies": [policy]})


@pytest.mark.upstream(SUITE, "job validate check: policy event with exit code when create")
def test_policy_event_with_exit_code(cluster: Cluster) -> None:
    _rejected(cluster, _policy_job({"event": "PodFailed", "action": "AbortJob", "exitCode": -1}),
              "must not specify event and exitCode simultaneously")


@pytest.mark.upstream(SUITE, "job validate check: policy event and exit code both nil when create")
def test_policy_event_and_exit_code_both_nil(cluster: Cluster) -> None:
    _rejected(cluster, _policy_job({"action": "AbortJob"}), "either event and exitCode should be specified")


@pytest.mark.upstream(SUITE, "job validate check: invalid policy event when create")
def test_invalid_policy_event(cluster: Cluster) -> None:
    # Since Volcano v1.14 the CRD schema enumerates the events, so the schema refuses it (422) before the
    # webhook would ("invalid policy event").
    _rejected(cluster, _policy_job({"event": "fakeEvent", "action": "AbortJob"}), "spec.policies[0].event",
              'Unsupported value: "fakeEvent"')


@pytest.mark.upstream(SUITE, "job validate check: invalid action when create")
def test_invalid_policy_action(cluster: Cluster) -> None:
    _rejected(cluster, _policy_job({"event": "PodEvicted", "action": "fakeAction"}), "fakeAction",
              "invalid policy action")


@pytest.mark.upstream(SUITE, "job validate check: zero exitCode when create")
def test_zero_exit_code(cluster: Cluster) -> None:
    _rejected(cluster, _policy_job({"action": "AbortJob", "exitCode": 0}), "not a valid error code")


@pytest.mark.upstream(SUITE, "job validate check: both any event and other events exist when create")
def test_any_event_with_other_events(cluster: Cluster) -> None:
    spec = {"minAvailable": 1, "tasks": [_task(2)],
            "policies": [{"event": "*", "action": "AbortJob"}, {"event": "PodFailed", "action": "RestartJob"}]}
    _rejected(cluster, _raw_job(spec), "*")


@pytest.mark.upstream(SUITE, "job validate check: invalid volume mount when create")
def test_invalid_volume_mount(cluster: Cluster) -> None:
    spec = {"minAvailable": 1, "tasks": [_task(2)], "volumes": [{"mountPath": ""}]}
    _rejected(cluster, _raw_job(spec), "mountPath")


@pytest.mark.upstream(SUITE, "job validate check: duplicate mount volume when create")
def test_duplicate_mount_volume(cluster: Cluster) -> None:
    spec = {"minAvailable": 1, "tasks": [_task(2)],
            "volumes": [{"mountPath": "/var", "volumeClaimName": "pvc1"},
                        {"mountPath": "/var", "volumeClaimName": "pvc2"}]}
    _rejected(cluster, _raw_job(spec), "duplicated mountPath")


@pytest.mark.upstream(SUITE, "job validate check: vloume without volumeClaimName and volumeClaim when create")
def test_volume_without_claim(cluster: Cluster) -> None:
    spec = {"minAvailable": 1, "tasks": [_task(2)], "volumes": [{"mountPath": "/var"}]}
    _rejected(cluster, _raw_job(spec), "either VolumeClaim or VolumeClaimName must be specified")


@pytest.mark.upstream(SUITE, "job validate check: vloume without volumeClaimName and volumeClaim when create")
def test_volume_without_claim_second_case(cluster: Cluster) -> None:
    """Upstream repeats the same case under the same name; mirrored as written."""
    spec = {"minAvailable": 1, "tasks": [_task(2)], "volumes": [{"mountPath": "/var"}]}
    _rejected(cluster, _raw_job(spec), "VolumeClaim")


@pytest.mark.upstream(SUITE, "job validate check: invalid queue when create")
def test_invalid_queue(cluster: Cluster) -> None:
    _rejected(cluster, _raw_job({"minAvailable": 1, "queue": "fakeQueue", "tasks": [_task(2)]}), "fakeQueue")


@pytest.mark.upstream(SUITE, "job validate check: create job with root queue")
def test_root_queue(cluster: Cluster) -> None:
    _rejected(cluster, _raw_job({"minAvailable": 1, "queue": "root", "tasks": [_task(2)]}), "root")


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
