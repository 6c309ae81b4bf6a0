"""Exact answers of the delete path that a client can meet: a second DELETE of a terminating pod
(``rest.BeforeDelete``: only a shorter grace period changes anything, and the deadline moves back from
the first request's, never into the past), deletecollection in a namespace other than ``default``,
and the 400 for a malformed grace period."""

from __future__ import annotations

from typing import Any

import pytest

from tests.apiserver.conftest import pod
from volcano.apiserver import ApiError, ApiServer
from volcano.apiserver.collection import delete_collection
from volcano.sim import RandomStreams, SimClock


def _terminating(first_grace: int | None = 30, **meta: Any) -> tuple[SimClock, ApiServer, Any]:
    """A server whose bound pod ``p`` was deleted at t=0 (grace ``first_grace``), the clock then at 10 s."""
    clock = SimClock()
    server = ApiServer(clock, RandomStreams(0))
    obj = pod("p")
    obj["metadata"].update(meta)
    server.create(obj)
    server.bind("p", "default", "n1")
    first = server.delete("Pod", "p", grace_period_seconds=first_grace)
    assert first is not None
    clock.run(10_000)
    return clock, server, first


@pytest.mark.parametrize(("grace", "deadline_s", "stored_grace"), [
    (25, 25, 25),   # 30 s from t=0 becomes 25 s from t=0 (not 25 s from now: 35)
    (21, 21, 21),
    (11, 11, 11),   # one second after now
    (10, 10, 10),   # exactly now: not in the past, so the asked grace period is kept
    (9, 10, 1),     # before now: the deadline is now and the grace period 1 second
    (5, 10, 1),
    (1, 10, 1),
])
def test_second_delete_shortens_from_the_first_deadline(grace: int, deadline_s: int, stored_grace: int) -> None:
    clock, server, first = _terminating()
    assert (first["metadata"]["deletionTimestamp"], first["metadata"]["deletionGracePeriodSeconds"]) == (
        clock.timestamp(30_000), 30)
    out = server.delete("Pod", "p", grace_period_seconds=grace)
    assert out is not None
    meta = out["metadata"]
    assert (meta["deletionTimestamp"], meta["deletionGracePeriodSeconds"]) == (
        clock.timestamp(deadline_s * 1000), stored_grace)
    assert meta["generation"] == first["metadata"]["generation"] == 2  # bumped by the first delete only
    assert int(meta["resourceVersion"]) == int(first["metadata"]["resourceVersion"]) + 1
    assert server.get("Pod", "p")["metadata"] == meta


@pytest.mark.parametrize("grace", [None, 30, 31, 3600])
def test_second_delete_without_a_shorter_grace_changes_nothing(grace: int | None) -> None:
    _clock, server, first = _terminating()
    out = server.delete("Pod", "p", grace_period_seconds=grace)
    assert out == first
    assert server.get("Pod", "p") == first


def test_second_delete_with_grace_zero_removes_the_pod() -> None:
    _clock, server, _first = _terminating()
    assert server.delete("Pod", "p", grace_period_seconds=0) is None
    with pytest.raises(ApiError) as err:
        server.get("Pod", "p")
    assert (err.value.code, err.value.reason, err.value.message) == (404, "NotFound", 'pods "p" not found')


def test_second_delete_with_grace_zero_keeps_a_finalized_pod_marked_now() -> None:
    clock, server, _first = _terminating(finalizers=["example.com/hold"])
    out = server.delete("Pod", "p", grace_period_seconds=0)
    assert out is not None
    meta = out["metadata"]
    assert (meta["deletionTimestamp"], meta["deletionGracePeriodSeconds"], meta["finalizers"]) == (
        clock.timestamp(10_000), 0, ["example.com/hold"])
    # grace 0 is final: a later delete asking any grace period changes nothing
    assert server.delete("Pod", "p", grace_period_seconds=0) == out
    assert server.delete("Pod", "p") == out


def test_second_delete_of_a_held_configmap_changes_nothing() -> None:
    clock = SimClock()
    server = ApiServer(clock, RandomStreams(0))
    server.create({"apiVersion": "v1", "kind": "ConfigMap",
                   "metadata": {"name": "cm", "finalizers": ["example.com/hold"]}})
    first = server.delete("ConfigMap", "cm", grace_period_seconds=30)
    assert first is not None
    assert (first["metadata"]["deletionTimestamp"], first["metadata"]["deletionGracePeriodSeconds"]) == (
        clock.timestamp(0), 0)
    assert "generation" not in first["metadata"]
    clock.run(5_000)
    assert server.delete("ConfigMap", "cm", grace_period_seconds=0) == first


@pytest.mark.parametrize("grace", [-1, -30, 1.5, "5"])
def test_grace_period_must_be_a_non_negative_integer(grace: Any) -> None:
    server = ApiServer(SimClock(), RandomStreams(0))
    server.create(pod("p"))
    with pytest.raises(ApiError) as err:
        server.delete("Pod", "p", grace_period_seconds=grace)
    assert (err.value.code, err.value.reason, err.value.message) == (
        400, "BadRequest", f"gracePeriodSeconds {grace!r} is invalid: must be a non-negative integer")
    assert server.get("Pod", "p")["metadata"].get("deletionTimestamp") is None


def _cm(name: str, namespace: str, **labels: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": namespace, "labels": labels}, "data": {"k": name}}


def test_delete_collection_in_another_namespace() -> None:
    """Each listed object is deleted in its own namespace: a same-named object in ``default`` stays."""
    server = ApiServer(SimClock(), RandomStreams(0))
    server.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}})
    for ns in ("default", "team"):
        server.create(_cm("a", ns, app="x"))
        server.create(_cm("b", ns, app="x"))
    server.create(_cm("c", "team", app="y"))
    out = delete_collection(server, "ConfigMap", "team", label_selector="app=x")
    assert (out["apiVersion"], out["kind"]) == ("v1", "ConfigMapList")
    assert [(o["metadata"]["namespace"], o["metadata"]["name"]) for o in out["items"]] == [
        ("team", "a"), ("team", "b")]
    assert out["metadata"] == {"resourceVersion": server.resource_version}
    assert sorted(o["metadata"]["name"] for o in server.list("ConfigMap", "team")["items"]) == ["c"]
    assert sorted(o["metadata"]["name"] for o in server.list("ConfigMap", "default")["items"]) == ["a", "b"]


def test_delete_collection_returns_terminating_pods_as_marked() -> None:
    clock = SimClock()
    server = ApiServer(clock, RandomStreams(0))
    server.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}})
    server.create(pod("run", "team"))
    server.bind("run", "team", "n1")
    server.create(pod("idle", "team"))
    out = delete_collection(server, "Pod", "team", grace_period_seconds=7, propagation_policy="Background")
    by_name = {o["metadata"]["name"]: o["metadata"] for o in out["items"]}
    assert sorted(by_name) == ["idle", "run"]
    assert (by_name["run"]["deletionGracePeriodSeconds"], by_name["run"]["deletionTimestamp"]) == (
        7, clock.timestamp(7_000))
    assert "deletionTimestamp" not in by_name["idle"]  # unbound: removed at once, listed as it was
    assert [o["metadata"]["name"] for o in server.list("Pod", "team")["items"]] == ["run"]
