"""A cycle whose only writes are echoes is repeated exactly (``volcano.scheduler.scheduler``,
"Echoes").

A cycle that wrote pod ``PodScheduled=False`` conditions (no nominated node), PodGroup statuses
that keep the phase, or queues' ``status.allocated`` (and bound, evicted and failed nothing) is
followed, when nothing but the echoes of those writes reaches the cache, by a replay of its
events minus the ones tied to its writes, or a skip. Random clusters (the carry test's, and the
quiet-close test's biased towards gangs that wait for many cycles) are run with the clock's
``fast_forward`` on and off (off: every cycle is computed): every watch event (PodGroup and pod
writes, Events with their messages, counts and times, Queue writes), the decision trace, the
metrics and the cycle count are the same. Fixed clusters check that the echo path is taken.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, event, given, settings

from tests.scheduler.test_job_carry import CONFS, _play, scenarios, watch_streams
from tests.scheduler.test_quiet_close import quiet_scenarios
from tests.sim.scenarios import _metrics
from volcano.sim.clock import SimClock
from volcano.testbed import FakeCluster


def _run(nodes: int, ops: list[tuple[Any, ...]], conf: str, fast_forward: bool) -> tuple[Any, ...]:
    cluster = FakeCluster(seed=1, scheduler_conf=CONFS[conf], clock=SimClock(fast_forward=fast_forward))
    streams = watch_streams(cluster)
    notes = _play(cluster, nodes, ops)
    s = cluster.scheduler
    return (streams, cluster.trace.lines() + notes, _metrics(cluster), s.cycles,
            (s.echoed_cycles, s.replayed_cycles, s.skipped_cycles, cluster.clock.now_ms))


def _same(scenario: tuple[int, list[Any], str]) -> tuple[int, int]:
    nodes, ops, conf = scenario
    fast = _run(nodes, ops, conf, fast_forward=True)
    slow = _run(nodes, ops, conf, fast_forward=False)
    assert fast[0] == slow[0]  # every watch event: writes, events, conditions and their times
    assert fast[1] == slow[1]  # the decision trace and refused steps
    assert fast[2] == slow[2]  # metrics (latency histograms with their 0 ms observations included)
    assert fast[3] == slow[3] and fast[4][3] == slow[4][3]  # cycles, simulated time
    assert slow[4][1] == slow[4][2] == 0  # the reference computed every cycle
    return fast[4][0], slow[4][0]


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios)
def test_echo_replays_change_nothing_observable(scenario: tuple[int, list[Any], str]) -> None:
    event(f"cycles whose writes were echoes: {'some' if _same(scenario)[0] else 'none'}")


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(quiet_scenarios)
def test_echo_replays_of_waiting_gangs_change_nothing_observable(scenario: tuple[int, list[Any], str]) -> None:
    event(f"cycles whose writes were echoes: {'some' if _same(scenario)[0] else 'none'}")


def test_a_running_gang_losing_a_pod_takes_the_echo_path() -> None:
    ops: list[tuple[Any, ...]] = [
        ("gang", 3, 2, "1", "default", "300s", None, False),  # three pods, minMember 1: runs
        ("gang", 6, 0, "3", "default", None, None, False),  # never fits one 4-cpu node: waits
        ("run", 30_000),
        ("delete_pod", 0),  # g0-0 goes: g0 stays Running with 2 (status and queue writes, no phase move)
        ("run", 30_000),
    ]
    fast_echoes, slow_echoes = _same((1, ops, "default"))
    assert fast_echoes == slow_echoes == 1  # the cycle after the deletion, both ways
    fast = _run(1, ops, "default", fast_forward=True)
    # the cycles after it, while nothing else happens, are replayed (the waiting gang's event)
    assert fast[4][1] > 25
    assert any("Unschedulable" in line for line in fast[0][-50:])
