"""WorkQueue: FIFO, dedup, re-add while processing, delays, rate limiting, error handling."""

from __future__ import annotations

import pytest

from volcano.apiserver import ApiError
from volcano.informers import WorkQueue
from volcano.sim import SimClock


def test_fifo_and_dedup() -> None:
    clock = SimClock()
    done: list[str] = []
    q: WorkQueue[str] = WorkQueue(clock, done.append, name="t")
    for key in ("a", "b", "a", "c", "b"):
        q.add(key)
    assert len(q) == 3 and done == []
    clock.run()
    assert done == ["a", "b", "c"] and len(q) == 0


def test_readd_while_processing_runs_again() -> None:
    clock = SimClock()
    done: list[str] = []
    q: WorkQueue[str] = WorkQueue(clock, lambda k: None, name="t")

    def process(key: str) -> None:
        done.append(key)
        if key == "a" and done.count(key) == 1:
            q.add(key)  # re-added while processing
            q.add("other")

    q._process = process
    q.add("a")
    clock.run()
    assert done == ["a", "other", "a"]


def test_add_after_keeps_earliest() -> None:
    clock = SimClock()
    done: list[tuple[int, str]] = []
    q: WorkQueue[str] = WorkQueue(clock, lambda k: done.append((clock.now_ms, k)), name="t")
    q.add_after("a", 100)
    q.add_after("a", 50)
    q.add_after("a", 200)
    q.add_after("b", 0)
    clock.run()
    assert done == [(0, "b"), (50, "a")]


def test_api_errors_retry_with_backoff() -> None:
    clock = SimClock()
    times: list[int] = []
    q: WorkQueue[str] = WorkQueue(clock, lambda k: None, name="t")

    def process(key: str) -> None:
        times.append(clock.now_ms)
        if len(times) < 5:
            raise ApiError(409, "Conflict", "try again")
        q.forget(key)

    q._process = process
    q.add("a")
    clock.run()
    assert times == [0, 5, 15, 35, 75]
    assert q.num_requeues("a") == 0


def test_backoff_cap() -> None:
    assert WorkQueue.backoff_ms(0) == 5
    assert WorkQueue.backoff_ms(3) == 40
    assert WorkQueue.backoff_ms(30) == 1_000_000
    assert WorkQueue.backoff_ms(100) == 1_000_000


def test_other_exceptions_propagate() -> None:
    clock = SimClock()

    def process(key: str) -> None:
        raise RuntimeError("bug")

    q: WorkQueue[str] = WorkQueue(clock, process, name="t")
    q.add("a")
    with pytest.raises(RuntimeError, match="bug"):
        clock.run()


def test_shut_down() -> None:
    clock = SimClock()
    done: list[str] = []
    q: WorkQueue[str] = WorkQueue(clock, done.append, name="t")
    q.add("a")
    q.add_after("b", 10)
    q.shut_down()
    q.add("c")
    clock.run()
    assert done == []
