"""Upstream ``test/e2e/schedulingbase`` re-expressed (catalogue §3.1): gang scheduling, best-effort
pods, statements, binpack, batch/v1 Jobs, fair share between queues and PodGroups of plain
workloads. Volume-binding and SLA cases are listed in ``not_covered.yaml``.

The cluster is upstream's kind shape (one tainted control plane, four untainted workers);
``rep`` is ``ClusterSize(1 CPU)`` as upstream computes it, never a hard-coded number.
"""

from __future__ import annotations

import contextlib
from typing import Any

import pytest

from volcano.api.resources import Resources
from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import BUSYBOX, Task, batch_job, deployment, job, replica_set
from volcano.conformance.lib.sizing import cluster_size, idle_by_node
from volcano.conformance.lib.waits import (
    bound,
    count_phase,
    job_phase,
    wait_job_phase,
    wait_job_unschedulable,
    wait_tasks_ready,
)
from volcano.conformance.test_scheduling_support import (
    CI_CONF,
    ONE_CPU,
    api_error,
    job_nodes,
    pg_events,
    plain,
    ready,
)

SUITE = "schedulingbase"
HALF_CPU = {"cpu": "500m"}


def _no_pod_bound(cluster: Cluster, job_name: str) -> bool:
    return not any(bound(p) for p in cluster.job_pods(job_name))


def _pending_unbound(cluster: Cluster, job_name: str, seconds: float = 30) -> None:
    """The Job stays in phase Pending with none of its pods on a node for a whole window."""
    cluster.hold(lambda: job_phase(cluster, job_name) == "Pending" and _no_pod_bound(cluster, job_name),
                 seconds, f"job {job_name} stays Pending with no pod bound")


def _label_ready(cluster: Cluster, label: str, n: int, timeout: float = 300) -> None:
    """``n`` pods with ``label`` Running, none being deleted (upstream WaitReplicaSetReady /
    WaitDeploymentReady)."""
    cluster.wait_until(lambda: count_phase(cluster.pods(label), ("Running",)) == n
                       and not any(p["metadata"].get("deletionTimestamp") for p in cluster.pods(label)),
                       timeout, f"{n} pods {label} Running")


@pytest.mark.gang
@pytest.mark.upstream(SUITE, "Schedule Job")
def test_schedule_job(cluster: Cluster) -> None:
    rep = cluster_size(cluster, ONE_CPU)
    cluster.apply(job("qj-1", [Task(image=BUSYBOX, req=ONE_CPU, min=2, rep=rep)]))
    wait_tasks_ready(cluster, "qj-1", 2)


@pytest.mark.gang
@pytest.mark.upstream(SUITE, "Schedule Multiple Jobs")
def test_schedule_multiple_jobs(cluster: Cluster) -> None:
    rep = cluster_size(cluster, ONE_CPU)
    names = ["mqj-1", "mqj-2", "mqj-3"]
    cluster.apply([job(n, [Task(image=BUSYBOX, req=ONE_CPU, min=2, rep=rep)]) for n in names])
    for n in names:
        wait_tasks_ready(cluster, n, 2)


def _more_than_half(cluster: Cluster, workload: Any, name: str, label: str) -> int:
    """A ReplicaSet or Deployment ``name`` of just over half the cluster's CPU slots, ready
    (its pods carry ``label``); its size."""
    rep = cluster_size(cluster, ONE_CPU) // 2 + 1
    cluster.apply(workload(name, rep, ONE_CPU))
    _label_ready(cluster, label, rep)
    return rep


@pytest.mark.gang
@pytest.mark.upstream(SUITE, "Gang scheduling")
def test_gang_scheduling(cluster: Cluster) -> None:
    rep = _more_than_half(cluster, replica_set, "rs-1", "replicaset.k8s.io=rs-1")
    cluster.apply(job("gang-qj", [Task(image=BUSYBOX, req=ONE_CPU, min=rep, rep=rep, duration="10s")]))
    wait_job_phase(cluster, "gang-qj", "Pending")
    wait_job_unschedulable(cluster, "gang-qj")
    # Upstream's "pending" only reads the phase; the gang must not be partly placed either.
    _pending_unbound(cluster, "gang-qj")
    cluster.delete("ReplicaSet", "rs-1")
    wait_tasks_ready(cluster, "gang-qj", rep)


def _second_full_gang(cluster: Cluster, first: str, second: str) -> int:
    """A gang ``first`` filling every CPU slot, ready; then an equal gang ``second``. The slots."""
    rep = cluster_size(cluster, ONE_CPU)
    cluster.apply(job(first, [Task(req=ONE_CPU, min=rep, rep=rep)]))
    wait_tasks_ready(cluster, first, rep)
    cluster.apply(job(second, [Task(req=ONE_CPU, min=rep, rep=rep)]))
    return rep


@pytest.mark.gang
@pytest.mark.upstream(SUITE, "Gang scheduling: Full Occupied")
def test_gang_full_occupied(cluster: Cluster) -> None:
    rep = _second_full_gang(cluster, "gang-fq-qj1", "gang-fq-qj2")
    wait_job_phase(cluster, "gang-fq-qj2", "Pending")
    cluster.hold(lambda: _no_pod_bound(cluster, "gang-fq-qj2") and ready(cluster, "gang-fq-qj1") >= rep, 30,
                 "second gang stays unplaced while the first keeps running")


@pytest.mark.gang
@pytest.mark.upstream(SUITE, "Gang scheduling: Contains both best-effort pod and non-best-effort pod")
def test_gang_best_effort_and_non_best_effort(cluster: Cluster) -> None:
    rep = cluster_size(cluster, ONE_CPU)
    assert rep >= 2
    # Upstream's task names are swapped relative to their content; kept as written.
    cluster.apply(job("gang-both-best-effort-non-best-effort-pods", [
        Task(name="best-effort", req=ONE_CPU, min=rep // 2, rep=rep // 2),
        Task(name="non-best-effort", req={}, min=rep - rep // 2, rep=rep - rep // 2),
    ]))
    wait_tasks_ready(cluster, "gang-both-best-effort-non-best-effort-pods", rep)


@pytest.mark.scheduling_base
@pytest.mark.upstream(SUITE, "Schedule BestEffort Job")
def test_schedule_best_effort_job(cluster: Cluster) -> None:
    rep = cluster_size(cluster, ONE_CPU)
    cluster.apply(job("test", [Task(req=ONE_CPU, min=2, rep=rep), Task(req={}, min=2, rep=rep // 2)]))
    assert cluster.get("Job", "test")["spec"]["minAvailable"] == 4
    wait_tasks_ready(cluster, "test", 4)


@pytest.mark.gang
@pytest.mark.scheduler_conf(CI_CONF)
@pytest.mark.upstream(SUITE, "Statement")
def test_statement(cluster: Cluster) -> None:
    rep = _second_full_gang(cluster, "st-qj-1", "st-qj-2")
    wait_job_unschedulable(cluster, "st-qj-2")
    # A gang that cannot be placed whole must not evict the running gang (its statement is
    # discarded): no Evict event on st-qj-1's PodGroup, and it keeps all its pods.
    cluster.hold(lambda: ready(cluster, "st-qj-1") >= rep and _no_pod_bound(cluster, "st-qj-2"), 30,
                 "st-qj-1 keeps running, st-qj-2 stays unplaced")
    assert pg_events(cluster, "st-qj-1", "Evict") == []


@pytest.mark.scheduling_base
@pytest.mark.scheduler_conf(CI_CONF)
@pytest.mark.upstream(SUITE, "support binpack policy")
def test_binpack(cluster: Cluster) -> None:
    cluster.apply(job("binpack-base-1", [Task(req=ONE_CPU, min=1, rep=1)]))
    wait_tasks_ready(cluster, "binpack-base-1", 1)
    (base_node,) = job_nodes(cluster, "binpack-base-1")
    free = idle_by_node(cluster)[base_node]
    need = Resources.from_k8s(HALF_CPU)
    count = 0
    while need.fits_in(free):
        free = free - need
        count += 1
    assert count >= 1
    cluster.apply(job("binpack-test-1", [Task(req=HALF_CPU, min=count, rep=count)]))
    wait_tasks_ready(cluster, "binpack-test-1", count)
    # Upstream checks the base job's pods (as written); the base pod must still be where it was.
    assert job_nodes(cluster, "binpack-base-1") == [base_node]


def _v1_job(name: str, restart_policy: str | None) -> dict[str, object]:
    spec: dict[str, object] = {"schedulerName": "volcano",
                               "containers": [{"name": "test-container", "image": "nginx"}]}
    if restart_policy:
        spec["restartPolicy"] = restart_policy
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name},
            "spec": {"parallelism": 2, "template": {"spec": spec}}}


def _active(cluster: Cluster, name: str) -> bool:
    obj = cluster.try_get("Job.batch", name)
    return bool(obj and (obj.get("status", {}).get("active") or 0) > 0)


@pytest.mark.scheduling_base
@pytest.mark.upstream(SUITE, "Schedule v1.Job type using Volcano scheduler")
def test_v1_job(cluster: Cluster) -> None:
    cluster.apply(_v1_job("job1", "Never"))
    cluster.wait_until(lambda: _active(cluster, "job1"), 300, "batch/v1 job1 active")
    # ... and Volcano places its pods (upstream stops at "active").
    cluster.wait_until(lambda: sum(1 for p in cluster.pods("job-name=job1") if bound(p)) == 2, 300,
                       "both pods of job1 bound")


@pytest.mark.scheduling_base
@pytest.mark.upstream(SUITE, "Schedule v1.Job type using Volcano scheduler with error case")
def test_v1_job_error_case(cluster: Cluster) -> None:
    # A batch/v1 Job's pods may not use restartPolicy Always (the default when unset).
    err = api_error(cluster.apply, _v1_job("job1", None))
    assert "restartPolicy" in str(getattr(err, "message", err))
    assert cluster.try_get("Job.batch", "job1") is None
    cluster.apply(_v1_job("job1", "Never"))
    cluster.wait_until(lambda: _active(cluster, "job1"), 300, "batch/v1 job1 active")


def _pg_names(cluster: Cluster) -> list[str]:
    return cluster.names(cluster.list("PodGroup"))


@pytest.mark.podgroup_status
@pytest.mark.upstream(SUITE, "PodGroup's Count change with Deployment's Request change")
def test_podgroup_count_with_deployment_request_change(cluster: Cluster) -> None:
    rep = _more_than_half(cluster, deployment, "d-1", "deployment.k8s.io=d-1")
    pgs = _pg_names(cluster)
    assert len(pgs) == 1, pgs
    old = pgs[0]
    d = plain(cluster.get("Deployment", "d-1"))
    d["spec"]["template"]["spec"]["containers"][0]["resources"] = {"requests": HALF_CPU, "limits": HALF_CPU}
    cluster.apply({"apiVersion": d["apiVersion"], "kind": "Deployment",
                   "metadata": {"name": "d-1"}, "spec": d["spec"]})
    cluster.wait_until(lambda: all(p["spec"]["containers"][0]["resources"]["requests"].get("cpu") == "500m"
                                   for p in cluster.pods("deployment.k8s.io=d-1"))
                       and count_phase(cluster.pods("deployment.k8s.io=d-1"), ("Running",)) == rep,
                       300, "deployment d-1 rolled out with 500m pods")
    cluster.wait_until(lambda: cluster.try_get("PodGroup", old) is None, 60, f"old podgroup {old} deleted")
    assert len(_pg_names(cluster)) == 1, _pg_names(cluster)


def _single_pg_phase_after_k8s_job(cluster: Cluster, manifest: dict[str, object]) -> str:
    cluster.apply(manifest)
    cluster.wait_until(lambda: count_phase(cluster.pods("job-name=job1"), ("Succeeded", "Failed")) >= 1, 300,
                       "a pod of job1 terminated")
    phase: list[str] = []

    def left_running() -> bool:
        pgs = cluster.list("PodGroup")
        assert len(pgs) == 1, cluster.names(pgs)
        phase[:] = [pgs[0].get("status", {}).get("phase", "")]
        return phase[0] != "Running"

    with contextlib.suppress(AssertionError):
        cluster.wait_until(left_running, 30, "podgroup leaves Running")
    return phase[0] if phase else ""


@pytest.mark.podgroup_status
@pytest.mark.upstream(SUITE, "PodGroup's Phase with k8s Job in Completed")
def test_podgroup_phase_k8s_job_completed(cluster: Cluster) -> None:
    assert _single_pg_phase_after_k8s_job(cluster, batch_job("job1", duration="10s")) == "Completed"


@pytest.mark.podgroup_status
@pytest.mark.upstream(SUITE, "PodGroup's Phase should be Completed when Job fails")
def test_podgroup_phase_k8s_job_failed(cluster: Cluster) -> None:
    manifest = batch_job("job1", duration="10s", exit_code=1, backoff_limit=0)
    assert _single_pg_phase_after_k8s_job(cluster, manifest) == "Completed"

