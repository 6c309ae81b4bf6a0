"""The work queue's rate limiter is client-go's ``DefaultControllerRateLimiter``: the longer of a
per-key exponential backoff and the wait for a token of a 10 qps / 100 burst bucket shared by the
queue's keys (golang.org/x/time/rate's ``Reserve().Delay()``)."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from volcano.informers import WorkQueue
from volcano.informers.workqueue import TokenReserver
from volcano.sim import SimClock


def test_the_bucket_starts_full_then_charges_a_tenth_of_a_second_a_token() -> None:
    """At one instant: ``burst`` reservations are free, each later one waits 100 ms more."""
    bucket = TokenReserver(10, 100)
    delays = [bucket.reserve(0) for _ in range(103)]
    assert delays[:100] == [0] * 100
    assert delays[100:] == [100, 200, 300]


def test_the_bucket_refills_at_its_rate_up_to_its_burst() -> None:
    """Debt is paid back at 10 tokens a second; an idle bucket holds no more than its burst."""
    bucket = TokenReserver(10, 100)
    assert [bucket.reserve(0) for _ in range(101)][-1] == 100  # one token in debt
    assert bucket.reserve(100) == 100  # the debt is paid at 100 ms; this one waits for the next token
    assert bucket.reserve(10_000_000) == 0  # idle for hours: full again, but only 100 tokens
    assert [bucket.reserve(10_000_000) for _ in range(100)][-2:] == [0, 100]


def _go_reserve_delays(arrivals: list[int], qps: int, burst: int) -> list[int]:
    """golang.org/x/time/rate ``Limiter.Reserve().Delay()`` written out in floats (seconds), as a
    reference: advance (tokens += elapsed * limit, capped at burst), take one, wait for the debt."""
    tokens, last, out = float(burst), None, []
    for now_ms in arrivals:
        t = now_ms / 1000
        if last is not None:
            tokens = min(float(burst), tokens + (t - last) * qps)
        last = t
        tokens -= 1
        out.append(0 if tokens >= 0 else math.ceil(round(-tokens / qps * 1000, 6)))
    return out


@given(st.lists(st.integers(min_value=0, max_value=2_000), min_size=1, max_size=300),
       st.integers(min_value=1, max_value=50), st.integers(min_value=1, max_value=120))
def test_reservations_match_go_and_keep_to_the_token_rate(gaps: list[int], qps: int, burst: int) -> None:
    """Whatever the arrival times, the delays are the reference limiter's, and the moments the
    reservations may act (arrival + delay) never come more than ``burst`` plus ``qps`` a second
    in any window."""
    bucket = TokenReserver(qps, burst)
    arrivals = list(itertools.accumulate(gaps))
    delays = [bucket.reserve(now) for now in arrivals]
    assert delays == _go_reserve_delays(arrivals, qps, burst)
    acts = sorted(now + d for now, d in zip(arrivals, delays, strict=True))
    for i, start in enumerate(acts):
        for j in range(i, len(acts)):
            assert j - i + 1 <= burst + (acts[j] - start) * qps // 1000 + 1


def test_a_queue_retries_the_longer_of_backoff_and_bucket() -> None:
    """Per key the backoff doubles from 5 ms; once 100 re-adds took the burst, 102 keys failing at
    the same instant are retried 100 ms apart; ``forget`` resets a key's backoff, not the bucket."""
    clock = SimClock()
    q: WorkQueue[str] = WorkQueue(clock, lambda key: None, name="t")
    delays = [q.rate_limit_delay_ms(f"k{i}") for i in range(102)]
    assert delays[:100] == [5] * 100 and delays[100:] == [100, 200]
    assert q.num_requeues("k0") == 1
    assert [q.rate_limit_delay_ms("k0") for _ in range(3)] == [300, 400, 500]  # bucket in debt
    q.forget("k0")
    assert q.num_requeues("k0") == 0


def test_a_failing_key_alone_follows_its_exponential_backoff() -> None:
    """One key failing on every attempt: 5, 10, 20, ... ms until the cap, the bucket never empty."""
    clock = SimClock()
    times: list[int] = []
    q: WorkQueue[str] = WorkQueue(clock, lambda key: None, name="t")

    def process(key: str) -> None:
        times.append(clock.now_ms)
        if len(times) < 12:
            q.add_rate_limited(key)

    q._process = process
    q.add("a")
    clock.run()
    gaps = [b - a for a, b in itertools.pairwise(times)]
    assert gaps == [5 * 2 ** n for n in range(11)]


@pytest.mark.parametrize(("qps", "burst"), [(0, 1), (1, 0)])
def test_a_bucket_needs_a_positive_rate_and_size(qps: int, burst: int) -> None:
    with pytest.raises(ValueError):
        TokenReserver(qps, burst)


def test_a_sharded_queue_gives_each_shard_a_bucket_of_its_own() -> None:
    """Keys of shard 0 spend their bucket's burst; a key of shard 1 still finds a token at once,
    while shard 0's next re-add waits for its own bucket (Volcano's Job controller: one
    ``DefaultControllerRateLimiter`` per worker queue)."""
    clock = SimClock()
    q: WorkQueue[str] = WorkQueue(clock, lambda key: None, name="t", shards=2, shard_of=lambda k: int(k[0]))
    assert [q.rate_limit_delay_ms(f"0-{i}") for i in range(100)] == [5] * 100
    assert q.rate_limit_delay_ms("1-a") == 5
    assert q.rate_limit_delay_ms("0-x") == 100


@pytest.mark.parametrize("shards", [0, 2])
def test_a_queue_refuses_shards_it_cannot_pick(shards: int) -> None:
    """No shard at all, or shards without the function that picks a key's, is a construction error."""
    with pytest.raises(ValueError, match="shards"):
        WorkQueue(SimClock(), lambda key: None, name="t", shards=shards)
