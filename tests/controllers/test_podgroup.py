"""Tests for the PodGroup controller: PodGroups for plain pods (Volcano's pg-controller)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.controllers.env import ControllerEnv
from volcano.api.quantity import to_milli
from volcano.api.well_known import GROUP_NAME
from volcano.apiserver.faults import inject_stored_object
from volcano.controllers.builtin.replicaset import ReplicaSetController
from volcano.controllers.podgroup import (
    PodGroupController,
    build_podgroup_for_pod,
    pod_quota_usage,
    podgroup_name_for_pod,
    quota_usage_to_k8s,
)


def _pod(name: str = "p", *, scheduler: str | None = "volcano", requests: dict[str, str] | None = None,
         limits: dict[str, str] | None = None, annotations: dict[str, str] | None = None,
         labels: dict[str, str] | None = None, owners: list[dict[str, Any]] | None = None,
         uid: str = "pod-uid", phase: str | None = None, priority_class: str | None = None) -> dict[str, Any]:
    resources: dict[str, Any] = {}
    if requests:
        resources["requests"] = requests
    if limits:
        resources["limits"] = limits
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "nginx", "resources": resources}]}
    if scheduler is not None:
        spec["schedulerName"] = scheduler
    if priority_class:
        spec["priorityClassName"] = priority_class
    meta: dict[str, Any] = {"name": name, "namespace": "default", "uid": uid}
    if annotations:
        meta["annotations"] = annotations
    if labels:
        meta["labels"] = labels
    if owners:
        meta["ownerReferences"] = owners
    pod: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}
    if phase:
        pod["status"] = {"phase": phase}
    return pod


def _milli(resources: dict[str, str]) -> dict[str, int]:
    return {k: to_milli(v) for k, v in resources.items()}


# --- pure functions --------------------------------------------------------------------------


def test_quota_usage_matches_volcano_minresources_keys() -> None:
    # e2e jobp #35: requests = limits = {cpu 1, memory 1000Mi, nvidia.com/gpu 1}.
    res = {"cpu": "1", "memory": "1000Mi", "nvidia.com/gpu": "1"}
    usage = pod_quota_usage(_pod(requests=res, limits=res))
    mem = 1000 * 1024 * 1024 * 1000
    assert usage == {"count/pods": 1000, "pods": 1000, "cpu": 1000, "requests.cpu": 1000, "limits.cpu": 1000,
                     "memory": mem, "requests.memory": mem, "limits.memory": mem,
                     "nvidia.com/gpu": 1000, "requests.nvidia.com/gpu": 1000}


def test_quota_usage_of_a_created_pod_defaults_requests_from_limits() -> None:
    # A created pod went through API defaulting: a limit without a request is also the request.
    usage = pod_quota_usage(_pod(limits={"cpu": "2"}))
    assert usage["limits.cpu"] == usage["cpu"] == usage["requests.cpu"] == 2000
    assert "memory" not in usage and "limits.memory" not in usage


def test_quota_usage_terminal_pod_counts_only_the_object() -> None:
    assert pod_quota_usage(_pod(requests={"cpu": "1"}, phase="Succeeded")) == {"count/pods": 1000}
    assert pod_quota_usage(_pod(requests={"cpu": "1"}, phase="Failed")) == {"count/pods": 1000}


def test_quota_usage_hugepages_and_ephemeral_storage() -> None:
    usage = pod_quota_usage(_pod(requests={"hugepages-2Mi": "4Mi", "ephemeral-storage": "1Gi"},
                                 limits={"hugepages-2Mi": "4Mi", "ephemeral-storage": "2Gi"}))
    assert usage["hugepages-2Mi"] == usage["requests.hugepages-2Mi"] == 4 * 1024 * 1024 * 1000
    assert usage["ephemeral-storage"] == 1024**3 * 1000
    assert usage["limits.ephemeral-storage"] == 2 * 1024**3 * 1000
    assert "limits.hugepages-2Mi" not in usage


def test_quota_usage_to_k8s_round_trips_numerically() -> None:
    usage = {"cpu": 3500, "memory": 2000 * 1024 * 1024 * 1000, "pods": 4000}
    out = quota_usage_to_k8s(usage)
    assert _milli(out) == usage
    assert out["cpu"] == "3500m"


def test_podgroup_name_uses_controller_owner_uid_else_pod_uid() -> None:
    assert podgroup_name_for_pod(_pod(uid="u1")) == "podgroup-u1"
    non_controller = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "rs-uid"}]
    assert podgroup_name_for_pod(_pod(uid="u1", owners=non_controller)) == "podgroup-u1"
    controller = [{**non_controller[0], "controller": True}]
    assert podgroup_name_for_pod(_pod(uid="u1", owners=controller)) == "podgroup-rs-uid"


@pytest.mark.parametrize(("annotation", "expected"), [
    (None, 1), ("3", 3), ("0", 0), ("-1", 1), ("two", 1), ("1.5", 1),
])
def test_min_member_from_owner_annotation(annotation: str | None, expected: int) -> None:
    owner = {} if annotation is None else {"scheduling.volcano.sh/group-min-member": annotation}
    pg = build_podgroup_for_pod(_pod(requests={"cpu": "500m"}), "pg", owner)
    assert pg["spec"]["minMember"] == expected
    if expected:
        assert to_milli(pg["spec"]["minResources"]["cpu"]) == 500 * expected
        assert to_milli(pg["spec"]["minResources"]["count/pods"]) == 1000 * expected
    else:
        assert pg["spec"]["minResources"] == {}


def test_min_member_ignored_without_inheritance() -> None:
    pg = build_podgroup_for_pod(_pod(), "pg", {"scheduling.volcano.sh/group-min-member": "4",
                                               "volcano.sh/x": "y"}, inherit_owner_annotations=False)
    assert pg["spec"]["minMember"] == 1
    assert "annotations" not in pg["metadata"]


def test_build_podgroup_shape() -> None:
    pod = _pod(requests={"cpu": "1"}, priority_class="high", uid="u9",
               annotations={"scheduling.volcano.sh/queue-name": "q1", "volcano.sh/preemptable": "true",
                            "volcano.sh/jdb-min-available": "2", "volcano.sh/jdb-max-unavailable": "1",
                            "volcano.sh/network-topology-mode": "SOFT",
                            "volcano.sh/network-topology-highest-tier": "2", "other": "x"},
               labels={"volcano.sh/cooldown-time": "60s", "app": "a"})
    owner_ann = {"volcano.sh/inherited": "yes", "scheduling.volcano.sh/group-min-member": "1", "foo": "bar"}
    pg = build_podgroup_for_pod(pod, "podgroup-u9", owner_ann)
    assert pg["apiVersion"] == "scheduling.volcano.sh/v1beta1" and pg["kind"] == "PodGroup"
    assert pg["metadata"]["name"] == "podgroup-u9" and pg["metadata"]["namespace"] == "default"
    assert pg["metadata"]["ownerReferences"] == [{"apiVersion": "v1", "kind": "Pod", "name": "p", "uid": "u9",
                                                  "controller": True, "blockOwnerDeletion": True}]
    assert pg["metadata"]["annotations"] == {"volcano.sh/inherited": "yes", "volcano.sh/preemptable": "true",
                                             "volcano.sh/jdb-min-available": "2"}
    assert pg["metadata"]["labels"] == {"volcano.sh/cooldown-time": "60s"}
    assert pg["spec"]["queue"] == "q1"
    assert pg["spec"]["priorityClassName"] == "high"
    assert pg["spec"]["networkTopology"] == {"mode": "soft", "highestTierAllowed": 2}
    assert pg["status"] == {"phase": "Pending"}


def test_build_podgroup_defaults() -> None:
    owners = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "r", "controller": True},
              {"apiVersion": "v1", "kind": "Other", "name": "o", "uid": "o"}]
    pod = _pod(owners=owners, annotations={"volcano.sh/network-topology-mode": "weird",
                                           "volcano.sh/jdb-max-unavailable": "1"})
    pg = build_podgroup_for_pod(pod, "podgroup-r", {})
    assert pg["spec"]["queue"] == "default"
    assert "priorityClassName" not in pg["spec"]
    assert pg["spec"]["networkTopology"] == {"mode": "hard"}
    assert pg["metadata"]["ownerReferences"] == owners  # the pod's own list when it has a controller
    assert pg["metadata"]["annotations"] == {"volcano.sh/jdb-max-unavailable": "1"}


# --- against the API server ------------------------------------------------------------------


class _Env(ControllerEnv):
    def __init__(self, seed: int = 0) -> None:
        super().__init__(PodGroupController, seed=seed)
        self.pg = self.controllers[0]

    def podgroups(self) -> list[dict[str, Any]]:
        return self.items("PodGroup")


def _bare(name: str, **kw: Any) -> dict[str, Any]:
    pod = _pod(name, **kw)
    del pod["metadata"]["uid"]
    return pod


def test_bare_volcano_pod_gets_its_own_podgroup() -> None:
    env = _Env()
    created = env.server.create(_bare("web", requests={"cpu": "500m", "memory": "1Gi"}))
    env.settle()
    uid = created["metadata"]["uid"]
    pg = env.server.get("PodGroup", f"podgroup-{uid}", "default")
    assert pg["spec"]["minMember"] == 1
    assert pg["spec"]["queue"] == "default"
    assert pg["status"]["phase"] == "Pending"
    assert _milli(pg["spec"]["minResources"]) == {"count/pods": 1000, "pods": 1000, "cpu": 500,
                                                  "requests.cpu": 500, "memory": 1024**3 * 1000,
                                                  "requests.memory": 1024**3 * 1000}
    assert pg["metadata"]["ownerReferences"][0]["uid"] == uid
    pod = env.server.get("Pod", "web", "default")
    assert pod["metadata"]["annotations"][GROUP_NAME] == f"podgroup-{uid}"


def test_default_scheduler_pod_gets_no_podgroup() -> None:
    # e2e jobp #51: a workload without schedulerName volcano is not processed.
    env = _Env()
    env.server.create(_bare("plain", scheduler=None))
    env.server.create(_bare("other", scheduler="default-scheduler"))
    env.settle()
    assert env.podgroups() == []
    assert GROUP_NAME not in (env.server.get("Pod", "plain", "default")["metadata"]
                                         .get("annotations") or {})


def test_pod_already_in_a_group_is_left_alone() -> None:
    env = _Env()
    env.server.create(_bare("member", annotations={GROUP_NAME: "mine"}))
    env.settle()
    assert env.podgroups() == []


def test_existing_podgroup_is_reused_and_pod_annotated() -> None:
    env = _Env()
    created = env.server.create(_bare("late"))
    # Race the controller: the PodGroup appears before it runs.
    pg_name = f"podgroup-{created['metadata']['uid']}"
    env.server.create({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
                       "metadata": {"name": pg_name, "namespace": "default"},
                       "spec": {"minMember": 7, "queue": "default"}})
    env.settle()
    assert env.server.get("PodGroup", pg_name, "default")["spec"]["minMember"] == 7
    assert env.server.get("Pod", "late", "default")["metadata"]["annotations"][GROUP_NAME] == pg_name


def _replicaset(name: str, replicas: int, annotations: dict[str, str] | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "default"}
    if annotations:
        meta["annotations"] = annotations
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": meta,
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"schedulerName": "volcano",
                                           "containers": [{"name": "c", "image": "nginx",
                                                           "resources": {"requests": {"cpu": "1"}}}]}}}}


def test_replicaset_pods_share_one_podgroup_sized_by_owner_annotation() -> None:
    # e2e jobp #50 (a volcano workload is processed), with a ReplicaSet standing in for the RC.
    env = _Env()
    ReplicaSetController(env.server, env.informers, env.clock, streams=env.streams, trace=env.trace).start()
    rs = env.server.create(_replicaset("web", 3, {"scheduling.volcano.sh/group-min-member": "2",
                                                  "volcano.sh/team": "a"}))
    env.settle(1000)
    pgs = env.podgroups()
    assert [pg["metadata"]["name"] for pg in pgs] == [f"podgroup-{rs['metadata']['uid']}"]
    pg = pgs[0]
    assert pg["spec"]["minMember"] == 2
    assert to_milli(pg["spec"]["minResources"]["cpu"]) == 2000
    assert pg["metadata"]["annotations"] == {"volcano.sh/team": "a"}
    assert pg["metadata"]["ownerReferences"][0]["kind"] == "ReplicaSet"
    pods = env.server.list("Pod", "default")["items"]
    assert len(pods) == 3
    assert {p["metadata"]["annotations"][GROUP_NAME] for p in pods} == {pg["metadata"]["name"]}


def test_replicaset_scaled_to_zero_deletes_its_podgroup() -> None:
    env = _Env()
    ReplicaSetController(env.server, env.informers, env.clock, streams=env.streams, trace=env.trace).start()
    env.server.create(_replicaset("web", 1))
    env.settle(1000)
    assert len(env.podgroups()) == 1
    env.server.patch("ReplicaSet", "web", {"spec": {"replicas": 0}}, "default")
    env.settle(1000)
    assert env.podgroups() == []
    assert [r.event for r in env.trace.records(component="pg-controller")].count("DeletePodGroup") == 1


def test_malformed_quantity_is_skipped_with_a_trace() -> None:
    env = _Env()
    inject_stored_object(env.server, _bare("bad", requests={"cpu": "lots"}))  # written before validation existed
    env.settle()
    assert env.podgroups() == []
    records = env.trace.records(component="pg-controller", event="InvalidPod")
    assert records and "lots" in records[0].detail
