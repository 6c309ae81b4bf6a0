"""Reusing work across scheduler cycles changes nothing observable.

The schedulers remember what they parsed from the informer's immutable objects
(PodGroup parses, the node table's allocatable matrix, the default scheduler's
pod requests) and the session close skips work whose result is unused (the task
order and fit message of a job with nothing waiting) and sums queue allocation
per job instead of per task. ``reuse = False`` turns all of it off: random
scenarios run both ways give the same trace, store and metrics, and so does a
small trace replay.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable

from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from tests.sim.scenarios import random_scenario, run_scenario
from volcano.replay import ReplayConfig, SyntheticSpec, replay, synthetic_trace
from volcano.testbed import FakeCluster


def _maker(reuse: bool) -> Callable[[int], FakeCluster]:
    def make(seed: int) -> FakeCluster:
        cluster = FakeCluster(seed=seed)
        cluster.scheduler.reuse = reuse
        cluster.default_scheduler.reuse = reuse
        return cluster

    return make


@settings(max_examples=10, deadline=None, phases=(Phase.explicit, Phase.reuse, Phase.generate))
@given(st.integers(0, 100_000))
def test_reuse_across_cycles_is_invisible(seed: int) -> None:
    scenario = random_scenario(random.Random(seed), horizon_ms=400_000)
    fast = run_scenario(scenario, _maker(True))
    slow = run_scenario(scenario, _maker(False))
    assert fast.trace == slow.trace
    assert fast.store == slow.store
    assert fast.metrics == slow.metrics
    assert fast.cycles == slow.cycles


def test_reuse_is_on_by_default_and_can_be_turned_off() -> None:
    cluster = FakeCluster(seed=0)
    assert cluster.scheduler.reuse and cluster.default_scheduler.reuse
    cluster.default_scheduler.reuse = False
    assert not cluster.default_scheduler.reuse


@settings(max_examples=4, deadline=None, phases=(Phase.explicit, Phase.reuse, Phase.generate))
@given(st.integers(0, 1000))
def test_a_replay_records_the_same_lives_with_and_without_reuse(seed: int) -> None:
    trace = synthetic_trace(seed, SyntheticSpec(nodes=6, hours=0.25, jobs=30, duration_median_s=120))
    config = ReplayConfig(nodes=6, seed=seed, seconds=1200, queue_weights={"prod": 4, "dev": 2})
    fast, slow = (replay(trace, dataclasses.replace(config, reuse=reuse)) for reuse in (True, False))
    assert [(r.submit_ms, r.start_ms, r.finish_ms) for r in fast.records] == \
        [(r.submit_ms, r.start_ms, r.finish_ms) for r in slow.records]
    assert fast.gpu_changes == slow.gpu_changes and fast.sim_ms == slow.sim_ms
    assert any(r.finish_ms >= 0 for r in fast.records)
