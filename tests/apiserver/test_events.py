"""EventRecorder: Event shape and client-go style aggregation."""

from __future__ import annotations

import pytest

from volcano.apiserver import ApiServer, EventRecorder
from volcano.sim import SimClock

from .conftest import pod


def test_event_shape(server: ApiServer, clock: SimClock) -> None:
    p = server.create(pod("p"))
    clock.run(until_ms=2_000)
    EventRecorder(server, clock, "volcano").event(p, "Warning", "FailedScheduling", "0/3 nodes are available")
    [ev] = server.list("Event", "default")["items"]
    assert ev["involvedObject"] == {"kind": "Pod", "name": "p", "namespace": "default",
                                    "uid": p["metadata"]["uid"], "apiVersion": "v1",
                                    "resourceVersion": p["metadata"]["resourceVersion"]}
    assert (ev["type"], ev["reason"], ev["message"], ev["count"]) == (
        "Warning", "FailedScheduling", "0/3 nodes are available", 1)
    assert ev["source"] == {"component": "volcano"} and ev["reportingComponent"] == "volcano"
    assert ev["firstTimestamp"] == ev["lastTimestamp"] == "2024-01-01T00:00:02Z"
    assert ev["metadata"]["name"].startswith("p.")


def test_repeats_aggregate(server: ApiServer, clock: SimClock) -> None:
    p = server.create(pod("p"))
    rec = EventRecorder(server, clock, "volcano")
    rec.event(p, "Normal", "Scheduled", "assigned")
    clock.run(until_ms=5_000)
    rec.event(p, "Normal", "Scheduled", "assigned")
    rec.event(p, "Normal", "Scheduled", "assigned")
    rec.event(p, "Normal", "Scheduled", "other message")
    EventRecorder(server, clock, "kubelet").event(p, "Normal", "Scheduled", "assigned")
    items = server.list("Event")["items"]
    assert len(items) == 3
    agg = [e for e in items if e["message"] == "assigned" and e["source"]["component"] == "volcano"]
    assert len(agg) == 1
    assert agg[0]["count"] == 3
    assert agg[0]["firstTimestamp"] == "2024-01-01T00:00:00Z"
    assert agg[0]["lastTimestamp"] == "2024-01-01T00:00:05Z"


def test_cluster_scoped_object_events_go_to_default(server: ApiServer, clock: SimClock) -> None:
    node = server.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}})
    EventRecorder(server, clock, "kubelet").event(node, "Normal", "NodeReady", "ready")
    [ev] = server.list("Event")["items"]
    assert ev["metadata"]["namespace"] == "default" and "namespace" not in ev["involvedObject"]


def test_deleted_event_is_recreated(server: ApiServer, clock: SimClock) -> None:
    """client-go's recorder creates a repeat whose count patch found no Event anew: under the
    same name, with the count and first timestamp it had observed."""
    p = server.create(pod("p"))
    rec = EventRecorder(server, clock, "volcano")
    rec.event(p, "Normal", "X", "m")
    [ev] = server.list("Event")["items"]
    server.delete("Event", ev["metadata"]["name"])
    clock.run(until_ms=7_000)
    rec.event(p, "Normal", "X", "m")
    [again] = server.list("Event")["items"]
    assert again["metadata"]["name"] == ev["metadata"]["name"]
    assert (again["count"], again["firstTimestamp"], again["lastTimestamp"]) == (
        2, "2024-01-01T00:00:00Z", "2024-01-01T00:00:07Z")
    assert again["metadata"]["uid"] != ev["metadata"]["uid"]
    rec.event(p, "Normal", "X", "m")
    [third] = server.list("Event")["items"]
    assert third["count"] == 3 and third["metadata"]["uid"] == again["metadata"]["uid"]


def test_bad_type_rejected(server: ApiServer, clock: SimClock) -> None:
    p = server.create(pod("p"))
    with pytest.raises(ValueError, match="Normal"):
        EventRecorder(server, clock, "x").event(p, "Info", "R", "m")
