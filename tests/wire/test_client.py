"""``KubeClient`` against ``volcano serve`` on loopback: every method of the ``Client`` protocol."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from tests.wire.conftest import Wire, wait_for
from volcano.api.frozen import is_frozen, thaw
from volcano.apiserver import ApiError
from volcano.apiserver.client import WatchEvent
from volcano.informers import InformerFactory


def _pod(name: str, **annotations: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "annotations": annotations},
            "spec": {"containers": [{"name": "c", "image": "busybox",
                                     "resources": {"requests": {"cpu": "100m"}}}]}}


def _node(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                       "capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}


def _error(wire: Wire, fn: Any) -> ApiError:
    with pytest.raises(ApiError) as info:
        wire.call(fn)
    return info.value


def test_create_get_list_update_and_errors(wire: Wire) -> None:
    c = wire.client
    created = wire.call(lambda: c.create(_pod("crud-a")))
    assert created["metadata"]["namespace"] == "default" and created["status"]["phase"] == "Pending"
    assert is_frozen(created)
    wire.call(lambda: c.create(_pod("crud-b")))
    listing = wire.call(lambda: c.list("Pod", "default"))
    names = [p["metadata"]["name"] for p in listing["items"]]
    assert names == sorted(names) and {"crud-a", "crud-b"} <= set(names)
    assert all(p["kind"] == "Pod" and p["apiVersion"] == "v1" for p in listing["items"])
    assert int(listing["metadata"]["resourceVersion"]) >= int(created["metadata"]["resourceVersion"])
    fetched = wire.call(lambda: c.get("Pod", "crud-a"))
    changed = thaw(fetched)
    changed["metadata"]["labels"] = {"x": "1"}
    updated = wire.call(lambda: c.update(changed))
    assert updated["metadata"]["labels"] == {"x": "1"}
    # a stale resourceVersion is a Conflict, an existing name AlreadyExists, a missing object NotFound
    assert _error(wire, lambda: c.update(changed)).reason == "Conflict"
    assert _error(wire, lambda: c.create(_pod("crud-a"))).code == 409
    missing = _error(wire, lambda: c.get("Pod", "nope"))
    assert (missing.code, missing.message) == (404, 'pods "nope" not found')
    bad = _error(wire, lambda: c.create({**_pod("crud-c"), "spec": {"containers": []}}))
    assert bad.code == 422 and bad.reason == "Invalid"
    selected = wire.call(lambda: c.list("Pod", label_selector="x=1"))
    assert [p["metadata"]["name"] for p in selected["items"]] == ["crud-a"]


def test_list_pages_through_the_collection(wire: Wire, monkeypatch: pytest.MonkeyPatch) -> None:
    import volcano.kube.client as module

    monkeypatch.setattr(module, "_PAGE", 2)
    c = wire.client
    for i in range(5):
        wire.call(lambda i=i: c.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"page-{i}"}}))
    before = c.requests
    items = wire.call(lambda: c.list("ConfigMap", "default"))["items"]
    assert [o["metadata"]["name"] for o in items if o["metadata"]["name"].startswith("page-")] == \
        [f"page-{i}" for i in range(5)]
    assert c.requests - before >= 3  # three pages of two


def test_status_patch_types_and_podgroup_status_by_plain_update(wire: Wire) -> None:
    c = wire.client
    wire.call(lambda: c.create(_pod("pt")))
    assert wire.call(lambda: c.patch("Pod", "pt", {"metadata": {"labels": {"m": "1"}}}))["metadata"]["labels"] == \
        {"m": "1"}
    json_patched = wire.call(lambda: c.patch("Pod", "pt", [{"op": "add", "path": "/metadata/labels/j", "value": "2"}],
                                             patch_type="json"))
    assert json_patched["metadata"]["labels"] == {"m": "1", "j": "2"}
    smp = wire.call(lambda: c.patch("Pod", "pt", {"spec": {"containers": [{"name": "c", "image": "busybox:2"}]}},
                                    patch_type="strategic"))
    assert smp["spec"]["containers"][0]["image"] == "busybox:2"
    applied = wire.call(lambda: c.patch("ConfigMap", "applied", {"apiVersion": "v1", "kind": "ConfigMap",
                                                                 "metadata": {"name": "applied"}, "data": {"a": "1"}},
                                        patch_type="apply", field_manager="wire-test"))
    assert applied["data"] == {"a": "1"} and applied["metadata"]["managedFields"][0]["manager"] == "wire-test"
    status = wire.call(lambda: c.patch("Pod", "pt", {"status": {"phase": "Running"}}, subresource="status"))
    assert status["status"]["phase"] == "Running"
    pod = thaw(status)
    pod["status"]["message"] = "put"
    assert wire.call(lambda: c.update_status(pod))["status"]["message"] == "put"
    queue = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": "wire-q"},
             "spec": {"weight": 1}}
    wire.call(lambda: c.create(queue))
    wire.call(lambda: c.patch("Queue", "wire-q", {"status": {"state": "Open"}}, subresource="status"))
    pg = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup", "metadata": {"name": "pg-status"},
          "spec": {"minMember": 1, "queue": "wire-q"}}
    stored = thaw(wire.call(lambda: c.create(pg)))
    stored["status"] = {"phase": "Inqueue"}
    assert wire.call(lambda: c.update(stored))["status"]["phase"] == "Inqueue"  # no status subresource
    assert _error(wire, lambda: c.update_status(stored)).code == 404
    assert _error(wire, lambda: c.patch("Pod", "pt", {}, patch_type="yaml")).code == 415


def test_bind_evict_and_delete(wire: Wire) -> None:
    c = wire.client
    wire.call(lambda: c.create(_node("wire-n1")))
    wire.call(lambda: c.create(_pod("bound")))
    wire.call(lambda: c.bind("bound", "default", "wire-n1"))
    assert wire.call(lambda: c.get("Pod", "bound"))["spec"]["nodeName"] == "wire-n1"
    assert _error(wire, lambda: c.bind("bound", "default", "wire-n1")).code == 409
    wire.call(lambda: c.evict("bound", "default"))
    evicted = wire.call(lambda: c.get("Pod", "bound"))
    assert evicted["metadata"]["deletionTimestamp"]  # graceful: the kubelet finishes it
    wire.call(lambda: c.create(_pod("graceful")))
    left = wire.call(lambda: c.delete("Pod", "graceful"))
    assert left is None  # never bound: a pod no kubelet runs goes at once
    wire.call(lambda: c.create(_pod("g2")))
    wire.call(lambda: c.bind("g2", "default", "wire-n1"))
    left = wire.call(lambda: c.delete("Pod", "g2"))
    assert left is not None and left["metadata"]["deletionGracePeriodSeconds"] == 30
    assert wire.call(lambda: c.delete("Pod", "g2", grace_period_seconds=0)) is None
    assert _error(wire, lambda: c.get("Pod", "g2")).code == 404
    wire.call(lambda: c.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "gone"}}))
    assert wire.call(lambda: c.delete("ConfigMap", "gone")) is None
    uid_mismatch = _error(wire, lambda: c.delete("Pod", "bound", preconditions={"uid": "not-it"}))
    assert uid_mismatch.code == 409


def test_watch_delivers_in_order_on_the_owner_thread_and_stops(wire: Wire) -> None:
    c = wire.client
    seen: list[tuple[str, str, str]] = []
    threads: set[str] = set()

    def handler(event: WatchEvent) -> None:
        threads.add(threading.current_thread().name)
        seen.append((event.type, event.object["metadata"]["name"], event.object["kind"]))

    handle = wire.call(lambda: c.watch("ConfigMap", handler, "default"))
    for i in range(3):
        wire.call(lambda i=i: c.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"w-{i}"}}))
    wire.call(lambda: c.delete("ConfigMap", "w-1"))
    wait_for(lambda: len(seen) == 4, what="four watch events")
    assert seen == [("ADDED", "w-0", "ConfigMap"), ("ADDED", "w-1", "ConfigMap"), ("ADDED", "w-2", "ConfigMap"),
                    ("DELETED", "w-1", "ConfigMap")]
    assert threads == {"volcano-runtime"}
    wire.call(handle.stop)
    wire.call(lambda: c.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "w-after"}}))
    marker: list[WatchEvent] = []
    other = wire.call(lambda: c.watch("ConfigMap", marker.append, "default", resource_version="0"))
    wait_for(lambda: any(e.object["metadata"]["name"] == "w-after" for e in marker), what="a second watch")
    wire.call(other.stop)
    assert len(seen) == 4  # the stopped watch delivered nothing more


def test_watch_from_a_compacted_resource_version_reports_410(wire: Wire) -> None:
    c = wire.client
    old = wire.call(lambda: c.list("ConfigMap"))["metadata"]["resourceVersion"]
    for i in range(3):
        wire.call(lambda i=i: c.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"cmp-{i}"}}))
    wire.served.call(wire.served.server.compact_watch_history)
    events: list[WatchEvent] = []
    handle = wire.call(lambda: c.watch("ConfigMap", events.append, resource_version=old))
    wait_for(lambda: events, what="the 410 ERROR event")
    assert events[0].type == "ERROR" and events[0].object["code"] == 410
    handle.join(5)
    assert handle.stopped


def test_informer_relists_after_410_and_keeps_its_cache(wire: Wire) -> None:
    c = wire.client
    changes: list[tuple[str, str]] = []
    factory = wire.call(lambda: InformerFactory(c, wire.runtime.clock))
    informer = wire.call(lambda: factory.informer("Secret"))
    wire.call(lambda: informer.add_handler(lambda e, o, old: changes.append((e, o["metadata"]["name"]))))
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s-0"}}
    wire.call(lambda: c.create(secret))
    wait_for(lambda: ("ADDED", "s-0") in changes, what="the first secret")
    # the watch is dropped and the history compacted while the informer's watch is open; a write after
    # that reaches it only through a relist (410 on the re-watch from its old resourceVersion)
    for stream in list(c.watches):
        if stream.info.kind == "Secret":
            stream._response.shutdown()
    wire.call(lambda: c.create({**secret, "metadata": {"name": "s-1"}}))
    wire.served.call(wire.served.server.compact_watch_history)
    wire.call(lambda: c.create({**secret, "metadata": {"name": "s-2"}}))
    wait_for(lambda: ("ADDED", "s-2") in changes, timeout=15, what="the informer to catch up")
    assert ("ADDED", "s-1") in changes
    assert sorted(o["metadata"]["name"] for o in wire.call(informer.list)) == ["s-0", "s-1", "s-2"]
    wire.call(factory.stop)
