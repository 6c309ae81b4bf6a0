"""Tests for volcano.api.selectors: label/field selector parsing and matching."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from volcano.api.frozen import freeze
from volcano.api.selectors import (
    EVERYTHING,
    FieldSelector,
    LabelSelector,
    SelectorError,
    label_selector_from_dict,
    parse_field_selector,
    parse_label_selector,
)

LABELS = {"app": "web", "tier": "front", "gpu": "true", "n": "5", "example.com/team": "ml"}

MATCH_CASES = [
    ("", True),
    ("   ", True),
    ("app=web", True),
    ("app==web", True),
    ("app = web", True),
    ("app=db", False),
    ("app!=db", True),
    ("app!=web", False),
    ("missing!=x", True),
    ("missing=x", False),
    ("app in (web,db)", True),
    ("app in (db, cache)", False),
    ("app notin (db)", True),
    ("app notin (web)", False),
    ("missing notin (x)", True),
    ("missing in (x)", False),
    ("gpu", True),
    ("missing", False),
    ("!missing", True),
    ("!gpu", False),
    ("n>4", True),
    ("n>5", False),
    ("n<6", True),
    ("app>1", False),
    ("missing<9", False),
    ("example.com/team=ml", True),
    ("app=web,tier=front,gpu,!spot", True),
    ("app=web,tier=back", False),
    ("app in(web),tier notin(back)", True),
    ("missing=", False),
    ("app in (web,)", True),
]


@pytest.mark.parametrize(("text", "expected"), MATCH_CASES, ids=[c[0] or "<empty>" for c in MATCH_CASES])
def test_string_selector_matches(text: str, expected: bool) -> None:
    assert parse_label_selector(text).matches(LABELS) is expected


def test_empty_value_selects_label_with_empty_value() -> None:
    sel = parse_label_selector("a=")
    assert sel.matches({"a": ""})
    assert not sel.matches({"a": "x"})
    assert not sel.matches({})


def test_in_with_trailing_comma_includes_empty_value() -> None:
    sel = parse_label_selector("a in (x,)")
    assert sel.matches({"a": ""}) and sel.matches({"a": "x"}) and not sel.matches({"a": "y"})


def test_none_labels_behave_as_empty() -> None:
    assert parse_label_selector("!a,b!=c").matches(None)
    assert not parse_label_selector("a").matches(None)
    assert EVERYTHING.matches(None)


BAD_STRINGS = [
    ("a in ()", "values set can't be empty"),
    ("a in (b", "missing ')'"),
    ("a b", "expected an operator"),
    ("=b", "expected a label key"),
    ("a,", "trailing ','"),
    ("a=b=c", "expected ','"),
    ("a in b", "expected '('"),
    ("!", "after '!'"),
    ("a>b", "integer"),
    ("-bad=x", "invalid label key"),
    ("a=-bad", "invalid label value"),
    ("a=" + "x" * 64, "invalid label value"),
    ("UPPER.prefix/a=x", "invalid label key"),
    ("a in (x y)", "unexpected 'y'"),
]


@pytest.mark.parametrize(("text", "fragment"), BAD_STRINGS, ids=[c[0][:20] for c in BAD_STRINGS])
def test_bad_string_selector_is_rejected_naming_the_text(text: str, fragment: str) -> None:
    with pytest.raises(SelectorError) as info:
        parse_label_selector(text)
    assert fragment in str(info.value)
    assert repr(text)[1:20] in str(info.value) or text[:15] in str(info.value)


def test_non_string_selector_rejected() -> None:
    with pytest.raises(SelectorError, match="must be a string"):
        parse_label_selector(3)  # type: ignore[arg-type]


def test_canonical_string_is_sorted_and_round_trips() -> None:
    sel = parse_label_selector("z=1, a in (c,b,b), !m, k")
    assert str(sel) == "a in (b,c),k,!m,z=1"
    assert parse_label_selector(str(sel)) == sel
    assert hash(parse_label_selector(str(sel))) == hash(sel)


def test_double_equals_is_equals() -> None:
    assert parse_label_selector("a==b") == parse_label_selector("a=b")
    assert str(parse_label_selector("a == b")) == "a=b"


def test_empty_property() -> None:
    assert parse_label_selector("").empty
    assert not parse_label_selector("a").empty
    assert label_selector_from_dict({}).empty
    assert label_selector_from_dict(None).empty


DICT_CASES: list[tuple[str, dict[str, Any] | None, dict[str, str], bool]] = [
    ("none-matches-all", None, {}, True),
    ("empty-matches-all", {}, {"x": "y"}, True),
    ("matchLabels-hit", {"matchLabels": {"app": "web"}}, LABELS, True),
    ("matchLabels-miss", {"matchLabels": {"app": "web", "tier": "back"}}, LABELS, False),
    ("In-hit", {"matchExpressions": [{"key": "app", "operator": "In", "values": ["web", "x"]}]}, LABELS, True),
    ("In-missing-key", {"matchExpressions": [{"key": "q", "operator": "In", "values": ["web"]}]}, LABELS, False),
    ("NotIn-hit", {"matchExpressions": [{"key": "app", "operator": "NotIn", "values": ["db"]}]}, LABELS, True),
    ("NotIn-missing-key", {"matchExpressions": [{"key": "q", "operator": "NotIn", "values": ["x"]}]}, {}, True),
    ("Exists", {"matchExpressions": [{"key": "gpu", "operator": "Exists"}]}, LABELS, True),
    ("DoesNotExist", {"matchExpressions": [{"key": "gpu", "operator": "DoesNotExist"}]}, LABELS, False),
    ("both", {"matchLabels": {"app": "web"},
              "matchExpressions": [{"key": "tier", "operator": "In", "values": ["front"]}]}, LABELS, True),
]


@pytest.mark.parametrize(("sel", "labels", "expected"), [c[1:] for c in DICT_CASES], ids=[c[0] for c in DICT_CASES])
def test_dict_selector_matches(sel: dict[str, Any] | None, labels: dict[str, str], expected: bool) -> None:
    assert label_selector_from_dict(sel).matches(labels) is expected


def test_dict_selector_accepts_frozen_objects() -> None:
    sel = freeze({"matchLabels": {"a": "b"}, "matchExpressions": [{"key": "c", "operator": "Exists"}]})
    assert label_selector_from_dict(sel) == parse_label_selector("a=b,c")


BAD_DICTS: list[tuple[str, Any, str]] = [
    ("bad-operator", {"matchExpressions": [{"key": "a", "operator": "Gt", "values": ["1"]}]},
     "matchExpressions[0].operator"),
    ("in-no-values", {"matchExpressions": [{"key": "a", "operator": "In"}]}, "can't be empty"),
    ("exists-values", {"matchExpressions": [{"key": "a", "operator": "Exists", "values": ["x"]}]}, "must be empty"),
    ("label-not-str", {"matchLabels": {"a": 1}}, "matchLabels['a']"),
    ("unknown-field", {"matchLabel": {"a": "b"}}, "unknown field"),
    ("not-mapping", ["a"], "must be a mapping"),
    ("bad-key", {"matchLabels": {"a b": "c"}}, "invalid label key 'a b'"),
    ("key-missing", {"matchExpressions": [{"operator": "Exists"}]}, "matchExpressions[0].key"),
]


@pytest.mark.parametrize(("sel", "fragment"), [c[1:] for c in BAD_DICTS], ids=[c[0] for c in BAD_DICTS])
def test_bad_dict_selector_names_field(sel: Any, fragment: str) -> None:
    with pytest.raises(SelectorError) as info:
        label_selector_from_dict(sel)
    assert fragment in str(info.value)


# --- properties ----------------------------------------------------------------------------------

_names = st.from_regex(r"[a-z][a-z0-9]{0,5}", fullmatch=True)
_values = st.from_regex(r"[a-z0-9]{1,4}", fullmatch=True)
_labels = st.dictionaries(_names, _values, max_size=6)


@given(match=_labels, labels=_labels)
def test_match_labels_is_a_subset_test(match: dict[str, str], labels: dict[str, str]) -> None:
    sel = label_selector_from_dict({"matchLabels": match})
    assert sel.matches(labels) == (match.items() <= labels.items())


_requirement_text = st.one_of(
    st.builds(lambda k, v: f"{k}={v}", _names, _values),
    st.builds(lambda k, v: f"{k}!={v}", _names, _values),
    st.builds(lambda k, vs: f"{k} in ({','.join(vs)})", _names, st.lists(_values, min_size=1, max_size=3)),
    st.builds(lambda k, vs: f"{k} notin ({','.join(vs)})", _names, st.lists(_values, min_size=1, max_size=3)),
    _names,
    st.builds(lambda k: f"!{k}", _names),
)


@given(parts=st.lists(_requirement_text, max_size=5), labels=_labels)
def test_string_form_round_trips_and_conjunction(parts: list[str], labels: dict[str, str]) -> None:
    sel = parse_label_selector(",".join(parts))
    again = parse_label_selector(str(sel))
    assert again == sel
    assert again.matches(labels) == sel.matches(labels)
    each = all(parse_label_selector(p).matches(labels) for p in parts)
    assert sel.matches(labels) == each


# --- field selectors -----------------------------------------------------------------------------

POD = {"metadata": {"name": "p1", "namespace": "ns"}, "spec": {"nodeName": "n1"}, "status": {"phase": "Running"}}
UNBOUND = {"metadata": {"name": "p2", "namespace": "ns"}, "spec": {}, "status": {"phase": "Pending"}}

FIELD_CASES = [
    ("", POD, True),
    ("metadata.name=p1", POD, True),
    ("metadata.name==p1", POD, True),
    ("metadata.name!=p1", POD, False),
    ("metadata.namespace=ns,status.phase=Running", POD, True),
    ("metadata.namespace=ns,status.phase=Pending", POD, False),
    ("spec.nodeName=", UNBOUND, True),
    ("spec.nodeName=", POD, False),
    ("spec.nodeName!=", POD, True),
    ("spec.nodeName=n1", POD, True),
    ("status.phase!=Failed,status.phase!=Succeeded", UNBOUND, True),
    (" spec.nodeName = n1", POD, False),  # the value keeps its spaces, as Kubernetes does
]


@pytest.mark.parametrize(("text", "obj", "expected"), FIELD_CASES, ids=[c[0] or "<empty>" for c in FIELD_CASES])
def test_field_selector_matches(text: str, obj: dict[str, Any], expected: bool) -> None:
    assert parse_field_selector(text).matches(obj) is expected


def test_field_selector_escapes() -> None:
    sel = parse_field_selector(r"metadata.name=a\,b\=c")
    assert sel.matches({"metadata": {"name": "a,b=c"}})
    assert parse_field_selector(str(sel)) == sel


@pytest.mark.parametrize("text", ["metadata.name", "=x", "metadata..name=x", "a=b=c", "a=x\\y"],
                         ids=["no-op", "no-path", "empty-segment", "unescaped-eq", "bad-escape"])
def test_bad_field_selector(text: str) -> None:
    with pytest.raises(SelectorError, match="field selector"):
        parse_field_selector(text)


def test_field_selector_empty() -> None:
    assert parse_field_selector("").empty and FieldSelector().matches({})
    assert isinstance(parse_label_selector("a"), LabelSelector)
