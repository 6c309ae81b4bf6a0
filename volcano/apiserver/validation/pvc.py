"""Kubernetes' defaulting and validation of PersistentVolumeClaims (``ValidatePersistentVolumeClaim``,
``ValidatePersistentVolumeClaimSpec`` and ``ValidatePersistentVolumeClaimUpdate`` of
``pkg/apis/core/validation``; the create strategy's data-source handling of ``pkg/api/persistentvolumeclaim``).

On create and update (422 Invalid, in kube-apiserver's order):

* ``spec.accessModes``: at least one (``Required value: at least 1 access mode is required``), each
  one of ``ReadOnlyMany``, ``ReadWriteMany``, ``ReadWriteOnce``, ``ReadWriteOncePod``
  (``Unsupported value``), and ``ReadWriteOncePod`` alone (``Forbidden: may not use ReadWriteOncePod
  with other access modes``).
* ``spec.selector``: a valid label selector.
* ``spec.resources[storage]`` (the path names ``resources`` with the key, as Kubernetes does): the
  request is required and must be greater than zero.
* ``spec.storageClassName`` and ``spec.volumeAttributesClassName``, when not empty: DNS subdomains.
* ``spec.volumeMode``: ``Block`` or ``Filesystem``.
* ``spec.dataSource`` and ``spec.dataSourceRef``: ``name`` and ``kind`` required; without an
  ``apiGroup`` the kind must be ``PersistentVolumeClaim``; an ``apiGroup`` is a DNS subdomain; a
  reference's ``namespace`` a valid namespace name; both given, they must name the same object
  (``spec: Invalid value: ...: must match dataSourceRef``), and ``dataSource`` may not be given with a
  cross-namespace ``dataSourceRef``. (Kubernetes prints the field path object as the bad value
  there, a Go struct dump with a pointer in it; this server prints the path.)

On update, besides the above:

* the spec is immutable (``spec: Forbidden: spec is immutable after creation except
  resources.requests and volumeAttributesClassName for bound claims``, followed by a diff of this
  server's own wording), except that ``volumeName`` may be set once, ``storageClassName`` may be set
  when it was unset (to the beta annotation's class if the claim has one), and a claim whose
  ``status.phase`` is ``Bound`` may change ``resources.requests.storage`` and
  ``volumeAttributesClassName``;
* the storage request may shrink only above ``status.capacity.storage`` (``Forbidden: field can not
  be less than status.capacity``; RecoverVolumeExpansionFailure, on by default);
* ``volumeMode`` is immutable (``volumeMode: Invalid value: ...: field is immutable``, with
  Kubernetes' path, which lacks ``spec.``), and so is the annotation
  ``volume.beta.kubernetes.io/storage-class``.

Defaults (``default_pvc``): ``spec.volumeMode`` is ``Filesystem``. On create (``prepare_pvc``) a
``dataSource`` other than a PersistentVolumeClaim or a ``snapshot.storage.k8s.io`` VolumeSnapshot is
dropped when no ``dataSourceRef`` is given, then whichever of ``dataSource`` and ``dataSourceRef``
is missing is copied from the other (not from a cross-namespace reference), and the status is
``phase: Pending``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from volcano.api.frozen import thaw
from volcano.api.quantity import to_milli
from volcano.apiserver.validation.field import (
    FieldError,
    Shown,
    diff_lines,
    forbidden,
    invalid,
    not_supported,
    required,
)
from volcano.apiserver.validation.names import dns1123_label_errors, dns1123_subdomain_errors
from volcano.apiserver.validation.pod import label_selector_errors
from volcano.apiserver.validation.pod_update import semantic

__all__ = ["ACCESS_MODES", "VOLUME_MODES", "default_pvc", "prepare_pvc", "pvc_errors", "pvc_update_errors"]

ACCESS_MODES = ("ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod")
"""The supported access modes, in the order Kubernetes lists them (sorted)."""
VOLUME_MODES = ("Block", "Filesystem")
"""The supported volume modes (sorted)."""

_STORAGE = "spec.resources[storage]"
_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"
_IMMUTABLE = "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims"
_SNAPSHOT_GROUP = "snapshot.storage.k8s.io"


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def default_pvc(obj: dict[str, Any]) -> None:
    """Kubernetes' defaults of a PersistentVolumeClaim, in place: ``spec.volumeMode: Filesystem``."""
    spec = obj.get("spec")
    if isinstance(spec, dict) and not spec.get("volumeMode"):
        spec["volumeMode"] = "Filesystem"


def _is_pvc_or_snapshot(source: Mapping[str, Any]) -> bool:
    group, kind = _text(source.get("apiGroup")), source.get("kind")
    return (kind == "PersistentVolumeClaim" and not group) or (kind == "VolumeSnapshot" and group == _SNAPSHOT_GROUP)


def _copied(source: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": _text(source.get("kind")), "name": _text(source.get("name"))}
    if source.get("apiGroup") is not None:
        out["apiGroup"] = source["apiGroup"]
    return out


def prepare_pvc(obj: dict[str, Any]) -> None:
    """The create strategy of a PersistentVolumeClaim, in place: the data sources (see the module
    docstring) and ``status: {phase: Pending}``."""
    obj["status"] = {"phase": "Pending"}
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return
    source, ref = spec.get("dataSource"), spec.get("dataSourceRef")
    if ref is None and source is not None and not _is_pvc_or_snapshot(_mapping(source)):
        spec.pop("dataSource")
        source = None
    if source is not None and ref is None:
        spec["dataSourceRef"] = _copied(_mapping(source))
    elif ref is not None and source is None and not _text(_mapping(ref).get("namespace")):
        spec["dataSource"] = _copied(_mapping(ref))


def _access_mode_errors(modes: Any) -> list[FieldError]:
    if not isinstance(modes, list | tuple) or not modes:
        return [required("spec.accessModes", "at least 1 access mode is required")]
    return []


def _mode_value_errors(modes: Any) -> list[FieldError]:
    errs: list[FieldError] = []
    once_pod = other = False
    for mode in modes if isinstance(modes, list | tuple) else ():
        if mode not in ACCESS_MODES:
            errs.append(not_supported("spec.accessModes", mode, ACCESS_MODES))
        elif mode == "ReadWriteOncePod":
            once_pod = True
        else:
            other = True
    if once_pod and other:
        errs.append(forbidden("spec.accessModes", "may not use ReadWriteOncePod with other access modes"))
    return errs


def _storage_errors(resources: Any) -> list[FieldError]:
    requests = _mapping(_mapping(resources).get("requests"))
    if "storage" not in requests:
        return [required(_STORAGE)]
    value = requests["storage"]
    try:
        milli = to_milli(value)
    except (ValueError, TypeError):
        return []  # decoding reports a malformed quantity first
    return [] if milli > 0 else [invalid(_STORAGE, str(value), "must be greater than zero")]


def _source_errors(source: Mapping[str, Any], path: str) -> list[FieldError]:
    errs = [required(f"{path}.{key}") for key in ("name", "kind") if not _text(source.get(key))]
    group = _text(source.get("apiGroup"))
    if not group and source.get("kind") != "PersistentVolumeClaim":
        errs.append(invalid(path, _text(source.get("kind")),
                            "must be 'PersistentVolumeClaim' when referencing the default apiGroup"))
    if group:
        errs.extend(invalid(f"{path}.apiGroup", group, msg) for msg in dns1123_subdomain_errors(group))
    namespace = _text(source.get("namespace"))
    if namespace:
        errs.extend(invalid(f"{path}.namespace", namespace, msg) for msg in dns1123_label_errors(namespace))
    return errs


def _data_source_errors(spec: Mapping[str, Any]) -> list[FieldError]:
    source, ref = spec.get("dataSource"), spec.get("dataSourceRef")
    errs: list[FieldError] = []
    if source is not None:
        errs.extend(_source_errors({k: v for k, v in _mapping(source).items() if k != "namespace"},
                                   "spec.dataSource"))
    if ref is not None:
        errs.extend(_source_errors(_mapping(ref), "spec.dataSourceRef"))
    if ref is not None and _text(_mapping(ref).get("namespace")):
        if source is not None:
            errs.append(invalid("spec", Shown("spec.dataSource"),
                                "may not be specified when dataSourceRef.namespace is specified"))
    elif source is not None and ref is not None:
        # isDataSourceEqualDataSourceRef: the apiGroup pointers deeply equal, kind and name as strings
        # (an absent name is "", as in the Go struct).
        src, dst = _mapping(source), _mapping(ref)
        same = src.get("apiGroup") == dst.get("apiGroup") and all(
            _text(src.get(k)) == _text(dst.get(k)) for k in ("kind", "name"))
        if not same:
            errs.append(invalid("spec", Shown("spec.dataSource"), "must match dataSourceRef"))
    return errs


def _class_errors(spec: Mapping[str, Any], key: str) -> list[FieldError]:
    name = _text(spec.get(key))
    return [invalid(f"spec.{key}", name, msg) for msg in dns1123_subdomain_errors(name)] if name else []


def pvc_errors(pvc: Mapping[str, Any]) -> list[FieldError]:
    """Validation errors of a PersistentVolumeClaim's spec (see the module docstring), in Kubernetes' order."""
    spec = _mapping(pvc.get("spec"))
    modes = spec.get("accessModes")
    errs = _access_mode_errors(modes)
    if spec.get("selector") is not None:
        errs.extend(label_selector_errors(spec.get("selector"), "spec.selector"))
    errs.extend(_mode_value_errors(modes))
    errs.extend(_storage_errors(spec.get("resources")))
    errs.extend(_class_errors(spec, "storageClassName"))
    mode = spec.get("volumeMode")
    if mode is not None and mode not in VOLUME_MODES:
        errs.append(not_supported("spec.volumeMode", mode, VOLUME_MODES))
    errs.extend(_data_source_errors(spec))
    errs.extend(_class_errors(spec, "volumeAttributesClassName"))
    return errs


def _storage_milli(spec: Mapping[str, Any]) -> int:
    try:
        return to_milli(_mapping(_mapping(spec.get("resources")).get("requests")).get("storage", 0))
    except (ValueError, TypeError):
        return 0


def _annotation(obj: Mapping[str, Any]) -> str | None:
    annotations = _mapping(_mapping(obj.get("metadata")).get("annotations"))
    value = annotations.get(_CLASS_ANNOTATION)
    return value if isinstance(value, str) else None


def _from_annotation(new: Mapping[str, Any], old: Mapping[str, Any]) -> bool:
    """Whether the update moves the class from the beta annotation to ``storageClassName``."""
    old_note, new_note = _annotation(old), _annotation(new)
    new_class = _mapping(new.get("spec")).get("storageClassName")
    return (old_note is not None and _mapping(old.get("spec")).get("storageClassName") is None
            and new_class == old_note and (new_note is None or new_note == old_note))


def _munged(new: Mapping[str, Any], old: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Copies of the two specs with what an update may change made equal."""
    new_spec: dict[str, Any] = thaw(_mapping(new.get("spec")))
    old_spec: dict[str, Any] = thaw(_mapping(old.get("spec")))
    if not old_spec.get("volumeName"):
        old_spec["volumeName"] = new_spec.get("volumeName")
    old_class, new_class = old_spec.get("storageClassName"), new_spec.get("storageClassName")
    annotation = _annotation(old)
    if old_class is None and new_class is not None and (annotation is None or new_class == annotation):
        new_spec["storageClassName"] = None  # set once: from unset, or to the annotation's class
    if _mapping(old.get("status")).get("phase") == "Bound":
        requests = _mapping(new_spec.get("resources")).get("requests")
        if isinstance(requests, dict):
            requests["storage"] = _mapping(_mapping(old_spec.get("resources")).get("requests")).get("storage")
        if new_spec.get("volumeAttributesClassName") is not None:
            new_spec["volumeAttributesClassName"] = old_spec.get("volumeAttributesClassName")
    return new_spec, old_spec


def pvc_update_errors(new: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    """What an update of PersistentVolumeClaim ``old`` to ``new`` may not change (see the module docstring)."""
    errs: list[FieldError] = []
    new_note, old_note = _annotation(new), _annotation(old)
    if new_note != old_note and not _from_annotation(new, old):
        errs.append(invalid(f"metadata.annotations.{_CLASS_ANNOTATION}", new_note or "", "field is immutable"))
    new_spec, old_spec = _munged(new, old)
    new_canon, old_canon = semantic(new_spec), semantic(old_spec)
    if new_canon != old_canon:
        lines = diff_lines(old_canon, new_canon)
        errs.append(forbidden("spec", "\n".join([_IMMUTABLE, "  core.PersistentVolumeClaimSpec{", *lines, "  }", ""])))
    new_size, old_size = _storage_milli(_mapping(new.get("spec"))), _storage_milli(_mapping(old.get("spec")))
    if new_size < old_size:
        capacity = _mapping(_mapping(old.get("status")).get("capacity")).get("storage", 0)
        try:
            below = new_size <= to_milli(capacity)
        except (ValueError, TypeError):
            below = False
        if below:
            errs.append(forbidden("spec.resources.requests.storage", "field can not be less than status.capacity"))
    new_mode, old_mode = _mapping(new.get("spec")).get("volumeMode"), _mapping(old.get("spec")).get("volumeMode")
    if new_mode != old_mode:
        errs.append(invalid("volumeMode", new_mode, "field is immutable"))
    return errs
