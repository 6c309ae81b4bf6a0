"""Closes of gangs touched only by a replayed futile visit, reused across sessions, change nothing.

A huge waiting gang is visited by allocate every session, and the visit is mostly replayed from
the futile-visit memo (``actions.futile``): the job then carries each placed task's last
transaction and the recorded fit errors, so it is not untouched (``JobInfo.untouched``), yet its
close is a function of the job as built and of the outcome replayed. A carried job whose replay
is the very same recorded outcome as last session's closes as it closed then (``JobInfo.touch``,
``CloseMemo.touch``): the gang verdict with its Unschedulable condition, the status outcome, the
Unschedulable event and the per-task PodScheduled checks are reused as one unit.

Random clusters, biased towards gangs too large to fit that are admitted and tried every cycle,
with arrivals, completions, node changes and queue changes in between, are run with ``reuse`` on
and off (the reference path derives every close from scratch and replays nothing): every watch
event, the decision trace, the metrics and the cycle count are the same. A fixed cluster checks
that such closes are reused, so that the property is not vacuous.
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

_huge_gang = st.tuples(st.just("gang"), st.integers(4, 9), st.integers(0, 3), st.sampled_from(["1", "2", "3"]),
                       st.sampled_from(["default", "q0", "q1"]), st.sampled_from([None, "20s", "300s"]),
                       st.sampled_from([None, "high", "low"]), st.booleans())
"""Gangs mostly too large for the small clusters below: admitted, tried and discarded every cycle."""
_ops = st.one_of(_huge_gang, _huge_gang, _gang, _op, st.tuples(st.just("run"), st.integers(5_000, 60_000)))
scenarios = st.tuples(st.integers(1, 3), st.lists(_ops, min_size=3, max_size=14),
                      st.sampled_from(["default", "default", "preempt"]))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios)
def test_replayed_gang_closes_write_the_same_as_the_reference_path(scenario: tuple[int, list[Any], str]) -> None:
    nodes, ops, conf = scenario
    # Every watch event (writes, events, conditions and their times), the decision trace and
    # refused steps, the metrics and the cycle count.
    assert _run(nodes, ops, conf, reuse=True) == _run(nodes, ops, conf, reuse=False)


def _noting(closes: list[tuple[int, int]]) -> Any:
    """The scheduler module's ``close_session``, noting per close (closes of jobs touched by a
    replay that were reused, Unschedulable PodGroup events recorded)."""
    real = scheduler_module.close_session

    def close(ssn: Any) -> SessionOutcome:
        out = real(ssn)
        assert isinstance(out.statuses, Statuses)
        said = [e for e in out.events if e.kind == "PodGroup" and e.reason == "Unschedulable"]
        closes.append((out.statuses.replayed, len(said)))
        return out

    return close


def _cluster(reuse: bool, conf: str, ops: list[tuple[Any, ...]], closes: list[tuple[int, int]]) -> tuple[Any, ...]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(scheduler_module, "close_session", _noting(closes))
        cluster = FakeCluster(seed=1, scheduler_conf=CONFS[conf])
        cluster.scheduler.reuse = reuse
        cluster.default_scheduler.reuse = reuse
        events: list[Any] = []
        for kind in ("Event", "PodGroup", "Pod", "Queue"):
            cluster.client.watch(kind, lambda ev, kind=kind: events.append((kind, ev.type, ev.object)))
        _play(cluster, 2, ops)
    return events, cluster.trace.lines(), cluster.scheduler.cycles


def _no_fit() -> list[tuple[Any, ...]]:
    """Two 4-cpu nodes, each running one pod of a long gang, and a gang of eight 4-cpu pods (no node
    is ever free: every visit fails at its first task); short single pods come and go meanwhile."""
    ops: list[tuple[Any, ...]] = [
        ("gang", 2, 0, "1", "default", "300s", None, False),
        ("gang", 8, 0, "4", "default", None, None, False),
        ("run", 5_000),
    ]
    for _ in range(12):
        ops += [("gang", 1, 0, "1", "default", "3s", None, False), ("run", 2_000)]
    return ops


def _part_fit() -> list[tuple[Any, ...]]:
    """Two 4-cpu nodes and a gang of three 3-cpu pods: every visit places two, then fails (the
    placed tasks' transactions are part of the close); a queue is reweighted meanwhile."""
    ops: list[tuple[Any, ...]] = [("gang", 3, 0, "3", "default", None, None, False), ("run", 5_000)]
    for k in range(10):
        ops += [("queue", "q0", 1 + k % 3), ("run", 2_000)]
    return ops


@pytest.mark.parametrize(("conf", "shape"), [("default", "no_fit"), ("default", "part_fit")])
def test_a_huge_waiting_gang_closes_from_its_memo_while_its_visit_is_replayed(conf: str, shape: str) -> None:
    ops = _no_fit() if shape == "no_fit" else _part_fit()
    closes: list[tuple[int, int]] = []
    fast = _cluster(True, conf, ops, closes)
    ref: list[tuple[int, int]] = []
    assert fast == _cluster(False, conf, ops, ref)
    assert [n for _, n in closes] == [n for _, n in ref]  # the gang's event at every close, both ways
    assert not any(n for n, _ in ref)
    # With reuse, most closes take the waiting gang's close from its memo (its visit replayed).
    assert sum(1 for n, _ in closes if n >= 1) > len(closes) // 2, closes
    if shape == "part_fit":  # the placed tasks' transactions are in the message the memo says again
        said = [e[2]["message"] for e in fast[0] if e[0] == "Event" and e[2]["reason"] == "Unschedulable"]
        assert said and "2 Schedulable" in said[-1]
