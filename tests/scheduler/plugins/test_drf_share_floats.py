"""``DrfPlugin``'s element-wise dominant share is the double ``dominant_share`` computes with numpy."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from volcano.scheduler.framework.plugin import Arguments
from volcano.scheduler.plugins.drf import DrfPlugin, dominant_share, share_mask

NAMES = ["cpu", "memory", "pods", "nvidia.com/gpu", "example.com/fpga"]

amounts = st.integers(min_value=-(2**62), max_value=2**62)
totals = st.one_of(st.integers(min_value=0, max_value=2**62), st.integers(min_value=0, max_value=200))


@settings(max_examples=400, deadline=None)
@given(st.lists(totals, min_size=5, max_size=5), st.lists(amounts, min_size=5, max_size=5))
def test_element_wise_share_is_numpys(total: list[int], alloc: list[int]) -> None:
    plugin = DrfPlugin(Arguments({}))
    plugin.total = np.array(total, dtype=np.int64)
    plugin.mask = share_mask(plugin.total, NAMES)
    vec = np.array(alloc, dtype=np.int64)
    expected = dominant_share(vec, plugin.total, plugin.mask)
    got = plugin._dominant(vec)
    assert type(got) is float
    assert got == expected and np.signbit(got) == np.signbit(expected)


def test_rounding_of_amounts_beyond_double_precision() -> None:
    plugin = DrfPlugin(Arguments({}))
    plugin.total = np.array([3, 2**60 + 1, 0, 0, 0], dtype=np.int64)
    plugin.mask = share_mask(plugin.total, NAMES)
    vec = np.array([1, 2**59 + 3, 5, 0, 0], dtype=np.int64)
    assert plugin._dominant(vec) == dominant_share(vec, plugin.total, plugin.mask) == 0.5
    assert plugin._dominant(np.zeros(5, dtype=np.int64)) == 0.0
