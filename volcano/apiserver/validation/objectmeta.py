"""Rules on an update's metadata common to every kind (``rest.BeforeUpdate`` and the storage layer).

The server keeps ``creationTimestamp``, ``generation``, ``deletionTimestamp``
and the other server-set fields of the stored object whatever the write says,
as kube-apiserver does, and a changed ``name`` or ``namespace`` is a 400
BadRequest before validation. What remains is ``metadata.uid``:

* an update (PUT, of the object or its ``/status``) whose object carries a uid
  turns it into a storage precondition; another object's uid is 409 Conflict
  (``Operation cannot be fulfilled on pods "x": StorageError: invalid object,
  Code: 4, Key: /registry/pods/default/x, ResourceVersion: 0,
  AdditionalErrorMsg: Precondition failed: UID in precondition: <sent>, UID in
  object meta: <stored>``);
* a patch sends no precondition, so a patched object whose uid differs reaches
  validation: 422 Invalid ``metadata.uid: Invalid value: "<uid>": field is
  immutable``. A status patch of a custom resource keeps the stored metadata
  (the uid is dropped, the write succeeds).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from volcano.api.kinds import KindInfo
from volcano.apiserver.errors import conflict
from volcano.apiserver.validation.crd import has_crd_schema
from volcano.apiserver.validation.field import invalid, invalid_error

__all__ = ["check_patched_uid", "check_update_uid", "storage_key"]


def storage_key(info: KindInfo, namespace: str, name: str, *, custom: bool) -> str:
    """Where etcd keeps the object, as the storage layer names it in errors (``/registry/pods/ns/x``;
    custom resources under their group)."""
    parts = ["/registry"]
    if custom and info.group:
        parts.append(info.group)
    parts.append(info.plural)
    if info.namespaced:
        parts.append(namespace)
    parts.append(name)
    return "/".join(parts)


def _uid(obj: Mapping[str, Any]) -> str:
    meta = obj.get("metadata")
    uid = meta.get("uid") if isinstance(meta, Mapping) else None
    return uid if isinstance(uid, str) else ""


def check_update_uid(info: KindInfo, old: Mapping[str, Any], obj: Mapping[str, Any]) -> None:
    """409 Conflict when an update's object names a uid other than the stored object's."""
    sent, stored = _uid(obj), _uid(old)
    if not sent or sent == stored:
        return
    meta = old["metadata"]
    key = storage_key(info, str(meta.get("namespace") or ""), str(meta["name"]), custom=has_crd_schema(info.key))
    raise conflict(info.resource, str(meta["name"]),
                   f"StorageError: invalid object, Code: 4, Key: {key}, ResourceVersion: 0, AdditionalErrorMsg: "
                   f"Precondition failed: UID in precondition: {sent}, UID in object meta: {stored}")


def check_patched_uid(info: KindInfo, old: Mapping[str, Any], patched: Mapping[str, Any], *,
                      status: bool = False) -> None:
    """422 Invalid when a patch (of the ``/status`` subresource with ``status``) changed ``metadata.uid``."""
    new, stored = _uid(patched), _uid(old)
    if status and has_crd_schema(info.key):
        return
    if new and new != stored:
        raise invalid_error(info.key, str(old["metadata"]["name"]), [invalid("metadata.uid", new,
                                                                             "field is immutable")])
