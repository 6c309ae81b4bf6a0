"""``plain_metadata`` (decode's shortcut for the usual metadata: strings, and string maps for labels
and annotations) only ever accepts metadata that the ObjectMeta schema accepts, for every kind that
decodes by parts; and ``decode`` answers as the full decode on random metadata."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from volcano.api.frozen import freeze, thaw
from volcano.api.kinds import resolve_kind
from volcano.apiserver.errors import ApiError
from volcano.apiserver.validation import decode, plain_metadata, too_deep
from volcano.apiserver.validation.openapi import decode_errors, definition_name, part_validators

_KINDS = ["Pod", "Node", "Namespace", "ConfigMap", "Event", "PodGroup", "Queue", "Job", "PriorityClass"]
_leaf = st.sampled_from(["", "a", "x-1", "2024-01-01T00:00:00Z", "2024-01-01 00:00:00", "not a time", 1, 1.0, True,
                         None, 2**63 - 1, 2**63, -(2**63) - 1])
_values = st.recursive(_leaf, lambda inner: st.one_of(st.lists(inner, max_size=2),
                                                      st.dictionaries(st.sampled_from(["a", "b"]), inner,
                                                                      max_size=2)), max_leaves=5)
_fields = st.sampled_from(["name", "generateName", "namespace", "uid", "resourceVersion", "labels", "annotations",
                           "finalizers", "generation", "creationTimestamp", "ownerReferences", "other"])


@st.composite
def metadatas(draw: st.DrawFn) -> Any:
    """Mostly plain metadata (server fields included), with now and then a field of another type,
    another field, or a non-mapping."""
    if draw(st.integers(0, 9)) == 0:
        return draw(_values)
    meta: dict[str, Any] = {}
    for field in draw(st.lists(_fields, max_size=4, unique=True)):
        if field in ("labels", "annotations"):
            meta[field] = draw(st.one_of(st.dictionaries(st.sampled_from(["k", "a/b"]), _leaf, max_size=2), _values))
        elif field == "finalizers":
            meta[field] = draw(st.one_of(st.lists(_leaf, max_size=3), _values))
        else:
            meta[field] = draw(_leaf)
    return freeze(meta) if draw(st.booleans()) else meta


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(_KINDS), metadatas())
def test_plain_metadata_is_metadata_the_schema_accepts(kind: str, meta: Any) -> None:
    info = resolve_kind(kind)
    checks = part_validators(definition_name(info))
    if checks is None or "metadata" not in checks:
        return
    if plain_metadata(meta):
        assert checks["metadata"](meta)
        assert not too_deep(meta, 2)


def _outcome(kind: str, obj: dict[str, Any], full: bool) -> Any:
    info = resolve_kind(kind)
    if full:
        err = decode_errors(info, obj)
        head = f'{info.kind} in version "{info.version}" cannot be handled as a {info.kind}: '
        return None if err is None else head + err.message
    try:
        decode(info, obj)
    except ApiError as exc:
        assert not exc.details  # kube-apiserver's NewBadRequest carries no details
        return exc.message
    return None


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(_KINDS), metadatas())
def test_decode_with_the_shortcut_is_the_full_decode(kind: str, meta: Any) -> None:
    info = resolve_kind(kind)
    obj = {"apiVersion": info.api_version, "kind": info.kind, "metadata": thaw(meta)}
    assert _outcome(kind, thaw(obj), False) == _outcome(kind, thaw(obj), True)
