"""Tests for the minimal apps/v1 ReplicaSet controller."""

from __future__ import annotations

from typing import Any

from tests.controllers.env import ControllerEnv, assert_made_from_template, given
from volcano.controllers.builtin.replicaset import ReplicaSetController


class _Env(ControllerEnv):
    def __init__(self, seed: int = 0) -> None:
        super().__init__(ReplicaSetController, seed=seed)

    def pods(self) -> list[dict[str, Any]]:
        return self.items("Pod")

    def set_pod_phase(self, name: str, phase: str) -> None:
        self.set_phase("Pod", name, phase)


def _rs(name: str = "web", replicas: int | None = 3, scheduler: str | None = "volcano") -> dict[str, Any]:
    spec = {"containers": [{"name": "c", "image": "nginx"}], **given(schedulerName=scheduler)}
    rs_spec = {"selector": {"matchLabels": {"app": name}}, **given(replicas=replicas),
               "template": {"metadata": {"labels": {"app": name}, "annotations": {"a": "b"}}, "spec": spec}}
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": name, "namespace": "default"},
            "spec": rs_spec}


def test_creates_replicas_from_template_with_owner_reference() -> None:
    env = _Env()
    rs, pods = env.make(_rs())
    assert len(pods) == 3
    assert_made_from_template(pods, rs, "apps/v1", "ReplicaSet")
    assert all(p["metadata"]["labels"] == {"app": "web"} and p["metadata"]["annotations"] == {"a": "b"} for p in pods)
    status = env.server.get("ReplicaSet", "web", "default")["status"]
    assert status["replicas"] == 3 and status["readyReplicas"] == 0


def test_default_replicas_is_one_and_no_duplicates_across_many_syncs() -> None:
    env = _Env()
    env.server.create(_rs(replicas=None))
    for _ in range(5):
        env.server.patch("ReplicaSet", "web", {"metadata": {"labels": {"touch": str(env.clock.now_ms)}}},
                         "default")
        env.settle(1)
    env.settle()
    assert len(env.pods()) == 1


def test_scale_up_and_down() -> None:
    env = _Env()
    env.server.create(_rs(replicas=2))
    env.settle()
    env.set_pod_phase(env.pods()[0]["metadata"]["name"], "Running")
    env.server.patch("ReplicaSet", "web", {"spec": {"replicas": 5}}, "default")
    env.settle()
    assert len(env.pods()) == 5
    running = [p["metadata"]["name"] for p in env.pods() if p["status"].get("phase") == "Running"]
    env.server.patch("ReplicaSet", "web", {"spec": {"replicas": 1}}, "default")
    env.settle()
    remaining = [p["metadata"]["name"] for p in env.pods()]
    assert remaining == running  # Pending pods go before Running ones
    assert env.server.get("ReplicaSet", "web", "default")["status"]["replicas"] == 1


def test_finished_pods_are_replaced_and_ready_counted() -> None:
    env = _Env()
    env.server.create(_rs(replicas=2))
    env.settle()
    first, second = (p["metadata"]["name"] for p in env.pods())
    env.set_pod_phase(first, "Failed")
    env.set_pod_phase(second, "Running")
    env.settle()
    pods = env.pods()
    assert len(pods) == 3
    active = [p for p in pods if p["status"].get("phase") != "Failed"]
    assert len(active) == 2
    status = env.server.get("ReplicaSet", "web", "default")["status"]
    assert status["replicas"] == 2 and status["readyReplicas"] == 1 and status["availableReplicas"] == 1


def test_names_are_deterministic_for_a_seed() -> None:
    def names(seed: int) -> list[str]:
        env = _Env(seed)
        env.server.create(_rs(replicas=4))
        env.settle()
        return sorted(p["metadata"]["name"] for p in env.pods())

    assert names(7) == names(7)
    assert names(7) != names(8)


def test_pods_of_other_owners_are_ignored() -> None:
    env = _Env()
    env.server.create({"apiVersion": "v1", "kind": "Pod",
                       "metadata": {"name": "stray", "namespace": "default", "labels": {"app": "web"}},
                       "spec": {"containers": [{"name": "c", "image": "nginx"}]}})
    env.server.create(_rs(replicas=1))
    env.settle()
    assert len(env.pods()) == 2  # no adoption: the stray pod is neither counted nor deleted


def test_same_seed_same_trace() -> None:
    def run() -> list[str]:
        env = _Env(3)
        env.server.create(_rs(replicas=3))
        env.settle()
        env.set_pod_phase(env.pods()[1]["metadata"]["name"], "Failed")
        env.settle()
        env.server.patch("ReplicaSet", "web", {"spec": {"replicas": 2}}, "default")
        env.settle()
        return [line for line in env.trace.lines() if "replicaset-controller" in line]

    first = run()
    assert first == run()
    assert any("DeletePod" in line for line in first) and any("CreatePod" in line for line in first)


def test_a_pod_created_and_gone_before_the_next_sync_is_replaced() -> None:
    # The watch reports the new pod ADDED and then DELETED before the ReplicaSet syncs again:
    # the creation it was waiting for has been seen, so it must not wait for it any longer.
    env = _Env()
    env.server.create(_rs(replicas=1))
    while not env.pods():
        assert env.clock.step()
    (first,) = env.pods()
    env.server.delete("Pod", first["metadata"]["name"], "default")
    env.settle()
    (replacement,) = env.pods()
    assert replacement["metadata"]["name"] != first["metadata"]["name"]
