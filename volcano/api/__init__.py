"""Kubernetes-shaped objects: the pure, clock-free vocabulary every layer shares.

Quantities and resource vectors (integer milli-units), label and field
selectors, the served kinds, manifest loading, and read-only (frozen) objects.
Nothing here reads a clock, a random source or the network.
"""

from volcano.api.frozen import FrozenDict, FrozenList, freeze, is_frozen, thaw
from volcano.api.kinds import KINDS, KindInfo, UnknownKindError, kind_for_object, resolve_kind
from volcano.api.manifest import ManifestError, load_manifests
from volcano.api.quantity import QuantityError, format_milli, parse_quantity, to_milli
from volcano.api.resources import (
    CPU,
    EPHEMERAL_STORAGE,
    GPU,
    MEMORY,
    PODS,
    Resources,
    node_allocatable,
    pod_limits,
    pod_requests,
)
from volcano.api.selectors import (
    EVERYTHING,
    FieldRequirement,
    FieldSelector,
    LabelSelector,
    Requirement,
    SelectorError,
    label_selector_from_dict,
    parse_field_selector,
    parse_label_selector,
)

__all__ = [
    "CPU",
    "EPHEMERAL_STORAGE",
    "EVERYTHING",
    "GPU",
    "KINDS",
    "MEMORY",
    "PODS",
    "FieldRequirement",
    "FieldSelector",
    "FrozenDict",
    "FrozenList",
    "KindInfo",
    "LabelSelector",
    "ManifestError",
    "QuantityError",
    "Requirement",
    "Resources",
    "SelectorError",
    "UnknownKindError",
    "format_milli",
    "freeze",
    "is_frozen",
    "kind_for_object",
    "label_selector_from_dict",
    "load_manifests",
    "node_allocatable",
    "parse_field_selector",
    "parse_label_selector",
    "parse_quantity",
    "pod_limits",
    "pod_requests",
    "resolve_kind",
    "thaw",
    "to_milli",
]
