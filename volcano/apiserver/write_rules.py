"""The request rules every write verb of ``ApiServer`` shares, as pure functions.

Resolving the kind a request names (404 for an unknown resource) or an object
carries (400), parsing list selectors (400), the 404 for ``/status`` of a kind
served without the subresource, and what an update may not change: the
server-owned metadata (``SERVER_FIELDS``, name, namespace, apiVersion, kind),
and the status where the kind has a status subresource. ``spec_changed`` is
the generation rule: anything outside metadata (and status, with the
subresource) changed.
"""

from __future__ import annotations

from typing import Any

from volcano.api.frozen import FrozenDict
from volcano.api.kinds import KindInfo, UnknownKindError, kind_for_object, resolve_kind
from volcano.api.selectors import SelectorError, parse_field_selector, parse_label_selector
from volcano.apiserver.errors import ApiError, bad_request, not_found
from volcano.apiserver.meta import has_status_subresource, resource_name

__all__ = ["SERVER_FIELDS", "keep_server_fields", "keep_status", "kind_named", "kind_of",
           "require_status_subresource", "selectors", "spec_changed"]

SERVER_FIELDS = ("uid", "resourceVersion", "generation", "creationTimestamp", "deletionTimestamp",
                 "deletionGracePeriodSeconds")
"""Metadata only the server sets: dropped from a create, kept from the stored object on update."""


def kind_named(name: str) -> KindInfo:
    """The served kind ``name`` resolves to (kubectl naming); 404 NotFound for an unknown one."""
    try:
        return resolve_kind(name)
    except UnknownKindError as exc:
        raise ApiError(404, "NotFound", str(exc)) from None


def kind_of(obj: object) -> KindInfo:
    """The served kind ``obj`` names; 400 BadRequest for a non-mapping or an unknown kind."""
    if not isinstance(obj, dict):
        raise bad_request(f"object must be a mapping, got {type(obj).__name__}")
    try:
        return kind_for_object(obj)
    except UnknownKindError as exc:
        raise bad_request(str(exc)) from None


def selectors(label_selector: str | None, field_selector: str | None) -> tuple[Any, Any]:
    """The parsed label and field selectors of a list or watch (None when absent or empty); 400 if malformed."""
    try:
        label = parse_label_selector(label_selector) if label_selector else None
        field = parse_field_selector(field_selector) if field_selector else None
    except SelectorError as exc:
        raise bad_request(str(exc)) from None
    if label is not None and label.empty:
        label = None
    return label, field

def require_status_subresource(info: KindInfo, name: str) -> None:
    """NotFound for ``<resource>/status`` of a kind served without it: a custom resource answers
    as its CRD handler does (``podgroups.scheduling.volcano.sh "x" not found``), a built-in
    kind as an unknown path."""
    if has_status_subresource(info):
        return
    if info.group and info.group.endswith("volcano.sh"):
        raise not_found(resource_name(info), name)
    raise ApiError(404, "NotFound", "the server could not find the requested resource")

def keep_server_fields(info: KindInfo, old: FrozenDict, new: dict[str, Any]) -> None:
    """Give ``new`` the stored object's server-owned metadata, name, namespace, apiVersion and kind."""
    meta = new.get("metadata")
    if not isinstance(meta, dict):
        meta = new["metadata"] = {}
    old_meta = old["metadata"]
    for field in SERVER_FIELDS:
        if field in old_meta:
            meta[field] = old_meta[field]
        else:
            meta.pop(field, None)
    meta["name"] = old_meta["name"]
    if info.namespaced:
        meta["namespace"] = old_meta["namespace"]
    else:
        meta.pop("namespace", None)
    new["apiVersion"], new["kind"] = old["apiVersion"], old["kind"]

def keep_status(old: FrozenDict, new: dict[str, Any]) -> None:
    """Give ``new`` the stored status (a main-resource update of a kind with a status subresource)."""
    if "status" in old:
        new["status"] = old["status"]
    else:
        new.pop("status", None)

def spec_changed(info: KindInfo, old: FrozenDict, new: dict[str, Any]) -> bool:
    """Whether anything outside metadata (and status, with the subresource) differs: generation + 1."""
    skip = ("metadata", "status") if has_status_subresource(info) else ("metadata",)
    for key in new:
        if key not in skip and (key not in old or old[key] != new[key]):
            return True
    return any(key not in skip and key not in new for key in old)
