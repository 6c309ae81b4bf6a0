"""Tests for volcano.api.frozen: read-only objects and thawing."""

from __future__ import annotations

import copy
import json
import pickle
from collections.abc import Callable
from typing import Any

import pytest
import yaml

from volcano.api.frozen import FrozenDict, FrozenList, freeze, is_frozen, thaw

OBJ: dict[str, Any] = {
    "metadata": {"name": "a", "labels": {"x": "y"}},
    "spec": {"containers": [{"name": "c"}], "tup": (1, 2)},
}

MUTATIONS: list[tuple[str, Callable[[Any], Any]]] = [
    ("setitem", lambda o: o.__setitem__("k", 1)),
    ("delitem", lambda o: o.__delitem__("metadata")),
    ("nested-setitem", lambda o: o["metadata"]["labels"].__setitem__("x", "z")),
    ("update", lambda o: o.update({"k": 1})),
    ("setdefault", lambda o: o.setdefault("k", 1)),
    ("pop", lambda o: o.pop("metadata")),
    ("popitem", lambda o: o.popitem()),
    ("clear", lambda o: o.clear()),
    ("ior", lambda o: o.__ior__({"k": 1})),
    ("list-append", lambda o: o["spec"]["containers"].append({})),
    ("list-setitem", lambda o: o["spec"]["containers"].__setitem__(0, {})),
    ("list-extend", lambda o: o["spec"]["containers"].extend([{}])),
    ("list-iadd", lambda o: o["spec"]["containers"].__iadd__([{}])),
    ("list-sort", lambda o: o["spec"]["containers"].sort()),
    ("list-pop", lambda o: o["spec"]["containers"].pop()),
    ("list-in-dict", lambda o: o["spec"]["containers"][0].__setitem__("name", "d")),
]


@pytest.mark.parametrize("mutate", [m[1] for m in MUTATIONS], ids=[m[0] for m in MUTATIONS])
def test_every_mutation_raises(mutate: Callable[[Any], Any]) -> None:
    frozen = freeze(OBJ)
    with pytest.raises(TypeError, match="read-only"):
        mutate(frozen)
    assert frozen == freeze(OBJ)


def test_frozen_equals_plain_and_serialises() -> None:
    frozen = freeze(OBJ)
    plain = {**OBJ, "spec": {**OBJ["spec"], "tup": [1, 2]}}
    assert frozen == plain
    assert json.loads(json.dumps(frozen)) == plain
    assert yaml.safe_load(yaml.safe_dump(frozen)) == plain
    assert pickle.loads(pickle.dumps(frozen)) == plain


def test_types_and_is_frozen() -> None:
    frozen = freeze(OBJ)
    assert type(frozen) is FrozenDict and type(frozen["spec"]["containers"]) is FrozenList
    assert type(frozen["spec"]["tup"]) is FrozenList
    assert is_frozen(frozen) and not is_frozen(OBJ) and not is_frozen("x")


def test_freeze_is_a_copy_and_shares_frozen_parts() -> None:
    src = copy.deepcopy(OBJ)
    frozen = freeze(src)
    src["metadata"]["name"] = "changed"
    assert frozen["metadata"]["name"] == "a"
    assert freeze(frozen) is frozen
    outer = freeze({"inner": frozen})
    assert outer["inner"] is frozen


def test_thaw_and_copies_give_plain_mutable_containers() -> None:
    frozen = freeze(OBJ)
    for plain in (thaw(frozen), copy.deepcopy(frozen)):
        assert type(plain) is dict and type(plain["spec"]["containers"]) is list
        plain["metadata"]["labels"]["x"] = "z"
        assert frozen["metadata"]["labels"]["x"] == "y"
    shallow = copy.copy(frozen)
    assert type(shallow) is dict
    shallow["k"] = 1
    assert "k" not in frozen
    assert type(copy.copy(frozen["spec"]["containers"])) is list


def test_scalars_pass_through() -> None:
    for value in (1, "s", None, 1.5, True):
        assert freeze(value) == value and thaw(value) == value


def test_frozen_values_are_hashable_by_identity() -> None:
    a, b = freeze({"x": 1}), freeze({"x": 1})
    assert len({id(a): a, id(b): b}) == 2
    assert {a} and hash(a) == hash(a)
