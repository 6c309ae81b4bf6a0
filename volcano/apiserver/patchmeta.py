"""How each field of a served kind merges: the data behind strategic merge patch and server-side apply.

Kubernetes keeps this knowledge in struct tags of its Go types (``patchStrategy:"merge"
patchMergeKey:"name"``, ``+listType=map``, ``+listMapKey``, ``+structType=atomic``) and, for custom
resources, in the CRD's OpenAPI schema (``x-kubernetes-list-type``). This module holds the same facts
as plain data, one ``Schema`` per kind, covering the kinds this server serves
(``volcano.api.kinds``):

* ``FieldMeta.strategies`` / ``merge_key`` drive strategic merge patch (``volcano.apiserver.smp``):
  ``("merge",)`` lists merge element-wise by ``merge_key`` (or, for lists of scalars, as sets),
  ``("retainKeys",)`` lets a patch clear the keys it does not retain, ``("replace",)`` replaces.
  A field with no strategy is replaced whole, as upstream.
* ``FieldMeta.list_type`` / ``map_keys`` / ``atomic`` drive server-side apply
  (``volcano.apiserver.typed``): ``"map"`` lists are keyed by ``map_keys`` (``key_defaults`` fills a
  key the item omits, as the OpenAPI default does), ``"set"`` lists by value, every other list is
  atomic; an ``atomic`` struct is owned as one field.

A field missing from a schema has no strategy and an empty sub-schema: unknown fields are
replaced whole by strategic merge and are atomic-free granular maps for apply. Volcano's CRDs
declare list-map keys only inside ``spec.tasks[].template``, and ``spec.tasks`` itself is atomic,
so for apply every Volcano list is atomic; ``Command.target`` is an atomic struct.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

__all__ = [
    "CUSTOM_RESOURCE_KINDS",
    "EMPTY",
    "FieldMeta",
    "Schema",
    "is_custom_resource",
    "schema_for",
]


@dataclass(frozen=True, slots=True)
class FieldMeta:
    """How one field merges (see module docstring). ``schema`` describes the field's value when it is
    a struct, or the list's elements when it is a list."""

    strategies: tuple[str, ...] = ()
    merge_key: str = ""
    list_type: str = "atomic"
    map_keys: tuple[str, ...] = ()
    key_defaults: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    atomic: bool = False
    schema: Schema | None = None

    @property
    def sub(self) -> Schema:
        """The sub-schema (``EMPTY`` when none is declared)."""
        return self.schema if self.schema is not None else EMPTY

    @property
    def strategy(self) -> str:
        """The strategy other than ``retainKeys`` (``""`` when none): ``merge`` or ``replace``."""
        rest = [s for s in self.strategies if s != "retainKeys"]
        return rest[0] if rest else ""

    @property
    def retain_keys(self) -> bool:
        """Whether the field carries the ``retainKeys`` strategy."""
        return "retainKeys" in self.strategies


class Schema:
    """The fields of one struct type: name -> ``FieldMeta``. ``name`` appears in error messages."""

    __slots__ = ("fields", "name")

    def __init__(self, name: str, fields: dict[str, FieldMeta] | None = None) -> None:
        self.name = name
        # A read-only view of ``fields`` itself (not a copy), so a recursive type can be completed later.
        self.fields: Mapping[str, FieldMeta] = MappingProxyType(fields if fields is not None else {})

    def lookup(self, key: str) -> FieldMeta:
        """The metadata of field ``key`` (an empty ``FieldMeta`` for an undeclared field)."""
        return self.fields.get(key, _NO_META)

    def __repr__(self) -> str:
        return f"Schema({self.name!r}, {sorted(self.fields)!r})"


EMPTY = Schema("")
"""The schema with no declared fields: every list replaced (SMP) or atomic (apply)."""
_NO_META = FieldMeta()


def _struct(name: str, **fields: FieldMeta) -> Schema:
    return Schema(name, fields)


def _obj(schema: Schema, *, atomic: bool = False, retain_keys: bool = False) -> FieldMeta:
    return FieldMeta(strategies=("retainKeys",) if retain_keys else (), atomic=atomic, schema=schema)


def _merge_list(key: str, elem: Schema | None = None, *, ssa_keys: tuple[str, ...] = (),
                defaults: Mapping[str, Any] | None = None, retain_keys: bool = False) -> FieldMeta:
    """A list of structs merged by ``key`` (``patchStrategy:"merge"``), a list-map for apply."""
    return FieldMeta(strategies=("merge", "retainKeys") if retain_keys else ("merge",), merge_key=key,
                     list_type="map", map_keys=ssa_keys or (key,),
                     key_defaults=MappingProxyType(dict(defaults or {})), schema=elem)


def _map_list(*keys: str) -> FieldMeta:
    """A list-map for apply only (``+listType=map`` without a patch strategy: SMP replaces it)."""
    return FieldMeta(list_type="map", map_keys=keys)


_SET_LIST = FieldMeta(strategies=("merge",), list_type="set")
"""A list of scalars merged as a set (``finalizers``, ``podCIDRs``)."""
_ATOMIC_OBJ = FieldMeta(atomic=True)
_CONDITIONS = _merge_list("type")

# -- metadata ---------------------------------------------------------------------------------------
OBJECT_META = _struct("ObjectMeta", finalizers=_SET_LIST, ownerReferences=_merge_list("uid"))

# -- pod template -----------------------------------------------------------------------------------
_PROTOCOL_DEFAULT = {"protocol": "TCP"}
_CONTAINER = _struct(
    "Container",
    ports=_merge_list("containerPort", ssa_keys=("containerPort", "protocol"), defaults=_PROTOCOL_DEFAULT),
    env=_merge_list("name"),
    volumeMounts=_merge_list("mountPath"),
    volumeDevices=_merge_list("devicePath"),
    resources=_obj(_struct("ResourceRequirements", claims=_map_list("name"))),
)
_LABEL_SELECTOR = _ATOMIC_OBJ
_AFFINITY = _struct(
    "Affinity",
    nodeAffinity=_obj(_struct("NodeAffinity", requiredDuringSchedulingIgnoredDuringExecution=_ATOMIC_OBJ)),
)
POD_SPEC = _struct(
    "PodSpec",
    volumes=_merge_list("name", retain_keys=True),
    initContainers=_merge_list("name", _CONTAINER),
    containers=_merge_list("name", _CONTAINER),
    ephemeralContainers=_merge_list("name", _CONTAINER),
    imagePullSecrets=_merge_list("name"),
    hostAliases=_merge_list("ip"),
    topologySpreadConstraints=_merge_list(
        "topologyKey", _struct("TopologySpreadConstraint", labelSelector=_LABEL_SELECTOR),
        ssa_keys=("topologyKey", "whenUnsatisfiable")),
    schedulingGates=_merge_list("name"),
    resourceClaims=_merge_list("name", retain_keys=True),
    affinity=_obj(_AFFINITY),
)
_POD_STATUS = _struct(
    "PodStatus", conditions=_CONDITIONS, podIPs=_merge_list("ip"), hostIPs=_merge_list("ip"),
    resourceClaimStatuses=_merge_list("name", retain_keys=True),
)
POD_TEMPLATE = _struct("PodTemplateSpec", metadata=_obj(OBJECT_META), spec=_obj(POD_SPEC))


def _kind(name: str, spec: Schema | None = None, status: Schema | None = None, **extra: FieldMeta) -> Schema:
    fields: dict[str, FieldMeta] = {"metadata": _obj(OBJECT_META), **extra}
    if spec is not None:
        fields["spec"] = _obj(spec)
    if status is not None:
        fields["status"] = _obj(status)
    return Schema(name, fields)


def _workload_spec(name: str, **extra: FieldMeta) -> Schema:
    return _struct(name, selector=_LABEL_SELECTOR, template=_obj(POD_TEMPLATE), **extra)


def _conditions_status(name: str) -> Schema:
    return _struct(name, conditions=_CONDITIONS)


_BUILTIN: dict[str, Schema] = {
    "Pod": _kind("Pod", POD_SPEC, _POD_STATUS),
    "Node": _kind("Node", _struct("NodeSpec", podCIDRs=_SET_LIST),
                  _struct("NodeStatus", conditions=_CONDITIONS, addresses=_merge_list("type"))),
    "Service": _kind("Service", _struct("ServiceSpec", ports=_merge_list(
        "port", ssa_keys=("port", "protocol"), defaults=_PROTOCOL_DEFAULT)), _conditions_status("ServiceStatus")),
    "ConfigMap": _kind("ConfigMap"),
    "Secret": _kind("Secret"),
    "Event": _kind("Event"),
    "Namespace": _kind("Namespace", None, _conditions_status("NamespaceStatus")),
    "PersistentVolumeClaim": _kind("PersistentVolumeClaim",
                                   _struct("PersistentVolumeClaimSpec", selector=_LABEL_SELECTOR),
                                   _conditions_status("PersistentVolumeClaimStatus")),
    "ReplicationController": _kind("ReplicationController", _struct("ReplicationControllerSpec",
                                                                    template=_obj(POD_TEMPLATE)),
                                   _conditions_status("ReplicationControllerStatus")),
    "PriorityClass.scheduling.k8s.io": _kind("PriorityClass"),
    "ReplicaSet.apps": _kind("ReplicaSet", _workload_spec("ReplicaSetSpec"), _conditions_status("ReplicaSetStatus")),
    "Deployment.apps": _kind("Deployment", _workload_spec("DeploymentSpec", strategy=_obj(
        _struct("DeploymentStrategy"), retain_keys=True)), _conditions_status("DeploymentStatus")),
    "StatefulSet.apps": _kind("StatefulSet", _workload_spec("StatefulSetSpec"),
                              _conditions_status("StatefulSetStatus")),
    "Job.batch": _kind("Job", _workload_spec("JobSpec"), _conditions_status("JobStatus")),
    "NetworkPolicy.networking.k8s.io": _kind("NetworkPolicy", _struct(
        "NetworkPolicySpec", podSelector=_LABEL_SELECTOR), _conditions_status("NetworkPolicyStatus")),
}

CUSTOM_RESOURCE_KINDS: frozenset[str] = frozenset({
    "Job.batch.volcano.sh", "PodGroup.scheduling.volcano.sh", "Queue.scheduling.volcano.sh", "Command.bus.volcano.sh",
})
"""Kind keys served from CRDs (no strategic merge patch; schema from the CRD)."""

_CUSTOM: dict[str, Schema] = {
    "Job.batch.volcano.sh": _kind("Job"),
    "PodGroup.scheduling.volcano.sh": _kind("PodGroup"),
    "Queue.scheduling.volcano.sh": _kind("Queue"),
    "Command.bus.volcano.sh": _kind("Command", target=_ATOMIC_OBJ),
}


def is_custom_resource(kind_key: str) -> bool:
    """Whether the kind (``KindInfo.key``) is a custom resource (Volcano's CRDs)."""
    return kind_key in CUSTOM_RESOURCE_KINDS


def schema_for(kind_key: str) -> Schema:
    """The schema of a served kind (``KindInfo.key``); ``EMPTY``-based for an unknown kind."""
    found = _BUILTIN.get(kind_key) or _CUSTOM.get(kind_key)
    if found is None:
        return _kind(kind_key.split(".", 1)[0])
    return found
