"""The scheduler cache's announced echoes (``SchedulerCache.expect_echo``): the delivery of the very
object an announced write stored leaves ``generation`` as it was (and counts in ``echoes``); any
other delivery, an unannounced write, a later write of the same object, or an echo that changed
more than a session reads the same way, moves it."""

from __future__ import annotations

from typing import Any

from volcano.conformance.lib.builders import pod, pod_group
from volcano.testbed import FakeCluster


def _cluster() -> FakeCluster:
    c = FakeCluster(seed=0)
    c.scheduler.stop()  # no cycles: only the writes below reach the cache
    c.add_nodes(1, cpu="1")
    c.apply([pod_group("g", min_member=3), *[pod(f"g-{k}", group="g", req={"cpu": "2"}) for k in range(3)]])
    c.clock.run(c.clock.now_ms + 1)
    return c


def _condition(c: FakeCluster, name: str, message: str) -> Any:
    return c.client.update_status_fields("Pod", name, "default", {"conditions": [
        {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": message}]})


def test_an_announced_condition_echo_leaves_the_generation() -> None:
    c = _cluster()
    cache = c.scheduler.cache
    before = cache.generation
    cache.expect_echo("Pod", _condition(c, "g-0", "no room"))
    c.clock.run(c.clock.now_ms + 1)
    assert cache.generation == before and cache.echoes == 1
    assert cache.pods["default/g-0"].pod["status"]["conditions"][0]["message"] == "no room"  # the cache has it
    _condition(c, "g-1", "no room")  # not announced
    c.clock.run(c.clock.now_ms + 1)
    assert cache.generation == before + 1 and cache.echoes == 1


def test_only_the_announced_version_is_an_echo() -> None:
    c = _cluster()
    cache = c.scheduler.cache
    cache.expect_echo("Pod", _condition(c, "g-0", "first"))
    _condition(c, "g-0", "second")  # a later write of the same pod: delivered after the echo
    before = cache.generation
    c.clock.run(c.clock.now_ms + 1)
    assert cache.generation == before + 1 and cache.echoes == 1


def test_forgotten_announcements_and_wider_changes_move_the_generation() -> None:
    c = _cluster()
    cache = c.scheduler.cache
    cache.expect_echo("Pod", _condition(c, "g-0", "no room"))
    cache.forget_echoes()
    before = cache.generation
    c.clock.run(c.clock.now_ms + 1)
    assert cache.generation == before + 1 and cache.echoes == 0
    group = c.get("PodGroup", "g")
    phase = dict(group, status={**(group.get("status") or {}), "phase": "Inqueue"})
    cache.expect_echo("PodGroup", c.client.update(phase))  # the phase moved: read differently
    c.clock.run(c.clock.now_ms + 1)
    assert cache.generation == before + 2 and cache.echoes == 0
    group = c.get("PodGroup", "g")
    counted = dict(group, status={**group["status"], "running": 0, "conditions": []})
    cache.expect_echo("PodGroup", c.client.update(counted))  # phase kept: read alike
    c.clock.run(c.clock.now_ms + 1)
    assert cache.generation == before + 2 and cache.echoes == 1


def test_a_pod_echo_that_moves_what_a_session_reads_moves_the_generation() -> None:
    c = _cluster()
    cache = c.scheduler.cache
    before = cache.generation
    nominated = c.client.update_status_fields("Pod", "g-0", "default", {"nominatedNodeName": "node-0"})
    cache.expect_echo("Pod", nominated)
    c.clock.run(c.clock.now_ms + 1)
    assert cache.generation == before + 1 and cache.echoes == 0
    assert cache.pods["default/g-0"].nominated_node == "node-0"


def test_a_first_pending_status_is_read_as_the_unset_one_was() -> None:
    c = _cluster()
    cache = c.scheduler.cache
    group = c.get("PodGroup", "g")
    assert not (group.get("status") or {}).get("phase")  # a new PodGroup has no phase yet
    before = cache.generation
    cache.expect_echo("PodGroup", c.client.update(dict(group, status={"phase": "Pending"})))
    c.clock.run(c.clock.now_ms + 1)
    assert cache.generation == before and cache.echoes == 1
