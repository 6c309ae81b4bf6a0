"""Delete: preconditions, finalizers, propagation (Background, Foreground, Orphan), owner-reference GC."""

from __future__ import annotations

from typing import Any

import pytest

from volcano.api.frozen import thaw
from volcano.apiserver import ApiError, ApiServer
from volcano.sim import SimClock

from .conftest import pod

CONTAINERS = [{"name": "c", "image": "busybox"}]


def _cm(name: str, **meta: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, **meta}}


def _ref(owner: Any, block: bool = False) -> dict[str, Any]:
    return {"apiVersion": owner["apiVersion"], "kind": owner["kind"], "name": owner["metadata"]["name"],
            "uid": owner["metadata"]["uid"], "controller": True, "blockOwnerDeletion": block}


def _exists(server: ApiServer, kind: str, name: str) -> bool:
    try:
        server.get(kind, name)
        return True
    except ApiError:
        return False


def test_delete_not_found_and_bad_policy(server: ApiServer) -> None:
    with pytest.raises(ApiError) as err:
        server.delete("Pod", "ghost")
    assert err.value.code == 404
    server.create(pod("p"))
    with pytest.raises(ApiError) as err:
        server.delete("Pod", "p", propagation_policy="Sideways")
    assert (err.value.code, err.value.message) == (
        422, 'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": '
        'supported values: "Foreground", "Background", "Orphan", "nil"')


def test_preconditions(server: ApiServer) -> None:
    p = server.create(pod("p"))
    with pytest.raises(ApiError) as err:
        server.delete("Pod", "p", preconditions={"uid": "other"})
    assert err.value.reason == "Conflict" and "UID in precondition: other" in err.value.message
    with pytest.raises(ApiError) as err:
        server.delete("Pod", "p", preconditions={"resourceVersion": "1"})
    assert err.value.reason == "Conflict" and "ResourceVersion in precondition: 1" in err.value.message
    assert server.delete("Pod", "p", preconditions={"uid": p["metadata"]["uid"],
                                                    "resourceVersion": p["metadata"]["resourceVersion"]}) is None


def test_finalizers_hold_the_object(server: ApiServer, clock: SimClock) -> None:
    server.create(_cm("c", finalizers=["example.com/hold"]))
    clock.run(until_ms=3_000)
    out = server.delete("ConfigMap", "c")
    assert out is not None
    assert out["metadata"]["deletionTimestamp"] == "2024-01-01T00:00:03Z"
    assert out["metadata"]["deletionGracePeriodSeconds"] == 0
    edit = thaw(out)
    edit["metadata"]["finalizers"] += ["example.com/z", "example.com/new"]
    with pytest.raises(ApiError) as err:
        server.update(edit)
    assert err.value.code == 422
    assert err.value.message.endswith(  # apimachinery's %#v of the sorted new finalizers
        'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, '
        'found new finalizers []string{"example.com/new", "example.com/z"}')
    edit = thaw(out)
    edit["metadata"]["finalizers"] = []
    server.update(edit)
    assert not _exists(server, "ConfigMap", "c")


def test_finalizer_removed_by_patch(server: ApiServer) -> None:
    server.create(_cm("c", finalizers=["a", "b"]))
    server.delete("ConfigMap", "c")
    server.patch("ConfigMap", "c", {"metadata": {"finalizers": ["b"]}})
    assert _exists(server, "ConfigMap", "c")
    server.patch("ConfigMap", "c", {"metadata": {"finalizers": None}})
    assert not _exists(server, "ConfigMap", "c")


def test_background_cascade_is_asynchronous(server: ApiServer, clock: SimClock) -> None:
    owner = server.create(_cm("owner"))
    server.create(_cm("dep", ownerReferences=[_ref(owner)]))
    server.create(pod("dep-pod", **{}) | {"metadata": {"name": "dep-pod", "ownerReferences": [_ref(owner)]}})
    assert server.delete("ConfigMap", "owner") is None
    assert _exists(server, "ConfigMap", "dep")  # the collector has not run yet
    clock.run()
    assert not _exists(server, "ConfigMap", "dep")
    assert not _exists(server, "Pod", "dep-pod")


def test_dependent_with_another_live_owner_loses_reference(server: ApiServer, clock: SimClock) -> None:
    a = server.create(_cm("a"))
    b = server.create(_cm("b"))
    server.create(_cm("dep", ownerReferences=[_ref(a), _ref(b)]))
    server.delete("ConfigMap", "a")
    clock.run()
    dep = server.get("ConfigMap", "dep")
    assert [r["name"] for r in dep["metadata"]["ownerReferences"]] == ["b"]


def test_orphan(server: ApiServer, clock: SimClock) -> None:
    owner = server.create(_cm("owner"))
    server.create(_cm("dep", ownerReferences=[_ref(owner)]))
    out = server.delete("ConfigMap", "owner", propagation_policy="Orphan")
    assert out is not None and out["metadata"]["finalizers"] == ["orphan"]
    clock.run()
    assert not _exists(server, "ConfigMap", "owner")
    dep = server.get("ConfigMap", "dep")
    assert "ownerReferences" not in dep["metadata"]


def test_foreground_waits_for_blocking_dependents(server: ApiServer, clock: SimClock) -> None:
    owner = server.create(_cm("owner"))
    server.create({**pod("p"), "metadata": {"name": "p", "ownerReferences": [_ref(owner, block=True)]},
                   "spec": {"containers": CONTAINERS, "nodeName": "n1", "terminationGracePeriodSeconds": 30}})
    server.create(_cm("free", ownerReferences=[_ref(owner)]))
    out = server.delete("ConfigMap", "owner", propagation_policy="Foreground")
    assert out is not None and out["metadata"]["finalizers"] == ["foregroundDeletion"]
    clock.run()
    # The pod is terminating gracefully and blocks the owner; the non-blocking dependent is gone.
    assert server.get("Pod", "p")["metadata"]["deletionTimestamp"]
    assert not _exists(server, "ConfigMap", "free")
    assert _exists(server, "ConfigMap", "owner")
    server.delete("Pod", "p", grace_period_seconds=0)  # the kubelet finishes
    clock.run()
    assert not _exists(server, "ConfigMap", "owner")


def test_foreground_without_dependents_is_immediate(server: ApiServer) -> None:
    server.create(_cm("owner"))
    assert server.delete("ConfigMap", "owner", propagation_policy="Foreground") is None


def test_foreground_chain(server: ApiServer, clock: SimClock) -> None:
    job = server.create({"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": "j"},
                         "spec": {"tasks": []}})
    pg = server.create({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
                        "metadata": {"name": "pg", "ownerReferences": [_ref(job, block=True)]}, "spec": {}})
    server.create({**pod("p"), "metadata": {"name": "p", "ownerReferences": [_ref(pg, block=True)]}})
    server.delete("Job", "j", propagation_policy="Foreground")
    clock.run()
    assert server.list("Job")["items"] == []
    assert server.list("PodGroup")["items"] == []
    assert server.list("Pod")["items"] == []


def test_dependent_of_missing_owner_is_collected(server: ApiServer, clock: SimClock) -> None:
    ghost = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ghost", "uid": "no-such-uid"}}
    server.create(_cm("dep", ownerReferences=[_ref(ghost)]))
    clock.run()
    assert not _exists(server, "ConfigMap", "dep")


def test_dependents_index_is_used(server: ApiServer, clock: SimClock) -> None:
    owner = server.create(_cm("owner"))
    for i in range(5):
        server.create(_cm(f"dep{i}", ownerReferences=[_ref(owner)]))
    for i in range(50):
        server.create(_cm(f"other{i}"))
    deps = server._gc.dependents(owner["metadata"]["uid"])
    assert [d["metadata"]["name"] for d in deps] == [f"dep{i}" for i in range(5)]
    server.patch("ConfigMap", "dep0", {"metadata": {"ownerReferences": None}})
    assert len(server._gc.dependents(owner["metadata"]["uid"])) == 4
    server.delete("ConfigMap", "owner")
    clock.run()
    assert sorted(o["metadata"]["name"] for o in server.list("ConfigMap")["items"]
                  if not o["metadata"]["name"].startswith("other")) == ["dep0"]
