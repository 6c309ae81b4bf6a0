"""The seed scenarios on a FakeCluster (Volcano scheduler, default-scheduler baseline,
admission and every controller running), as the product's documents describe them.

1. TensorFlow GPU gang: 4 GPUs, two jobs of 4 workers needing 1 GPU each and
   progressing only while all 4 run. Volcano runs one job whole, then the
   other, never 2+2; the default scheduler, given the pods interleaved between
   the jobs, gives each job 2 GPUs and neither ever finishes.
2. Spark CPU: 6 CPUs, 6 applications, each a driver (1 CPU) that creates 2
   executors (1 CPU each) a minute after it starts and ends when they are done.
   With Volcano (a PodGroup per application, minMember 1, minResources for
   driver + executors) two applications are admitted, the rest stay Pending,
   and all finish in turn; with the default scheduler all 6 drivers start, no
   executor fits, and nothing finishes.

Both are written with PodGroups and member pods, and as Volcano Jobs.
"""

from __future__ import annotations

from typing import Any

from volcano.api.frozen import thaw
from volcano.apiserver.client import WatchEvent
from volcano.sim.clock import Priority
from volcano.testbed import FakeCluster

GROUP = "scheduling.k8s.io/group-name"
NS = "default"


def _pod(name: str, group: str | None, requests: dict[str, str], *, scheduler: str, duration: str | None,
         progress: str = "alone", labels: dict[str, str] | None = None) -> dict[str, Any]:
    annotations = {"sim.volcano.sh/progress": progress}
    if duration is not None:
        annotations["sim.volcano.sh/duration"] = duration
    if group is not None:
        annotations[GROUP] = group
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": NS, "annotations": annotations, "labels": dict(labels or {})},
            "spec": {"schedulerName": scheduler, "restartPolicy": "Never",
                     "containers": [{"name": "main", "image": "busybox",
                                     "resources": {"requests": dict(requests), "limits": dict(requests)}}]}}


def _podgroup(name: str, min_member: int, min_resources: dict[str, str] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"minMember": min_member, "queue": "default"}
    if min_resources:
        spec["minResources"] = min_resources
    return {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
            "metadata": {"name": name, "namespace": NS}, "spec": spec}


def _phase(c: FakeCluster, pod: dict[str, Any]) -> str:
    return str((pod.get("status") or {}).get("phase") or "")


def _members(c: FakeCluster, prefix: str) -> list[dict[str, Any]]:
    return [p for p in c.list("Pod", NS) if p["metadata"]["name"].startswith(prefix)]


# -- 1. TensorFlow GPU gang ---------------------------------------------------------------------

TF_JOBS = ("tf-a", "tf-b")


def _gpu_cluster(seed: int) -> FakeCluster:
    c = FakeCluster(seed=seed)
    c.add_node("gpu-0", cpu="16", memory="64Gi", gpu=2)
    c.add_node("gpu-1", cpu="16", memory="64Gi", gpu=2)
    return c


def _tf_pods(scheduler: str) -> list[dict[str, Any]]:
    """Worker pods of both jobs, interleaved (a-0, b-0, a-1, b-1, ...)."""
    return [_pod(f"{job}-worker-{i}", job, {"cpu": "1", "memory": "2Gi", "nvidia.com/gpu": "1"},
                 scheduler=scheduler, duration="60s", progress="gang")
            for i in range(4) for job in TF_JOBS]


def _tf_job(name: str) -> dict[str, Any]:
    return {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": name, "namespace": NS},
            "spec": {"minAvailable": 4, "schedulerName": "volcano", "queue": "default",
                     "tasks": [{"replicas": 4, "name": "worker", "template": {
                         "metadata": {"annotations": {"sim.volcano.sh/duration": "60s",
                                                      "sim.volcano.sh/progress": "gang"}},
                         "spec": {"restartPolicy": "Never", "containers": [{
                             "name": "tensorflow", "image": "volcanosh/example-tf:0.0.1",
                             "resources": {"requests": {"cpu": "1", "memory": "2Gi", "nvidia.com/gpu": "1"},
                                           "limits": {"cpu": "1", "memory": "2Gi", "nvidia.com/gpu": "1"}}}]}}}]}}


class _GangWatch:
    """Checks, after every simulated millisecond of work, that no job runs partly."""

    def __init__(self, jobs: tuple[str, ...]) -> None:
        self.jobs = jobs
        self.partial: list[tuple[float, str, int]] = []
        self.first_bound: dict[str, float] = {}
        self.done: dict[str, float] = {}

    def __call__(self, c: FakeCluster) -> bool:
        for job in self.jobs:
            pods = _members(c, job)
            bound = sum(1 for p in pods if p["spec"].get("nodeName") and _phase(c, p) not in ("Succeeded", "Failed"))
            if 0 < bound < 4:
                self.partial.append((c.now, job, bound))
            if bound and job not in self.first_bound:
                self.first_bound[job] = c.now
            if len(pods) == 4 and all(_phase(c, p) == "Succeeded" for p in pods):
                self.done.setdefault(job, c.now)
        return len(self.done) == len(self.jobs)


def _assert_one_whole_then_the_other(c: FakeCluster, watch: _GangWatch) -> None:
    c.run_until(watch, timeout=600)
    assert watch.partial == []
    first, second = sorted(TF_JOBS, key=lambda j: watch.first_bound[j])
    # the second job starts only when the first has finished (its GPUs released)
    assert watch.first_bound[second] >= watch.done[first]
    assert watch.done[first] < watch.done[second]


def test_tensorflow_gpu_gangs_with_podgroups() -> None:
    c = _gpu_cluster(seed=11)
    for job in TF_JOBS:
        c.apply(_podgroup(job, 4))
    for p in _tf_pods("volcano"):
        c.apply(p)
    watch = _GangWatch(TF_JOBS)
    _assert_one_whole_then_the_other(c, watch)
    for job in TF_JOBS:
        assert c.get("PodGroup", job)["status"]["phase"] == "Completed"


def test_tensorflow_gpu_gangs_as_volcano_jobs() -> None:
    c = _gpu_cluster(seed=12)
    for job in TF_JOBS:
        c.apply(_tf_job(job))
    watch = _GangWatch(TF_JOBS)
    _assert_one_whole_then_the_other(c, watch)
    for job in TF_JOBS:
        assert c.get("Job", job)["status"]["state"]["phase"] == "Completed"


def test_tensorflow_gpu_gangs_deadlock_with_the_default_scheduler() -> None:
    c = _gpu_cluster(seed=13)
    for job in TF_JOBS:
        c.apply(_podgroup(job, 4))  # only for the workers' gang progress; the default scheduler ignores it
    for p in _tf_pods("default-scheduler"):
        c.apply(p)
    c.run(600)
    for job in TF_JOBS:
        pods = _members(c, job)
        assert sum(1 for p in pods if p["spec"].get("nodeName")) == 2
        assert sum(1 for p in pods if _phase(c, p) == "Running") == 2
        assert not any(_phase(c, p) == "Succeeded" for p in pods)


# -- 2. Spark CPU -------------------------------------------------------------------------------

APPS = tuple(f"spark-{i}" for i in range(6))
ROLE = "spark-role"


class _SparkDrivers:
    """Plays each driver process: a minute after the driver runs it creates its two executors
    (in the driver's PodGroup, with the driver's scheduler); when both succeed the driver exits 0."""

    def __init__(self, c: FakeCluster) -> None:
        self.c = c
        self.started: set[str] = set()
        self.finished: list[str] = []
        self.executors_created: dict[str, float] = {}
        self.running: set[str] = set()
        self.max_running = 0
        c.client.watch("Pod", self._on_pod, NS)

    def _on_pod(self, event: WatchEvent) -> None:
        pod = event.object
        name = pod["metadata"]["name"]
        labels = pod["metadata"].get("labels") or {}
        phase = (pod.get("status") or {}).get("phase")
        if labels.get(ROLE) == "driver":
            if phase == "Running":
                self.running.add(name)
            else:
                self.running.discard(name)
            self.max_running = max(self.max_running, len(self.running))
        if labels.get(ROLE) == "driver" and phase == "Running" and name not in self.started:
            self.started.add(name)
            self.c.clock.call_later(60_000, self._create_executors, thaw(pod), priority=Priority.USER)
        if labels.get(ROLE) == "executor" and phase == "Succeeded":
            app = labels["spark-app"]
            execs = _members(self.c, f"{app}-exec-")
            if len(execs) == 2 and all(_phase(self.c, p) == "Succeeded" for p in execs) \
                    and app not in self.finished:
                self.finished.append(app)
                self.c.kubelet.finish_containers(NS, f"{app}-driver", exit_code=0)

    def _create_executors(self, driver: dict[str, Any]) -> None:
        app = driver["metadata"]["labels"]["spark-app"]
        group = (driver["metadata"].get("annotations") or {}).get(GROUP)
        self.executors_created[app] = self.c.now
        for i in range(2):
            self.c.apply(_pod(f"{app}-exec-{i}", group, {"cpu": "1", "memory": "1Gi"},
                              scheduler=driver["spec"]["schedulerName"], duration="10s",
                              labels={ROLE: "executor", "spark-app": app}))


def _cpu_cluster(seed: int) -> FakeCluster:
    c = FakeCluster(seed=seed)
    c.add_node("cpu-0", cpu="2", memory="8Gi")
    c.add_node("cpu-1", cpu="2", memory="8Gi")
    c.add_node("cpu-2", cpu="2", memory="8Gi")
    return c


def _driver(app: str, scheduler: str, group: str | None) -> dict[str, Any]:
    return _pod(f"{app}-driver", group, {"cpu": "1", "memory": "1Gi"}, scheduler=scheduler, duration=None,
                labels={ROLE: "driver", "spark-app": app})


def test_spark_with_podgroups_admits_two_applications_and_all_finish() -> None:
    c = _cpu_cluster(seed=21)
    drivers = _SparkDrivers(c)
    for app in APPS:
        c.apply(_podgroup(app, 1, {"cpu": "3", "memory": "3Gi"}))
        c.apply(_driver(app, "volcano", app))
    c.run(5)
    phases = {app: c.get("PodGroup", app)["status"].get("phase") for app in APPS}
    admitted = sorted(a for a, ph in phases.items() if ph in ("Inqueue", "Running"))
    assert len(admitted) == 2
    assert sorted(ph for a, ph in phases.items() if a not in admitted) == ["Pending"] * 4
    running = sorted(p["metadata"]["name"] for p in c.list("Pod", NS) if _phase(c, p) == "Running")
    assert running == [f"{a}-driver" for a in admitted]
    # the refused applications are told why (overcommit: 6 cpus x 1.2 hold two reservations of 3)
    refused = next(a for a in APPS if a not in admitted)
    reasons = {(e["reason"], e["message"]) for e in c.events("PodGroup", name=refused)}
    assert ("Unschedulable", "resource in cluster is overused: overused cpu") in reasons

    c.run_until(lambda cl: len(drivers.finished) == 6, timeout=1800)
    for app in APPS:
        assert _phase(c, c.get("Pod", f"{app}-driver")) == "Succeeded"
        assert c.get("PodGroup", app)["status"]["phase"] == "Completed"
    # two applications at a time, in three waves
    assert drivers.max_running == 2
    waves = sorted(drivers.executors_created.values())
    assert waves[0] == waves[1] < waves[2] == waves[3] < waves[4] == waves[5]


def test_spark_deadlocks_with_the_default_scheduler() -> None:
    c = _cpu_cluster(seed=22)
    drivers = _SparkDrivers(c)
    for app in APPS:
        c.apply(_driver(app, "default-scheduler", None))
    c.run(900)
    assert drivers.max_running == 6
    pods = c.list("Pod", NS)
    assert sorted(p["metadata"]["name"] for p in pods if _phase(c, p) == "Running") == \
        [f"{a}-driver" for a in APPS]
    executors = [p for p in pods if p["metadata"]["name"].count("-exec-")]
    assert len(executors) == 12
    assert all(not p["spec"].get("nodeName") for p in executors)
    assert drivers.finished == []


def _spark_job(app: str) -> dict[str, Any]:
    def task(name: str, replicas: int, duration: str) -> dict[str, Any]:
        return {"replicas": replicas, "name": name, "template": {
            "metadata": {"annotations": {"sim.volcano.sh/duration": duration}},
            "spec": {"restartPolicy": "Never", "containers": [{
                "name": name, "image": "apache/spark:3.5.1",
                "resources": {"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "1Gi"}}}]}}}

    driver = task("driver", 1, "70s")
    driver["policies"] = [{"event": "TaskCompleted", "action": "CompleteJob"}]
    return {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": app, "namespace": NS},
            "spec": {"minAvailable": 3, "schedulerName": "volcano", "queue": "default",
                     "tasks": [driver, task("executor", 2, "10s")]}}


def test_spark_as_volcano_jobs_admits_two_applications_and_all_finish() -> None:
    """As Volcano Jobs an application is a driver task and a two-replica executor task
    (minAvailable 3: the Job controller's minResources then covers driver + executors).
    Here the executors run from the start and end after 10 s, so a running application
    soon holds only its driver and later applications are admitted into the freed room
    (overcommit reserves nothing more for a Running job below minAvailable)."""
    c = _cpu_cluster(seed=23)
    for app in APPS:
        c.apply(_spark_job(app))
    c.run(5)
    phases = {app: c.get("PodGroup", _pg_of_job(c, app))["status"].get("phase") for app in APPS}
    assert sum(1 for ph in phases.values() if ph in ("Inqueue", "Running")) == 2
    assert sum(1 for ph in phases.values() if ph == "Pending") == 4
    assert sum(1 for p in c.list("Pod", NS) if _phase(c, p) == "Running") == 6

    def all_done(cl: FakeCluster) -> bool:
        return all(cl.get("Job", a).get("status", {}).get("state", {}).get("phase") == "Completed" for a in APPS)

    c.run_until(all_done, timeout=1800)
    assert all(_phase(c, p) == "Succeeded" for p in c.list("Pod", NS))


def _pg_of_job(c: FakeCluster, job: str) -> str:
    for pg in c.list("PodGroup", NS):
        owners = pg["metadata"].get("ownerReferences") or []
        if any(o.get("kind") == "Job" and o.get("name") == job for o in owners):
            return str(pg["metadata"]["name"])
    raise AssertionError(f"no PodGroup for job {job}")
