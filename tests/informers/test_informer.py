"""Informers: initial list, watch-fed updates, late handlers, indexes, relist after Gone."""

from __future__ import annotations

from typing import Any

import pytest

from volcano.apiserver import ApiServer
from volcano.informers import InformerFactory, namespace_index
from volcano.sim import Priority, RandomStreams, SimClock


def pod(name: str, namespace: str = "default", node: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "busybox"}]}
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": namespace}, "spec": spec}


def test_shared_per_kind_and_initial_list(server: ApiServer, clock: SimClock) -> None:
    server.create(pod("b"))
    server.create(pod("a"))
    factory = InformerFactory(server, clock)
    inf = factory.informer("Pod")
    assert factory.informer("pods") is inf
    assert [o["metadata"]["name"] for o in inf.list()] == ["a", "b"]  # synchronous
    assert inf.get("a") is server.get("Pod", "a")
    assert inf.resource_version == server.resource_version
    with pytest.raises(ValueError):
        factory.informer("gizmos")


def test_updates_arrive_through_the_clock(server: ApiServer, clock: SimClock) -> None:
    inf = InformerFactory(server, clock).informer("Pod")
    seen: list[tuple[str, str, bool]] = []
    inf.add_handler(lambda t, o, old: seen.append((t, o["metadata"]["name"], old is not None)))
    server.create(pod("a"))
    assert inf.get("a") is None and seen == []
    clock.run()
    server.patch("Pod", "a", {"metadata": {"labels": {"x": "y"}}})
    server.delete("Pod", "a")
    clock.run()
    assert seen == [("ADDED", "a", False), ("MODIFIED", "a", True), ("DELETED", "a", True)]
    assert inf.get("a") is None and inf.list() == []


def test_late_handler_gets_replay_then_events(server: ApiServer, clock: SimClock) -> None:
    for name in ("c", "a", "b"):
        server.create(pod(name))
    inf = InformerFactory(server, clock).informer("Pod")
    server.delete("Pod", "a")  # pending in the watch when the handler is added
    seen: list[tuple[str, str]] = []
    inf.add_handler(lambda t, o, old: seen.append((t, o["metadata"]["name"])))
    assert seen == []  # replay happens through a clock callback
    clock.run()
    assert seen == [("ADDED", "a"), ("ADDED", "b"), ("ADDED", "c"), ("DELETED", "a")]


def test_replay_waits_for_the_clock_even_when_watch_is_first(server: ApiServer, clock: SimClock) -> None:
    server.create(pod("a"))
    inf = InformerFactory(server, clock).informer("Pod")
    server.patch("Pod", "a", {"metadata": {"labels": {"v": "1"}}})
    clock.run()  # the informer applied the MODIFIED
    server.patch("Pod", "a", {"metadata": {"labels": {"v": "2"}}})  # watch dispatch scheduled first
    seen: list[tuple[str, str]] = []
    inf.add_handler(lambda t, o, old: seen.append((t, o["metadata"]["labels"]["v"])))
    clock.run()
    assert seen == [("ADDED", "1"), ("MODIFIED", "2")]


def test_index(server: ApiServer, clock: SimClock) -> None:
    server.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "x"}})
    server.create(pod("a", node="n1"))
    inf = InformerFactory(server, clock).informer("Pod")
    inf.add_index("node", lambda o: [o["spec"].get("nodeName") or ""])
    inf.add_index("ns", namespace_index)
    server.create(pod("b", "x", node="n1"))
    server.create(pod("c"))
    clock.run()
    assert [o["metadata"]["name"] for o in inf.by_index("node", "n1")] == ["a", "b"]
    assert [o["metadata"]["name"] for o in inf.by_index("node", "")] == ["c"]
    server.bind("c", "default", "n1")
    server.delete("Pod", "a", grace_period_seconds=0)
    clock.run()
    assert [o["metadata"]["name"] for o in inf.by_index("node", "n1")] == ["c", "b"]  # default/c < x/b
    assert inf.by_index("node", "") == []
    assert [o["metadata"]["name"] for o in inf.by_index("ns", "default")] == ["c"]
    assert [o["metadata"]["name"] for o in inf.list("x")] == ["b"]
    server.delete("Pod", "b", "x", grace_period_seconds=0)
    clock.run()
    assert inf.list("x") == [] and len(inf) == 1
    with pytest.raises(KeyError):
        inf.by_index("missing", "v")


def test_cluster_scoped_get(server: ApiServer, clock: SimClock) -> None:
    server.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}})
    inf = InformerFactory(server, clock).informer("Node")
    assert inf.get("n1") is not None and inf.get("n1", "anything") is not None


def test_relist_after_gone(clock: SimClock) -> None:
    server = ApiServer(clock, RandomStreams(0), watch_history=4)
    server.create(pod("old"))
    server.create(pod("keep"))
    inf = InformerFactory(server, clock).informer("Pod")
    seen: list[tuple[str, str]] = []
    inf.add_handler(lambda t, o, old: seen.append((t, o["metadata"]["name"])))
    clock.run()
    seen.clear()
    server.delete("Pod", "old")
    server.patch("Pod", "keep", {"metadata": {"labels": {"v": "1"}}})
    for i in range(10):
        server.create(pod(f"n{i}"))
    clock.run()
    assert inf.relists == 1
    assert [o["metadata"]["name"] for o in inf.list()] == [o["metadata"]["name"] for o in
                                                            server.list("Pod")["items"]]
    assert ("DELETED", "old") in seen and ("MODIFIED", "keep") in seen
    assert sorted(n for t, n in seen if t == "ADDED") == [f"n{i}" for i in range(10)]
    server.create(pod("after"))
    clock.run()
    assert inf.get("after") is not None  # watching again


def test_handler_priority_is_watch(server: ApiServer, clock: SimClock) -> None:
    inf = InformerFactory(server, clock).informer("Pod")
    order: list[str] = []
    inf.add_handler(lambda t, o, old: order.append("handler"))
    clock.call_later(0, lambda: order.append("controller"), priority=Priority.CONTROLLER)
    server.create(pod("a"))
    clock.run()
    assert order == ["handler", "controller"]
