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

# The package re-exports its submodules' names, as asyncio's ``__init__`` does: each submodule's
# ``__all__`` is the one list of what it exports.
from volcano.conformance.backends.base import Cluster, ClusterShape, ConditionNotMet, MetricSample, NodeShape
from volcano.conformance.lib import builders, metrics, sizing, waits
from volcano.conformance.lib.builders import *  # noqa: F403
from volcano.conformance.lib.metrics import *  # noqa: F403
from volcano.conformance.lib.sizing import *  # noqa: F403
from volcano.conformance.lib.waits import *  # noqa: F403

__all__ = ["Cluster", "ClusterShape", "ConditionNotMet", "MetricSample", "NodeShape"]
__all__ += builders.__all__
__all__ += metrics.__all__
__all__ += sizing.__all__
__all__ += waits.__all__
