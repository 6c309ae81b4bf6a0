"""Helpers for writing conformance cases: object builders, waits, sizing, and the cluster interface.

Install with ``pip install 'volcano[conformance]'``. A case receives a ``Cluster`` (the suite's
``cluster`` fixture, or one you make) and uses only Kubernetes objects, so it runs on the
in-memory cluster and on a real one alike. Builders return manifests
(``job``, ``Task``, ``pod``, ``pod_group``, ``queue``, ``priority_class``, ``deployment``,
``replica_set``, ``batch_job``); waits take the cluster and raise ``ConditionNotMet``
(an ``AssertionError``) naming what they waited for:

>>> from volcano.conformance.backends.memory import MemoryCluster
>>> from volcano.conformance.lib import (ClusterShape, Task, cluster_size, job, pod_group_of, wait_job_phase,
...                                     wait_tasks_ready)
>>> cluster = MemoryCluster(ClusterShape(workers=2))
>>> cluster_size(cluster, {"cpu": "1"})  # one-CPU pods that fit on the untainted nodes
8
>>> _ = cluster.apply(job("demo", [Task(rep=2, duration="30s")]))
>>> wait_tasks_ready(cluster, "demo", 2, timeout=60)
>>> pod_group_of(cluster, "demo")["status"]["phase"]
'Running'
>>> wait_job_phase(cluster, "demo", "Completed", timeout=120)
>>> wait_job_phase(cluster, "demo", "Aborted", timeout=5)
Traceback (most recent call last):
...
volcano.conformance.backends.base.ConditionNotMet: timed out after 5s waiting for 'job demo phase Aborted'
>>> cluster.close()

Against a real cluster, ``volcano.conformance.backends.kube.KubeCluster(ClusterShape(),
kubeconfig=PATH)`` plays the same part.
"""

from volcano.conformance.backends.base import Cluster, ClusterShape, ConditionNotMet, NodeShape
from volcano.conformance.lib.builders import (
    BUSYBOX,
    NGINX,
    Task,
    batch_job,
    deployment,
    job,
    pod,
    pod_group,
    priority_class,
    queue,
    replica_set,
)
from volcano.conformance.lib.sizing import cluster_node_number, cluster_size, compute_node, idle_by_node
from volcano.conformance.lib.waits import (
    READY_PHASES,
    bound,
    count_phase,
    hold_unbound,
    job_phase,
    pg_name,
    pod_group_of,
    pods_unbound,
    wait_job_gone,
    wait_job_phase,
    wait_job_phases,
    wait_job_unschedulable,
    wait_pg_phase,
    wait_pods_gone,
    wait_task_phase,
    wait_tasks_ready,
)

__all__ = [
    "BUSYBOX",
    "NGINX",
    "READY_PHASES",
    "Cluster",
    "ClusterShape",
    "ConditionNotMet",
    "NodeShape",
    "Task",
    "batch_job",
    "bound",
    "cluster_node_number",
    "cluster_size",
    "compute_node",
    "count_phase",
    "deployment",
    "hold_unbound",
    "idle_by_node",
    "job",
    "job_phase",
    "pg_name",
    "pod",
    "pod_group",
    "pod_group_of",
    "pods_unbound",
    "priority_class",
    "queue",
    "replica_set",
    "wait_job_gone",
    "wait_job_phase",
    "wait_job_phases",
    "wait_job_unschedulable",
    "wait_pg_phase",
    "wait_pods_gone",
    "wait_task_phase",
    "wait_tasks_ready",
]
