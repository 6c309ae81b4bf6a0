"""Exact pod volumes and PodGroup ``minTaskMember`` the Job controller writes (upstream ``createJobPod``
and ``createOrUpdatePodGroup``)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from volcano.controllers.job.podgroup import min_task_member
from volcano.controllers.job.pods import build_pod

from .conftest import Cluster, job, task

PVC_SPEC = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}


def _claims(cluster: Cluster, *names: str) -> None:
    for name in names:
        cluster.server.create({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                               "metadata": {"name": name, "namespace": "default"}, "spec": PVC_SPEC})


def test_two_claims_give_two_pod_volumes_of_distinct_random_names(cluster: Cluster) -> None:
    """Each distinct claim becomes one pod volume ``<job>-<12 random [0-9a-z]>`` mounted at its path in every
    container; a claim named twice is mounted once (its first path)."""
    _claims(cluster, "pvc-a", "pvc-b")
    name = "two-vols"
    cluster.submit(job(name, [task("task", 2)], volumes=[{"mountPath": "/a", "volumeClaimName": "pvc-a"},
                                                          {"mountPath": "/b", "volumeClaimName": "pvc-b"},
                                                          {"mountPath": "/c", "volumeClaimName": "pvc-a"}]))
    cluster.set_pg_phase(name)
    pods = cluster.pods(name)
    assert sorted(pods) == [f"{name}-task-0", f"{name}-task-1"]
    seen: list[str] = []
    for pod in pods.values():
        volumes = pod["spec"]["volumes"]
        assert [v["persistentVolumeClaim"]["claimName"] for v in volumes] == ["pvc-a", "pvc-b"]
        names = [v["name"] for v in volumes]
        assert all(re.fullmatch(rf"{name}-[0-9a-z]{{12}}", n) for n in names), names
        assert len(set(names)) == 2
        mounts = pod["spec"]["containers"][0]["volumeMounts"]
        assert [(m["name"], m["mountPath"]) for m in mounts] == [(names[0], "/a"), (names[1], "/b")]
        seen += names
    assert len(set(seen)) == 4  # every pod draws its own suffixes


def test_build_pod_without_a_suffix_source_still_gives_distinct_names() -> None:
    spec: dict[str, Any] = {"tasks": [{"name": "t", "template": {"spec": {"containers": [{"name": "c"}]}}}],
                            "volumes": [{"mountPath": "/a", "volumeClaimName": "x"},
                                        {"mountPath": "/b", "volumeClaimName": "y"}]}
    j = {"metadata": {"name": "j", "namespace": "ns", "uid": "u"}, "spec": spec}
    pod = build_pod(j, spec["tasks"][0], 0)
    assert [v["name"] for v in pod["spec"]["volumes"]] == ["j-000000000000", "j-000000000001"]
    assert pod["spec"]["containers"][0]["volumeMounts"] == [{"name": "j-000000000000", "mountPath": "/a"},
                                                            {"name": "j-000000000001", "mountPath": "/b"}]


@pytest.mark.parametrize(("tasks", "expected"), [
    ([{"name": "t"}], {"t": 0}),
    ([{"name": "t", "replicas": 3}], {"t": 3}),
    ([{"name": "t", "replicas": 3, "minAvailable": 0}], {"t": 0}),
    ([{"name": "t", "replicas": 3, "minAvailable": 2}], {"t": 2}),
    ([{"name": "t", "replicas": 9, "partitionPolicy": {"minPartitions": 2, "partitionSize": 3}}], {"t": 6}),
    ([{"name": "t", "replicas": 6, "partitionPolicy": {"minPartitions": 2, "partitionSize": 0}}], {"t": 6}),
    ([{"name": "t", "replicas": 6, "partitionPolicy": {"minPartitions": 0, "partitionSize": 3}}], {"t": 6}),
    ([{"name": "t", "replicas": 6, "minAvailable": 1, "partitionPolicy": {"minPartitions": 2, "partitionSize": 3}}],
     {"t": 1}),
    ([{"name": "a", "replicas": 1}, {"name": "b"}], {"a": 1, "b": 0}),
])
def test_min_task_member(tasks: list[dict[str, Any]], expected: dict[str, int]) -> None:
    assert min_task_member({"spec": {"tasks": tasks}}) == expected
