"""Tests for the minimal core/v1 ReplicationController controller."""

from __future__ import annotations

from typing import Any

from tests.controllers.env import ControllerEnv, assert_made_from_template, given
from volcano.controllers import CONTROLLERS
from volcano.controllers.builtin.replicationcontroller import ReplicationControllerController


class _Env(ControllerEnv):
    def __init__(self, seed: int = 0) -> None:
        super().__init__(ReplicationControllerController, seed=seed)

    def pods(self) -> list[dict[str, Any]]:
        return self.items("Pod")


def _rc(name: str = "rc", replicas: int | None = 2, scheduler: str | None = "volcano") -> dict[str, Any]:
    spec = {"containers": [{"name": "c", "image": "nginx"}], **given(schedulerName=scheduler)}
    rc_spec = {"selector": {"app": name}, **given(replicas=replicas),
               "template": {"metadata": {"labels": {"app": name}}, "spec": spec}}
    return {"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": name, "namespace": "default"},
            "spec": rc_spec}


def test_is_registered_with_the_cluster_controllers() -> None:
    assert (ReplicationControllerController, "replication-controller") in CONTROLLERS


def test_creates_pods_owned_by_the_replication_controller() -> None:
    env = _Env()
    rc, pods = env.make(_rc())
    assert len(pods) == 2
    assert_made_from_template(pods, rc, "v1", "ReplicationController")
    assert all(p["metadata"]["labels"] == {"app": "rc"} for p in pods)
    status = env.server.get("ReplicationController", "rc", "default")["status"]
    assert status["replicas"] == 2 and status["fullyLabeledReplicas"] == 2 and status["readyReplicas"] == 0


def test_default_replicas_is_one_and_finished_pods_are_replaced() -> None:
    env = _Env()
    env.server.create(_rc(replicas=None))
    env.settle()
    (first,) = env.pods()
    env.server.update_status({**first, "status": {"phase": "Failed"}})
    env.settle()
    names = sorted(p["metadata"]["name"] for p in env.pods() if p["status"].get("phase") != "Failed")
    assert len(names) == 1 and names[0] != first["metadata"]["name"]


def test_scale_down_deletes_surplus_and_ignores_replica_set_pods() -> None:
    env = _Env()
    env.server.create(_rc(replicas=3))
    env.server.create({"apiVersion": "apps/v1", "kind": "ReplicaSet",
                       "metadata": {"name": "rs", "namespace": "default"},
                       "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "rs"}},
                                "template": {"metadata": {"labels": {"app": "rs"}},
                                             "spec": {"containers": [{"name": "c", "image": "x"}]}}}})
    env.settle()
    assert len(env.pods()) == 3  # no ReplicaSet controller runs: its pods are not ours to make
    env.server.patch("ReplicationController", "rc", {"spec": {"replicas": 1}}, "default")
    env.settle()
    assert len(env.pods()) == 1
    assert env.server.get("ReplicationController", "rc", "default")["status"]["replicas"] == 1


def test_same_seed_same_pod_names() -> None:
    names = []
    for _ in range(2):
        env = _Env(seed=5)
        env.server.create(_rc(replicas=3))
        env.settle()
        names.append(sorted(p["metadata"]["name"] for p in env.pods()))
    assert names[0] == names[1]
