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
from volcano.api.quantity import QuantityError, format_milli, to_milli
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


def _resources(queue: Mapping[str, Any], key: str, errors: list[str]) -> dict[str, tuple[int, str]]:
    """``spec.<key>`` (``spec.guarantee.resource`` for the guarantee) as name -> (milli, text); invalid or
    negative quantities become errors."""
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
        text = str(values[name])
        try:
            milli = to_milli(values[name])
        except (QuantityError, TypeError, ValueError):
            errors.append(f"requestBody.spec.{field}[{name}]: Invalid value: {go_value(text)}: "
                          "quantities must match the regular expression "
                          "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
            continue
        if milli < 0:
            errors.append(f"requestBody.spec.{field}[{name}]: Invalid value: {go_value(text)}: "
                          "must be greater than or equal to 0")
            continue
        out[name] = (milli, text)
    return out


def _resource_chain(queue: Mapping[str, Any], errors: list[str]) -> dict[str, dict[str, tuple[int, str]]]:
    res = {key: _resources(queue, key, errors) for key in _RESOURCE_FIELDS}
    cap, des, gua = res["capability"], res["deserved"], res["guarantee"]
    for r, (g, gtext) in gua.items():
        if r not in des:
            if g > 0:
                errors.append(f'requestBody.spec.deserved.{r}: Invalid value: "<nil>": '
                              f"deserved[{r}] must be >= guarantee[{r}]={gtext}")
        elif des[r][0] < g:
            errors.append(f"requestBody.spec.deserved.{r}: Invalid value: {go_value(des[r][1])}: "
                          f"deserved[{r}]={des[r][1]} must be >= guarantee[{r}]={gtext}")
    for r, (d, dtext) in des.items():
        if r in cap and d > cap[r][0]:
            errors.append(f"requestBody.spec.deserved.{r}: Invalid value: {go_value(dtext)}: "
                          f"deserved[{r}]={dtext} must be <= capability[{r}]={cap[r][1]}")
    return res


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


def _quantities(queue: Mapping[str, Any], key: str) -> dict[str, tuple[int, str]]:
    return _resources(queue, key, [])


def _hierarchical_resource_errors(queue: Mapping[str, Any], view: ClusterView) -> list[str]:
    name = _name(queue)
    queues = {_name(q): q for q in view.queues()}
    queues[name] = queue
    errors: list[str] = []
    cap = _quantities(queue, "capability")
    ancestor = queues.get(queue_parent(queue)) if queue_parent(queue) else None
    seen = {name}
    while ancestor is not None and _name(ancestor) not in seen:
        seen.add(_name(ancestor))
        acap = _quantities(ancestor, "capability")
        if acap:
            for r in sorted(cap):
                if r in acap and cap[r][0] > acap[r][0]:
                    errors.append(f"queue {name} capability[{r}]={cap[r][1]} exceeds its ancestor's "
                                  f"capability={acap[r][1]}")
            break
        parent_name = queue_parent(ancestor)
        ancestor = queues.get(parent_name) if parent_name else None
    children = {n: q for n, q in queues.items() if n != name and queue_parent(q) == name}
    parent_name = queue_parent(queue)
    parent = queues.get(parent_name) if parent_name else None
    groups: list[tuple[str, Mapping[str, Any], list[Mapping[str, Any]]]] = []
    if parent is not None and parent_name != "root":
        siblings = [q for n, q in sorted(queues.items()) if queue_parent(q) == parent_name and n != parent_name]
        groups.append((f"parent queue {parent_name}", parent, siblings))
    if children:
        groups.append((f"queue {name}", queue, [children[n] for n in sorted(children)]))
        ccap: dict[str, tuple[int, str]] = {}
        for child in children.values():
            for r, (v, text) in _quantities(child, "capability").items():
                if r not in ccap or v > ccap[r][0]:
                    ccap[r] = (v, text)
        for r in sorted(ccap):
            if r in cap and cap[r][0] < ccap[r][0]:
                errors.append(f"queue {name} capability[{r}]={cap[r][1]} is smaller than its descendants' max "
                              f"capability={ccap[r][1]}")
    for label, owner, members in groups:
        for key in ("guarantee", "deserved"):
            limit = _quantities(owner, key)
            sums: dict[str, int] = {}
            for member in members:
                for r, (v, _t) in _quantities(member, key).items():
                    sums[r] = sums.get(r, 0) + v
            over = [r for r in sorted(sums) if r in limit and sums[r] > limit[r][0]]
            if over:
                total = ", ".join(f"{r}: {format_milli(sums[r])}" for r in over)
                lim = ", ".join(f"{r}: {limit[r][1]}" for r in over)
                errors.append(f"{label} validation failed: sum of children's {key} ({total}) exceeds "
                              f"parent's {key} limit ({lim})")
    return errors


def validate_queue(queue: Mapping[str, Any], old: Mapping[str, Any] | None, view: ClusterView) -> str:
    """The denial message of ``validatequeue.volcano.sh`` for creating (``old`` None) or updating
    ``queue`` ("" when admitted)."""
    errors: list[str] = []
    _resource_chain(queue, errors)
    state = str((queue.get("status") or {}).get("state") or "")
    if state and state not in ("Open", "Closed"):
        errors.append(f"requestBody.spec.state: Invalid value: {go_value(state)}: queue state must be in "
                      "[Open Closed]")
    errors.extend(_hierarchy_errors(queue, view))
    name = _name(queue)
    spec, old_spec = queue.get("spec") or {}, (old.get("spec") or {}) if old is not None else {}
    parent_changed = old is None or (spec.get("parent") or "") != (old_spec.get("parent") or "")
    if parent_changed:
        errors.extend(_parent_errors(queue, view))
    if old is not None and name == "root":
        if any((spec.get(k) or {}) != (old_spec.get(k) or {}) for k in _RESOURCE_FIELDS):
            errors.append("root queue's resource attributes (capability, deserved, guarantee) cannot be modified")
    elif name != "root":
        changed = old is None or parent_changed or any(
            (spec.get(k) or {}) != (old_spec.get(k) or {}) for k in _RESOURCE_FIELDS)
        if changed:
            errors.extend(_hierarchical_resource_errors(queue, view))
    if not errors:
        return ""
    return errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"


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
