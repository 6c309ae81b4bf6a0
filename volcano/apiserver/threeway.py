"""kubectl's client-side apply, as pure functions: the patch ``kubectl apply`` sends.

``kubectl apply -f manifest`` on an existing object computes a three-way patch from

* ``original``: the previous manifest, kept on the live object in the annotation
  ``kubectl.kubernetes.io/last-applied-configuration``;
* ``modified``: the new manifest, with that annotation set to the new manifest itself
  (``with_last_applied``);
* ``current``: the live object,

and sends a strategic merge patch for built-in kinds (``smp_diff.create_three_way_merge_patch``)
or a JSON merge patch for custom resources (``create_three_way_json_merge_patch``). Changes are
taken from current→modified (so fields the server or a webhook defaulted, which the manifest
never mentioned, are left alone) and deletions from original→modified (so only fields the user
applied before and has now dropped are removed). An empty patch means "unchanged": kubectl sends
nothing, and the object keeps its resourceVersion.

``kubectl_apply_patch(live, manifest)`` does all of it and returns an ``ApplyPatch``;
``with_last_applied(manifest)`` is also what ``kubectl apply`` creates when the object is absent.
The annotation's text is byte-for-byte what kubectl writes (Go ``encoding/json``: sorted keys,
compact, ``metadata.annotations`` present even when empty, a trailing newline).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from volcano.api.frozen import thaw
from volcano.api.kinds import kind_for_object
from volcano.apiserver.gojson import go_json, kind_of, scalar_equal
from volcano.apiserver.patchmeta import is_custom_resource, schema_for
from volcano.apiserver.smp_diff import create_three_way_merge_patch

__all__ = [
    "LAST_APPLIED",
    "ApplyPatch",
    "ApplyPatchError",
    "create_merge_patch",
    "create_three_way_json_merge_patch",
    "kubectl_apply_patch",
    "last_applied_configuration",
    "with_last_applied",
]

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
"""The annotation holding the last manifest applied with client-side ``kubectl apply``."""


class ApplyPatchError(ValueError):
    """kubectl would refuse to compute the patch (a changed apiVersion, kind or name, or a conflict)."""


@dataclass(frozen=True, slots=True)
class ApplyPatch:
    """The patch kubectl sends: ``patch_type`` is ``"strategic"`` or ``"merge"``; ``patch`` is ``{}``
    when the object is unchanged (kubectl then sends nothing)."""

    patch_type: str
    patch: dict[str, Any]

    @property
    def changed(self) -> bool:
        """Whether kubectl would send the patch at all."""
        return bool(self.patch)


def last_applied_configuration(manifest: dict[str, Any]) -> str:
    """The annotation value kubectl stores for ``manifest`` (the manifest without the annotation itself)."""
    obj = dict(manifest)  # copies only along the edited path: serialising reads the rest as it is
    meta = obj["metadata"] = dict(obj.get("metadata") or {})
    annotations = dict(meta.get("annotations") or {})
    annotations.pop(LAST_APPLIED, None)
    meta["annotations"] = annotations
    return go_json(obj) + "\n"


def with_last_applied(manifest: dict[str, Any]) -> dict[str, Any]:
    """``manifest`` with the last-applied annotation set to itself (kubectl's "modified" configuration)."""
    value = last_applied_configuration(manifest)
    obj = thaw(manifest)
    meta = obj.setdefault("metadata", {})
    annotations = dict(meta.get("annotations") or {})
    annotations[LAST_APPLIED] = value
    meta["annotations"] = annotations
    return obj


def _original(live: dict[str, Any]) -> dict[str, Any] | None:
    text = ((live.get("metadata") or {}).get("annotations") or {}).get(LAST_APPLIED)
    if not text:
        return None
    try:
        decoded = json.loads(text)
    except ValueError as exc:
        raise ApplyPatchError(f"retrieving original configuration: invalid JSON in {LAST_APPLIED}: {exc}") from None
    return decoded if isinstance(decoded, dict) else None


def kubectl_apply_patch(live: dict[str, Any], manifest: dict[str, Any], *, overwrite: bool = True) -> ApplyPatch:
    """The patch ``kubectl apply`` sends to turn ``live`` toward ``manifest`` (see module docstring).

    ``manifest`` is the object as read from the file, with ``metadata.namespace`` filled in as kubectl
    fills it. Raises ``ApplyPatchError`` for a custom resource whose apiVersion, kind or name changed,
    and (``overwrite=False``) for a patch that would undo a change made on the server."""
    info = kind_for_object(manifest)
    modified = with_last_applied(manifest)
    original = _original(live)
    if is_custom_resource(info.key):
        return ApplyPatch("merge", create_three_way_json_merge_patch(original, modified, live))
    try:
        patch = create_three_way_merge_patch(original, modified, live, schema_for(info.key), overwrite=overwrite)
    except Exception as exc:
        raise ApplyPatchError(str(exc)) from None
    return ApplyPatch("strategic", patch)


def create_merge_patch(a: Any, b: Any) -> Any:
    """The RFC 7386 merge patch from ``a`` to ``b`` (evanphx/json-patch ``CreateMergePatch``)."""
    if not isinstance(a, dict) or not isinstance(b, dict):
        return thaw(b)
    out: dict[str, Any] = {}
    for key, new in b.items():
        if key not in a:
            out[key] = thaw(new)
            continue
        old = a[key]
        if kind_of(old, True) != kind_of(new, True):
            out[key] = thaw(new)
        elif isinstance(old, dict):
            sub = create_merge_patch(old, new)
            if sub:
                out[key] = sub
        elif isinstance(old, list):
            if not _same(old, new):
                out[key] = thaw(new)
        elif not scalar_equal(old, new, True):
            out[key] = thaw(new)
    for key in a:
        if key not in b:
            out[key] = None
    return out


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(v, b[k]) for k, v in a.items())
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return scalar_equal(a, b, True)


def _keep(patch: dict[str, Any], nulls: bool) -> dict[str, Any]:
    """Upstream ``keepOrDeleteNullInObj``: only the deletions (``nulls``) or only the rest."""
    out: dict[str, Any] = {}
    for key, value in patch.items():
        if value is None:
            if nulls:
                out[key] = None
        elif isinstance(value, dict):
            if not value:
                if not nulls:
                    out[key] = value
                continue
            sub = _keep(value, nulls)
            if sub:
                out[key] = sub
        elif not nulls:
            out[key] = value
    return out


def _conflicts(left: Any, right: Any) -> bool:
    """Upstream ``mergepatch.HasConflicts`` (JSON merge patch semantics)."""
    if isinstance(left, dict):
        if not isinstance(right, dict):
            return True
        return any(_conflicts(v, right[k]) for k, v in left.items() if k in right)
    if isinstance(left, list):
        if not isinstance(right, list) or len(left) != len(right):
            return True
        return any(_conflicts(a, b) for a, b in zip(left, right))
    return not scalar_equal(left, right, True)


def _merge_keeping_nulls(doc: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    for key, value in patch.items():
        current = doc.get(key)
        if isinstance(current, dict) and isinstance(value, dict):
            doc[key] = _merge_keeping_nulls(current, value)
        else:
            doc[key] = value
    return doc


def create_three_way_json_merge_patch(original: dict[str, Any] | None, modified: dict[str, Any],
                                      current: dict[str, Any]) -> dict[str, Any]:
    """kubectl's apply patch for a custom resource (apimachinery ``CreateThreeWayJSONMergePatch``, with
    kubectl's preconditions: apiVersion, kind and metadata.name unchanged)."""
    add_and_change = _keep(create_merge_patch(current or {}, modified), nulls=False)
    deletions = _keep(create_merge_patch(original or {}, modified), nulls=True)
    if _conflicts(add_and_change, deletions):
        raise ApplyPatchError(f"patch {add_and_change!r} conflicts with deletions {deletions!r}")
    patch = _merge_keeping_nulls(deletions, add_and_change)
    if "apiVersion" in patch or "kind" in patch or "name" in (patch.get("metadata") or {}):
        raise ApplyPatchError("At least one of apiVersion, kind and name was changed")
    return patch
