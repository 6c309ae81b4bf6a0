"""Object-metadata helpers shared by the store: names, shape checks, resourceVersions.

Names are checked as
Kubernetes checks them (DNS-1123 subdomain, at most 253 characters), and a
malformed object fails with an ``ApiError`` naming the field and the value.
"""

from __future__ import annotations

import copy
from typing import Any

from volcano.api.frozen import FrozenDict
from volcano.api.kinds import KindInfo
from volcano.apiserver.errors import bad_request, invalid
from volcano.apiserver.validation import decode
from volcano.apiserver.validation.field import go_value
from volcano.apiserver.validation.names import dns1123_subdomain_errors

__all__ = [
    "check_object_shape",
    "drop_metadata_nulls",
    "has_status_subresource",
    "parse_resource_version",
    "resource_name",
]


def has_status_subresource(info: KindInfo) -> bool:
    """Whether ``info`` is served with a ``/status`` subresource (status is then ignored by
    create/update and written only through ``update_status``/status patches)."""
    return info.has_status


def resource_name(info: KindInfo) -> str:
    """The resource as Kubernetes names it in messages: ``pods``, ``jobs.batch.volcano.sh``."""
    return info.resource


def _undecodable(info: KindInfo, obj: dict[str, Any]) -> None:
    """Raise the decoder's 400 for ``obj``, whose metadata has a field of the wrong JSON type (a write
    that reaches the shape check before decoding, such as an update, is refused as it is decoded)."""
    decode(info, copy.deepcopy(obj))


def drop_metadata_nulls(obj: dict[str, Any]) -> None:
    """Store ``obj``'s metadata as Go decodes it into ObjectMeta: a field that is JSON null is left
    out (every field is ``omitempty``), and a null value in labels or annotations (a
    ``map[string]string``) is the empty string (``{"a": null}`` is stored as ``{"a": ""}``)."""
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        return
    for field in [k for k, v in meta.items() if v is None]:
        del meta[field]
    for field in ("labels", "annotations"):
        value = meta.get(field)
        if isinstance(value, dict) and any(v is None for v in value.values()):
            meta[field] = {k: "" if v is None else v for k, v in value.items()}


def _check_string_map(info: KindInfo, obj: dict[str, Any], name: str, meta: dict[str, Any], field: str) -> None:
    value = meta.get(field)
    if value is None:
        return
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str | None)
                                              for k, v in value.items()):
        _undecodable(info, obj)
    if not isinstance(value, dict):
        raise invalid(info.key, name, [f"metadata.{field}: Invalid value: {value!r}: must be a mapping"])
    for k, v in value.items():
        if not isinstance(k, str) or not isinstance(v, str | None):
            raise invalid(info.key, name,
                          [f"metadata.{field}.{k}: Invalid value: {v!r}: keys and values must be strings"])


def _plain_maps(value: Any) -> bool:
    """Whether ``value`` is absent or a dict of ``str`` to ``str`` (which ``_check_string_map`` passes)."""
    if value is None:
        return True
    if type(value) is not dict and type(value) is not FrozenDict:
        return False
    return all(type(k) is str and type(v) is str for k, v in value.items())


_REF_STRINGS = ("apiVersion", "kind", "name", "uid")


def _owner_reference_errors(ref: dict[str, Any] | None) -> list[str]:
    """apimachinery's ``validateOwnerReference``: apiVersion (its version), kind, name and uid must not
    be empty; the path has no index, as the real message has none. A JSON null in the list is the
    empty reference Go's decoder makes of it."""
    api_version, kind, name, uid = ((ref or {}).get(k) or "" for k in ("apiVersion", "kind", "name", "uid"))
    parts = str(api_version).split("/")
    version = parts[-1] if len(parts) <= 2 else ""
    out = []
    for field, value, what, empty in (("apiVersion", api_version, "version", not version),
                                      ("kind", kind, "kind", not kind), ("name", name, "name", not name),
                                      ("uid", uid, "uid", not uid)):
        if empty:
            out.append(f"metadata.ownerReferences.{field}: Invalid value: {go_value(value)}: {what} must not be empty")
    return out


def check_object_shape(info: KindInfo, obj: Any, *, need_name: bool = True) -> None:
    """Reject an object that is not Kubernetes-shaped, naming the field and value.

    Checks: a mapping; ``metadata`` a mapping; ``metadata.name`` (or, when
    ``need_name`` is false, ``generateName``) a DNS-1123 subdomain; labels and
    annotations string-to-string mappings; ``ownerReferences`` and
    ``finalizers`` lists of the right shape. A field of the wrong JSON type is
    the decoder's 400 BadRequest (``ObjectMeta.metadata.ownerReferences of type
    []v1.OwnerReference``), as on a real server, where decoding comes first.
    """
    if not isinstance(obj, dict):
        raise bad_request(f"object must be a mapping, got {type(obj).__name__}")
    meta = obj.get("metadata")
    if meta is None:  # absent or null: an empty ObjectMeta, so the name is what is missing
        meta = {}
    if not isinstance(meta, dict):
        raise bad_request(f"{info.kind}: metadata must be a mapping, got {meta!r}")
    name = meta.get("name")
    if name in (None, ""):
        gen = meta.get("generateName")
        if need_name or not isinstance(gen, str) or not gen:
            raise invalid(info.key, "", ["metadata.name: Required value: name or generateName is required"])
    elif not isinstance(name, str):
        raise invalid(info.key, str(name), [f"metadata.name: Invalid value: {go_value(name)}: must be a string"])
    elif errors := dns1123_subdomain_errors(name):  # the length and the pattern: one cause each
        raise invalid(info.key, name, [f"metadata.name: Invalid value: {go_value(name)}: {msg}" for msg in errors])
    if _plain_maps(meta.get("labels")) and _plain_maps(meta.get("annotations")) \
            and meta.get("ownerReferences") is None and meta.get("finalizers") is None:
        return  # the usual metadata: nothing below can fail
    shown = str(name or meta.get("generateName", ""))
    _check_string_map(info, obj, shown, meta, "labels")
    _check_string_map(info, obj, shown, meta, "annotations")
    refs = meta.get("ownerReferences")
    if refs is not None:
        if not isinstance(refs, list) or not all(isinstance(ref, dict) and all(
                isinstance(ref.get(k), str | None) for k in _REF_STRINGS) for ref in refs):
            _undecodable(info, obj)
        if not isinstance(refs, list):
            raise invalid(info.key, shown, [f"metadata.ownerReferences: Invalid value: {refs!r}: must be a list"])
        causes = [cause for ref in refs for cause in _owner_reference_errors(ref)]
        if causes:
            raise invalid(info.key, shown, causes)
    fins = meta.get("finalizers")
    if fins is not None and (not isinstance(fins, list) or not all(isinstance(f, str) for f in fins)):
        _undecodable(info, obj)
        raise invalid(info.key, shown, [f"metadata.finalizers: Invalid value: {fins!r}: must be a list of strings"])


def parse_resource_version(value: Any, where: str) -> int:
    """An integer resourceVersion from its string form; BadRequest names ``where`` and the value."""
    try:
        rv = int(value)
    except (TypeError, ValueError):
        raise bad_request(f"{where}: invalid resourceVersion {value!r}: must be an integer string") from None
    if rv < 0:
        raise bad_request(f"{where}: invalid resourceVersion {value!r}: must not be negative")
    return rv

