"""client-go's event correlator in ``EventRecorder``: the aggregator's 10th distinct message, the
spam filter's 25th/26th event and its refill at exactly 300 s (golang.org/x/time/rate's float
arithmetic), the counting of filtered events, the LRU bound, and determinism."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from volcano.apiserver import ApiServer, EventRecorder
from volcano.apiserver.events import AGGREGATE_PREFIX, SPAM_QPS, EventCorrelator, TokenBucket
from volcano.sim import SimClock
from volcano.sim.rand import RandomStreams

from .conftest import pod


def _setup(n_pods: int = 1) -> tuple[ApiServer, SimClock, EventRecorder, list[Any]]:
    clock = SimClock()
    server = ApiServer(clock, RandomStreams(1), event_ttl_s=None)  # counts, not expiry: every Event kept
    pods = [server.create(pod(f"p{i}")) for i in range(n_pods)]
    return server, clock, EventRecorder(server, clock, "volcano"), pods


def _events(server: ApiServer) -> list[Any]:
    return sorted(server.list("Event")["items"], key=lambda e: int(e["metadata"]["resourceVersion"]))


def test_qps_is_client_go_float32() -> None:
    assert SPAM_QPS == 0.0033333334140479565 and SPAM_QPS * 300 > 1.0


def test_the_10th_distinct_message_starts_the_aggregate_and_the_11th_patches_it() -> None:
    server, clock, rec, [p] = _setup()
    for i in range(9):
        rec.event(p, "Warning", "FailedScheduling", f"0/{i} nodes")
    assert [e["message"] for e in _events(server)] == [f"0/{i} nodes" for i in range(9)]
    clock.run(until_ms=1_000)
    rec.event(p, "Warning", "FailedScheduling", "0/9 nodes")
    *plain, aggregate = _events(server)
    assert len(plain) == 9
    assert (aggregate["message"], aggregate["count"], aggregate["reportingComponent"]) == (
        AGGREGATE_PREFIX + "0/9 nodes", 1, "")
    assert aggregate["metadata"]["name"] == f"p0.{clock.unix_ns():x}"
    assert aggregate["firstTimestamp"] == aggregate["lastTimestamp"] == "2024-01-01T00:00:01Z"
    clock.run(until_ms=2_000)
    rec.event(p, "Warning", "FailedScheduling", "0/10 nodes")
    events = _events(server)
    assert len(events) == 10
    assert (events[-1]["message"], events[-1]["count"], events[-1]["lastTimestamp"]) == (
        AGGREGATE_PREFIX + "0/10 nodes", 2, "2024-01-01T00:00:02Z")
    # another reason, or the same reason after a quiet 10 minutes, starts afresh
    rec.event(p, "Warning", "Other", "0/11 nodes")
    assert _events(server)[-1]["message"] == "0/11 nodes"
    clock.run(until_ms=2_000 + 600_001)
    rec.event(p, "Warning", "FailedScheduling", "0/12 nodes")
    assert _events(server)[-1]["message"] == "0/12 nodes"


def test_exactly_600_s_later_is_still_similar() -> None:
    server, clock, rec, [p] = _setup()
    for i in range(9):
        rec.event(p, "Normal", "R", f"m{i}")
    clock.run(until_ms=600_000)
    rec.event(p, "Normal", "R", "m9")
    assert _events(server)[-1]["message"] == AGGREGATE_PREFIX + "m9"


def test_the_spam_filter_passes_25_then_refills_one_at_exactly_300_s() -> None:
    server, clock, rec, [p, q] = _setup(2)
    for _ in range(25):
        rec.event(p, "Normal", "Pulled", "image present")
    [ev] = _events(server)
    assert ev["count"] == 25 and rec.filtered == 0
    rec.event(p, "Normal", "Pulled", "image present")  # the 26th: dropped, but counted
    assert rec.filtered == 1 and _events(server)[0]["count"] == 25
    rec.event(q, "Normal", "Pulled", "image present")  # another object has its own bucket
    assert rec.filtered == 1
    clock.run(until_ms=299_999)
    rec.event(p, "Normal", "Pulled", "image present")
    assert rec.filtered == 2
    clock.run(until_ms=300_000)  # a token is back exactly 300 s after the last allowed event
    rec.event(p, "Normal", "Pulled", "image present")
    assert rec.filtered == 2
    ev = next(e for e in _events(server) if e["involvedObject"]["name"] == "p0")
    assert (ev["count"], ev["lastTimestamp"]) == (28, "2024-01-01T00:05:00Z")  # 25 + 2 filtered + 1
    rec.event(p, "Normal", "Pulled", "image present")
    assert rec.filtered == 3


def test_token_bucket_arithmetic() -> None:
    bucket = TokenBucket()
    assert all(bucket.try_accept(0) for _ in range(25)) and not bucket.try_accept(0)
    # float32(1/300) is a little more than 1/300: the token is back 299.9999927 s later
    assert not bucket.try_accept(299_999_000_000) and not bucket.try_accept(299_999_992_700)
    assert bucket.try_accept(299_999_992_800) and not bucket.try_accept(299_999_992_800)
    # a refused event does not move the bucket's time: 300 s after the last allowed one, one more
    assert not bucket.try_accept(599_999_000_000)
    assert bucket.try_accept(299_999_992_800 + 300_000_000_000)
    # it fills up to the burst and no further
    assert sum(bucket.try_accept(10**16) for _ in range(40)) == 25
    # time going backwards gives nothing back
    assert not bucket.try_accept(0)


def test_each_cache_is_bounded_by_4096_and_least_recent_goes_first() -> None:
    correlator = EventCorrelator(lru_size=4)
    now = "2024-01-01T00:00:00Z"
    ref = {"kind": "Pod", "name": "p", "namespace": "default", "uid": "u", "apiVersion": "v1"}
    for i in range(6):
        seen = correlator.correlate("volcano", {**ref, "name": f"p{i}"}, "Normal", "R", "m", "volcano", 0, now)
        assert seen is not None and seen.count == 1
    assert len(correlator) == 4
    again = correlator.correlate("volcano", {**ref, "name": "p0"}, "Normal", "R", "m", "volcano", 0, now)
    assert again is not None and again.count == 1  # evicted: counted afresh
    latest = correlator.correlate("volcano", {**ref, "name": "p5"}, "Normal", "R", "m", "volcano", 0, now)
    assert latest is not None and latest.count == 2
    _, _, rec, pods = _setup(1)
    assert rec.correlator._logs.size == rec.correlator._spam.size == rec.correlator._aggregates.size == 4096
    for i in range(4100):
        rec.event({**pods[0], "metadata": {**pods[0]["metadata"], "name": f"x{i}"}}, "Normal", "R", "m")
    assert len(rec.correlator) == 4096


_calls = st.lists(st.tuples(st.integers(0, 2), st.sampled_from(["Normal", "Warning"]), st.sampled_from(["A", "B"]),
                            st.integers(0, 14), st.sampled_from([0, 0, 0, 1, 1_000, 299_999, 300_000, 700_000])),
                  min_size=1, max_size=80)


def _run(calls: list[tuple[int, str, str, int, int]]) -> tuple[list[Any], int]:
    server, clock, rec, pods = _setup(3)
    for who, etype, reason, message, advance in calls:
        clock.run(until_ms=clock.now_ms + advance)
        rec.event(pods[who], etype, reason, f"message {message}")
    return _events(server), rec.filtered


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_calls)
def test_same_calls_same_events(calls: list[tuple[int, str, str, int, int]]) -> None:
    (events, filtered), again = _run(calls), _run(calls)
    assert (events, filtered) == again
    # every call is on the server (as a count) or filtered, except filtered repeats that a later
    # written count includes: the stored counts never exceed the calls
    assert sum(e["count"] for e in events) <= len(calls)
    assert sum(e["count"] for e in events) + filtered >= len(calls)
