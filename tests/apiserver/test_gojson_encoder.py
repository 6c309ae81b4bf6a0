"""``go_json`` (a prebuilt encoder, escaping only when needed) writes what ``json.dumps`` with
sorted keys, compact separators and Go's HTML escapes writes, and fails as it fails (floats, which Go
writes differently, are in test_exact_gojson_floats.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from volcano.apiserver.gojson import _HTML, go_json

_text = st.text(alphabet=st.sampled_from(["a", "<", ">", "&", "\u2028", "\u2029", "é", "\"", "\\", "\n", "1"]),
                max_size=6)
_values = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), _text),
                       lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_text, inner, max_size=3)),
                       max_leaves=10)


def _reference(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).translate(_HTML)


@settings(max_examples=300, deadline=None)
@given(_values)
def test_go_json_is_the_sorted_compact_escaped_dump(value: Any) -> None:
    assert go_json(value) == _reference(value)


def test_a_circular_value_is_refused_as_json_refuses_it() -> None:
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular reference detected"):
        go_json(loop)
