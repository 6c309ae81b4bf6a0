"""FakeCluster behaves as kubectl does: apply (one document after another, 3-way, idempotent),
short names everywhere, update, patch, wait_for and podgroup_of."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from volcano.api.frozen import thaw
from volcano.apiserver import LAST_APPLIED, ApiError
from volcano.serve import ServedCluster
from volcano.testbed import FakeCluster

QUEUE_AND_JOB = """
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: team-a}
spec: {weight: 1}
---
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: demo}
spec:
  minAvailable: 2
  queue: team-a
  schedulerName: volcano
  tasks:
  - name: t
    replicas: 2
    template:
      metadata: {annotations: {sim.volcano.sh/duration: 30s}}
      spec:
        restartPolicy: OnFailure
        containers: [{name: c, image: busybox, resources: {requests: {cpu: "1"}}}]
"""

DEPLOYMENT = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, labels: {app: web}}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m}}}]}
"""


@pytest.fixture
def c() -> FakeCluster:
    cluster = FakeCluster(seed=0)
    cluster.add_nodes(2, cpu="4", memory="8Gi")
    return cluster


def rv(obj: dict[str, object]) -> str:
    return str(obj["metadata"]["resourceVersion"])  # type: ignore[index]


def test_a_queue_and_a_job_in_one_file_are_admitted_in_zero_time(c: FakeCluster) -> None:
    _, job = c.apply(QUEUE_AND_JOB)
    assert c.now == 0.0
    assert c.get("q", "team-a")["status"]["state"] == "Open"  # the queue controller ran before the Job came
    assert job["spec"]["queue"] == "team-a"
    assert c.podgroup_of("demo")["spec"]["queue"] == "team-a"  # the Job controller has handled the Job too
    c.wait_for("vcjob", "demo", jsonpath="{.status.state.phase}=Completed", timeout=120)
    assert sorted(p["spec"]["nodeName"] for p in c.list("po")) == ["node-0", "node-1"]


def test_two_applies_at_one_instant_behave_as_one_file(c: FakeCluster) -> None:
    queue_text, job_text = QUEUE_AND_JOB.split("---")
    c.apply(queue_text)
    c.apply(job_text)
    assert c.get("vcjob", "demo")["spec"]["queue"] == "team-a"


def test_reapplying_an_unchanged_manifest_changes_nothing(c: FakeCluster) -> None:
    first = c.apply(QUEUE_AND_JOB + "---\n" + DEPLOYMENT)
    c.run(5)
    before = {o["kind"]: rv(c.get(o["kind"] if o["kind"] != "Deployment" else "deploy", o["metadata"]["name"]))
              for o in first}
    again = c.apply(QUEUE_AND_JOB + "---\n" + DEPLOYMENT)
    assert {o["kind"]: rv(o) for o in again} == before
    assert len(c.list("rs")) == 1
    job = c.get("vcjob", "demo")
    assert LAST_APPLIED in job["metadata"]["annotations"]
    assert job["spec"]["tasks"][0]["template"]["metadata"]["annotations"] == {"sim.volcano.sh/duration": "30s"}


def test_apply_sends_the_three_way_patch(c: FakeCluster) -> None:
    [deploy] = c.apply(DEPLOYMENT)
    c.patch("deploy", "web", {"metadata": {"annotations": {"owner": "someone-else"}}})
    [patched] = c.apply(DEPLOYMENT.replace("replicas: 2", "replicas: 3").replace("labels: {app: web}}",
                                                                               "labels: {app: web, tier: x}}", 1))
    assert patched["metadata"]["uid"] == deploy["metadata"]["uid"]
    assert patched["spec"]["replicas"] == 3
    assert patched["metadata"]["labels"] == {"app": "web", "tier": "x"}
    assert patched["metadata"]["annotations"]["owner"] == "someone-else"  # not in any manifest: kept
    assert patched["spec"]["template"]["spec"]["dnsPolicy"] == "ClusterFirst"  # server defaults kept
    [dropped] = c.apply(DEPLOYMENT.replace("replicas: 2", "replicas: 3"))
    assert dropped["metadata"]["labels"] == {"app": "web"}  # applied before, dropped now: removed


def test_changing_an_applied_volcano_job_is_denied_as_on_volcano(c: FakeCluster) -> None:
    c.apply(QUEUE_AND_JOB)
    with pytest.raises(ApiError) as err:
        c.apply(QUEUE_AND_JOB.replace("image: busybox", "image: nginx"))
    assert err.value.code == 403 and "validatejob.volcano.sh" in err.value.message
    scaled = c.patch("vcjob", "demo", [{"op": "replace", "path": "/spec/tasks/0/replicas", "value": 3}])
    assert scaled["spec"]["tasks"][0]["replicas"] == 3


@pytest.mark.parametrize("kind", ["vcjob", "vj", "jobs", "Job", "jobs.batch.volcano.sh", "Job.batch.volcano.sh"])
def test_volcano_job_names(c: FakeCluster, kind: str) -> None:
    c.apply(QUEUE_AND_JOB)
    c.recorder_for("tester").event(c.get("Job", "demo"), "Normal", "Hello", "job event")
    assert c.get(kind, "demo")["apiVersion"] == "batch.volcano.sh/v1alpha1"
    assert [j["metadata"]["name"] for j in c.list(kind)] == ["demo"]
    assert c.wait_for(kind, "demo", jsonpath="{.spec.queue}=team-a", timeout=0)["kind"] == "Job"
    assert [e["message"] for e in c.events(kind, "demo")] == ["job event"]
    assert c.events("Job.batch", "demo") == []
    c.delete(kind, "demo")
    with pytest.raises(ApiError):
        c.get("vcjob", "demo")


@pytest.mark.parametrize(("kind", "name"), [("q", "default"), ("queue.scheduling.volcano.sh", "default"),
                                            ("no", "node-0"), ("nodes", "node-1"), ("ns", "default")])
def test_short_and_group_names_of_other_kinds(c: FakeCluster, kind: str, name: str) -> None:
    assert c.get(kind, name)["metadata"]["name"] == name
    assert name in [o["metadata"]["name"] for o in c.list(kind)]


def test_pod_and_podgroup_short_names(c: FakeCluster) -> None:
    c.apply(QUEUE_AND_JOB)
    pg = c.podgroup_of("demo")["metadata"]["name"]
    assert c.get("pg", pg)["metadata"]["name"] == c.get("podgroups.scheduling.volcano.sh", pg)["metadata"]["name"]
    c.run(5)
    assert len(c.list("po", label_selector="volcano.sh/job-name=demo")) == 2
    pod = c.list("pods")[0]["metadata"]["name"]
    c.patch("po", pod, {"metadata": {"labels": {"seen": "yes"}}})
    assert c.get("Pod", pod)["metadata"]["labels"]["seen"] == "yes"


def test_unknown_kind_is_not_found_naming_it(c: FakeCluster) -> None:
    for call in (lambda: c.get("widgets", "x"), lambda: c.list("widgets"), lambda: c.delete("widgets", "x"),
                 lambda: c.patch("widgets", "x", {}), lambda: c.wait_for("widgets", "x", delete=True)):
        with pytest.raises(ApiError) as err:
            call()
        assert err.value.code == 404 and "widgets" in err.value.message
    with pytest.raises(ValueError, match="kind"):
        c.get(None, "x")  # type: ignore[arg-type]


def test_update_replaces_and_checks_the_resource_version(c: FakeCluster) -> None:
    c.apply(DEPLOYMENT)
    obj = thaw(c.get("deploy", "web"))
    obj["spec"]["replicas"] = 1
    updated = c.update(obj)
    assert updated["spec"]["replicas"] == 1
    assert len(c.list("Pod")) == 1  # the controllers reacted at this instant
    with pytest.raises(ApiError) as err:
        c.update(obj)  # obj still carries the old resourceVersion
    assert err.value.code == 409
    with pytest.raises(ValueError, match="mapping"):
        c.update([obj])  # type: ignore[arg-type]


def test_patch_types(c: FakeCluster) -> None:
    c.apply(QUEUE_AND_JOB)
    merged = c.patch("q", "team-a", {"spec": {"weight": 3}})  # a custom resource: merge by default
    assert merged["spec"]["weight"] == 3
    closed = c.patch("q", "team-a", {"status": {"state": "Closed"}}, subresource="status")
    assert closed["status"]["state"] == "Closed"
    c.apply(DEPLOYMENT)
    c.patch("deploy", "web", {"spec": {"template": {"spec": {"containers": [{"name": "c", "image": "nginx:2"}]}}}})
    containers = c.get("deploy", "web")["spec"]["template"]["spec"]["containers"]
    assert containers[0]["image"] == "nginx:2" and containers[0]["resources"]  # strategic: merged by name
    with pytest.raises(ApiError) as err:
        c.patch("q", "team-a", {"spec": {"weight": 1}}, patch_type="strategic")
    assert err.value.code == 415
    applied = c.patch("cm", "x", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"},
                                  "data": {"a": "1"}}, patch_type="apply")
    assert applied["metadata"]["managedFields"][0]["manager"] == "volcano-testbed"


def test_wait_for_jsonpath_condition_and_delete(c: FakeCluster) -> None:
    c.apply(QUEUE_AND_JOB)
    job = c.wait_for("vcjob", "demo", jsonpath="{.status.state.phase}=Running", timeout=60)
    assert job["status"]["state"]["phase"] == "Running" and c.now > 0
    pg = c.podgroup_of(job)["metadata"]["name"]
    assert c.wait_for("pg", pg, condition="Scheduled", timeout=0)["status"]["phase"] == "Running"
    assert c.wait_for("pg", pg, condition="scheduled=True", timeout=0)
    assert c.wait_for("vcjob", "demo", jsonpath=".status.running", timeout=0)  # presence
    assert c.wait_for("vcjob", "demo", jsonpath="{.status.running}=2", timeout=0)
    ready = '{.status.conditions[?(@.type=="Scheduled")].status}=True'
    assert c.wait_for("pg", pg, jsonpath=ready, timeout=0)
    c.delete("vcjob", "demo")
    assert c.wait_for("pg", pg, delete=True, timeout=60) == {}
    assert c.wait_for("vcjob", "never-was", delete=True, timeout=0) == {}


def test_wait_for_waits_for_an_object_to_appear(c: FakeCluster) -> None:
    c.clock.call_at(5000, lambda: c.server.create({"apiVersion": "v1", "kind": "ConfigMap",
                                                    "metadata": {"name": "late", "namespace": "default"}}))
    assert c.wait_for("cm", "late", jsonpath="{.metadata.name}=late", timeout=10)
    assert c.now == 5.0


def test_wait_for_timeout_says_what_was_awaited_and_seen(c: FakeCluster) -> None:
    c.apply(QUEUE_AND_JOB)
    with pytest.raises(TimeoutError) as err:
        c.wait_for("vcjob", "demo", jsonpath="{.status.state.phase}=Aborted", timeout=10)
    message = str(err.value)
    assert "Job default/demo jsonpath={.status.state.phase}=Aborted" in message
    assert "last seen: {.status.state.phase}=Running" in message
    with pytest.raises(TimeoutError, match="last seen: object not found"):
        c.wait_for("vcjob", "nope", condition="Ready", timeout=1)
    with pytest.raises(TimeoutError, match="last seen: no condition Ready"):
        c.wait_for("q", "team-a", condition="Ready", timeout=1)
    with pytest.raises(TimeoutError, match="deleted; last seen: the object still exists"):
        c.wait_for("q", "team-a", delete=True, timeout=1)


def test_wait_for_bad_arguments(c: FakeCluster) -> None:
    with pytest.raises(ValueError, match="exactly one"):
        c.wait_for("q", "default")
    with pytest.raises(ValueError, match="exactly one"):
        c.wait_for("q", "default", jsonpath="{.spec.weight}=1", delete=True)
    with pytest.raises(ValueError, match="unsupported filter"):
        c.wait_for("q", "default", jsonpath="{.spec[?(@.a>1)]}=1")
    with pytest.raises(ValueError, match="more than one value"):
        c.wait_for("no", "node-0", jsonpath="{.status.addresses[*].type}=Hostname")
    with pytest.raises(ValueError, match="Type=Status"):
        c.wait_for("q", "default", condition="=True")


def test_podgroup_of(c: FakeCluster) -> None:
    with pytest.raises(ApiError) as err:
        c.podgroup_of("demo")
    assert err.value.code == 404
    [_, job] = c.apply(QUEUE_AND_JOB)
    pg = c.podgroup_of("demo")
    assert pg["metadata"]["name"] == f"demo-{job['metadata']['uid']}"
    assert c.podgroup_of(job) == pg
    assert pg["metadata"]["ownerReferences"][0]["uid"] == job["metadata"]["uid"]


def test_apply_from_a_clock_callback_does_not_reenter_the_clock(c: FakeCluster) -> None:
    seen: list[float] = []

    def submit() -> None:
        c.apply(QUEUE_AND_JOB.split("---")[0])
        seen.append(c.now)
        # the queue controller has not run yet: no re-entrant clock run from inside a callback
        seen.append(float("state" in (c.get("q", "team-a").get("status") or {})))

    c.clock.call_at(1000, submit)
    c.run(2)
    assert seen == [1.0, 0.0]
    assert c.get("q", "team-a")["status"]["state"] == "Open"


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not installed; this test compares with it")
@pytest.mark.kube_api(speed=0, nodes=1)
def test_the_documented_difference_with_kubectl_over_http(kube_api: ServedCluster, tmp_path: Path) -> None:
    """Real kubectl re-applying an unchanged Volcano Job is denied by validatejob, as on a real
    Volcano cluster (docs/architecture.md); FakeCluster.apply of the same file changes nothing."""
    manifest = tmp_path / "job.yaml"
    manifest.write_text(QUEUE_AND_JOB.split("---")[1])

    def kubectl(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["kubectl", "--kubeconfig", str(kube_api.kubeconfig), "--cache-dir",
                               str(tmp_path / "cache"), *args], capture_output=True, text=True, timeout=120)

    kube_api.call(lambda: kube_api.cluster.apply(QUEUE_AND_JOB.split("---")[0]))
    assert kubectl("apply", "-f", str(manifest)).returncode == 0
    again = kubectl("apply", "-f", str(manifest))
    assert again.returncode == 1 and 'admission webhook "validatejob.volcano.sh" denied the request' in again.stderr
    c = FakeCluster(seed=0)
    c.apply(QUEUE_AND_JOB)
    before = c.get("vcjob", "demo")
    assert c.apply(manifest) == [before]
