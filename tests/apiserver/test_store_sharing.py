"""``share_unchanged``: an update stores the unchanged parts of the old object as they are, and the
stored result is exactly what freezing the update would give (same values, same types at every
level: ``1``, ``1.0`` and ``True``, a tuple and a list, are never mistaken for one another)."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.apiserver.conftest import typed_shape
from volcano.api.frozen import FrozenDict, freeze, thaw
from volcano.apiserver.store import _same, share_unchanged

_leaf = st.one_of(st.sampled_from([1, 1.0, True, 0, False, 0.0, None, "1", "", "a"]), st.integers(-3, 3))
_value = st.recursive(_leaf, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(["a", "b", "c"]), inner, max_size=3)),
    max_leaves=8)


def _retyped(value: Any) -> Any:
    """An equal value of another type where there is one (``1`` -> ``1.0`` -> ``True`` -> ``1``)."""
    if type(value) is bool:
        return int(value)
    if type(value) is int:
        return float(value)
    if type(value) is float:
        return bool(value) if value in (0.0, 1.0) else int(value) if value.is_integer() else "changed"
    return "changed"


def _perturb(value: Any, how: int) -> Any:
    """An edited plain copy of ``value``: unchanged, a number retyped, a list made a tuple, or new."""
    plain = thaw(value)
    if how == 0:
        return plain
    if how == 1 and isinstance(plain, dict) and plain:
        key = next(iter(plain))
        plain[key] = _perturb(plain[key], 1) if isinstance(plain[key], dict | list) else _retyped(plain[key])
        return plain
    if how == 2 and isinstance(plain, list):
        return tuple(plain)
    return {"new": how}


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(["spec", "status", "data", "extra"]), _value, max_size=4),
       st.dictionaries(st.sampled_from(["labels", "annotations", "finalizers", "ownerReferences"]), _value,
                       max_size=3),
       st.lists(st.integers(0, 3), min_size=8, max_size=8))
def test_shared_update_stores_what_freezing_it_would(parts: dict[str, Any], meta: dict[str, Any],
                                                    hows: list[int]) -> None:
    old = freeze({**parts, "metadata": {"name": "x", **meta}})
    new = {k: _perturb(v, hows[i % 8]) for i, (k, v) in enumerate(parts.items())}
    new["metadata"] = {"name": "x", **{k: _perturb(v, hows[(i + 4) % 8]) for i, (k, v) in enumerate(meta.items())}}
    expected = freeze(copy.deepcopy(new))
    share_unchanged(old, new)
    stored = freeze(new)
    assert typed_shape(stored) == typed_shape(expected)
    for key, value in stored.items():
        if key != "metadata" and type(old.get(key)) is FrozenDict and typed_shape(old[key]) == typed_shape(value):
            assert value is old[key]  # an unchanged part is the stored part itself


class _Text(str):
    """A ``str`` subclass with its own ``repr`` (never the same value as the plain string)."""

    def __repr__(self) -> str:
        return f"_Text({str.__repr__(self)})"


_map_keys = st.one_of(st.sampled_from(["a", "b", "app", "kubectl.kubernetes.io/x"]), st.sampled_from([1, True, 1.0]),
                      st.sampled_from(["a", "b"]).map(_Text))
_map_values = st.one_of(st.sampled_from(["", "x", "<&>", "1"]), st.sampled_from([1, None, True]),
                        st.sampled_from(["x", "1"]).map(_Text))


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(_map_keys, _map_values, max_size=4), st.integers(0, 3), st.booleans())
def test_string_maps_are_the_same_exactly_when_repr_says_so(stored: dict[Any, Any], how: int, shuffle: bool) -> None:
    value = dict(stored)
    if how == 1 and value:
        key = next(iter(value))
        value[key] = _Text(value[key]) if type(value[key]) is str else "changed"
    elif how == 2:
        value["extra"] = "x"
    if shuffle:
        value = dict(reversed(list(value.items())))
    frozen = freeze(stored)
    expected = frozen == value and repr(frozen) == repr(value)
    assert _same(frozen, value) is expected
