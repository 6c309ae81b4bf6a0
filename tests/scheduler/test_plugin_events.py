"""PodGroup events plugins record through the session (reference §7.6): enqueue rejections
by proportion, capacity and overcommit, returned by session close and written through the
scheduler's event recorder."""

from __future__ import annotations

import pytest

from tests.scheduler.harness import conf, node, opt, pg, pod, queue, res, run
from volcano.scheduler.framework.status import Event
from volcano.testbed import FakeCluster


def _quota_case(plugin: str) -> list[Event]:
    c = conf(["enqueue"], [opt("gang", "jobReady", "jobPipelined"),
                           opt(plugin, "queueOrder", "allocatable", "jobEnqueued")])
    r = run(c, nodes=[node("n1", res(8, "16Gi"))],
            pods=[pod("ns", "p1", req=res(1, "1Gi"), group="small"),
                  pod("ns", "p2", req=res(3, "1Gi"), group="big")],
            podgroups=[pg("small", "ns", "q1", 1, "Pending", min_resources=res(1, "1Gi")),
                       pg("big", "ns", "q1", 1, "Pending", min_resources=res(3, "1Gi"))],
            queues=[queue("q1", capability=res(2, "8Gi"))])
    assert r.phase("ns/small") == "Inqueue"
    assert r.phase("ns/big") == "Pending"
    return [e for e in r.outcome.events if e.reason == "Unschedulable" and e.type == "Normal"]


@pytest.mark.parametrize("plugin", ["proportion", "capacity"])
def test_queue_quota_rejection_event(plugin: str) -> None:
    assert _quota_case(plugin) == [Event("PodGroup", "ns", "big", "Normal", "Unschedulable",
                                         "queue resource quota insufficient: insufficient cpu")]


def test_overcommit_rejection_event() -> None:
    c = conf(["enqueue"], [opt("gang", "jobReady", "jobPipelined"), opt("overcommit", "jobEnqueued")])
    r = run(c, nodes=[node("n1", res(2, "4Gi"))],
            pods=[pod("ns", "p1", req=res(1, "1Gi"), group="big")],
            podgroups=[pg("big", "ns", "q1", 1, "Pending", min_resources=res(3, "5Gi"))],
            queues=[queue("q1")])
    events = [e for e in r.outcome.events if e.type == "Normal"]
    assert events == [Event("PodGroup", "ns", "big", "Normal", "Unschedulable",
                            "resource in cluster is overused: overused cpu, overused memory")]
    assert r.phase("ns/big") == "Pending"


def test_rejection_event_written_through_the_recorder() -> None:
    c = FakeCluster(seed=1)
    c.add_node("n0", cpu="2", memory="4Gi")
    c.apply({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
             "metadata": {"name": "huge", "namespace": "default"},
             "spec": {"minMember": 1, "queue": "default", "minResources": {"cpu": "10"}}})
    c.run(3.5)
    events = [e for e in c.events("PodGroup", name="huge") if e["type"] == "Normal"]
    assert [(e["reason"], e["message"]) for e in events] == [
        ("Unschedulable", "resource in cluster is overused: overused cpu")]
    assert events[0]["count"] >= 3  # one per cycle, aggregated by the recorder
    assert events[0]["source"]["component"] == "volcano"
    assert c.get("PodGroup", "huge")["status"]["phase"] == "Pending"
