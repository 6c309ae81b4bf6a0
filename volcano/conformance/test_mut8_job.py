"""Job controller conformance: a Job's volumes in its pods (upstream ``createJobPod``).

Each distinct claim of ``spec.volumes`` becomes one pod volume named ``<job>-<12 random characters>``
(``GenRandomStr(12)``: lower-case letters and digits), drawn afresh for every volume of every pod, and is
mounted at its path in every container. Two volumes therefore never share a name: a pod with two volumes of
one name would be refused by the API server and the job would get no pods.
"""

from __future__ import annotations

import re
from typing import Any

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import Task, job

__all__: list[str] = []

Obj = dict[str, Any]
PVC_SPEC = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}


def test_two_claims_mount_as_two_distinctly_named_volumes(cluster: Cluster) -> None:
    name = "mut8-vols"
    for claim in ("mut8-a", "mut8-b"):
        cluster.apply({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": claim},
                       "spec": PVC_SPEC})
    spec = job(name, [Task(name="task", rep=1, req={"cpu": "10m"})])
    spec["spec"]["volumes"] = [{"mountPath": "/a", "volumeClaimName": "mut8-a"},
                               {"mountPath": "/b", "volumeClaimName": "mut8-b"}]
    cluster.apply(spec)
    cluster.wait_until(lambda: len(cluster.job_pods(name)) == 1, 120, f"pods of {name} created")
    names: list[str] = []
    for pod in cluster.job_pods(name):
        volumes = [v for v in pod["spec"].get("volumes") or [] if v.get("persistentVolumeClaim")]
        assert [v["persistentVolumeClaim"]["claimName"] for v in volumes] == ["mut8-a", "mut8-b"]
        pod_names = [v["name"] for v in volumes]
        assert all(re.fullmatch(rf"{name}-[0-9a-z]{{12}}", n) for n in pod_names), pod_names
        assert len(set(pod_names)) == 2, pod_names
        for container in pod["spec"]["containers"]:
            mounts = [(m["name"], m["mountPath"]) for m in container.get("volumeMounts") or []
                      if m["name"] in pod_names]
            assert mounts == [(pod_names[0], "/a"), (pod_names[1], "/b")]
        names += pod_names
    assert len(set(names)) == 2, names
