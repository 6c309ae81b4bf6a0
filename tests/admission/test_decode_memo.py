"""``spec_decode_error`` remembers the PodGroup and Queue specs it accepted unchanged: on random
sequences of specs (so that accepted specs come back, also as equal values of other JSON types, in
other key orders or carrying integral floats), every answer and in-place normalisation is the one
the decode without the memo gives."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from volcano.admission import decode as decode_module
from volcano.admission.decode import _GO_TYPES, _walk, spec_decode_error
from volcano.apiserver.validation.crd_schemas import CRD_SCHEMAS

_leaf = st.sampled_from([0, 1, 2, 1.0, 2.0, 2.5, True, False, None, "", "1", "default", "q", 2**40])
_values = st.recursive(_leaf, lambda inner: st.one_of(
    st.lists(inner, max_size=2),
    st.dictionaries(st.sampled_from(["mode", "highestTierAllowed", "name", "x"]), inner, max_size=2)), max_leaves=5)
_KINDS = {"PodGroup.scheduling.volcano.sh": ["minMember", "queue", "minTaskMember", "priorityClassName",
                                             "networkTopology", "subGroupPolicy", "minResources"],
          "Queue.scheduling.volcano.sh": ["weight", "reclaimable", "capability", "parent", "guarantee", "affinity"]}


@st.composite
def specs(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    """A kind key and an object whose spec is drawn from a small pool of fields and values."""
    kind = draw(st.sampled_from(sorted(_KINDS)))
    fields = draw(st.lists(st.sampled_from(_KINDS[kind]), max_size=3, unique=True))
    spec = {f: draw(st.one_of(_leaf, _values)) for f in fields}
    if draw(st.booleans()):
        spec = dict(reversed(list(spec.items())))
    return kind, {"spec": spec}


def _reference(kind: str, obj: dict[str, Any]) -> str | None:
    schema = CRD_SCHEMAS[kind]["properties"]["spec"]
    return _walk(_GO_TYPES[kind], schema, obj["spec"], "spec", ("spec",), kind.split(".", 1)[0])


@settings(max_examples=300, deadline=None)
@given(st.lists(specs(), min_size=1, max_size=12))
def test_remembered_specs_decode_as_the_full_decode(batch: list[tuple[str, dict[str, Any]]]) -> None:
    decode_module._ACCEPTED.clear()
    for kind, obj in batch + batch:  # the second round meets every accepted spec again
        expected_obj = copy.deepcopy(obj)
        expected = _reference(kind, expected_obj)
        got = spec_decode_error(kind, obj)
        assert got == expected
        assert repr(obj) == repr(expected_obj)  # the same in-place normalisation (types included)


def test_an_integral_float_is_normalised_and_not_remembered_as_given() -> None:
    decode_module._ACCEPTED.clear()
    kind = "PodGroup.scheduling.volcano.sh"
    obj = {"spec": {"minMember": 2.0}}
    assert spec_decode_error(kind, obj) is None
    assert repr(obj["spec"]["minMember"]) == "2"
    again = {"spec": {"minMember": 2.0}}
    assert spec_decode_error(kind, again) is None
    assert repr(again["spec"]["minMember"]) == "2"  # normalised again, not skipped
    bad = {"spec": {"minMember": True}}
    assert spec_decode_error(kind, bad) is not None  # equal to 1 but a bool: never taken from the memo
