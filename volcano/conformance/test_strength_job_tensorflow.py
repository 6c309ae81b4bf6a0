"""The ``tensorflow`` job plugin's ``TF_CONFIG`` (controllers reference §4.5).

Every container of every pod gets ``TF_CONFIG``: the cluster, role by role, as one
``<host>.<subdomain>:<port>`` per replica (``<job>-<task>-<i>.<job>`` unless the task's template
names a hostname or subdomain), and the pod's own role and index. A job of one task with one
replica is stand-alone and gets none; one task of more replicas is a cluster of its own.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import Task, job

pytestmark = pytest.mark.job_plugins
Obj = dict[str, Any]
NO_REQUESTS: dict[str, str] = {}


def _tf_config(cluster: Cluster, pod_name: str) -> Obj | None:
    """The pod's containers' ``TF_CONFIG``, parsed (None when it has none); every container holds the same."""
    values = {e.get("value") for c in cluster.get("Pod", pod_name)["spec"]["containers"]
              for e in c.get("env") or [] if e["name"] == "TF_CONFIG"}
    assert len(values) <= 1, values
    return json.loads(values.pop()) if values else None


def _created(cluster: Cluster, name: str, n: int) -> None:
    cluster.wait_until(lambda: len(cluster.job_pods(name)) == n, 60, f"{n} pods of {name} created")


def test_tf_config_lists_every_replica_and_honours_a_template_hostname(cluster: Cluster) -> None:
    """``ps`` (1 replica, template hostname ``param-server``) and ``worker`` (2): the ps host is
    ``param-server.tf``, the workers ``tf-worker-<i>.tf``; each pod names its own role and index."""
    name = "tf"
    manifest = job(name, [Task(name="ps", rep=1, req=NO_REQUESTS), Task(name="worker", rep=2, req=NO_REQUESTS)],
                   min=1, plugins={"tensorflow": ["--ps=ps", "--worker=worker"]})
    manifest["spec"]["tasks"][0]["template"]["spec"]["hostname"] = "param-server"
    cluster.apply(manifest)
    _created(cluster, name, 3)
    hosts = {"ps": ["param-server.tf:2222"], "worker": ["tf-worker-0.tf:2222", "tf-worker-1.tf:2222"]}
    for pod_name, role, index in (("tf-ps-0", "ps", 0), ("tf-worker-0", "worker", 0), ("tf-worker-1", "worker", 1)):
        assert _tf_config(cluster, pod_name) == {"cluster": hosts, "task": {"type": role, "index": index}}, pod_name


@pytest.mark.parametrize(("replicas", "configured"), [(2, True), (1, False)])
def test_one_task_gets_tf_config_unless_it_has_one_replica(cluster: Cluster, replicas: int, configured: bool) -> None:
    """A job of one ``worker`` task: with 2 replicas each pod is told the two workers and its index; with
    one replica the job is stand-alone and its pod gets no ``TF_CONFIG``."""
    name = "tfsolo"
    cluster.apply(job(name, [Task(name="worker", rep=replicas, req=NO_REQUESTS)], min=1,
                      plugins={"tensorflow": ["--worker=worker"]}))
    _created(cluster, name, replicas)
    hosts = [f"tfsolo-worker-{i}.tfsolo:2222" for i in range(replicas)]
    for i in range(replicas):
        want = {"cluster": {"worker": hosts}, "task": {"type": "worker", "index": i}} if configured else None
        assert _tf_config(cluster, f"tfsolo-worker-{i}") == want
