"""Allocate serves a queue again, without the heap, after a visit that fired no event handler.

After a replayed futile visit or a quiet discarded one (``actions.allocate._serve``) every plugin's
allocation is as before the visit, so the queue just served is still first in queue order and not
overused: allocate serves it again instead of pushing it back and popping it. The property: over
the random clusters and session sequences of the futile-visit property test, the visits (job and
queue, in order) and everything the session leaves are the same as when every queue goes back
through the heap (``_serve`` made to report every visit as one that may have fired handlers).
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.scheduler.test_allocate_futile import _conf, _session, _World
from volcano.scheduler.actions import allocate
from volcano.scheduler.actions.base import Agenda
from volcano.scheduler.framework.carry import JobCarry


def _sessions(seed: int, sessions: int, monkeypatch: pytest.MonkeyPatch, stay: bool,
              visits: list[tuple[str, str]], pops: list[str]) -> list[Any]:
    """Run the property test's sessions (the memo's path, jobs carried) of ``seed``, recording each
    visit (job uid, queue name) in ``visits`` and each queue popped from the agenda in ``pops``;
    with ``stay`` False every visit reports that it may have fired handlers (the heap path)."""
    serve = allocate._serve

    def recording(ssn: Any, job: Any, queue: Any, *args: Any) -> Any:
        visits.append((job.uid, queue.name))
        stmt, still = serve(ssn, job, queue, *args)
        return stmt, still and stay

    pop = Agenda.pop_queue

    def popping(self: Agenda) -> Any:
        queue = pop(self)
        pops.append(queue.name)
        return queue

    with monkeypatch.context() as m:
        m.setattr(allocate, "_serve", recording)
        m.setattr(Agenda, "pop_queue", popping)
        rng = random.Random(seed)
        world = _World(rng)
        conf = _conf(rng)
        carry = JobCarry()
        out = []
        for k in range(sessions):
            fast = _session(world, conf, True, carry, world.shared, k)
            out.append(fast)
            world.bound(fast[2])
            world.written(fast[3][2])
            world.change()
    return out


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 1_000_000))
def test_serving_the_queue_again_is_pushing_it_back_and_popping(seed: int) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        kept_visits: list[tuple[str, str]] = []
        heap_visits: list[tuple[str, str]] = []
        kept = _sessions(seed, 6, monkeypatch, True, kept_visits, [])
        heap = _sessions(seed, 6, monkeypatch, False, heap_visits, [])
    assert kept_visits == heap_visits
    assert kept == heap


def test_the_queue_is_served_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """The property is not vacuous: over its first seeds, visits outnumber the queues popped from
    the agenda on the kept path (queues served again), and not on the heap path (every visit's
    queue is popped), with the same visits."""
    saved = 0
    for seed in range(20):
        kept_visits: list[tuple[str, str]] = []
        kept_pops: list[str] = []
        heap_visits: list[tuple[str, str]] = []
        heap_pops: list[str] = []
        _sessions(seed, 6, monkeypatch, True, kept_visits, kept_pops)
        _sessions(seed, 6, monkeypatch, False, heap_visits, heap_pops)
        assert kept_visits == heap_visits
        assert len(heap_pops) >= len(heap_visits)
        saved += len(heap_pops) - len(kept_pops)
    assert saved >= 60
