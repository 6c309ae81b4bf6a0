"""Skipping proven no-op scheduler cycles changes nothing observable: random small scenarios run
with the clock's fast-forward on and off give the same trace, store, metrics and cycle counts,
whichever way time is advanced (``run``, ``step``, ``run_until``)."""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable

from hypothesis import Phase, event, given, settings
from hypothesis import strategies as st

from tests.sim.scenarios import random_scenario, run_scenario
from volcano.sim.clock import SimClock
from volcano.testbed import FakeCluster

Advance = Callable[[FakeCluster, int], None]


def _by_run(c: FakeCluster, until: int) -> None:
    c.clock.run(until)


def _by_step(c: FakeCluster, until: int) -> None:
    clock = c.clock
    while (nxt := clock.next_time()) is not None and nxt <= until:
        clock.step()
    clock.run(until)


def _by_run_until(c: FakeCluster, until: int) -> None:
    seen: list[int] = []
    with contextlib.suppress(TimeoutError):
        c.clock.run_until(lambda: bool(seen.append(c.clock.now_ms)), until - c.clock.now_ms)


def _maker(fast_forward: bool) -> Callable[[int], FakeCluster]:
    return lambda seed: FakeCluster(seed=seed, clock=SimClock(fast_forward=fast_forward))


@settings(max_examples=8, deadline=None, phases=(Phase.explicit, Phase.reuse, Phase.generate))
@given(st.integers(0, 100_000), st.sampled_from([_by_run, _by_step, _by_run_until]))
def test_skipping_idle_cycles_is_invisible(seed: int, advance: Advance) -> None:
    scenario = random_scenario(random.Random(seed), horizon_ms=600_000)
    fast = run_scenario(scenario, _maker(True), advance)
    slow = run_scenario(scenario, _maker(False), advance)
    assert fast.trace == slow.trace
    assert fast.store == slow.store
    assert fast.metrics == slow.metrics
    assert fast.cycles == slow.cycles and fast.now_ms == slow.now_ms
    assert slow.skipped == 0
    event(f"cycles skipped: {'some' if fast.skipped else 'none'}")


def test_an_idle_cluster_skips_its_cycles_and_counts_them() -> None:
    c = FakeCluster(seed=0)
    c.add_nodes(3)
    c.run(10)
    cycles, skipped = c.scheduler.cycles, c.clock.skipped_runs
    c.run(3600)
    assert c.scheduler.cycles == cycles + 3600 and c.default_scheduler.cycles >= 3600
    assert c.clock.skipped_runs - skipped == 2 * 3600  # both schedulers, every cycle of the hour
    assert c.scheduler.skipped_cycles >= 3600


def test_a_change_ends_the_skipping_at_once() -> None:
    c = FakeCluster(seed=0)
    c.add_nodes(1)
    c.run(100)
    c.apply({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
             "spec": {"schedulerName": "volcano", "containers": [{"name": "c", "image": "busybox"}]}})
    c.run(5)
    assert c.get("Pod", "p")["spec"].get("nodeName") == "node-0"


def _waiting_gang(fast_forward: bool) -> FakeCluster:
    c = FakeCluster(seed=0, clock=SimClock(fast_forward=fast_forward))
    c.add_nodes(2, cpu="2")
    c.apply({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup", "metadata": {"name": "g"},
             "spec": {"minMember": 3}})
    for i in range(3):
        c.apply({"apiVersion": "v1", "kind": "Pod",
                 "metadata": {"name": f"p{i}", "annotations": {"scheduling.k8s.io/group-name": "g"}},
                 "spec": {"schedulerName": "volcano", "containers": [{"name": "c", "image": "busybox",
                                                                      "resources": {"requests": {"cpu": "2"}}}]}})
    c.run(600)
    return c


def test_a_waiting_gang_replays_its_cycles_with_the_same_events_and_trace() -> None:
    fast, slow = _waiting_gang(True), _waiting_gang(False)
    assert fast.scheduler.replayed_cycles > 500 and slow.scheduler.replayed_cycles == 0
    assert [(e["reason"], e.get("count"), e.get("lastTimestamp")) for e in fast.events("PodGroup", "g")] == \
        [(e["reason"], e.get("count"), e.get("lastTimestamp")) for e in slow.events("PodGroup", "g")]
    assert fast.trace.lines() == slow.trace.lines()
    # client-go's spam filter writes a PodGroup's first 25 events, then one per 5 minutes; the written
    # count includes the filtered repeats, so the 5-minute write carries about 300
    assert max(e.get("count") or 0 for e in fast.events("PodGroup", "g")) > 250
