"""What an update may change in an existing Pod (``ValidatePodUpdate`` of ``pkg/apis/core/validation``).

A Pod's spec is immutable once created, except:

* ``spec.containers[*].image`` and ``spec.initContainers[*].image`` (never
  empty, no leading or trailing whitespace); containers may not be added or
  removed (``spec.containers: Forbidden: pod updates may not add or remove
  containers``);
* ``spec.activeDeadlineSeconds``: set when unset, or lowered; never raised
  (``must be less than or equal to previous value``) nor removed (``must not
  update from a positive integer to nil value``);
* ``spec.tolerations``: additions only; an existing toleration may change only
  its ``tolerationSeconds`` (``spec.tolerations: Forbidden: existing
  toleration can not be modified except its tolerationSeconds``);
* ``spec.schedulingGates``: deletions only (``only deletion is allowed, but
  found new scheduling gate 'x'``); while the pod is gated its
  ``nodeSelector`` takes additions and its required node affinity may narrow
  (each term keeps its requirements and adds more; preferred terms are free);
* ``spec.terminationGracePeriodSeconds``: only to 1 when it was negative.

Any other change is ``spec: Forbidden: pod updates may not change fields other
than <the list above>`` followed by a diff of the spec, as kube-apiserver
words it. The mirror-pod annotation may be neither added, changed nor removed.

Specs are compared as Kubernetes' ``Semantic.DeepEqual`` compares decoded Go
structs: an absent field equals its zero value (``""``, ``0``, ``false``,
``[]``, ``{}``, ``null``) and quantities compare by value (``1`` equals
``1000m``). The printed diff lists the changed fields as ``-``/``+`` lines of
JSON paths; kube-apiserver prints go-cmp's rendering of its internal Go types,
which this server does not reproduce line for line.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from volcano.api.frozen import thaw
from volcano.api.quantity import to_milli
from volcano.apiserver.validation.defaults import default_pod
from volcano.apiserver.validation.field import FieldError, Shown, diff_lines, forbidden, go_value, invalid, required

__all__ = ["UPDATABLE_POD_SPEC_FIELDS", "pod_update_errors", "semantic"]

UPDATABLE_POD_SPEC_FIELDS = (
    "`spec.containers[*].image`",
    "`spec.initContainers[*].image`",
    "`spec.activeDeadlineSeconds`",
    "`spec.tolerations` (only additions to existing tolerations)",
    "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
)
"""What a pod update may change, as kube-apiserver lists it in its Forbidden message."""

_MIRROR = "kubernetes.io/config.mirror"
_MAX_INT32 = 2**31 - 1
_QUANTITY_MAPS = frozenset({"limits", "requests", "overhead"})
_ZERO: tuple[Any, ...] = (None, "", 0, False)


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _items(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list | tuple) else []


def semantic(value: Any, parent: str = "") -> Any:
    """``value`` in a canonical form for comparison: zero-valued and empty fields dropped, quantities
    (under ``limits``/``requests``/``overhead``) as milli-units."""
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if parent in _QUANTITY_MAPS and isinstance(item, str | int | float) and not isinstance(item, bool):
                try:
                    out[key] = ("quantity", to_milli(item))
                    continue
                except (ValueError, TypeError):
                    pass
            canon = semantic(item, str(key))
            if not (canon in _ZERO and type(canon) in (type(None), str, int, bool)) and canon != {} and canon != []:
                out[key] = canon
        return out
    if isinstance(value, list | tuple):
        return [semantic(item, parent) for item in value]
    return value


def _annotation_errors(new: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    new_ann = _mapping(_mapping(new.get("metadata")).get("annotations"))
    old_ann = _mapping(_mapping(old.get("metadata")).get("annotations"))
    path = f"metadata.annotations[{_MIRROR}]"
    if _MIRROR in old_ann and new_ann.get(_MIRROR) != old_ann[_MIRROR]:
        return [forbidden(path, "may not remove or update mirror pod annotation")]
    if _MIRROR in new_ann and _MIRROR not in old_ann:
        return [forbidden(path, "may not add mirror pod annotation")]
    return []


def _container_errors(new: list[Any], old: list[Any], path: str) -> tuple[list[FieldError], bool]:
    """``ValidateContainerUpdates``: the errors, and whether validation stops here."""
    if len(new) != len(old):
        return [forbidden(path, "pod updates may not add or remove containers")], True
    errs: list[FieldError] = []
    for i, container in enumerate(new):
        image = _mapping(container).get("image")
        if not image:
            errs.append(required(f"{path}[{i}].image"))
        elif isinstance(image, str) and image.strip() != image:
            errs.append(invalid(f"{path}[{i}].image", image, "must not have leading or trailing whitespace"))
    return errs, False


def _deadline_errors(new: Any, old: Any) -> tuple[list[FieldError], bool]:
    path = "spec.activeDeadlineSeconds"
    if isinstance(new, int) and not isinstance(new, bool):
        if not 0 <= new <= _MAX_INT32:
            return [invalid(path, new, f"must be between 0 and {_MAX_INT32}, inclusive")], True
        if isinstance(old, int) and old < new:
            return [invalid(path, new, "must be less than or equal to previous value")], True
    elif new is None and old is not None:
        return [invalid(path, "null", "must not update from a positive integer to nil value")], False
    return [], False


def _toleration_key(tol: Any) -> tuple[str, ...]:
    t = _mapping(tol)
    return tuple(str(t.get(k) or "") for k in ("key", "operator", "value", "effect"))


def _toleration_errors(new: list[Any], old: list[Any]) -> list[FieldError]:
    kept = {_toleration_key(t) for t in new}
    if any(_toleration_key(t) not in kept for t in old):
        return [forbidden("spec.tolerations", "existing toleration can not be modified except its "
                                              "tolerationSeconds")]
    return []


def _gate_names(gates: list[Any]) -> list[str]:
    return [str(_mapping(g).get("name") or "") for g in gates]


def _scheduling_gate_errors(new: list[Any], old: list[Any]) -> list[FieldError]:
    before = set(_gate_names(old))
    return [forbidden(f"spec.schedulingGates[{i}].name",
                      f"only deletion is allowed, but found new scheduling gate '{name}'")
            for i, name in enumerate(_gate_names(new)) if name not in before]


def _munge(new_spec: Mapping[str, Any], old_spec: Mapping[str, Any]) -> tuple[dict[str, Any], list[FieldError]]:
    """``new_spec`` with the updatable fields taken from ``old_spec`` (and the errors of a gated pod's
    node selector), ready to compare with ``old_spec``."""
    munged = dict(new_spec)
    errs: list[FieldError] = []
    for group in ("containers", "initContainers"):
        olds = _items(old_spec.get(group))
        if group in munged and isinstance(munged[group], list | tuple):
            munged[group] = [{**_mapping(c), "image": _mapping(olds[i]).get("image")} if i < len(olds) else c
                             for i, c in enumerate(munged[group])]
    for key in ("activeDeadlineSeconds", "schedulingGates", "tolerations"):
        if key in old_spec:
            munged[key] = old_spec[key]
        else:
            munged.pop(key, None)
    old_grace = old_spec.get("terminationGracePeriodSeconds")
    if isinstance(old_grace, int) and old_grace < 0 and munged.get("terminationGracePeriodSeconds") == 1:
        munged["terminationGracePeriodSeconds"] = old_grace
    if _items(old_spec.get("schedulingGates")):
        new_sel, old_sel = _mapping(munged.get("nodeSelector")), _mapping(old_spec.get("nodeSelector"))
        if semantic(new_sel) != semantic(old_sel):
            if any(new_sel.get(k) != v for k, v in old_sel.items()):
                shown = Shown("map[string]string{" + ", ".join(f"{go_value(str(k))}:{go_value(str(v))}"
                                                               for k, v in sorted(new_sel.items())) + "}")
                errs.append(invalid("spec.nodeSelector", shown, "only additions to spec.nodeSelector are allowed "
                                                                "(no mutations or deletions)"))
            munged["nodeSelector"] = old_spec.get("nodeSelector")
        errs.extend(_gated_node_affinity(munged, old_spec))
    return munged, errs


def _node_affinity(spec: Mapping[str, Any]) -> Any:
    return _mapping(spec.get("affinity")).get("nodeAffinity")


def _only_additions(new_term: Any, old_term: Any) -> bool:
    """Whether ``new_term`` keeps ``old_term``'s requirements, in order, and only adds after them."""
    for key in ("matchExpressions", "matchFields"):
        old, new = _items(_mapping(old_term).get(key)), _items(_mapping(new_term).get(key))
        if len(old) > len(new) or semantic(new[:len(old)]) != semantic(old):
            return False
    return True


def _gated_node_affinity(munged: dict[str, Any], old_spec: Mapping[str, Any]) -> list[FieldError]:
    """A gated pod's required node affinity may only narrow: each existing term keeps its requirements and
    adds more; no term is added or removed (preferred terms may change freely). ``munged`` gets the old
    node affinity back."""
    old_na, new_na = _node_affinity(old_spec), _node_affinity(munged)
    if semantic(old_na) == semantic(new_na):
        return []
    errs: list[FieldError] = []
    old_terms = _items(_mapping(_mapping(old_na).get("requiredDuringSchedulingIgnoredDuringExecution"))
                       .get("nodeSelectorTerms"))
    new_terms = _items(_mapping(_mapping(new_na).get("requiredDuringSchedulingIgnoredDuringExecution"))
                       .get("nodeSelectorTerms"))
    path = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
    if old_terms and len(old_terms) != len(new_terms):
        errs.append(invalid(path, new_terms, "no additions/deletions to non-empty NodeSelectorTerms list are "
                                             "allowed"))
    elif old_terms:
        errs.extend(invalid(f"{path}[{i}]", new_terms[i], "only additions are allowed (no mutations or deletions)")
                    for i in range(len(old_terms)) if not _only_additions(new_terms[i], old_terms[i]))
    affinity = munged.get("affinity")
    old_affinity = old_spec.get("affinity")
    if not isinstance(affinity, Mapping):
        if old_na is not None:
            munged["affinity"] = {"nodeAffinity": old_na}
    elif old_affinity is None and not affinity.get("podAffinity") and not affinity.get("podAntiAffinity"):
        munged.pop("affinity", None)
    else:
        munged["affinity"] = {**affinity, "nodeAffinity": old_na}
    return errs


def _defaulted(pod: Mapping[str, Any]) -> Mapping[str, Any]:
    copy: dict[str, Any] = {"spec": thaw(pod.get("spec"))}
    default_pod(copy)
    return _mapping(copy["spec"])


def _spec_diff(old: Any, new: Any) -> str:
    return "\n".join(["  core.PodSpec{", *diff_lines(old, new), "  }", ""])


def pod_update_errors(new: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    """The errors of updating Pod ``old`` to ``new`` beyond ``new``'s own validation (see the module
    docstring), in kube-apiserver's order."""
    errs = _annotation_errors(new, old)
    new_spec, old_spec = _mapping(new.get("spec")), _mapping(old.get("spec"))
    for group in ("containers", "initContainers"):
        more, stop = _container_errors(_items(new_spec.get(group)), _items(old_spec.get(group)), f"spec.{group}")
        errs.extend(more)
        if stop:
            return errs
    more, stop = _deadline_errors(new_spec.get("activeDeadlineSeconds"), old_spec.get("activeDeadlineSeconds"))
    errs.extend(more)
    if stop:
        return errs
    errs.extend(_toleration_errors(_items(new_spec.get("tolerations")), _items(old_spec.get("tolerations"))))
    errs.extend(_scheduling_gate_errors(_items(new_spec.get("schedulingGates")),
                                        _items(old_spec.get("schedulingGates"))))
    if new_spec == old_spec:  # the common case (a metadata write) costs one comparison
        return errs
    old_canon = semantic(old_spec)
    if semantic(new_spec) == old_canon:
        return errs
    old_spec = _defaulted(old)  # as decoding defaults an object read from storage
    old_canon = semantic(old_spec)
    munged, gated_errs = _munge(new_spec, old_spec)
    errs.extend(gated_errs)
    munged_canon = semantic(munged)
    if munged_canon != old_canon:
        detail = "pod updates may not change fields other than " + ",".join(UPDATABLE_POD_SPEC_FIELDS) + "\n" \
            + _spec_diff(old_canon, munged_canon)
        errs.append(forbidden("spec", detail))
    return errs
