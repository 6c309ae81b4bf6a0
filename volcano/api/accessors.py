"""Typed reads of Kubernetes-shaped objects that tolerate missing or malformed parts.

Objects come from manifests, the store and watches; any part may be absent, and
an object written before validation existed may hold a wrong type where a
mapping belongs. These accessors never raise on shape: a missing or non-mapping
``metadata``/``status`` reads as empty, a missing name as ``""``. They replace
the ``(obj.get("status") or {})`` chains and the per-module ``_meta`` helpers.
"""

from collections.abc import Mapping
from typing import Any

from volcano.api.frozen import FrozenDict

__all__ = ["annotations", "appendable", "controller_of", "key", "labels", "meta", "name", "namespace", "phase",
           "status"]

_EMPTY: Mapping[str, Any] = {}
_DICTS = (dict, FrozenDict)


def meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    """``obj["metadata"]``, or an empty mapping when absent or not a mapping."""
    value = obj.get("metadata")
    if type(value) in _DICTS:  # the common case, without the abstract-class check
        return value  # type: ignore[return-value]
    return value if isinstance(value, Mapping) else _EMPTY


def status(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    """``obj["status"]``, or an empty mapping when absent or not a mapping."""
    value = obj.get("status")
    if type(value) in _DICTS:
        return value  # type: ignore[return-value]
    return value if isinstance(value, Mapping) else _EMPTY


def name(obj: Mapping[str, Any]) -> str:
    """``metadata.name``, or ``""``."""
    value = meta(obj).get("name")
    return value if isinstance(value, str) else ""


def namespace(obj: Mapping[str, Any]) -> str:
    """``metadata.namespace``, or ``""`` (cluster-scoped objects)."""
    value = meta(obj).get("namespace")
    return value if isinstance(value, str) else ""


def key(obj: Mapping[str, Any]) -> str:
    """``namespace/name``, or just ``name`` for an object without a namespace (client-go's key)."""
    ns = namespace(obj)
    return f"{ns}/{name(obj)}" if ns else name(obj)


def labels(obj: Mapping[str, Any]) -> Mapping[str, str]:
    """``metadata.labels``, or an empty mapping."""
    value = meta(obj).get("labels")
    return value if isinstance(value, Mapping) else _EMPTY


def annotations(obj: Mapping[str, Any]) -> Mapping[str, str]:
    """``metadata.annotations``, or an empty mapping."""
    value = meta(obj).get("annotations")
    return value if isinstance(value, Mapping) else _EMPTY


def phase(obj: Mapping[str, Any]) -> str:
    """``status.phase``, or for a Volcano Job ``status.state.phase``; ``""`` when unset."""
    st = status(obj)
    value = st.get("phase")
    if value is None:
        state = st.get("state")
        value = state.get("phase") if isinstance(state, Mapping) else None
    return value if isinstance(value, str) else ""


def controller_of(obj: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The ownerReference with ``controller: true`` (there is at most one), or None."""
    # ``meta`` inlined, and the common shapes tested by exact type first (every pod event of
    # every owner-tracking controller reads this): the same answer as the general checks.
    value: Any = obj.get("metadata")
    if type(value) not in _DICTS and not isinstance(value, Mapping):
        return None
    refs = value.get("ownerReferences")
    if refs is None or not isinstance(refs, list):
        return None
    for ref in refs:
        if (type(ref) in _DICTS or isinstance(ref, Mapping)) and ref.get("controller") is True:
            return ref  # type: ignore[no-any-return]
    return None


def appendable(obj: dict[str, Any], field: str) -> list[Any]:
    """The list at ``obj[field]`` to append to, made empty first when the field is missing or null
    (Go appends to a nil slice alike: a manifest's ``env: null`` is no env). Unlike the reads above,
    this one writes: ``obj`` must be a mutable, thawed object."""
    value = obj.get(field)
    if not isinstance(value, list):
        value = obj[field] = []
    return value
