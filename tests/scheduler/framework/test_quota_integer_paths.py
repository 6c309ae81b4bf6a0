"""``quota.le_tolerant`` and ``vector_le_tolerant`` in integer arithmetic agree with the rational
reference (``left < right or left - right < tolerance(name)`` over the union of dimensions)."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from volcano.scheduler.framework.quota import Num, le_tolerant, overused, tolerance, vector_le_tolerant

NAMES = ("cpu", "memory", "pods", "nvidia.com/gpu", "ephemeral-storage")

ints = st.integers(min_value=-10**15, max_value=10**15)
fractions = st.builds(Fraction, ints, st.integers(min_value=1, max_value=10**6))
near = st.builds(lambda base, off: base + Fraction(off, 20), ints, st.integers(min_value=-4000, max_value=4000))
numbers = st.one_of(ints, fractions, near)


def reference_le(left: Num, right: Num, name: str) -> bool:
    return left < right or left - right < tolerance(name)


def reference_vector(left: dict[str, Num], right: dict[str, Num]) -> bool:
    names = set(left) | {"cpu", "memory"}
    return all(reference_le(left.get(n, 0), right.get(n, 0), n) for n in names)


@settings(max_examples=400, deadline=None)
@given(numbers, numbers, st.sampled_from(NAMES))
def test_le_tolerant_matches_the_rational_reference(left: Num, right: Num, name: str) -> None:
    assert le_tolerant(left, right, name) is reference_le(left, right, name)


@settings(max_examples=200, deadline=None)
@given(numbers, st.integers(min_value=-200, max_value=200), st.sampled_from(NAMES))
def test_le_tolerant_at_the_tolerance_boundary(right: Num, step: int, name: str) -> None:
    left = right + Fraction(step, 10) * (1000 if name in ("memory", "pods") else 1) / 10
    assert le_tolerant(left, right, name) is reference_le(left, right, name)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(NAMES), numbers, max_size=5),
       st.dictionaries(st.sampled_from(NAMES), numbers, max_size=5))
def test_vector_le_tolerant_matches_the_reference(left: dict[str, Num], right: dict[str, Num]) -> None:
    assert vector_le_tolerant(left, right) is reference_vector(left, right)
    assert overused(left, right) is reference_vector(left, right)


def test_values_that_decide_only_by_the_tolerance() -> None:
    assert le_tolerant(Fraction(10001, 10), 1000, "cpu") is False  # 0.1 over: not below 1/10
    assert le_tolerant(Fraction(100009, 100), 1000, "cpu") is True  # 0.09 over
    assert le_tolerant(1099, 1000, "memory") is True and le_tolerant(1100, 1000, "memory") is False
    assert le_tolerant(1001, 1000, "cpu") is False and le_tolerant(1000, 1000, "cpu") is True
    assert vector_le_tolerant({}, {"cpu": -1}) is False  # cpu is compared even when left lacks it
    assert vector_le_tolerant({"pods": 50}, {}) is True


def test_other_number_types_take_the_reference_expression() -> None:
    assert le_tolerant(1000.05, 1000, "cpu") is reference_le(1000.05, 1000, "cpu")  # type: ignore[arg-type]
    assert le_tolerant(True, 1, "cpu") is True
