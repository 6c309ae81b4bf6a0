"""Tests for volcano.api.quantity: Kubernetes quantity grammar, milli rounding, canonical form."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from volcano.api.quantity import QuantityError, format_milli, parse_quantity, to_milli

PARSE_CASES: list[tuple[str | int | float, Fraction]] = [
    ("100m", Fraction(1, 10)),
    ("1", Fraction(1)),
    ("1.5", Fraction(3, 2)),
    ("2Gi", Fraction(2 * 2**30)),
    ("500Mi", Fraction(500 * 2**20)),
    ("1Ki", Fraction(1024)),
    ("3Ti", Fraction(3 * 2**40)),
    ("1Pi", Fraction(2**50)),
    ("1Ei", Fraction(2**60)),
    ("1e3", Fraction(1000)),
    ("1E3", Fraction(1000)),
    ("15e-1", Fraction(3, 2)),
    ("2e+2", Fraction(200)),
    ("4k", Fraction(4000)),
    ("1M", Fraction(10**6)),
    ("1G", Fraction(10**9)),
    ("1T", Fraction(10**12)),
    ("1P", Fraction(10**15)),
    ("1E", Fraction(10**18)),
    (".5", Fraction(1, 2)),
    ("1.", Fraction(1)),
    ("+1", Fraction(1)),
    ("-2", Fraction(-2)),
    ("-500m", Fraction(-1, 2)),
    ("1n", Fraction(1, 10**9)),
    ("5u", Fraction(5, 10**6)),
    ("0", Fraction(0)),
    ("0.1Gi", Fraction(2**30, 10)),
    (2, Fraction(2)),
    (0.5, Fraction(1, 2)),
    (0.1, Fraction(1, 10)),
]


@pytest.mark.parametrize(("value", "expected"), PARSE_CASES, ids=[repr(c[0]) for c in PARSE_CASES])
def test_parse_quantity(value: str | int | float, expected: Fraction) -> None:
    assert parse_quantity(value) == expected


BAD = ["12x", "", "1K", "Gi", "1 Gi", " 1", "1e", "1.2.3", "--1", "1Gi1", "m", ".", "1ki", "1e999999"]


@pytest.mark.parametrize("value", BAD, ids=[repr(v) for v in BAD])
def test_bad_quantity_names_the_value(value: str) -> None:
    with pytest.raises(QuantityError) as info:
        parse_quantity(value)
    assert repr(value) in str(info.value)


@pytest.mark.parametrize("value", [True, None, float("nan"), float("inf"), [1]], ids=["bool", "none", "nan", "inf",
                                                                                       "list"])
def test_non_quantity_types_rejected(value: object) -> None:
    with pytest.raises(QuantityError):
        parse_quantity(value)  # type: ignore[arg-type]


def test_error_message_mentions_regular_expression() -> None:
    with pytest.raises(QuantityError, match=r"quantities must match the regular expression.*'12x'"):
        parse_quantity("12x")


MILLI_CASES: list[tuple[str | int | float, int]] = [
    ("1", 1000),
    ("100m", 100),
    ("1Ki", 1_024_000),
    ("1n", 1),  # rounds up
    ("1.0001", 1001),  # rounds up
    ("0.0005", 1),
    ("-1n", -1),  # away from zero, as MilliValue
    ("2Gi", 2_147_483_648_000),
    (3, 3000),
    (0.25, 250),
]


@pytest.mark.parametrize(("value", "expected"), MILLI_CASES, ids=[repr(c[0]) for c in MILLI_CASES])
def test_to_milli(value: str | int | float, expected: int) -> None:
    assert to_milli(value) == expected


FORMAT_CASES = [
    (500, False, "500m"),
    (2000, False, "2"),
    (1500, False, "1500m"),
    (0, False, "0"),
    (0, True, "0"),
    (-500, False, "-500m"),
    (4_000_000, False, "4k"),
    (1_500_000, False, "1500"),
    (10**9, False, "1M"),
    (10**21, False, "1E"),
    (10**24, False, "1000E"),
    (2_147_483_648_000, True, "2Gi"),
    (1_024_000, True, "1Ki"),
    (1_536_000, True, "1536"),  # 1.5Ki is not an integer in Ki
    (1_610_612_736_000, True, "1536Mi"),  # 1.5Gi
    (1_023_000, True, "1023"),  # below 1024: decimal
    (500, True, "500m"),  # fractional: decimal
    (1_000_000, True, "1k"),  # 1000 < 1024: decimal form
    (-2_147_483_648_000, True, "-2Gi"),
    (2**60 * 1000, True, "1Ei"),
    (2**70 * 1000, True, "1024Ei"),
]


@pytest.mark.parametrize(("milli", "binary", "expected"), FORMAT_CASES,
                         ids=[f"{c[0]}-{'bin' if c[1] else 'dec'}" for c in FORMAT_CASES])
def test_format_milli(milli: int, binary: bool, expected: str) -> None:
    assert format_milli(milli, binary=binary) == expected


def test_format_rejects_non_integers() -> None:
    with pytest.raises(QuantityError, match=r"1\.5"):
        format_milli(1.5)  # type: ignore[arg-type]


_milli = st.integers(min_value=-(10**22), max_value=10**22)


@given(milli=_milli, binary=st.booleans())
def test_format_then_parse_round_trips(milli: int, binary: bool) -> None:
    text = format_milli(milli, binary=binary)
    assert parse_quantity(text) == Fraction(milli, 1000)
    assert to_milli(text) == milli


@given(a=_milli, b=_milli)
def test_addition_is_exact(a: int, b: int) -> None:
    assert parse_quantity(format_milli(a)) + parse_quantity(format_milli(b, binary=True)) == Fraction(a + b, 1000)


@given(a=_milli, b=_milli, binary=st.booleans())
def test_ordering_preserved(a: int, b: int, binary: bool) -> None:
    pa, pb = parse_quantity(format_milli(a, binary=binary)), parse_quantity(format_milli(b, binary=binary))
    assert (pa < pb) == (a < b) and (pa == pb) == (a == b)


@given(num=st.integers(min_value=0, max_value=10**9), scale=st.integers(min_value=0, max_value=9))
def test_to_milli_is_ceiling_of_exact_value(num: int, scale: int) -> None:
    text = f"{num // 10**scale}.{num % 10**scale:0{scale}d}" if scale else str(num)
    exact = Fraction(num, 10**scale) * 1000
    got = to_milli(text)
    assert got - 1 < exact <= got
