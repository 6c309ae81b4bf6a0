"""Volcano's Queue admission (``mutatequeue.volcano.sh`` and ``validatequeue.volcano.sh``).

* ``mutate_queue(queue)`` (CREATE): ``root/`` / ``1/`` prefixes for legacy
  hierarchy annotations, ``reclaimable`` defaults to true, ``weight`` 0 to 1.
* ``validate_queue(queue, old, view)`` (CREATE / UPDATE): quantities, the
  guarantee <= deserved <= capability chain, the state seen by the webhook,
  the legacy hierarchy annotations, the parent (itself, depth, existence,
  allocated pods), root protection and the hierarchical resource limits. The
  errors are aggregated as Kubernetes aggregates a field error list.
* ``validate_queue_delete(name, view)`` (DELETE): ``default`` and ``root``
  are undeletable, the queue must exist, a queue with children cannot go.
  Open queues can be deleted (Volcano >= 1.6).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from volcano.admission.lookup import ClusterView, queue_parent
from volcano.admission.queue_resources import canonical_quantity, hierarchical_resource_error
from volcano.api.quantity import QuantityError, to_milli
from volcano.apiserver.validation.field import go_value

__all__ = [
    "HIERARCHY_ANNOTATION",
    "HIERARCHY_WEIGHTS_ANNOTATION",
    "MAX_QUEUE_DEPTH",
    "mutate_queue",
    "validate_queue",
    "validate_queue_delete",
]

HIERARCHY_ANNOTATION = "volcano.sh/hierarchy"
"""Legacy hierarchical-DRF path annotation (``root/a/b``)."""

HIERARCHY_WEIGHTS_ANNOTATION = "volcano.sh/hierarchy-weights"
"""Legacy hierarchical-DRF weights annotation (``1/2/3``)."""

MAX_QUEUE_DEPTH = 5
"""``--max-queue-depth`` default of the webhook manager."""

_RESOURCE_FIELDS = ("capability", "deserved", "guarantee")


def _name(obj: Mapping[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("name") or "")


def _annotations(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return (obj.get("metadata") or {}).get("annotations") or {}


def mutate_queue(queue: dict[str, Any]) -> None:
    """Apply ``mutatequeue.volcano.sh``'s CREATE defaults to ``queue`` in place."""
    meta = queue.get("metadata")
    annotations = meta.get("annotations") if isinstance(meta, dict) else None
    if isinstance(annotations, dict):
        hierarchy = annotations.get(HIERARCHY_ANNOTATION)
        weights = annotations.get(HIERARCHY_WEIGHTS_ANNOTATION)
        if hierarchy and weights and not str(hierarchy).startswith("root"):
            annotations[HIERARCHY_ANNOTATION] = f"root/{hierarchy}"
            annotations[HIERARCHY_WEIGHTS_ANNOTATION] = f"1/{weights}"
    spec = queue.get("spec")
    if spec is None:
        spec = queue["spec"] = {}
    if not isinstance(spec, dict):
        return
    if spec.get("reclaimable") is None:
        spec["reclaimable"] = True
    if not spec.get("weight"):
        spec["weight"] = 1


_PATTERN_MESSAGE = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"


def _resources(queue: Mapping[str, Any], key: str, errors: list[str],
               by_name: dict[str, str] | None = None) -> dict[str, tuple[int, str]]:
    """``spec.<key>`` (``spec.guarantee.resource`` for the guarantee) as name -> (milli, canonical text),
    in name order. A quantity that does not parse is an error and left out; a negative one is an error
    (``ValidateResourceQuantityValue``) and kept, as upstream still compares it. With ``by_name`` the
    errors go there, keyed by resource, instead of into ``errors``."""
    values = (queue.get("spec") or {}).get(key) or {}
    field = key
    if key == "guarantee":
        values = values.get("resource") or {} if isinstance(values, Mapping) else values
        field = "guarantee.resource"
    out: dict[str, tuple[int, str]] = {}
    if not isinstance(values, Mapping):
        errors.append(f"requestBody.spec.{field}: Invalid value: {go_value(str(values))}: must be a resource list")
        return out
    for name in sorted(values):
        try:
            milli, text = to_milli(values[name]), canonical_quantity(values[name])
        except (QuantityError, TypeError, ValueError):
            message = (f"requestBody.spec.{field}.{name}: Invalid value: {go_value(str(values[name]))}: "
                       f"{_PATTERN_MESSAGE}")
        else:
            out[name] = (milli, text)
            if milli >= 0:
                continue
            message = (f"requestBody.spec.{field}.{name}: Invalid value: {go_value(text)}: "
                       "must be greater than or equal to 0")
        if by_name is None:
            errors.append(message)
        else:
            by_name[str(name)] = message
    return out


def _resource_chain(queue: Mapping[str, Any], errors: list[str]) -> None:
    """Upstream's ``validateResourceQuantityOfQueue``: each capability and deserved quantity, then per
    guarantee resource its quantity and ``deserved >= guarantee`` (a deserved missing for any guarantee
    resource, even a zero one, is refused), then ``deserved <= capability`` where both are set."""
    cap = _resources(queue, "capability", errors)
    des = _resources(queue, "deserved", errors)
    by_name: dict[str, str] = {}
    gua = _resources(queue, "guarantee", errors, by_name)
    for r in sorted(set(gua) | set(by_name)):
        if r in by_name:
            errors.append(by_name[r])
        if r not in gua:
            continue
        g, gtext = gua[r]
        if r not in des:
            errors.append(f'requestBody.spec.deserved.{r}: Invalid value: "<nil>": '
                          f"deserved[{r}] must be >= guarantee[{r}]={gtext}")
        elif des[r][0] < g:
            errors.append(f"requestBody.spec.deserved.{r}: Invalid value: {go_value(des[r][1])}: "
                          f"deserved[{r}]={des[r][1]} must be >= guarantee[{r}]={gtext}")
    for r, (d, dtext) in des.items():
        if r in cap and d > cap[r][0]:
            errors.append(f"requestBody.spec.deserved.{r}: Invalid value: {go_value(dtext)}: "
                          f"deserved[{r}]={dtext} must be <= capability[{r}]={cap[r][1]}")


def _hierarchy_errors(queue: Mapping[str, Any], view: ClusterView) -> list[str]:
    ann = _annotations(queue)
    hierarchy = str(ann.get(HIERARCHY_ANNOTATION) or "")
    weights = str(ann.get(HIERARCHY_WEIGHTS_ANNOTATION) or "")
    path = "requestBody.metadata.annotations"
    if not hierarchy and not weights:
        return []
    if len(hierarchy.split("/")) != len(weights.split("/")):
        return [f"{path}: Invalid value: {go_value(hierarchy)}: {HIERARCHY_ANNOTATION} must have the same length "
                f"with {HIERARCHY_WEIGHTS_ANNOTATION}"]
    for weight in weights.split("/"):
        try:
            value = float(weight)
        except ValueError:
            return [f"{path}: Invalid value: {go_value(weights)}: {weight} in the {weights} is invalid number: "
                    f'strconv.ParseFloat: parsing {go_value(weight)}: invalid syntax']
        if not value > 0:
            return [f"{path}: Invalid value: {go_value(weights)}: {weight} in the {weights} must be larger than 0"]
    for other in view.queues():
        theirs = str(_annotations(other).get(HIERARCHY_ANNOTATION) or "")
        if theirs and _name(other) != _name(queue) and theirs.startswith(hierarchy + "/"):
            return [f"{path}: Invalid value: {go_value(hierarchy)}: {hierarchy} is not allowed to be in the sub "
                    f"path of {theirs} of queue {_name(other)}"]
    return []


def _allocated_pods(queue: Mapping[str, Any]) -> int:
    """``status.allocated.pods`` as Go's ``Quantity.Value()`` reads it (rounded up; 0 when absent or bad)."""
    value = ((queue.get("status") or {}).get("allocated") or {}).get("pods")
    try:
        milli = to_milli(value) if value is not None else 0
    except (QuantityError, TypeError, ValueError):
        return 0
    return -(-milli // 1000)


def _parent_errors(queue: Mapping[str, Any], view: ClusterView) -> list[str]:
    """Upstream's ``validateHierarchicalQueue``: not itself, the depth walk (``validateQueueDepth``: the
    depth is counted before each ancestor is read, so a missing ancestor is named by it), and a parent
    without children must have no allocated pods."""
    name, parent = _name(queue), str((queue.get("spec") or {}).get("parent") or "")
    if not parent or parent == "root":
        return []
    if parent == name:
        return [f"queue {name} cannot use itself as parent"]
    depth, current = 1, parent
    while current and current != "root":
        depth += 1
        if depth > MAX_QUEUE_DEPTH:
            return [f"queue {name} exceeds the maximum allowed depth of {MAX_QUEUE_DEPTH}"]
        found = view.queue(current)
        if found is None:
            return [f'failed to get parent queue {current} of queue {name}: queue.scheduling.volcano.sh '
                    f'"{current}" not found']
        current = str((found.get("spec") or {}).get("parent") or "")
    parent_queue = view.queue(parent)
    has_children = any(queue_parent(q) == parent and _name(q) != name for q in view.queues())
    pods = _allocated_pods(parent_queue) if parent_queue is not None else 0
    if not has_children and pods != 0:
        return [f"queue {parent} cannot be the parent queue of queue {name} because it has allocated Pods: {pods}"]
    return []


def _semantic(spec: Mapping[str, Any], key: str) -> dict[str, int | str]:
    """``spec.<key>`` (the guarantee's ``resource``) compared as ``equality.Semantic`` compares quantities."""
    values = spec.get(key) or {}
    if key == "guarantee" and isinstance(values, Mapping):
        values = values.get("resource") or {}
    if not isinstance(values, Mapping):
        return {"": str(values)}
    out: dict[str, int | str] = {}
    for name, value in values.items():
        try:
            out[str(name)] = to_milli(value)
        except (QuantityError, TypeError, ValueError):
            out[str(name)] = str(value)
    return out


def validate_queue(queue: Mapping[str, Any], old: Mapping[str, Any] | None, view: ClusterView) -> str:
    """The denial message of ``validatequeue.volcano.sh`` for creating (``old`` None) or updating
    ``queue`` ("" when admitted): the field checks (aggregated), then the first error of the parent
    checks, root protection and the hierarchical resource checks, in upstream's order."""
    errors: list[str] = []
    _resource_chain(queue, errors)
    state = str((queue.get("status") or {}).get("state") or "")
    if state and state not in ("Open", "Closed"):
        errors.append(f"requestBody.spec.state: Invalid value: {go_value(state)}: queue state must be in "
                      "[Open Closed]")
    errors.extend(_hierarchy_errors(queue, view))
    if errors:
        return errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"
    name = _name(queue)
    spec, old_spec = queue.get("spec") or {}, (old.get("spec") or {}) if old is not None else {}
    parent_changed = old is None or (spec.get("parent") or "") != (old_spec.get("parent") or "")
    if parent_changed:
        parent_errors = _parent_errors(queue, view)
        if parent_errors:
            return parent_errors[0]
    resources_changed = any(_semantic(spec, k) != _semantic(old_spec, k) for k in _RESOURCE_FIELDS)
    if old is not None and name == "root" and resources_changed:
        return "root queue's resource attributes (capability, deserved, guarantee) cannot be modified"
    if name != "root" and (parent_changed or resources_changed):
        return hierarchical_resource_error(queue, view)
    return ""


def validate_queue_delete(name: str, view: ClusterView, *, check_allocated_pods: bool = False) -> str:
    """The denial message of ``validatequeue.volcano.sh`` for deleting queue ``name`` ("" when allowed)."""
    if name == "default":
        return "`default` queue can not be deleted"
    if name == "root":
        return "`root` queue can not be deleted"
    queue = view.queue(name)
    if queue is None:
        return f'queues.scheduling.volcano.sh "{name}" not found'
    if check_allocated_pods and _allocated_pods(queue) != 0:
        return f"queue {name} cannot be deleted because it has allocated Pods: {_allocated_pods(queue)}"
    children = sorted(_name(q) for q in view.queues() if queue_parent(q) == name and _name(q) != name)
    if children:
        return f"queue {name} can not be deleted because it has {len(children)} child queues: {', '.join(children)}"
    return ""
