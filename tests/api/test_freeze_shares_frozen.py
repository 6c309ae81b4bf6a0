"""``freeze`` keeps a frozen part of a plain value as that very object (without a call), and
otherwise freezes exactly as before: on random JSON-like values mixing plain and frozen parts, the
result equals the freeze of a fully plain copy, type by type and key order included, and each
frozen part directly inside a plain container is the same object in the result."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from volcano.api.frozen import FrozenDict, FrozenList, freeze, thaw

_SCALAR = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=False, width=16),
                    st.text(max_size=3))
_VALUE = st.recursive(_SCALAR, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=2), inner, max_size=3),
    st.lists(inner, max_size=3).map(freeze), st.dictionaries(st.text(max_size=2), inner, max_size=3).map(freeze),
    st.lists(inner, max_size=2).map(tuple)), max_leaves=12)


def _typed(value: Any) -> Any:
    if isinstance(value, dict):
        return (type(value).__name__, [(k, _typed(v)) for k, v in value.items()])
    if isinstance(value, list | tuple):
        return (type(value).__name__, [_typed(v) for v in value])
    return (type(value).__name__, value)


@settings(max_examples=300, deadline=None)
@given(_VALUE)
def test_freeze_equals_the_freeze_of_a_plain_copy_and_shares_frozen_parts(value: Any) -> None:
    frozen = freeze(value)
    assert _typed(frozen) == _typed(freeze(thaw(value)))
    if type(value) is dict:
        for k, v in value.items():
            if type(v) in (FrozenDict, FrozenList):
                assert frozen[k] is v
    elif type(value) is list:
        for i, v in enumerate(value):
            if type(v) in (FrozenDict, FrozenList):
                assert frozen[i] is v
