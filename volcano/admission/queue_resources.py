"""The hierarchical resource checks of Volcano's Queue webhook (upstream ``validate_queue.go``,
``validateHierarchicalQueueResources``), with the scheduler's ``api.Resource`` arithmetic they use.

``hierarchical_resource_error(queue, view)`` returns the first refusal, as upstream returns its first
error, in upstream's order:

1. the queue's capability, per resource, against the nearest ancestor (not ``root``) whose capability
   holds that resource above zero: "queue <q> capability[<r>]=<v> exceeds its ancestor's capability=<v>";
2. the running sum of the siblings' (then the queue's own) guarantee and deserved against the parent's:
   "parent queue <p> validation failed: sum of children's guarantee (<sum>) exceeds parent's guarantee
   limit (<limit>)", same for deserved;
3. for a queue with children: its capability, per resource, against the largest capability in each
   child's subtree ("queue <q> capability[<r>]=<v> is smaller than its descendants' max capability=<v>"),
   then the running sum of the children's guarantee and deserved ("queue <q> validation failed: ...").

Sums compare with ``LessPartly(sum, Zero)``: cpu or memory above the limit, or any other resource above
it or absent from the limit (a resource the limit does not name counts as zero, so a child's
``nvidia.com/gpu: 0`` under a parent without gpus is refused, as upstream refuses it). Sums print as
``api.Resource.String()`` does (``cpu 4001.00, memory 0.00``: milli-cpu, bytes, then the other
resources in name order); single values as ``formatResourceWithType`` does (a cpu or memory
quantity, other resources as ``%.2f`` of their milli-value). Upstream lists siblings and children from
an informer index in map order; here they are taken in name order, so which running sum is reported
first is deterministic.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from volcano.admission.lookup import ClusterView
from volcano.api.quantity import QuantityError, format_milli, parse_quantity, to_milli

__all__ = ["Res", "canonical_quantity", "format_single", "hierarchical_resource_error", "new_resource"]

_BINARY = ("Ki", "Mi", "Gi", "Ti", "Pi", "Ei")
_EXPONENT = re.compile(r"[eE][+-]?[0-9]+$")
_DECIMAL_SUFFIX = {-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E"}


def canonical_quantity(value: object) -> str:
    """``resource.Quantity.String()`` of a parsed quantity: ``"4000m"`` -> ``"4"``, ``"1024Mi"`` -> ``"1Gi"``,
    ``"0.5"`` -> ``"500m"``, ``"1e3"`` -> ``"1e3"``. The format follows the suffix (binary, decimal
    exponent, decimal SI); the value is rounded up to a nano-unit. Raises ``QuantityError`` when bad."""
    text = str(value).strip()
    exact = parse_quantity(text)
    whole_nano = math.ceil(abs(exact) * 10**9) * (1 if exact >= 0 else -1)
    if whole_nano == 0:
        return "0"
    binary = text.endswith(_BINARY)
    exponent_form = _EXPONENT.search(text) is not None
    if binary and abs(whole_nano) >= 1024 * 10**9 and whole_nano % 10**9 == 0:
        return format_milli(whole_nano // 10**6, binary=True)
    mantissa, exponent = whole_nano, -9
    while mantissa % 10 == 0:
        mantissa //= 10
        exponent += 1
    shift = exponent % 3
    mantissa, exponent = mantissa * 10**shift, exponent - shift
    if exponent_form:
        return f"{mantissa}" if exponent == 0 else f"{mantissa}e{exponent}"
    suffix = _DECIMAL_SUFFIX.get(exponent)
    return f"{mantissa}{suffix}" if suffix is not None else f"{mantissa}e{exponent}"


def _is_scalar_name(name: str) -> bool:
    """Kubernetes' ``IsScalarResourceName``: extended (domain-prefixed), hugepages, ``kubernetes.io/``
    prefixed native and attachable-volume resources."""
    return name.startswith(("hugepages-", "attachable-volumes-")) or ("/" in name and not name.startswith(
        "requests."))


@dataclass
class Res:
    """Upstream's ``api.Resource``: milli-cpu, memory in bytes, other resources (milli, ``pods`` whole)."""

    cpu: int = 0
    memory: int = 0
    scalars: dict[str, int] = field(default_factory=dict)

    def add(self, other: Res) -> None:
        """Add ``other`` in place (a resource ``other`` names is kept even at zero)."""
        self.cpu += other.cpu
        self.memory += other.memory
        for name, value in other.scalars.items():
            self.scalars[name] = self.scalars.get(name, 0) + value

    def get(self, name: str) -> int:
        """One resource's amount (0 when absent)."""
        if name == "cpu":
            return self.cpu
        if name == "memory":
            return self.memory
        return self.scalars.get(name, 0)

    def names(self) -> Iterator[str]:
        """``ResourceNames()``: cpu, memory, then the others (name order), each only when above zero."""
        if self.cpu > 0:
            yield "cpu"
        if self.memory > 0:
            yield "memory"
        yield from (n for n in sorted(self.scalars) if self.scalars[n] > 0)

    def less_partly(self, other: Res) -> bool:
        """``LessPartly(other, Zero)``: some dimension of ``self`` is below ``other``'s, or ``other`` names
        a resource ``self`` does not."""
        if self.cpu < other.cpu or self.memory < other.memory:
            return True
        if any(name not in self.scalars for name in other.scalars):
            return True
        return any(value < other.scalars.get(name, 0) for name, value in self.scalars.items())

    def __str__(self) -> str:
        parts = [f"cpu {self.cpu:.2f}", f"memory {self.memory:.2f}"]
        parts.extend(f"{name} {self.scalars[name]:.2f}" for name in sorted(self.scalars))
        return ", ".join(parts)


def new_resource(values: object) -> Res:
    """``api.NewResource`` of a ResourceList: cpu in milli, memory and ``pods`` whole (rounded up),
    ``ephemeral-storage`` and scalar resources in milli; ``count/*`` and other names are dropped, as are
    values that do not parse (the validator refuses those before)."""
    res = Res()
    if not isinstance(values, Mapping):
        return res
    for name in values:
        key = str(name)
        try:
            milli = to_milli(values[name])
        except (QuantityError, TypeError, ValueError):
            continue
        whole = -(-milli // 1000)
        if key == "cpu":
            res.cpu += milli
        elif key == "memory":
            res.memory += whole
        elif key == "pods":
            res.scalars["pods"] = res.scalars.get("pods", 0) + whole
        elif key == "ephemeral-storage" or (not key.startswith("count/") and _is_scalar_name(key)):
            res.scalars[key] = res.scalars.get(key, 0) + milli
    return res


def format_single(name: str, value: int) -> str:
    """``formatResourceWithType``: cpu as a milli quantity, memory as a binary quantity, others ``%.2f``."""
    if name == "cpu":
        return format_milli(value)
    if name == "memory":
        return format_milli(value * 1000, binary=True)
    return f"{value:.2f}"


def _spec(queue: Mapping[str, Any]) -> Mapping[str, Any]:
    spec = queue.get("spec")
    return spec if isinstance(spec, Mapping) else {}


def _name(queue: Mapping[str, Any]) -> str:
    return str((queue.get("metadata") or {}).get("name") or "")


def _capability(queue: Mapping[str, Any]) -> Res | None:
    cap = _spec(queue).get("capability")
    return new_resource(cap) if cap is not None else None


def _guarantee(queue: Mapping[str, Any]) -> Res:
    guarantee = _spec(queue).get("guarantee")
    return new_resource(guarantee.get("resource") if isinstance(guarantee, Mapping) else None)


def _deserved(queue: Mapping[str, Any]) -> Res:
    return new_resource(_spec(queue).get("deserved"))


def _parent(queue: Mapping[str, Any]) -> str:
    return str(_spec(queue).get("parent") or "")


def _children(name: str, view: ClusterView) -> list[Mapping[str, Any]]:
    """The stored queues whose ``spec.parent`` is ``name`` (upstream's parent index), in name order."""
    return sorted((q for q in view.queues() if _parent(q) == name and _name(q) != name), key=_name)


def _nearest_ancestor_capability(queue: Mapping[str, Any], resource: str, view: ClusterView) -> int | None:
    parent, seen = _parent(queue), {_name(queue)}
    while parent and parent != "root" and parent not in seen:
        seen.add(parent)
        ancestor = view.queue(parent)
        if ancestor is None:
            return None
        cap = _capability(ancestor)
        if cap is not None and cap.get(resource) > 0:
            return cap.get(resource)
        parent = _parent(ancestor)
    return None


def _subtree_max_capability(queue: Mapping[str, Any], resource: str, view: ClusterView, depth: int = 0) -> int:
    cap = _capability(queue)
    if cap is not None and cap.get(resource) > 0:
        return cap.get(resource)
    if depth > 64:  # a cycle no stored hierarchy has; upstream would recurse without end
        return 0
    return max((_subtree_max_capability(c, resource, view, depth + 1) for c in _children(_name(queue), view)),
               default=0)


def _sum_error(label: str, limit_owner: Mapping[str, Any], members: list[Mapping[str, Any]]) -> str:
    """The running sums of ``members``' guarantee and deserved against ``limit_owner``'s."""
    g_limit, d_limit = _guarantee(limit_owner), _deserved(limit_owner)
    g_total, d_total = Res(), Res()
    for member in members:
        g_total.add(_guarantee(member))
        if g_limit.less_partly(g_total):
            return (f"{label} validation failed: sum of children's guarantee ({g_total}) exceeds parent's "
                    f"guarantee limit ({g_limit})")
        d_total.add(_deserved(member))
        if d_limit.less_partly(d_total):
            return (f"{label} validation failed: sum of children's deserved ({d_total}) exceeds parent's "
                    f"deserved limit ({d_limit})")
    return ""


def _ancestor_error(queue: Mapping[str, Any], view: ClusterView) -> str:
    cap = _capability(queue)
    if cap is None:
        return ""
    for resource in cap.names():
        limit = _nearest_ancestor_capability(queue, resource, view)
        if limit is not None and cap.get(resource) > limit:
            return (f"queue {_name(queue)} capability[{resource}]={format_single(resource, cap.get(resource))} "
                    f"exceeds its ancestor's capability={format_single(resource, limit)}")
    return ""


def _children_error(queue: Mapping[str, Any], children: list[Mapping[str, Any]], view: ClusterView) -> str:
    name, cap = _name(queue), _capability(queue)
    if cap is not None:
        for resource in cap.names():
            most = max((_subtree_max_capability(c, resource, view) for c in children), default=0)
            if cap.get(resource) < most:
                return (f"queue {name} capability[{resource}]={format_single(resource, cap.get(resource))} is "
                        f"smaller than its descendants' max capability={format_single(resource, most)}")
    return _sum_error(f"queue {name}", queue, children)


def hierarchical_resource_error(queue: Mapping[str, Any], view: ClusterView) -> str:
    """The first hierarchical resource refusal for ``queue`` ("" when it passes); see the module doc."""
    name, parent_name = _name(queue), _parent(queue)
    if parent_name and parent_name != "root":
        parent = view.queue(parent_name)
        if parent is None:
            return (f'parent queue {parent_name} not found: queue.scheduling.volcano.sh "{parent_name}" '
                    "not found")
        message = _ancestor_error(queue, view)
        if message:
            return message
        siblings = [q for q in _children(parent_name, view) if _name(q) != name]
        message = _sum_error(f"parent queue {parent_name}", parent, [*siblings, queue])
        if message:
            return message
    children = _children(name, view)
    return _children_error(queue, children, view) if children else ""
