"""PodGroup construction and minResources (reference §2.5, §2.5.1)."""

from __future__ import annotations

from typing import Any

from volcano.controllers.job.podgroup import (
    build_podgroup,
    min_resources,
    min_task_member,
    pod_quota_usage,
    podgroup_spec_update,
)


def t(name: str, replicas: int, cpu: str, *, min_available: int | None = None, pc: str = "",
      **res: str) -> dict[str, Any]:
    requests = {"cpu": cpu, **res}
    spec: dict[str, Any] = {"containers": [{"name": "c", "resources": {"requests": requests}}]}
    if pc:
        spec["priorityClassName"] = pc
    out: dict[str, Any] = {"name": name, "replicas": replicas, "template": {"spec": spec}}
    if min_available is not None:
        out["minAvailable"] = min_available
    return out


def mkjob(tasks: list[dict[str, Any]], min_available: int, **spec: Any) -> dict[str, Any]:
    return {"metadata": {"name": "j", "namespace": "ns", "uid": "U", "labels": {"a": "b"},
                         "annotations": {"x": "y"}},
            "spec": {"minAvailable": min_available, "queue": "q", "tasks": tasks, **spec}}


def test_quota_usage_keys() -> None:
    pod = {"spec": {"containers": [{"name": "c", "resources": {
        "requests": {"cpu": "1", "memory": "1Gi", "ephemeral-storage": "1Gi", "hugepages-2Mi": "2Mi",
                     "nvidia.com/gpu": "1"},
        "limits": {"cpu": "2", "memory": "1Gi", "nvidia.com/gpu": "1"}}}]}}
    usage = pod_quota_usage(pod)
    assert sorted(usage) == sorted([
        "count/pods", "pods", "cpu", "requests.cpu", "limits.cpu", "memory", "requests.memory", "limits.memory",
        "ephemeral-storage", "requests.ephemeral-storage", "hugepages-2Mi", "requests.hugepages-2Mi",
        "nvidia.com/gpu", "requests.nvidia.com/gpu"])
    assert usage["limits.cpu"] == 2000 and usage["cpu"] == 1000


def test_min_available_below_task_total_takes_first_pods_by_priority() -> None:
    prio = {"high": 100, "low": -50}.get
    job = mkjob([t("low", 3, "1", pc="low"), t("high", 2, "2", pc="high")], min_available=3)
    res = min_resources(job, lambda n: prio(n) or 0)
    # high first: 2 x 2 cpu, then 1 x 1 cpu
    assert res["cpu"] == "5" and res["count/pods"] == "3"


def test_min_available_covering_tasks_then_spare_replicas() -> None:
    job = mkjob([t("a", 3, "1", min_available=1), t("b", 2, "2", min_available=1)], min_available=2)
    assert min_resources(job)["cpu"] == "3"
    # minAvailable larger than the tasks' minimums: fill with spare replicas, task order on equal priority.
    job = mkjob([t("a", 3, "1", min_available=1), t("b", 2, "2", min_available=1)], min_available=4)
    assert min_resources(job)["cpu"] == "5"  # 1 + 2 (minimums) + 2 x 1 (spare a replicas)


def test_binary_memory_keeps_binary_form() -> None:
    job = mkjob([t("a", 2, "500m", memory="100Mi")], min_available=2)
    res = min_resources(job)
    assert res == {"count/pods": "2", "pods": "2", "cpu": "1", "requests.cpu": "1", "memory": "200Mi",
                   "requests.memory": "200Mi"}
    job = mkjob([t("a", 2, "500m", memory="1G")], min_available=2)
    assert min_resources(job)["memory"] == "2G"


def test_min_task_member_fallbacks() -> None:
    job = mkjob([t("a", 3, "1", min_available=2), t("b", 4, "1"),
                 {**t("c", 8, "1"), "partitionPolicy": {"totalPartitions": 4, "partitionSize": 2,
                                                       "minPartitions": 3}}], min_available=2)
    assert min_task_member(job) == {"a": 2, "b": 4, "c": 6}


def test_build_podgroup_shape() -> None:
    job = mkjob([t("a", 1, "1", min_available=1)], min_available=1, priorityClassName="high",
                networkTopology={"mode": "soft", "highestTierAllowed": 2})
    pg = build_podgroup(job)
    assert pg["metadata"] == {"name": "j-U", "namespace": "ns", "labels": {"a": "b"}, "annotations": {"x": "y"},
                              "ownerReferences": [{"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
                                                   "name": "j", "uid": "U", "controller": True,
                                                   "blockOwnerDeletion": True}]}
    assert pg["spec"]["priorityClassName"] == "high" and pg["spec"]["queue"] == "q"
    assert pg["spec"]["networkTopology"] == {"mode": "soft", "highestTierAllowed": 2}
    assert "status" not in pg


def test_partition_sub_group_policy() -> None:
    task = {**t("c", 4, "1"), "partitionPolicy": {"totalPartitions": 2, "partitionSize": 2, "minPartitions": 1}}
    pg = build_podgroup(mkjob([task], min_available=2))
    assert pg["spec"]["subGroupPolicy"] == [{
        "name": "c", "subGroupSize": 2, "minSubGroups": 1,
        "labelSelector": {"matchLabels": {"volcano.sh/task-spec": "c"}},
        "matchLabelKeys": ["volcano.sh/partition-id"]}]


def test_spec_update_only_when_synced_fields_differ() -> None:
    job = mkjob([t("a", 2, "1")], min_available=2)
    pg = build_podgroup(job)
    assert podgroup_spec_update(pg, job) is None
    job["spec"]["tasks"][0]["replicas"] = 4
    job["spec"]["minAvailable"] = 4
    job["spec"]["queue"] = "other"
    new = podgroup_spec_update(pg, job)
    assert new is not None
    assert new["minMember"] == 4 and new["minTaskMember"] == {"a": 4} and new["minResources"]["cpu"] == "4"
    assert new["queue"] == "q"  # never updated
    # minTaskMember entries are never removed
    pg["spec"]["minTaskMember"]["gone"] = 1
    new = podgroup_spec_update(pg, job)
    assert new is not None and new["minTaskMember"]["gone"] == 1


def test_limits_without_requests_give_limits_keys_only() -> None:
    """Reference §2.5.1: the template is not API-defaulted, so no cpu/requests.cpu key."""
    from volcano.controllers.job.podgroup import pod_quota_usage

    pod = {"spec": {"containers": [{"name": "c", "resources": {"limits": {"cpu": "2"}}}]}}
    usage = pod_quota_usage(pod)
    assert usage["limits.cpu"] == 2000
    assert "cpu" not in usage and "requests.cpu" not in usage
