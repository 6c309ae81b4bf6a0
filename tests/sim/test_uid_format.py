"""``uuid4_text`` (the uid fast path) against the standard library's ``uuid.UUID``."""

from __future__ import annotations

import uuid

from hypothesis import given
from hypothesis import strategies as st

from volcano.sim.rand import RandomStreams, uuid4_text


@given(st.integers(min_value=0, max_value=2**128 - 1))
def test_uuid4_text_is_the_standard_librarys(bits: int) -> None:
    assert uuid4_text(bits) == str(uuid.UUID(int=bits, version=4))


@given(st.integers(min_value=0, max_value=2**32))
def test_stream_uids_are_the_standard_librarys_over_the_same_bits(seed: int) -> None:
    fast, reference = RandomStreams(seed), RandomStreams(seed)
    for _ in range(5):
        want = str(uuid.UUID(int=reference.stream("uid").getrandbits(128), version=4))
        assert fast.uid() == want
