"""The four seed scenarios as data plus a submit function per scheduler.

Each scenario builds its nodes, then submits the same workload twice: as the
default scheduler would receive it (plain pods, created as the frameworks'
controllers create them: interleaved between jobs) and as Volcano receives it
(Volcano Jobs, or PodGroups with member pods, in queues). Work is described by
the ``sim.volcano.sh/*`` annotations; every pod carries the demo labels the
metrics read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from volcano.api.well_known import GROUP_NAME, SIM_DURATION, SIM_PROGRESS
from volcano.demo.history import GANG_LABEL, JOB_LABEL
from volcano.demo.spark import ROLE_LABEL, SparkDrivers
from volcano.testbed import FakeCluster

__all__ = ["BASELINE", "SCENARIOS", "VOLCANO", "Scenario"]

BASELINE = "default-scheduler"
VOLCANO = "volcano"
Obj = dict[str, Any]


@dataclass(frozen=True)
class Scenario:
    """One seed scenario: cluster, workload, and how long to let it run."""

    key: str
    title: str
    expectation: str
    nodes: Callable[[FakeCluster], None]
    submit: Callable[[FakeCluster, str], dict[str, int]]  # returns job -> pods that must succeed
    horizon_s: float


def _container(req: dict[str, str]) -> Obj:
    return {"name": "main", "image": "busybox", "resources": {"requests": dict(req), "limits": dict(req)}}


def _pod(name: str, job: str, needs: int, req: dict[str, str], scheduler: str, duration: str, *,
         gang: bool, group: str | None = None, labels: dict[str, str] | None = None) -> Obj:
    annotations = {SIM_DURATION: duration}
    if gang:
        annotations[SIM_PROGRESS] = "gang"
    if group:
        annotations[GROUP_NAME] = group
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "annotations": annotations,
                         "labels": {JOB_LABEL: job, GANG_LABEL: str(needs), **(labels or {})}},
            "spec": {"schedulerName": scheduler, "restartPolicy": "OnFailure", "containers": [_container(req)]}}


def _pod_group(name: str, min_member: int, queue: str = "default", min_resources: dict[str, str] | None = None) -> Obj:
    spec: Obj = {"minMember": min_member, "queue": queue}
    if min_resources:
        spec["minResources"] = min_resources
    return {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup", "metadata": {"name": name},
            "spec": spec}


def _volcano_job(name: str, tasks: list[tuple[str, int, dict[str, str]]], duration: str, *,
                 queue: str = "default", gang: bool = True) -> Obj:
    total = sum(rep for _, rep, _ in tasks)
    annotations = {SIM_DURATION: duration}
    if gang:
        annotations[SIM_PROGRESS] = "gang"
    return {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": name},
            "spec": {"schedulerName": "volcano", "minAvailable": total, "queue": queue,
                     "policies": [{"event": "PodEvicted", "action": "RestartJob"}],
                     "tasks": [{"name": task, "replicas": rep,
                                "template": {"metadata": {"annotations": annotations,
                                                          "labels": {JOB_LABEL: name,
                                                                     GANG_LABEL: str(total if gang else 1)}},
                                             "spec": {"restartPolicy": "OnFailure",
                                                      "containers": [_container(req)]}}}
                               for task, rep, req in tasks]}}


def _interleaved(cluster: FakeCluster, jobs: list[list[Obj]]) -> None:
    """Create the jobs' pods round-robin, as concurrent framework controllers would."""
    for i in range(max(len(j) for j in jobs)):
        for pods in jobs:
            if i < len(pods):
                cluster.apply(pods[i])


def _gang_jobs(cluster: FakeCluster, scheduler: str, names: list[str],
               tasks: list[tuple[str, int, dict[str, str]]], duration: str) -> dict[str, int]:
    total = sum(rep for _, rep, _ in tasks)
    if scheduler == VOLCANO:
        for name in names:
            cluster.apply(_volcano_job(name, tasks, duration))
    else:
        jobs = []
        for name in names:
            cluster.apply(_pod_group(name, total))  # only read by the kubelet's gang-progress model
            jobs.append([_pod(f"{name}-{task}-{i}", name, total, req, BASELINE, duration, gang=True, group=name)
                         for task, rep, req in tasks for i in range(rep)])
        _interleaved(cluster, jobs)
    return dict.fromkeys(names, total)


# -- 1. TensorFlow on 4 GPUs -------------------------------------------------------------------
def _tf_nodes(c: FakeCluster) -> None:
    c.add_nodes(2, prefix="gpu-node-", cpu="8", memory="32Gi", gpu=2)


def _tf_submit(c: FakeCluster, scheduler: str) -> dict[str, int]:
    return _gang_jobs(c, scheduler, ["tf-a", "tf-b"], [("worker", 4, {"cpu": "1", "memory": "2Gi",
                                                                     "nvidia.com/gpu": "1"})], "20m")


# -- 2. Spark on 6 CPUs ------------------------------------------------------------------------
def _spark_nodes(c: FakeCluster) -> None:
    c.add_nodes(3, prefix="node-", cpu="2", memory="8Gi")


def _spark_submit(c: FakeCluster, scheduler: str) -> dict[str, int]:
    SparkDrivers(c, executors=2, startup_s=60, executor_duration="30s")
    apps = [f"spark-{i}" for i in range(1, 7)]
    for app in apps:
        group = None
        if scheduler == VOLCANO:
            group = f"{app}-pg"
            c.apply(_pod_group(group, 1, min_resources={"cpu": "3", "memory": "3Gi"}))
        driver = _pod(f"{app}-driver", app, 1, {"cpu": "1", "memory": "1Gi"}, scheduler, "0s", gang=False,
                      group=group, labels={ROLE_LABEL: "driver"})
        del driver["metadata"]["annotations"][SIM_DURATION]  # the driver exits when its work is done
        driver["spec"]["restartPolicy"] = "Never"
        c.apply(driver)
    return dict.fromkeys(apps, 3)


# -- 3. 2 ps + 4 workers jobs ------------------------------------------------------------------
def _psw_nodes(c: FakeCluster) -> None:
    c.add_nodes(4, prefix="node-", cpu="2", memory="8Gi")


def _psw_submit(count: int) -> Callable[[FakeCluster, str], dict[str, int]]:
    def submit(c: FakeCluster, scheduler: str) -> dict[str, int]:
        return _gang_jobs(c, scheduler, [f"tf-{i}" for i in range(1, count + 1)],
                          [("ps", 2, {"cpu": "1", "memory": "1Gi"}), ("worker", 4, {"cpu": "1", "memory": "1Gi"})],
                          "30m")
    return submit


# -- 4. Fair share between two users -----------------------------------------------------------
def _fair_nodes(c: FakeCluster) -> None:
    c.add_nodes(4, prefix="node-", cpu="4", memory="16Gi")


def _fair_submit(c: FakeCluster, scheduler: str) -> dict[str, int]:
    """alice submits 8 jobs (durations 10..24 min, so they end one by one); bob submits 2 a
    minute later, when alice already holds the cluster."""
    alice = {f"alice-{i}": f"{8 + 2 * i}m" for i in range(1, 9)}
    bob = {f"bob-{i}": "10m" for i in range(1, 3)}
    req = {"cpu": "1", "memory": "2Gi"}
    if scheduler == VOLCANO:
        for user in ("alice", "bob"):
            c.apply({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": user},
                     "spec": {"weight": 1, "reclaimable": True}})
        c.run(2)  # the queue controller opens the queues
    for jobs in (alice, bob):
        for job, duration in jobs.items():
            if scheduler == VOLCANO:
                c.apply(_volcano_job(job, [("task", 4, req)], duration, queue=job.split("-")[0], gang=False))
            else:
                for i in range(4):
                    c.apply(_pod(f"{job}-{i}", job, 1, req, BASELINE, duration, gang=False))
        c.run(60)
    return dict.fromkeys([*alice, *bob], 4)


SCENARIOS: tuple[Scenario, ...] = (
    Scenario("tf-gpu", "TensorFlow jobs on 4 GPUs (2 jobs x 4 workers x 1 GPU)",
             "pod by pod, each job can get 2 GPUs and neither runs; Volcano runs one job whole, then the other",
             _tf_nodes, _tf_submit, 3 * 3600),
    Scenario("spark", "Six Spark applications on 6 CPUs (driver 1 CPU, then 2 executors x 1 CPU)",
             "all six drivers start and no executor fits; Volcano admits what fits and all finish in turn",
             _spark_nodes, _spark_submit, 3 * 3600),
    Scenario("ps-worker-1", "1 job of 2 ps + 4 workers on 8 CPUs", "one job fits either way",
             _psw_nodes, _psw_submit(1), 3 * 3600),
    Scenario("ps-worker-2", "2 jobs of 2 ps + 4 workers on 8 CPUs",
             "pod by pod, the two jobs split the cluster and deadlock; gang scheduling runs them in turn",
             _psw_nodes, _psw_submit(2), 3 * 3600),
    Scenario("ps-worker-5", "5 jobs of 2 ps + 4 workers on 8 CPUs",
             "pod by pod, jobs deadlock and waste resources; gang scheduling finishes all five",
             _psw_nodes, _psw_submit(5), 6 * 3600),
    Scenario("fair-share", "Fair share: alice submits 8 jobs, bob 2 a minute later (4 x 1 CPU each) on 16 CPUs",
             "FIFO serves alice's backlog first; with queues of equal weight Volcano gives bob the next free CPUs",
             _fair_nodes, _fair_submit, 3 * 3600),
)
