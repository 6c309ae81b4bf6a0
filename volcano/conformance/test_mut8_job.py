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
from volcano.conformance.lib.builders import Task, job, job_command

__all__: list[str] = []

Obj = dict[str, Any]
PVC_SPEC = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}


def test_two_claims_mount_as_two_distinctly_named_volumes(cluster: Cluster) -> None:
    name = "mut8-vols"
    for claim in ("mut8-a", "mut8-b"):
        cluster.apply({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": claim},
                       "spec": PVC_SPEC})
    spec = job(name, [Task(name="task", rep=2, req={"cpu": "10m"})])
    spec["spec"]["volumes"] = [{"mountPath": "/a", "volumeClaimName": "mut8-a"},
                               {"mountPath": "/b", "volumeClaimName": "mut8-b"}]
    cluster.apply(spec)
    cluster.wait_until(lambda: len(cluster.job_pods(name)) == 2, 120, f"pods of {name} created")
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
    assert len(set(names)) == 4, names  # drawn afresh for every volume of every pod


def test_a_command_is_announced_in_two_normal_events(cluster: Cluster) -> None:
    """A ``Command`` (AbortJob) is consumed with a Normal ``CommandIssued`` Event on the Job, then the action
    runs with a Normal ``ExecuteAction`` Event (upstream's text ends in a space)."""
    name = "mut8-cmd"
    cluster.apply(job(name, [Task(name="task", rep=1, req={"cpu": "10m"})]))
    cluster.wait_until(lambda: bool(cluster.job_pods(name)), 120, f"a pod of {name}")
    cluster.apply(job_command(cluster.get("Job", name), "AbortJob"))

    def seen() -> set[tuple[str, str, str]]:
        return {(str(e.get("type")), str(e.get("reason")), str(e.get("message")))
                for e in cluster.events(kind="Job", name=name)}

    wanted = {("Normal", "CommandIssued",
               "Start to execute command AbortJob, and clean it up to make sure executed not more than once."),
              ("Normal", "ExecuteAction", "Start to execute action AbortJob ")}
    cluster.wait_until(lambda: wanted <= seen(), 60, f"command events on {name}")
