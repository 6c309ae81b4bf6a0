"""Watch: order, delivery on the clock, filters, Gone, and the replay property."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from volcano.api.frozen import thaw
from volcano.apiserver import ApiError, ApiServer, WatchEvent
from volcano.sim import Priority, RandomStreams, SimClock

from .conftest import pod


def _names(events: list[WatchEvent]) -> list[tuple[str, str]]:
    return [(e.type, e.object["metadata"]["name"]) for e in events]


def test_events_in_order_never_on_writer_stack(server: ApiServer, clock: SimClock) -> None:
    got: list[WatchEvent] = []
    server.watch("Pod", got.append)
    server.create(pod("a"))
    server.patch("Pod", "a", {"metadata": {"labels": {"x": "1"}}})
    server.delete("Pod", "a")
    assert got == []  # nothing on the writer's stack
    clock.run()
    assert _names(got) == [("ADDED", "a"), ("MODIFIED", "a"), ("DELETED", "a")]
    rvs = [int(e.object["metadata"]["resourceVersion"]) for e in got]
    assert rvs == sorted(rvs) and len(set(rvs)) == 3
    assert got[2].object["metadata"]["labels"] == {"x": "1"}  # final state on DELETED


def test_delivery_priority_is_watch(server: ApiServer, clock: SimClock) -> None:
    order: list[str] = []
    server.watch("Pod", lambda ev: order.append("watch"))
    clock.call_later(0, lambda: order.append("controller"), priority=Priority.CONTROLLER)
    server.create(pod("a"))
    clock.run()
    assert order == ["watch", "controller"]


def test_watch_filters(server: ApiServer, clock: SimClock) -> None:
    server.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "other"}})
    by_ns: list[WatchEvent] = []
    by_label: list[WatchEvent] = []
    by_field: list[WatchEvent] = []
    nodes: list[WatchEvent] = []
    server.watch("Pod", by_ns.append, "other")
    server.watch("Pod", by_label.append, label_selector="app=web")
    server.watch("Pod", by_field.append, field_selector="spec.nodeName=n1")
    server.watch("Node", nodes.append)
    server.create(pod("a", "other"))
    server.create({**pod("b"), "metadata": {"name": "b", "labels": {"app": "web"}}})
    server.bind("b", "default", "n1")
    server.patch("Pod", "b", {"metadata": {"labels": {"app": "db"}}})
    server.patch("Pod", "b", {"metadata": {"labels": {"app": "web"}}})
    clock.run()
    assert _names(by_ns) == [("ADDED", "a")]
    assert _names(by_label) == [("ADDED", "b"), ("MODIFIED", "b"), ("DELETED", "b"), ("ADDED", "b")]
    assert _names(by_field) == [("ADDED", "b"), ("MODIFIED", "b"), ("MODIFIED", "b")]
    assert nodes == []


def test_watch_from_resource_version(server: ApiServer, clock: SimClock) -> None:
    a = server.create(pod("a"))
    server.create(pod("b"))
    got: list[WatchEvent] = []
    server.watch("Pod", got.append, resource_version=a["metadata"]["resourceVersion"])
    clock.run()
    assert _names(got) == [("ADDED", "b")]
    initial: list[WatchEvent] = []
    server.watch("Pod", initial.append, resource_version="0")
    server.create(pod("c"))
    clock.run()
    assert _names(initial) == [("ADDED", "a"), ("ADDED", "b"), ("ADDED", "c")]
    with pytest.raises(ApiError) as err:
        server.watch("Pod", got.append, resource_version="abc")
    assert err.value.code == 400


def test_stop(server: ApiServer, clock: SimClock) -> None:
    got: list[WatchEvent] = []
    handle = server.watch("Pod", got.append)
    server.create(pod("a"))
    handle.stop()
    clock.run()
    assert got == []


def test_watch_objects_are_shared_and_frozen(server: ApiServer, clock: SimClock) -> None:
    got: list[WatchEvent] = []
    server.watch("Pod", got.append)
    created = server.create(pod("a"))
    clock.run()
    assert got[0].object is created
    with pytest.raises(TypeError):
        got[0].object["metadata"]["labels"] = {}


def test_gone_for_compacted_resource_version(clock: SimClock) -> None:
    server = ApiServer(clock, RandomStreams(0), watch_history=10)
    first = server.create(pod("p0"))
    for i in range(1, 30):
        server.create(pod(f"p{i}"))
    with pytest.raises(ApiError) as err:
        server.watch("Pod", lambda ev: None, resource_version=first["metadata"]["resourceVersion"])
    assert (err.value.code, err.value.reason) == (410, "Expired")
    recent: list[WatchEvent] = []
    server.watch("Pod", recent.append, resource_version=str(int(server.resource_version) - 5))
    clock.run()
    assert len(recent) == 5


def test_lagging_watcher_receives_error(clock: SimClock) -> None:
    server = ApiServer(clock, RandomStreams(0), watch_history=5)
    got: list[WatchEvent] = []
    server.watch("Pod", got.append)
    for i in range(20):
        server.create(pod(f"p{i}"))
    clock.run()
    assert [e.type for e in got] == ["ERROR"]
    assert got[0].object["code"] == 410 and got[0].object["reason"] == "Expired"
    server.create(pod("late"))
    clock.run()
    assert len(got) == 1  # the watch ended


def test_handler_writes_are_delivered_later(server: ApiServer, clock: SimClock) -> None:
    got: list[tuple[str, str]] = []

    def handler(ev: WatchEvent) -> None:
        got.append((ev.type, ev.object["metadata"]["name"]))
        if ev.object["metadata"]["name"] == "a" and ev.type == "ADDED":
            server.create(pod("b"))
            assert got[-1] == ("ADDED", "a")  # not re-entered

    server.watch("Pod", handler)
    server.create(pod("a"))
    clock.run()
    assert got == [("ADDED", "a"), ("ADDED", "b")]


_ops = st.lists(st.tuples(st.sampled_from(["create", "update", "patch", "status", "delete", "bind"]),
                          st.integers(min_value=0, max_value=4), st.integers(min_value=0, max_value=3)),
                max_size=40)


@settings(max_examples=60, deadline=None)
@given(_ops)
def test_watch_replays_to_final_list(ops: list[tuple[str, int, int]]) -> None:
    clock = SimClock()
    server = ApiServer(clock, RandomStreams(1))
    start = server.resource_version
    from_start: list[WatchEvent] = []
    from_zero: list[WatchEvent] = []
    zero_started = False
    server.watch("Pod", from_start.append, resource_version=start)
    for op, idx, val in ops:
        name = f"p{idx}"
        try:
            if op == "create":
                server.create({**pod(name), "metadata": {"name": name, "labels": {"v": str(val)}}})
            elif op == "update":
                obj: dict[str, Any] = thaw(server.get("Pod", name))
                obj["metadata"]["labels"] = {"v": str(val)}
                server.update(obj)
            elif op == "patch":
                server.patch("Pod", name, {"metadata": {"annotations": {"a": str(val)}}})
            elif op == "status":
                server.patch("Pod", name, {"status": {"phase": ["Pending", "Running", "Failed"][val % 3]}},
                             subresource="status")
            elif op == "bind":
                server.bind(name, "default", f"n{val}")
            else:
                server.delete("Pod", name, grace_period_seconds=0 if val % 2 else None)
        except ApiError:
            pass
        if val == 3:
            clock.run()
            if not zero_started:
                zero_started = True
                server.watch("Pod", from_zero.append, resource_version="0")
    clock.run()
    final = {o["metadata"]["name"]: o for o in server.list("Pod")["items"]}
    for stream in (from_start, from_zero) if zero_started else (from_start,):
        replay: dict[str, Any] = {}
        for ev in stream:
            if ev.type == "DELETED":
                del replay[ev.object["metadata"]["name"]]
            else:
                replay[ev.object["metadata"]["name"]] = ev.object
        assert replay == final
