"""Admission through the API server: the upstream e2e admission cases (job 1-37, queue 76-101), the
upstream example manifests, error shapes, and nothing stored on a denial."""

from __future__ import annotations

import copy
import pathlib
from collections.abc import Callable
from typing import Any

import pytest

from volcano.admission import install_admission
from volcano.api.frozen import thaw
from volcano.api.manifest import load_manifests
from volcano.apiserver.errors import ApiError
from volcano.apiserver.server import ApiServer
from volcano.sim.clock import SimClock
from volcano.sim.rand import RandomStreams

FIXTURES = pathlib.Path(__file__).resolve().parents[2] / "fixtures"


def _open_queue(server: ApiServer, name: str, **spec: Any) -> None:
    server.create({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": name},
                   "spec": spec})
    obj = thaw(server.get("Queue", name))
    obj["status"] = {"state": "Open"}
    server.update_status(obj)


def _denied(server: ApiServer, obj: dict[str, Any]) -> ApiError:
    before = server.snapshot()
    with pytest.raises(ApiError) as info:
        server.create(obj)
    assert server.snapshot() == before
    return info.value


# -- error shape --------------------------------------------------------------------------------------

def test_webhook_denial_shape(server: ApiServer, job: dict[str, Any]) -> None:
    job["spec"]["tasks"].append(copy.deepcopy(job["spec"]["tasks"][0]))
    err = _denied(server, job)
    assert (err.code, err.reason) == (403, "Forbidden")
    assert err.message == ('jobs.batch.volcano.sh "test-job" is forbidden: admission webhook '
                           '"validatejob.volcano.sh" denied the request: duplicated task name task-1;')
    assert err.details == {"group": "batch.volcano.sh", "kind": "jobs", "name": "test-job"}


def test_schema_denial_shape(server: ApiServer, job: dict[str, Any]) -> None:
    job["spec"]["minAvailable"] = -1
    err = _denied(server, job)
    assert (err.code, err.reason) == (422, "Invalid")
    assert err.message == ('Job.batch.volcano.sh "test-job" is invalid: spec.minAvailable: Invalid value: -1: '
                           "spec.minAvailable in body should be greater than or equal to 0")


# -- job validating (1-26) ------------------------------------------------------------------------

def _tasks(j: dict[str, Any]) -> list[dict[str, Any]]:
    tasks: list[dict[str, Any]] = j["spec"]["tasks"]
    return tasks


def _dup(j: dict[str, Any]) -> None:
    _tasks(j)[0]["name"] = "duplicated-task"
    _tasks(j).append(copy.deepcopy(_tasks(j)[0]))


def _dag(j: dict[str, Any]) -> None:
    t2 = copy.deepcopy(_tasks(j)[0]) | {"name": "t2"}
    _tasks(j)[0].update(name="t1", dependsOn={"name": ["t2"]})
    _tasks(j).append(t2)


JOB_CASES: list[tuple[int, Callable[[dict[str, Any]], None], list[str]]] = [
    (1, lambda j: None, []),
    (2, _dup, ["duplicated task name"]),
    (3, lambda j: j["spec"].update(minAvailable=-1), ["spec.minAvailable", "should be greater than or equal to 0"]),
    (4, lambda j: j["spec"].update(maxRetry=-1), ["spec.maxRetry", "should be greater than or equal to 0"]),
    (5, lambda j: j["spec"].update(ttlSecondsAfterFinished=-1),
     ["spec.ttlSecondsAfterFinished", "should be greater than or equal to 0"]),
    (6, lambda j: j["spec"].update(tasks=[]), ["No task specified in job spec"]),
    (7, lambda j: _tasks(j)[0].update(replicas=-1), ["spec.tasks[0].replicas", "should be greater than or equal to 0"]),
    (8, lambda j: _tasks(j)[0].update(minAvailable=-1), ["spec.tasks[0].minAvailable"]),
    (9, lambda j: _tasks(j)[0].update(replicas=3, minAvailable=5),
     ["'minAvailable' is greater than 'replicas' in task"]),
    (10, lambda j: j["spec"].update(minAvailable=5), ["job 'minAvailable' should not be greater than total replicas"]),
    (11, lambda j: _tasks(j)[0].update(name="Task-1"), ["spec.tasks[0].name", "should match"]),
    (12, lambda j: j["spec"].update(policies=[{"event": "PodFailed", "action": "AbortJob"},
                                              {"event": "PodFailed", "action": "RestartJob"}]), ["duplicate"]),
    (13, lambda j: j["spec"].update(policies=[{"event": "PodFailed", "action": "AbortJob", "exitCode": 1}]),
     ["must not specify event and exitCode simultaneously"]),
    (14, lambda j: j["spec"].update(policies=[{"action": "AbortJob"}]),
     ["either event and exitCode should be specified"]),
    (15, lambda j: j["spec"].update(policies=[{"event": "PodEvicted", "action": "InvalidAction"}]),
     ["invalid policy action"]),
    (16, lambda j: j["spec"].update(policies=[{"action": "AbortJob", "exitCode": 0}]), ["0 is not a valid error code"]),
    (17, lambda j: j["spec"].update(policies=[{"action": "AbortJob", "exitCode": 1},
                                              {"action": "RestartJob", "exitCode": 1}]), ["duplicate exitCode"]),
    (18, lambda j: j["spec"].update(policies=[{"event": "*", "action": "AbortJob"},
                                              {"event": "PodFailed", "action": "RestartJob"}]),
     ["if there's * here, no other policy should be here"]),
    (19, lambda j: j["spec"].update(volumes=[{"mountPath": ""}]),
     ["spec.volumes[0].mountPath", "should be at least 1 chars long"]),
    (20, lambda j: j["spec"].update(volumes=[{"mountPath": "/var", "volumeClaimName": "pvc1"},
                                             {"mountPath": "/var", "volumeClaimName": "pvc2"}]),
     ["duplicated mountPath"]),
    (21, lambda j: j["spec"].update(volumes=[{"mountPath": "/var"}]),
     ["either VolumeClaim or VolumeClaimName must be specified"]),
    (22, _dag, []),
]


@pytest.mark.parametrize(("number", "change", "fragments"), JOB_CASES, ids=[f"e2e-{c[0]}" for c in JOB_CASES])
def test_job_validation_e2e(server: ApiServer, job: dict[str, Any], number: int,
                            change: Callable[[dict[str, Any]], None], fragments: list[str]) -> None:
    change(job)
    if not fragments:
        created = server.create(job)
        assert created["metadata"]["name"] == "test-job"
        return
    err = _denied(server, job)
    for fragment in fragments:
        assert fragment in err.message


@pytest.mark.parametrize(("number", "change", "fragment"), [
    (23, lambda j: (j["spec"].update(minAvailable=3), _tasks(j)[0].update(replicas=5)), ""),
    (24, lambda j: (j["spec"].update(minAvailable=10), _tasks(j)[0].update(replicas=5)),
     "not be greater than total replicas"),
    (25, lambda j: _tasks(j).append(copy.deepcopy(_tasks(j)[0]) | {"name": "new-task"}),
     "job updates may not add or remove tasks"),
    (26, lambda j: j["spec"].update(queue="another-queue"), "job updates may not change fields other than"),
])
def test_job_update_e2e(server: ApiServer, job: dict[str, Any], number: int,
                        change: Callable[[dict[str, Any]], Any], fragment: str) -> None:
    server.create(job)
    stored = thaw(server.get("Job", "test-job", "default"))
    change(stored)
    if not fragment:
        updated = server.update(stored)
        assert updated["spec"]["minAvailable"] == 3
        assert updated["spec"]["tasks"][0]["replicas"] == 5
        return
    before = server.snapshot()
    with pytest.raises(ApiError) as info:
        server.update(stored)
    assert fragment in info.value.message
    assert server.snapshot() == before


# -- job mutating (27-37) -----------------------------------------------------------------------------

def _bare_job(*tasks: dict[str, Any], **spec: Any) -> dict[str, Any]:
    template = {"spec": {"containers": [{"name": "c", "image": "busybox:1.24"}]}}
    return {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": "mj"},
            "spec": {"tasks": [{"template": template, **t} for t in tasks] or [{"name": "task-1", "replicas": 1,
                                                                               "template": template}], **spec}}


def test_job_mutation_defaults_e2e(server: ApiServer) -> None:  # 27, 28, 29, 30
    spec = server.create(_bare_job({"name": "task-1", "replicas": 2}, {"name": "task-2", "replicas": 3}))["spec"]
    assert spec["queue"] == "default"
    assert spec["schedulerName"] == "volcano"
    assert spec["maxRetry"] == 3
    assert spec["minAvailable"] == 5


def test_job_mutation_task_min_available_e2e(server: ApiServer) -> None:  # 31
    spec = server.create(_bare_job({"name": "task-1", "replicas": 2, "minAvailable": 1},
                                   {"name": "task-2", "replicas": 3}))["spec"]
    assert spec["minAvailable"] == 4


@pytest.mark.parametrize(("number", "plugins", "expected"), [
    (32, {"tensorflow": []}, {"svc", "tensorflow"}),
    (33, {"mpi": ["--master=task-1", "--worker=task-1"]}, {"svc", "mpi", "ssh"}),
    (34, {"pytorch": []}, {"svc", "pytorch"}),
    (35, {"mpi": ["--master=task-1", "--worker=task-1"]}, {"ssh", "mpi", "svc"}),
])
def test_job_mutation_plugins_e2e(server: ApiServer, number: int, plugins: dict[str, list[str]],
                                  expected: set[str]) -> None:
    spec = server.create(_bare_job(plugins=plugins))["spec"]
    assert set(spec["plugins"]) == expected


def test_job_mutation_keeps_plugins_e2e(server: ApiServer) -> None:  # 36
    spec = server.create(_bare_job(plugins={"tensorflow": [], "svc": ["--enable-networking"]}))["spec"]
    assert "--enable-networking" in spec["plugins"]["svc"]


def test_job_mutation_preserves_values_e2e(server: ApiServer) -> None:  # 37
    _open_queue(server, "custom-queue-job")
    spec = server.create(_bare_job({"name": "custom-task", "replicas": 3, "minAvailable": 2, "maxRetry": 5},
                                   queue="custom-queue-job", minAvailable=2, schedulerName="custom-sched",
                                   maxRetry=10))["spec"]
    assert (spec["queue"], spec["minAvailable"], spec["schedulerName"], spec["maxRetry"]) == \
        ("custom-queue-job", 2, "custom-sched", 10)
    assert (spec["tasks"][0]["name"], spec["tasks"][0]["minAvailable"], spec["tasks"][0]["maxRetry"]) == \
        ("custom-task", 2, 5)


# -- queues through the server (76-101) -----------------------------------------------------------------

def _queue(name: str, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": name},
            "spec": spec}


def test_queue_mutation_e2e(server: ApiServer) -> None:  # 76-79
    assert server.create(_queue("q76", weight=1))["spec"]["reclaimable"] is True
    assert server.create(_queue("q77", reclaimable=True))["spec"]["weight"] == 1
    spec = server.create(_queue("q78"))["spec"]
    assert (spec["weight"], spec["reclaimable"]) == (1, True)
    spec = server.create(_queue("q79", weight=5, reclaimable=False))["spec"]
    assert (spec["weight"], spec["reclaimable"]) == (5, False)


def test_queue_weight_schema_e2e(server: ApiServer) -> None:  # 83, 84, 99
    err = _denied(server, _queue("neg", weight=-1))
    assert "spec.weight" in err.message and "should be greater than or equal to 1" in err.message
    assert err.code == 422
    assert server.create(_queue("noweight"))["spec"]["weight"] == 1
    stored = thaw(server.get("Queue", "noweight"))
    stored["spec"]["weight"] = -1
    with pytest.raises(ApiError, match="should be greater than or equal to 1"):
        server.update(stored)


def test_queue_state_update_and_guarantee_e2e(server: ApiServer) -> None:  # 80, 86, 98
    created = server.create(_queue("q80") | {"status": {"state": "Open"}})
    assert "state" not in (created.get("status") or {})  # the status subresource drops it on create
    err = _denied(server, _queue("q86", guarantee={"resource": {"cpu": "1", "memory": "1Gi"}}))
    assert "must be >= guarantee" in err.message
    assert err.message.startswith('queues.scheduling.volcano.sh "q86" is forbidden: admission webhook '
                                  '"validatequeue.volcano.sh" denied the request: ')


def test_queue_hierarchy_annotation_e2e(server: ApiServer) -> None:  # 93
    err = _denied(server, _queue("q93") | {"metadata": {"name": "q93", "annotations": {"volcano.sh/hierarchy": "a"}}})
    assert "denied" in err.message


def test_queue_deletion_e2e(server: ApiServer) -> None:  # 100, 101 and the protected queues
    server.create(_queue("regular"))
    server.delete("Queue", "regular")
    server.create(_queue("test-parent-queue", parent="root"))
    server.create(_queue("test-child-queue", parent="test-parent-queue"))
    before = server.snapshot()
    with pytest.raises(ApiError, match="can not be deleted because it has 1 child queues: test-child-queue"):
        server.delete("Queue", "test-parent-queue")
    server.delete("Queue", "test-child-queue")
    server.delete("Queue", "test-parent-queue")
    assert server.snapshot() != before
    for name in ("default", "root"):
        with pytest.raises(ApiError, match=f"`{name}` queue can not be deleted"):
            server.delete("Queue", name)
        assert server.get("Queue", name)


# -- podgroups and pods through the server ---------------------------------------------------------

def test_podgroup_queue_rules(server: ApiServer) -> None:
    server.create({"apiVersion": "v1", "kind": "Namespace",
                   "metadata": {"name": "team", "annotations": {"scheduling.volcano.sh/queue-name": "team-q"}}})
    _open_queue(server, "team-q")
    pg: dict[str, Any] = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
          "metadata": {"name": "pg", "namespace": "team"}, "spec": {"minMember": 1}}
    assert server.create(pg)["spec"]["queue"] == "team-q"
    server.create(_queue("closed-q"))  # never opened: state empty
    bad: dict[str, Any] = copy.deepcopy(pg) | {"metadata": {"name": "pg2", "namespace": "default"}}
    bad["spec"]["queue"] = "closed-q"
    err = _denied(server, bad)
    assert "can only submit PodGroup to queue with state `Open`, queue `closed-q` status is ``." in err.message


def test_pod_rules_and_priority(server: ApiServer) -> None:
    pod: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "annotations": {
        "volcano.sh/jdb-min-available": "0"}},
           "spec": {"schedulerName": "volcano", "containers": [{"name": "c", "image": "nginx"}]}}
    assert "must be a positive integer" in _denied(server, pod).message
    pod["metadata"]["annotations"] = {}
    pod["spec"]["priorityClassName"] = "missing"
    err = _denied(server, pod)
    assert (err.code, err.message) == (403, 'pods "p" is forbidden: no PriorityClass with name missing was found')
    server.create({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "missing"},
                   "value": 100})
    created = server.create(pod)
    assert (created["spec"]["priority"], created["spec"]["preemptionPolicy"]) == (100, "PreemptLowerPriority")
    assert created["spec"]["restartPolicy"] == "Always"


def test_excluded_namespace_and_status_writes_skip_webhooks(server: ApiServer, job: dict[str, Any]) -> None:
    server.create(job)
    stored = thaw(server.get("Job", "test-job", "default"))
    stored["status"] = {"state": {"phase": "Running"}, "minAvailable": 1}
    assert server.update_status(stored)["status"]["state"]["phase"] == "Running"
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "kube-system",
                                                          "annotations": {"volcano.sh/jdb-min-available": "0"}},
           "spec": {"schedulerName": "volcano", "containers": [{"name": "c", "image": "nginx"}]}}
    assert server.create(pod)["metadata"]["name"] == "p"


def test_install_rejects_unknown_webhook() -> None:
    srv = ApiServer(SimClock(), RandomStreams(0))
    with pytest.raises(ValueError, match="unknown admission paths"):
        install_admission(srv, webhooks=("/jobs/nope",))
    with pytest.raises(ValueError, match="scheduler_names"):
        install_admission(srv, scheduler_names=())


def test_disabled_webhooks_are_not_registered() -> None:
    srv = ApiServer(SimClock(), RandomStreams(0))
    install_admission(srv, webhooks=("/jobs/mutate",))
    names = srv.admission.names()
    assert "mutatejob.volcano.sh" in names and "validatejob.volcano.sh" not in names


# -- upstream example manifests -------------------------------------------------------------------------

def _volcano_jobs(path: pathlib.Path) -> list[dict[str, Any]]:
    return [d for d in load_manifests(path) if d.get("kind") == "Job" and d.get("apiVersion", "").startswith(
        "batch.volcano.sh/")]


JOB_FILES = sorted(p for p in FIXTURES.rglob("*.yaml") if _volcano_jobs(p))


@pytest.mark.parametrize("path", JOB_FILES, ids=[p.name for p in JOB_FILES])
def test_upstream_manifests(server: ApiServer, path: pathlib.Path) -> None:
    for doc in load_manifests(path.parent / path.name.replace("_jobs.yaml", "_queues.yaml")) \
            if path.name.endswith("_jobs.yaml") else []:
        _open_queue(server, doc["metadata"]["name"], **doc.get("spec", {}))
    for doc in _volcano_jobs(path):
        if path.name.startswith("invalid_jobs_"):
            err = _denied(server, doc)
            assert 'admission webhook "validatejob.volcano.sh" denied the request: ' in err.message
            expected = {
                "invalid_jobs_duplicatedPolicyEvent-webhook-deny.yaml": "duplicate event PodFailed  across different "
                                                                        "policy",
                "invalid_jobs_duplicatedTaskName-webhook-deny.yaml": "duplicated task name task-1;",
                "invalid_jobs_minAvailable-webhook-deny.yaml": "job 'minAvailable' should not be greater than total "
                                                               "replicas in tasks;",
            }[path.name]
            assert err.message.endswith(expected) or expected in err.message
        else:
            created = server.create(doc)
            assert created["spec"]["queue"]
            assert created["spec"]["minAvailable"] >= 0
