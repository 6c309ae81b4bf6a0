"""``TokenBucket``'s refusal shortcut (``shut_until``: every event before it is refused while the
bucket does not move) answers exactly as the plain arithmetic (``rate.Limiter.AllowN``) answers
every event, for any rate, burst and sequence of times, forwards, repeated or backwards."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from volcano.apiserver.events import SPAM_QPS, TokenBucket


class _Plain:
    """The bucket without the shortcut: ``golang.org/x/time/rate`` as client-go's ``TryAccept``."""

    def __init__(self, qps: float, burst: int) -> None:
        self.qps, self.burst, self.tokens = qps, burst, float(burst)
        self.last: int | None = None

    def try_accept(self, now_ns: int) -> bool:
        last = self.last
        tokens = float(self.burst)
        if last is not None:
            last = min(last, now_ns)
            elapsed = now_ns - last
            seconds = float(elapsed // 10**9) + float(elapsed % 10**9) / 1e9
            tokens = min(float(self.burst), self.tokens + seconds * self.qps)
        tokens -= 1.0
        wait_ns = int(1e9 * (-tokens / self.qps)) if tokens < 0 else 0
        if self.burst < 1 or wait_ns > 0:
            return False
        self.last, self.tokens = now_ns, tokens
        return True


_STEPS = st.one_of(st.integers(0, 2_000_000_000), st.integers(0, 400).map(lambda s: s * 10**9),
                   st.integers(-3, 3), st.integers(-10**10, 0), st.just(0))


@settings(max_examples=300, deadline=None)
@given(st.sampled_from([SPAM_QPS, 1.0, 0.5, 1e-9, 3.0, -1.0]), st.integers(0, 4),
       st.lists(_STEPS, min_size=1, max_size=120), st.integers(0, 10**15))
def test_shortcut_answers_as_the_arithmetic(qps: float, burst: int, steps: list[int], start: int) -> None:
    fast, plain = TokenBucket(qps, burst), _Plain(qps, burst)
    now = start
    answers = []
    for step in steps:
        now = max(0, now + step)
        answers.append(fast.try_accept(now))
        assert answers[-1] == plain.try_accept(now), (now, answers)
        assert (fast.last_ns, fast.tokens) == (plain.last, plain.tokens)


def test_a_spammed_object_is_refused_by_the_shortcut_until_its_token_is_back() -> None:
    bucket = TokenBucket()
    assert all(bucket.try_accept(0) for _ in range(25)) and not bucket.try_accept(10**9)
    assert 299 * 10**9 < bucket.shut_until <= 299_999_992_800  # just under the refill's token
    assert not bucket.try_accept(bucket.shut_until - 1)
    assert not bucket.try_accept(299_999_992_700) and bucket.try_accept(299_999_992_800)
    assert bucket.shut_until < 0  # moved: forgotten
