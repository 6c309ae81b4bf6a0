"""The field manager: ``metadata.managedFields``, server-side apply and its conflicts.

``FieldManager(info)`` does for one kind what kube-apiserver's field manager does:

* ``update(live, new, manager, subresource)`` records a write (create, update, patch) as an
  ``Update`` entry owning the fields it added or changed; other managers lose those fields and the
  ones it removed. As upstream, an object that has no ``managedFields`` yet is only tracked from its
  creation: an update of an untracked object records nothing.
* ``apply(live, config, manager, force, subresource)`` is server-side apply: ``config`` merged
  over the live object (``typed.merge``), the applier's entry replaced by the fields ``config``
  sets, the fields it applied last time and no longer sends removed unless another manager owns
  them, and a change to a field another manager owns is a 409 Conflict
  (``Apply failed with 1 conflict: conflict with "m" using v1: .spec.x``) unless ``force`` takes
  ownership. The first apply to an untracked object first records its fields under
  ``before-first-apply``, as upstream.

Entries are ``{manager, operation, apiVersion, time, fieldsType: FieldsV1, fieldsV1[, subresource]}``,
sorted as upstream sorts them (operation, time, manager, apiVersion, subresource); ``time`` comes from
the server's clock. Bookkeeping fields (apiVersion, kind, metadata.name/namespace/uid/...) are never
owned. For a kind served with a status subresource, the main resource does not own ``status`` and
the status subresource owns only ``status``. At most ten ``Update`` entries are kept; older ones
fold into ``ancient-changes``. The ``kubectl`` applier keeps an existing last-applied annotation in
step with what it applied.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from volcano.api.kinds import KindInfo
from volcano.apiserver.errors import ApiError
from volcano.apiserver.fieldpath import (
    FieldsV1Error,
    Path,
    ensure_named_fields,
    from_fields_v1,
    iteration_key,
    path_string,
    restrict,
    to_fields_v1,
)
from volcano.apiserver.gojson import go_json
from volcano.apiserver.patchmeta import is_custom_resource, schema_for
from volcano.apiserver.smp import discard_nulls
from volcano.apiserver.typed import TypedError, check_no_duplicates, compare, field_set, merge, remove_paths

__all__ = ["BEFORE_FIRST_APPLY", "FieldManager", "ManagerEntry"]

BEFORE_FIRST_APPLY = "before-first-apply"
MAX_UPDATE_MANAGERS = 10
_LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
_STRIPPED: frozenset[Path] = frozenset({(("f", "apiVersion"),), (("f", "kind"),), (("f", "metadata"),)} | {
    (("f", "metadata"), ("f", name)) for name in (
        "name", "namespace", "creationTimestamp", "selfLink", "uid", "clusterName", "generation",
        "managedFields", "resourceVersion")})
_STATUS = ("f", "status")


@dataclass(slots=True)
class ManagerEntry:
    """One ``managedFields`` entry: who (manager, operation, apiVersion, subresource), when, and what."""

    manager: str
    operation: str
    api_version: str
    fields: set[Path] = field(default_factory=set)
    time: str | None = None
    subresource: str = ""

    @property
    def key(self) -> tuple[str, str, str, str]:
        """Upstream's manager identity: an applier is one manager whatever apiVersion it applied."""
        return (self.manager, self.operation, self.api_version if self.operation == "Update" else "",
                self.subresource)

    def describe(self) -> str:
        """The manager as conflict messages name it: ``"m"``, or ``"m" using v1`` for an updater."""
        text = json.dumps(self.manager)
        if self.subresource:
            text += f" with subresource {json.dumps(self.subresource)}"
        return text + (f" using {self.api_version}" if self.operation == "Update" else "")

    def encode(self) -> dict[str, Any]:
        """The API form of the entry."""
        out: dict[str, Any] = {"manager": self.manager, "operation": self.operation, "apiVersion": self.api_version}
        if self.time is not None:
            out["time"] = self.time
        out["fieldsType"] = "FieldsV1"
        out["fieldsV1"] = to_fields_v1(self.fields)
        if self.subresource:
            out["subresource"] = self.subresource
        return out


def decode_entries(raw: Any) -> dict[tuple[str, str, str, str], ManagerEntry] | None:
    """The entries of a ``managedFields`` value; None when it is malformed (upstream then ignores it)."""
    if not isinstance(raw, list):
        return None
    out: dict[tuple[str, str, str, str], ManagerEntry] = {}
    for item in raw:
        if not isinstance(item, dict) or item.get("operation") not in ("Apply", "Update") \
                or not item.get("apiVersion") or item.get("fieldsType") != "FieldsV1":
            return None
        try:
            fields = from_fields_v1(item.get("fieldsV1") or {})
        except FieldsV1Error:
            return None
        entry = ManagerEntry(str(item.get("manager") or ""), item["operation"], str(item["apiVersion"]), fields,
                             item.get("time"), str(item.get("subresource") or ""))
        out[entry.key] = entry
    return out


def encode_entries(entries: dict[tuple[str, str, str, str], ManagerEntry]) -> list[dict[str, Any]]:
    """Entries in upstream's order."""
    ordered = sorted(entries.values(), key=lambda e: (e.operation, e.time or "", e.manager, e.api_version,
                                                       e.subresource))
    return [e.encode() for e in ordered]


def _strip(paths: set[Path]) -> set[Path]:
    return {p for p in paths if p not in _STRIPPED}


def _without_managed(obj: dict[str, Any]) -> dict[str, Any]:
    """A shallow view without ``metadata.managedFields`` (for reading only)."""
    meta = obj.get("metadata")
    if not isinstance(meta, dict) or "managedFields" not in meta:
        return obj
    return {**obj, "metadata": {k: v for k, v in meta.items() if k != "managedFields"}}


def conflict_error(conflicts: list[tuple[ManagerEntry, Path]]) -> ApiError:
    """409 Conflict for an apply that would change fields other managers own (upstream's message)."""
    conflicts = sorted(conflicts, key=lambda c: (c[0].describe(), iteration_key(c[1])))
    causes = [{"reason": "FieldManagerConflict", "message": f"conflict with {e.describe()}", "field": path_string(p)}
              for e, p in conflicts]
    if len(conflicts) == 1:
        entry, path = conflicts[0]
        message = f"Apply failed with 1 conflict: conflict with {entry.describe()}: {path_string(path)}"
    else:
        lines: list[str] = []
        for who in sorted({e.describe() for e, _ in conflicts}):
            lines.append(f"conflicts with {who}:")
            lines.extend(f"- {path_string(p)}" for e, p in conflicts if e.describe() == who)
        message = f"Apply failed with {len(conflicts)} conflicts: " + "\n".join(lines)
    return ApiError(409, "Conflict", message, {"causes": causes})


class FieldManager:
    """The field manager of one kind (see module docstring); ``now`` gives the entry timestamps."""

    def __init__(self, info: KindInfo, now: Callable[[], str]) -> None:
        self.info = info
        self.schema = schema_for(info.key)
        self.now = now
        self._empty_fields = () if is_custom_resource(info.key) else _STRUCT_FIELDS.get(info.key, ())

    # -- helpers -------------------------------------------------------------------------------------------
    def _filter(self, paths: set[Path], subresource: str) -> set[Path]:
        if subresource == "status":
            return restrict(paths, _STATUS, keep=True)
        if self.info.has_status:
            return restrict(paths, _STATUS, keep=False)
        return paths

    def empty_object(self) -> dict[str, Any]:
        """What the server starts a new object from (a typed kind's struct fields are present, empty)."""
        out: dict[str, Any] = {"apiVersion": self.info.api_version, "kind": self.info.kind}
        for name in self._empty_fields:
            out[name] = {}
        return out

    def _changes(self, live: dict[str, Any], new: dict[str, Any],
                 entries: dict[tuple[str, str, str, str], ManagerEntry], skip: tuple[str, str, str, str] | None,
                 subresource: str) -> tuple[set[Path], list[tuple[ManagerEntry, Path]], set[Path]]:
        """Upstream ``update``: (added+modified, conflicts with other managers, removed) from live to new;
        other managers lose what was removed."""
        added, modified, removed = compare(live, new, self.schema)
        changed = self._filter(added | modified, subresource)
        removed = self._filter(removed, subresource)
        conflicts: list[tuple[ManagerEntry, Path]] = []
        for key, entry in entries.items():
            if key == skip:
                continue
            conflicts.extend((entry, p) for p in sorted(entry.fields & changed, key=iteration_key))
            entry.fields -= removed
        return changed, conflicts, removed

    # -- Update --------------------------------------------------------------------------------------------
    def update(self, live: dict[str, Any] | None, new: dict[str, Any], manager: str,
               subresource: str = "") -> None:
        """Record a write of ``new`` over ``live`` (None: a create) in ``new["metadata"]["managedFields"]``."""
        meta = new.setdefault("metadata", {})
        incoming = meta.pop("managedFields", None)
        entries: dict[tuple[str, str, str, str], ManagerEntry] | None = None
        if not subresource and isinstance(incoming, list):
            if incoming in ([], [{}]):
                entries = {}  # the client resets managedFields
            else:
                entries = decode_entries(incoming) or None
        if entries is None:
            entries = {} if live is None else decode_entries((live.get("metadata") or {}).get("managedFields")) or {}
        if not entries and live is not None:
            return  # as upstream, an object not tracked since its creation stays untracked
        before = self.empty_object() if live is None else _without_managed(live)
        try:
            self._record_update(before, new, entries, manager or "unknown", subresource)
        except TypedError:
            if live is not None and (live.get("metadata") or {}).get("managedFields"):
                meta["managedFields"] = copy.deepcopy(live["metadata"]["managedFields"])
            return
        if entries:
            meta["managedFields"] = encode_entries(entries)

    def _record_update(self, before: dict[str, Any], after: dict[str, Any],
                       entries: dict[tuple[str, str, str, str], ManagerEntry], manager: str, subresource: str) -> None:
        entry = ManagerEntry(manager, "Update", self.info.api_version, subresource=subresource)
        changed, conflicts, _ = self._changes(before, after, entries, None, subresource)
        for other, path in conflicts:
            other.fields.discard(path)
        current = _strip(changed)
        if current:
            previous = entries.get(entry.key)
            entry.fields = current | (previous.fields if previous else set())
            entry.time = self.now()
            entries[entry.key] = entry
        for key in [k for k, e in entries.items() if not e.fields]:
            del entries[key]
        self._cap_updaters(entries)

    def _cap_updaters(self, entries: dict[tuple[str, str, str, str], ManagerEntry]) -> None:
        updaters = sorted((e for e in entries.values() if e.operation == "Update"),
                          key=lambda e: (e.time or "", go_json(list(e.key))))
        excess = len(updaters) - MAX_UPDATE_MANAGERS
        first_by_version: dict[str, ManagerEntry] = {}
        for entry in updaters:
            if excess <= 0:
                break
            bucket_key = ("ancient-changes", "Update", entry.api_version, "")
            first = first_by_version.get(entry.api_version)
            if first is None:
                first_by_version[entry.api_version] = entry
                continue
            if bucket_key not in entries:
                del entries[first.key]
                entries[bucket_key] = ManagerEntry("ancient-changes", "Update", entry.api_version, set(first.fields),
                                                   first.time)
            bucket = entries[bucket_key]
            bucket.fields |= entry.fields
            bucket.time = entry.time
            del entries[entry.key]
            excess -= 1

    # -- Apply ---------------------------------------------------------------------------------------------
    def apply(self, live: dict[str, Any] | None, config: dict[str, Any], manager: str, *, force: bool = False,
              subresource: str = "") -> dict[str, Any]:
        """Server-side apply of ``config`` (see module docstring); returns the object to store, with its
        ``managedFields`` (parts of ``live`` it leaves untouched are shared, not copied). Raises
        ``ApiError`` 409 on conflicts, 500 on a value the schema rejects."""
        base = self.empty_object() if live is None else _without_managed(live)
        entries = {} if live is None else decode_entries((live.get("metadata") or {}).get("managedFields")) or {}
        try:
            check_no_duplicates(config, self.schema)  # the applied object may not hold duplicates; live may
            if not entries and live is not None:
                self._record_update(self.empty_object(), base, entries, BEFORE_FIRST_APPLY, subresource)
            new = self._apply(base, config, entries, manager, force, subresource)
        except TypedError as exc:
            raise ApiError(500, "", f"failed to create typed patch object ({_gvknn(config)}): {exc}") from None
        if entries:
            new.setdefault("metadata", {})["managedFields"] = encode_entries(entries)
        return new

    def _apply(self, base: dict[str, Any], config: dict[str, Any],
               entries: dict[tuple[str, str, str, str], ManagerEntry], manager: str, force: bool,
               subresource: str) -> dict[str, Any]:
        entry = ManagerEntry(manager, "Apply", self.info.api_version, subresource=subresource)
        previous = entries.get(entry.key)
        merged = merge(base, config, self.schema)
        applied = self._filter(field_set(config, self.schema), subresource)
        entry.fields = applied
        if previous is not None:
            entry.time = previous.time
        entries[entry.key] = entry
        if previous is not None and previous.fields:
            owned = set().union(*(e.fields for e in entries.values()))
            gone = ensure_named_fields(previous.fields) - ensure_named_fields(owned)
            merged = remove_paths(merged, gone, self.schema)
        discard_nulls(merged)
        _, conflicts, _ = self._changes(base, merged, entries, entry.key, subresource)
        if conflicts and not force:
            raise conflict_error(conflicts)
        for other, path in conflicts:
            other.fields.discard(path)
        entry.fields = _strip(entry.fields)
        for key in [k for k, e in entries.items() if not e.fields]:
            del entries[key]
        if merged != base and entry.key in entries:
            entry.time = self.now()
        if manager == "kubectl" and ((merged.get("metadata") or {}).get("annotations") or {}).get(_LAST_APPLIED):
            self._refresh_last_applied(merged, config)
        return merged

    @staticmethod
    def _refresh_last_applied(merged: dict[str, Any], config: dict[str, Any]) -> None:
        snapshot = copy.deepcopy(config)
        annotations = (snapshot.get("metadata") or {}).get("annotations")
        if isinstance(annotations, dict):
            annotations.pop(_LAST_APPLIED, None)
        meta = merged["metadata"]
        meta["annotations"] = {**meta["annotations"], _LAST_APPLIED: go_json(snapshot) + "\n"}


_STRUCT_FIELDS: dict[str, tuple[str, ...]] = {
    "Pod": ("spec", "status"), "Node": ("spec", "status"), "Service": ("spec", "status"),
    "Namespace": ("spec", "status"), "PersistentVolumeClaim": ("spec", "status"),
    "ReplicationController": ("spec", "status"), "ReplicaSet.apps": ("spec", "status"),
    "Deployment.apps": ("spec", "status"), "StatefulSet.apps": ("spec", "status"), "Job.batch": ("spec", "status"),
    "NetworkPolicy.networking.k8s.io": ("spec",),
}
"""Top-level struct fields a typed built-in object always has (so they are never "added" on create)."""


def _gvknn(obj: dict[str, Any]) -> str:
    """How upstream's field manager names an applied object in its errors (``objectGVKNN``):
    ``<namespace>/<name>; <group>/<version>, Kind=<kind>``, from the applied configuration itself."""
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        meta = {}
    group, _, version = str(obj.get("apiVersion") or "").rpartition("/")
    return f"{meta.get('namespace') or ''}/{meta.get('name') or ''}; {group}/{version}, Kind={obj.get('kind') or ''}"
