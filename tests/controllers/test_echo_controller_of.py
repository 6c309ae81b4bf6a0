"""``accessors.controller_of`` (inlined, exact types tested first: every pod event of every
owner-tracking controller reads it) answers as the plain definition on random shapes of
``metadata`` and ``ownerReferences``, frozen or not, well-formed or not."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from volcano.api.accessors import controller_of
from volcano.api.frozen import freeze


def _reference(obj: Mapping[str, Any]) -> Mapping[str, Any] | None:
    meta = obj.get("metadata")
    refs = meta.get("ownerReferences") if isinstance(meta, Mapping) else None
    if not isinstance(refs, list):
        return None
    for ref in refs:
        if isinstance(ref, Mapping) and ref.get("controller") is True:
            return ref
    return None


_REF = st.one_of(st.fixed_dictionaries({"kind": st.sampled_from(["ReplicaSet", "Job"]), "uid": st.text(max_size=2)},
                                       optional={"controller": st.sampled_from([True, False, "true", 1, None])}),
                 st.sampled_from([None, "x", 3, ["controller", True]]))
_REFS = st.one_of(st.lists(_REF, max_size=3), st.sampled_from([None, "refs", {"controller": True}, 0]))
_META = st.one_of(st.fixed_dictionaries({"name": st.just("p")}, optional={"ownerReferences": _REFS}),
                  st.sampled_from([None, [], "meta"]))


@settings(max_examples=300, deadline=None)
@given(_META, st.sampled_from(["plain", "frozen", "proxy"]))
def test_controller_of_is_the_plain_definition(meta: Any, shape: str) -> None:
    obj: dict[str, Any] = {"kind": "Pod", "metadata": meta}
    if shape == "frozen":
        obj = freeze(obj)
    elif shape == "proxy" and isinstance(meta, dict):
        obj = {"kind": "Pod", "metadata": MappingProxyType(meta)}
    assert controller_of(obj) is _reference(obj)
    assert controller_of({}) is None
