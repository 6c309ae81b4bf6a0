"""Faster forms of small hot helpers give exactly what the plain forms give.

``quota.share`` divides exact values as one integer division (the same
correctly rounded double as ``float(Fraction(l) / Fraction(r))``), and
``TaskSpec.dims`` builds the compared columns without a set union (the same
sorted columns as ``np.union1d([0, 1, 2], nonzero(vec))``).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from volcano.scheduler.framework.model import TaskSpec
from volcano.scheduler.framework.quota import share
from volcano.scheduler.framework.resources import ResourceSpace

_nums = st.one_of(st.integers(-10**15, 10**15),
                  st.fractions(min_value=Fraction(-10**12), max_value=Fraction(10**12), max_denominator=10**7))


@settings(max_examples=300, deadline=None)
@given(left=_nums, right=_nums)
def test_share_is_the_correctly_rounded_exact_quotient(left: int | Fraction, right: int | Fraction) -> None:
    got = share(left, right)
    if right == 0:
        assert got == (0.0 if left == 0 else 1.0)
    else:
        assert got == float(Fraction(left) / Fraction(right))


@settings(max_examples=100, deadline=None)
@given(requests=st.dictionaries(
    st.sampled_from(["cpu", "memory", "nvidia.com/gpu", "example.com/foo", "hugepages-2Mi"]), st.integers(0, 8),
    max_size=5))
def test_dims_are_the_fixed_columns_and_the_requested_ones(requests: dict[str, int]) -> None:
    space = ResourceSpace()
    space.vector({"example.com/bar": 1})  # a registered column nobody requests
    pod = {"metadata": {"name": "p", "namespace": "ns", "uid": "u"},
           "spec": {"containers": [{"name": "c", "resources": {"requests": {k: str(v) for k, v in requests.items()}}}]},
           "status": {"phase": "Pending"}}
    spec = TaskSpec(pod)
    vec = spec.vec(space)
    expected = np.union1d(np.array([0, 1, 2], dtype=np.intp), np.flatnonzero(vec))
    got = spec.dims()
    assert got.dtype == np.intp and got.tolist() == expected.tolist()
