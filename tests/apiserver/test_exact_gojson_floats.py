"""Floats rendered as Go renders them: ``encoding/json`` (``go_json``, the last-applied annotation)
uses strconv ``'f'`` for magnitudes in [1e-6, 1e21) and ``'e'`` outside with a one-digit negative
exponent unpadded; ``fmt`` ``%v`` (``go_str``, patch error messages) uses strconv ``'g'`` with the
shortest digits, switching to ``'e'`` below exponent -4 and from exponent 6."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from volcano.apiserver.gojson import go_json, go_json_float, go_str

JSON_FLOATS = [
    (1.0, "1"), (-1.0, "-1"), (0.0, "0"), (-0.0, "-0"), (0.5, "0.5"), (0.1, "0.1"), (-2.75, "-2.75"),
    (1e16, "10000000000000000"), (1e20, "100000000000000000000"),
    (123456789012345680000.0, "123456789012345680000"), (1e21, "1e+21"), (-1e21, "-1e+21"), (1e22, "1e+22"),
    (1.5e300, "1.5e+300"), (1.7976931348623157e308, "1.7976931348623157e+308"),
    (1e-6, "0.000001"), (-1e-6, "-0.000001"), (1.234e-5, "0.00001234"),
    (9.99e-7, "9.99e-7"), (1e-7, "1e-7"), (-2.5e-8, "-2.5e-8"), (1e-9, "1e-9"), (1.5e-10, "1.5e-10"),
    (1e-100, "1e-100"), (5e-324, "5e-324"),
]


@pytest.mark.parametrize(("value", "text"), JSON_FLOATS)
def test_encoding_json_spelling_of_a_float(value: float, text: str) -> None:
    assert go_json_float(value) == text
    assert go_json(value) == text
    assert go_json([value]) == f"[{text}]"
    assert go_json({"v": value}) == f'{{"v":{text}}}'


FMT_FLOATS = [
    (1.0, "1"), (-1.0, "-1"), (0.0, "0"), (-0.0, "-0"), (123456.0, "123456"), (999999.5, "999999.5"),
    (1e6, "1e+06"), (1234567.5, "1.2345675e+06"), (-1e6, "-1e+06"), (1e16, "1e+16"), (1e21, "1e+21"),
    (0.0001, "0.0001"), (0.00012, "0.00012"), (1e-5, "1e-05"), (1.5e-5, "1.5e-05"), (1e-7, "1e-07"),
    (1e-100, "1e-100"), (0.5, "0.5"), (math.inf, "+Inf"), (-math.inf, "-Inf"), (math.nan, "NaN"),
]


@pytest.mark.parametrize(("value", "text"), FMT_FLOATS)
def test_fmt_v_spelling_of_a_float(value: float, text: str) -> None:
    assert go_str(value) == text
    assert go_str({"a": [value]}) == f"map[a:[{text}]]"


def test_floats_deep_in_a_value_sorted_and_escaped_around_them() -> None:
    value: dict[str, Any] = {"z": [1.0, 2, {"x": 1e-7, "<": "1.5"}], "a": "v1.2", "m": {"f": 2.5e21, "i": 10}}
    assert go_json(value) == ('{"a":"v1.2","m":{"f":2.5e+21,"i":10},'
                              '"z":[1,2,{"\\u003c":"1.5","x":1e-7}]}')


def test_text_that_only_looks_like_a_float_is_left_as_json_writes_it() -> None:
    assert go_json({"image": "nginx:1.14", "ratio": "1e-07", "n": 3}) == \
        '{"image":"nginx:1.14","n":3,"ratio":"1e-07"}'


def test_non_finite_floats_keep_the_python_spelling() -> None:
    assert go_json([math.inf, -math.inf]) == "[Infinity,-Infinity]"


def _numpy_reference(value: float) -> str:
    """An independent oracle: numpy's shortest positional or scientific rendering, per Go's cutoffs."""
    magnitude = abs(value)
    if magnitude != 0 and (magnitude < 1e-6 or magnitude >= 1e21):
        text = np.format_float_scientific(value, unique=True, trim="-", exp_digits=2)
        return text.replace("e-0", "e-") if text[-3:-1] == "-0" else text
    return np.format_float_positional(value, unique=True, trim="-")


@settings(max_examples=400, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_go_json_float_matches_an_independent_rendering(value: float) -> None:
    assert go_json_float(value) == _numpy_reference(value)
    assert float(go_json_float(value)) == value
