"""pods/binding, pods/eviction, graceful pod deletion and the admission chain."""

from __future__ import annotations

import pytest

from volcano.api.frozen import thaw
from volcano.apiserver import AdmissionRequest, ApiError, ApiServer
from volcano.apiserver.errors import forbidden
from volcano.sim import SimClock

from .conftest import pod

CONTAINERS = [{"name": "c", "image": "busybox"}]


def test_bind_sets_node_name_and_pod_scheduled_only(server: ApiServer) -> None:
    """As kube-apiserver's BindingREST: spec.nodeName and a PodScheduled=True condition, nothing else."""
    before = server.create(pod("p"))
    server.bind("p", "default", "node-1")
    after = server.get("Pod", "p")
    assert after["spec"]["nodeName"] == "node-1"
    expected = thaw(before)
    expected["spec"]["nodeName"] = "node-1"
    expected["metadata"]["resourceVersion"] = after["metadata"]["resourceVersion"]
    expected["status"]["conditions"] = [{"type": "PodScheduled", "status": "True", "lastProbeTime": None,
                                         "lastTransitionTime": server.timestamp()}]
    assert after == expected


def test_bind_replaces_a_pod_scheduled_condition(server: ApiServer, clock: SimClock) -> None:
    """A False PodScheduled condition (the scheduler's) is replaced whole, at the binding's time; a True one
    keeps its transition time."""
    server.create(pod("p"))
    server.patch("Pod", "p", {"status": {"conditions": [
        {"type": "Ready", "status": "False"},
        {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": "no room",
         "lastTransitionTime": server.timestamp()}]}}, "default", subresource="status")
    clock.run(clock.now_ms + 5000)
    server.bind("p", "default", "node-1")
    conditions = server.get("Pod", "p")["status"]["conditions"]
    assert conditions == [{"type": "Ready", "status": "False"},
                          {"type": "PodScheduled", "status": "True", "lastProbeTime": None,
                           "lastTransitionTime": server.timestamp()}]
    server.create(pod("q"))
    early = server.timestamp()
    server.patch("Pod", "q", {"status": {"conditions": [{"type": "PodScheduled", "status": "True",
                                                          "lastTransitionTime": early}]}},
                 "default", subresource="status")
    clock.run(clock.now_ms + 5000)
    server.bind("q", "default", "node-1")
    assert server.get("Pod", "q")["status"]["conditions"] == [
        {"type": "PodScheduled", "status": "True", "lastProbeTime": None, "lastTransitionTime": early}]


def test_bind_conflicts(server: ApiServer) -> None:
    server.create(pod("p"))
    server.bind("p", "default", "node-1")
    with pytest.raises(ApiError) as err:
        server.bind("p", "default", "node-2")
    assert err.value.code == 409 and "pod p is already assigned to node" in err.value.message
    assert "node-1" in err.value.message
    with pytest.raises(ApiError) as err:
        server.bind("ghost", "default", "node-1")
    assert err.value.code == 404


def test_unbound_pod_delete_is_immediate(server: ApiServer) -> None:
    server.create(pod("p"))
    assert server.delete("Pod", "p") is None
    with pytest.raises(ApiError):
        server.get("Pod", "p")


def test_bound_pod_delete_is_graceful(server: ApiServer, clock: SimClock) -> None:
    server.create({**pod("p"), "spec": {"containers": CONTAINERS, "terminationGracePeriodSeconds": 10}})
    server.bind("p", "default", "n")
    clock.run(until_ms=5_000)
    out = server.delete("Pod", "p")
    assert out is not None
    assert out["metadata"]["deletionGracePeriodSeconds"] == 10
    assert out["metadata"]["deletionTimestamp"] == "2024-01-01T00:00:15Z"
    assert out["metadata"]["generation"] == 2
    # Deleting again does not extend anything; the kubelet's grace-0 delete removes it.
    assert server.delete("Pod", "p") is out
    assert server.delete("Pod", "p", grace_period_seconds=0) is None
    assert server.list("Pod")["items"] == []


def test_default_grace_and_terminated_pods(server: ApiServer) -> None:
    server.create(pod("a"))
    server.bind("a", "default", "n")
    out = server.delete("Pod", "a")
    assert out is not None and out["metadata"]["deletionGracePeriodSeconds"] == 30
    server.create(pod("b"))
    server.bind("b", "default", "n")
    server.patch("Pod", "b", {"status": {"phase": "Succeeded"}}, subresource="status")
    assert server.delete("Pod", "b") is None
    server.create(pod("c"))
    server.bind("c", "default", "n")
    out = server.delete("Pod", "c", grace_period_seconds=5)
    assert out is not None and out["metadata"]["deletionGracePeriodSeconds"] == 5


def test_bind_of_terminating_pod_conflicts(server: ApiServer) -> None:
    server.create({**pod("p"), "metadata": {"name": "p", "finalizers": ["x/y"]}})
    server.delete("Pod", "p")
    with pytest.raises(ApiError) as err:
        server.bind("p", "default", "n")
    assert err.value.code == 409


def test_evict_is_graceful_delete(server: ApiServer) -> None:
    server.create({**pod("p"), "spec": {"containers": CONTAINERS, "terminationGracePeriodSeconds": 7}})
    server.bind("p", "default", "n")
    server.evict("p", "default")
    assert server.get("Pod", "p")["metadata"]["deletionGracePeriodSeconds"] == 7
    server.create(pod("q"))
    server.evict("q", "default")
    with pytest.raises(ApiError):
        server.get("Pod", "q")


def test_admission_order_and_mutation(server: ApiServer) -> None:
    calls: list[str] = []

    def add_label(req: AdmissionRequest) -> None:
        calls.append(f"m1:{req.operation}")
        req.obj["metadata"].setdefault("labels", {})["mutated"] = "yes"

    def second(req: AdmissionRequest) -> None:
        calls.append("m2")
        if req.kind.key == "Pod":
            assert req.obj["metadata"]["labels"]["mutated"] == "yes"

    def validate(req: AdmissionRequest) -> None:
        calls.append(f"v:{req.kind.key}:{req.old is not None}")

    server.admission.register_validating("Pod", ("CREATE", "UPDATE"), validate, "v")
    server.admission.register_mutating("Pod", ("CREATE",), add_label, "m1")
    server.admission.register_mutating("*", ("CREATE",), second, "m2")
    out = server.create(pod("p"))
    assert out["metadata"]["labels"] == {"mutated": "yes"}
    assert calls == ["m1:CREATE", "m2", "v:Pod:False"]
    calls.clear()
    server.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}})
    assert calls == ["m2"]
    calls.clear()
    server.patch("Pod", "p", {"metadata": {"labels": {"x": "y"}}})
    assert calls == ["v:Pod:True"]
    assert server.admission.names() == ["m1", "m2", "v"]


def test_denial_stores_nothing(server: ApiServer, clock: SimClock) -> None:
    server.create(pod("keep"))
    seen: list[str] = []
    server.watch("Pod", lambda ev: seen.append(ev.type))

    def deny(req: AdmissionRequest) -> None:
        if req.name == "bad" or (req.old is not None and req.obj["metadata"].get("labels")):
            raise forbidden("pods", req.name, "denied by test")

    server.admission.register_validating("Pod", ("CREATE", "UPDATE", "DELETE"), deny, "deny")
    before = repr(server.snapshot()), server.resource_version
    with pytest.raises(ApiError) as err:
        server.create(pod("bad"))
    assert err.value.code == 403 and "denied by test" in err.value.message
    with pytest.raises(ApiError):
        server.patch("Pod", "keep", {"metadata": {"labels": {"a": "b"}}})
    assert (repr(server.snapshot()), server.resource_version) == before
    clock.run()
    assert seen == []


def test_delete_admission_can_deny(server: ApiServer) -> None:
    server.create(pod("p"))

    def deny(req: AdmissionRequest) -> None:
        assert req.old is not None and req.obj["metadata"]["name"] == "p"
        raise forbidden("pods", req.name, "protected")

    server.admission.register_validating("Pod", ("DELETE",), deny, "protect")
    with pytest.raises(ApiError):
        server.delete("Pod", "p")
    assert server.get("Pod", "p")


def test_admission_registration_errors(server: ApiServer) -> None:
    with pytest.raises(ValueError, match="operations"):
        server.admission.register_mutating("Pod", ("PATCH",), lambda r: None, "x")
    with pytest.raises(ValueError, match="kind_key"):
        server.admission.register_validating("", ("CREATE",), lambda r: None, "x")
