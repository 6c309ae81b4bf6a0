"""``labels_errors`` and ``annotations_errors`` answer at once for the usual maps (string keys that
pass and string values): on random maps (bad keys, bad values, values of other types, ``str``
subclasses, annotations over the size limit) they give the errors of the full rule, in its order."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from volcano.api.frozen import freeze
from volcano.apiserver.validation.field import OMIT, TOO_LONG, FieldError, invalid
from volcano.apiserver.validation.names import (
    _ANNOTATIONS_LIMIT,
    annotations_errors,
    label_value_errors,
    labels_errors,
    qualified_name_errors,
)


class _Text(str):
    """A ``str`` subclass (never taken for a plain string by the shortcuts)."""


def _reference_labels(labels: Any, path: str) -> list[FieldError]:
    if not labels or not isinstance(labels, Mapping):
        return []
    errs: list[FieldError] = []
    for key in sorted(labels, key=str):
        errs.extend(invalid(path, key, e) for e in qualified_name_errors(str(key)))
        value = labels[key]
        if isinstance(value, str):
            errs.extend(invalid(path, value, e) for e in label_value_errors(value))
    return errs


def _reference_annotations(annotations: Any, path: str) -> list[FieldError]:
    if not annotations or not isinstance(annotations, Mapping):
        return []
    errs: list[FieldError] = []
    total = 0
    for key in sorted(annotations, key=str):
        errs.extend(invalid(path, key, e) for e in qualified_name_errors(str(key).lower()))
        total += len(str(key)) + len(str(annotations[key]))
    if total > _ANNOTATIONS_LIMIT:
        errs.append(FieldError(TOO_LONG, path, OMIT, f"must have at most {_ANNOTATIONS_LIMIT} bytes"))
    return errs


_keys = st.one_of(st.sampled_from(["app", "a/b", "Bad Key", "-x", "example.com/Name", "x" * 64, "", "A/b", "a//b"]),
                  st.sampled_from(["app", "Bad Key"]).map(_Text), st.sampled_from([1, True]))
_values = st.one_of(st.sampled_from(["", "v", "bad value", "y" * 64, "z" * (_ANNOTATIONS_LIMIT // 2)]),
                    st.sampled_from(["v", "bad value"]).map(_Text), st.sampled_from([1, None, 2.5]))
_maps = st.one_of(st.dictionaries(_keys, _values, max_size=4), st.none(), st.just("x"))


@settings(max_examples=400, deadline=None)
@given(_maps, st.booleans())
def test_labels_and_annotations_give_the_full_rules_errors(value: Any, frozen: bool) -> None:
    if frozen and isinstance(value, dict):
        value = freeze(value)
    assert labels_errors(value, "metadata.labels") == _reference_labels(value, "metadata.labels")
    assert annotations_errors(value, "metadata.annotations") == _reference_annotations(value, "metadata.annotations")
