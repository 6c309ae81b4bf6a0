"""The remembered checks give the answers of the full checks.

``decode`` accepts an object property by property, remembering values that decoded; the Pod rule
remembers specs that passed; the name checks remember each text's answer. On random sequences of
objects (so that remembered values come back, as equal values of other types, in other key orders,
nested too deep or carrying integral floats), each answer, error and in-place normalisation is the
one the unremembered check gives.
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from volcano.api.kinds import resolve_kind
from volcano.apiserver.errors import ApiError
from volcano.apiserver.validation import MAX_DEPTH, _decode_error, _name, _pod_rule, decode, too_deep
from volcano.apiserver.validation.names import (
    _dns1123_label_errors_uncached,
    _label_value_errors_uncached,
    _qualified_name_errors_uncached,
    dns1123_label_errors,
    label_value_errors,
    qualified_name_errors,
)
from volcano.apiserver.validation.openapi import DecodeError, decode_errors
from volcano.apiserver.validation.pod import pod_spec_errors

_numbers = st.sampled_from([0, 1, 2, -1, 1.0, 2.0, 2.5, True, False, 2**40, None])
_texts = st.sampled_from(["", "a", "1", "100m", "2Gi", "x y", "Always", "Never", "busybox", "-a", "A" * 70])
_leaf = st.one_of(_numbers, _texts)
_junk = st.recursive(_leaf, lambda inner: st.one_of(st.lists(inner, max_size=2),
                                                     st.dictionaries(st.sampled_from(["a", "cpu", "name"]), inner,
                                                                     max_size=2)), max_leaves=6)


def _deep(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = [value]
    return value


@st.composite
def pods(draw: st.DrawFn) -> dict[str, Any]:
    """A Pod whose spec comes from a small pool (so values repeat) with random perturbations."""
    container: dict[str, Any] = {"name": draw(st.sampled_from(["c", "C", "c-1"])), "image": draw(_texts)}
    if draw(st.booleans()):
        container["resources"] = {"requests": draw(st.dictionaries(st.sampled_from(["cpu", "memory"]), _leaf,
                                                                   max_size=2))}
    spec: dict[str, Any] = {"containers": draw(st.sampled_from([[container], [], "x", [container, container]]))}
    for field in draw(st.lists(st.sampled_from(["restartPolicy", "terminationGracePeriodSeconds", "schedulerName",
                                                "priority", "nodeSelector", "hostNetwork", "extra"]), max_size=3)):
        spec[field] = draw(st.one_of(_leaf, _junk))
    if draw(st.integers(0, 9)) == 0:
        spec["extra"] = _deep(draw(st.sampled_from([MAX_DEPTH - 3, MAX_DEPTH - 2, MAX_DEPTH - 1, MAX_DEPTH])))
    if draw(st.booleans()):  # the same content in another key order
        spec = dict(reversed(list(spec.items())))
    obj: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod",
                           "metadata": {"name": draw(st.sampled_from(["p", "q"])),
                                        "labels": draw(st.one_of(st.just({"a": "b"}), _junk))},
                           "spec": spec}
    if draw(st.booleans()):
        obj["status"] = draw(st.one_of(st.just({"phase": "Pending"}), _junk))
    if draw(st.integers(0, 5)) == 0:
        obj[draw(st.sampled_from(["apiVersion", "kind", "unknown"]))] = draw(st.one_of(_leaf, _junk))
    return obj


def _reference_decode(obj: dict[str, Any]) -> Any:
    info = resolve_kind("Pod")
    try:
        err = DecodeError("json: exceeded max depth", "", None) if too_deep(obj) else decode_errors(info, obj)
    except RecursionError:
        err = DecodeError("json: exceeded max depth", "", None)
    if err is None:
        return None
    exc = _decode_error(info, _name(obj), err)
    return (exc.code, exc.message, exc.details)


def _decode(obj: dict[str, Any]) -> Any:
    try:
        decode(resolve_kind("Pod"), obj)
    except ApiError as exc:
        return (exc.code, exc.message, exc.details)
    return None


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(pods(), min_size=1, max_size=8))
def test_decode_by_parts_is_decode(batch: list[dict[str, Any]]) -> None:
    for obj in batch + batch:  # every value comes back once remembered
        mine, reference = copy.deepcopy(obj), copy.deepcopy(obj)
        assert _decode(mine) == _reference_decode(reference)
        assert repr(mine) == repr(reference)  # the same normalisation (an integral float made an int)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(pods(), min_size=1, max_size=8))
def test_pod_rule_is_pod_spec_errors(batch: list[dict[str, Any]]) -> None:
    for obj in batch + batch:
        assert _pod_rule(obj) == pod_spec_errors(obj.get("spec"), "spec", for_pod=True)


@given(st.lists(st.one_of(_texts, st.text(max_size=12), st.sampled_from(["a/b", "example.com/x", "A.b/c"])),
                max_size=6))
def test_name_checks_are_the_uncached_ones(texts: list[str]) -> None:
    for text in texts + texts:
        assert qualified_name_errors(text) == _qualified_name_errors_uncached(text)
        assert label_value_errors(text) == _label_value_errors_uncached(text)
        assert dns1123_label_errors(text) == _dns1123_label_errors_uncached(text)
        qualified_name_errors(text).append("a caller's edit")  # a fresh list: the remembered one is unchanged
        assert qualified_name_errors(text) == _qualified_name_errors_uncached(text)
