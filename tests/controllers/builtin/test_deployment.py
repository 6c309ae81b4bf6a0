"""Tests for the minimal apps/v1 Deployment controller (with the ReplicaSet and PodGroup controllers)."""

from __future__ import annotations

from typing import Any

from tests.controllers.env import ControllerEnv
from volcano.api.quantity import to_milli
from volcano.controllers.builtin.deployment import POD_TEMPLATE_HASH_LABEL, DeploymentController, pod_template_hash
from volcano.controllers.builtin.replicaset import ReplicaSetController
from volcano.controllers.podgroup import PodGroupController


class _Env(ControllerEnv):
    def __init__(self) -> None:
        super().__init__(DeploymentController, ReplicaSetController, PodGroupController)


def _deployment(replicas: int = 2, image: str = "nginx", annotations: dict[str, str] | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": "web", "namespace": "default"}
    if annotations:
        meta["annotations"] = annotations
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta,
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}},
                     "template": {"metadata": {"labels": {"app": "web"}},
                                  "spec": {"schedulerName": "volcano",
                                           "containers": [{"name": "c", "image": image,
                                                           "resources": {"requests": {"cpu": "250m"}}}]}}}}


def test_template_hash_is_stable_and_template_sensitive() -> None:
    t1 = _deployment()["spec"]["template"]
    t2 = _deployment(image="busybox")["spec"]["template"]
    assert pod_template_hash(t1) == pod_template_hash(dict(reversed(list(t1.items()))))
    assert pod_template_hash(t1) != pod_template_hash(t2)
    assert pod_template_hash(t1) != pod_template_hash(t1, collision_count=1)
    assert set(pod_template_hash(t1)) <= set("bcdfghjklmnpqrstvwxz2456789")


def test_one_replicaset_with_hash_and_pods_with_a_shared_podgroup() -> None:
    env = _Env()
    dep = env.server.create(_deployment(annotations={"scheduling.volcano.sh/group-min-member": "2"}))
    env.settle(1000)
    rss = env.items("ReplicaSet")
    assert len(rss) == 1
    rs = rss[0]
    template_hash = pod_template_hash(dep["spec"]["template"])
    assert rs["metadata"]["name"] == f"web-{template_hash}"
    assert rs["metadata"]["ownerReferences"][0]["uid"] == dep["metadata"]["uid"]
    assert rs["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "1"
    assert rs["spec"]["selector"]["matchLabels"] == {"app": "web", POD_TEMPLATE_HASH_LABEL: template_hash}
    pods = env.items("Pod")
    assert len(pods) == 2
    assert all(p["metadata"]["labels"][POD_TEMPLATE_HASH_LABEL] == template_hash for p in pods)
    pgs = env.items("PodGroup")
    assert [pg["metadata"]["name"] for pg in pgs] == [f"podgroup-{rs['metadata']['uid']}"]
    assert pgs[0]["spec"]["minMember"] == 2  # the Deployment's annotation reached the ReplicaSet
    assert to_milli(pgs[0]["spec"]["minResources"]["cpu"]) == 500
    status = env.server.get("Deployment", "web", "default")["status"]
    assert status["replicas"] == 2 and status["updatedReplicas"] == 2 and status["unavailableReplicas"] == 2


def test_scaling_the_deployment_scales_its_replicaset() -> None:
    env = _Env()
    env.server.create(_deployment(replicas=1))
    env.settle()
    env.server.patch("Deployment", "web", {"spec": {"replicas": 4}}, "default")
    env.settle()
    assert env.items("ReplicaSet")[0]["spec"]["replicas"] == 4
    assert len(env.items("Pod")) == 4
    env.server.patch("Deployment", "web", {"spec": {"replicas": 0}}, "default")
    env.settle()
    assert env.items("Pod") == []


def test_template_change_makes_a_new_replicaset_and_scales_the_old_to_zero() -> None:
    env = _Env()
    env.server.create(_deployment(replicas=2))
    env.settle()
    old = env.items("ReplicaSet")[0]["metadata"]["name"]
    env.server.patch("Deployment", "web", {"spec": {"template": {"spec": {"containers": [
        {"name": "c", "image": "busybox"}]}}}}, "default")
    env.settle()
    rss = {rs["metadata"]["name"]: rs for rs in env.items("ReplicaSet")}
    assert len(rss) == 2
    assert rss[old]["spec"]["replicas"] == 0
    new = next(name for name in rss if name != old)
    assert rss[new]["spec"]["replicas"] == 2
    assert rss[new]["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "2"
    pods = env.items("Pod")
    assert len(pods) == 2
    assert {p["spec"]["containers"][0]["image"] for p in pods} == {"busybox"}


def test_schedulingbase_12_podgroup_follows_deployment_request_change() -> None:
    # e2e schedulingbase #12: changing the template's requests replaces the PodGroup; one remains.
    env = _Env()
    env.server.create(_deployment(replicas=2))
    env.settle(1000)
    old_pg = env.items("PodGroup")[0]["metadata"]["name"]
    env.server.patch("Deployment", "web", {"spec": {"template": {"spec": {"containers": [
        {"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "500m"}}}]}}}}, "default")
    env.settle(60_000)
    pgs = env.items("PodGroup")
    assert len(pgs) == 1
    assert pgs[0]["metadata"]["name"] != old_pg
    assert to_milli(pgs[0]["spec"]["minResources"]["cpu"]) == 500
