"""Quiet jobs' closes reused across sessions change nothing observable.

A job the session left untouched (``JobInfo.untouched``), carried with the same inputs as last
session, closes as it closed then (``status._reused``): a running job writes nothing, and a
waiting one (a gang the enqueue check keeps Pending, a job with tasks left unplaced) writes
nothing but its Unschedulable event, whose message is a function of the job as built. Random
clusters, biased towards gangs that cannot be placed and stay waiting for many cycles, are run
with ``reuse`` on and off (the reference path derives every close from scratch): every watch
event (PodGroup writes, Events with their messages and counts, pod conditions with their
transition times, Queue writes), the decision trace and the metrics are the same. A fixed
cluster checks that the reuse does happen, so that the property is not vacuous.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import volcano.scheduler.scheduler as scheduler_module
from tests.scheduler.test_job_carry import CONFS, _gang, _op, _play, _run
from volcano.scheduler.framework.status import SessionOutcome, Statuses
from volcano.testbed import FakeCluster

_big_gang = st.tuples(st.just("gang"), st.integers(3, 6), st.integers(0, 2), st.sampled_from(["2", "3"]),
                      st.sampled_from(["default", "q0", "q1"]), st.sampled_from([None, "20s", "300s"]),
                      st.sampled_from([None, "high", "low"]), st.booleans())
"""Gangs too large for the small clusters below: they wait, mostly untouched, for many cycles."""
_quiet_ops = st.one_of(_big_gang, _big_gang, _gang, _op, st.tuples(st.just("run"), st.integers(5_000, 60_000)))
quiet_scenarios = st.tuples(st.integers(1, 3), st.lists(_quiet_ops, min_size=3, max_size=14),
                            st.sampled_from(sorted(CONFS)))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(quiet_scenarios)
def test_quiet_closes_write_the_same_as_the_reference_path(scenario: tuple[int, list[Any], str]) -> None:
    nodes, ops, conf = scenario
    fast = _run(nodes, ops, conf, reuse=True)
    slow = _run(nodes, ops, conf, reuse=False)
    assert fast[0] == slow[0]  # every watch event: writes, events, conditions and their times
    assert fast[1] == slow[1]  # the decision trace and refused steps
    assert fast[2] == slow[2]  # metrics
    assert fast[3] == slow[3]  # cycles


def _counting(reused: list[int], waiting: list[int]) -> Any:
    """A ``close_session`` for the scheduler module that notes, per close, how many jobs' closes
    were reused and how many Unschedulable PodGroup events it recorded."""
    real = scheduler_module.close_session

    def close(ssn: Any) -> SessionOutcome:
        out = real(ssn)
        assert isinstance(out.statuses, Statuses)
        reused.append(out.statuses.reused)
        waiting.append(sum(1 for e in out.events if e.kind == "PodGroup" and e.reason == "Unschedulable"))
        return out

    return close


def _waiting_cluster(reuse: bool, reused: list[int], waiting: list[int]) -> tuple[list[Any], list[str]]:
    ops: list[tuple[Any, ...]] = [
        ("gang", 2, 0, "1", "default", "300s", None, False),  # runs, and stays running
        ("gang", 6, 0, "3", "default", None, None, False),  # never fits one 4-cpu node: waits
        ("run", 30_000),
        ("gang", 1, 0, "1", "default", "20s", None, False),  # placed, finishes: the others stay quiet
        ("run", 60_000),
    ]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(scheduler_module, "close_session", _counting(reused, waiting))
        cluster = FakeCluster(seed=1)
        cluster.scheduler.reuse = reuse
        cluster.default_scheduler.reuse = reuse
        events: list[Any] = []
        cluster.client.watch("Event", lambda ev: events.append((ev.type, ev.object)))
        _play(cluster, 1, ops)
    return events, cluster.trace.lines()


def test_a_waiting_gang_closes_from_its_memo_and_still_records_its_event() -> None:
    reused: list[int] = []
    waiting: list[int] = []
    events, trace = _waiting_cluster(True, reused, waiting)
    ref_reused: list[int] = []
    ref_waiting: list[int] = []
    ref_events, ref_trace = _waiting_cluster(False, ref_reused, ref_waiting)
    assert events == ref_events and trace == ref_trace
    assert waiting == ref_waiting  # the waiting gang's event at every close, both ways
    assert sum(ref_reused) == 0
    # With reuse, most closes pass over both gangs (the waiting one included): its event comes
    # from the memo.
    assert sum(1 for n in reused if n >= 2) > len(reused) // 2
    assert all(n >= 1 for n in waiting[1:])
