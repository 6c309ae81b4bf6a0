"""Resource vectors in integer milli-units, and how Kubernetes sums a pod's needs.

``Resources`` is an immutable mapping from resource name (``cpu``,
``memory``, ``nvidia.com/gpu``, ...) to integer milli-units: ``cpu: 1`` is
1000, ``memory: 1Ki`` is 1,024,000. Zero entries are dropped, so two vectors
with the same non-zero amounts are equal whatever zeros they were built with.

``pod_requests`` / ``pod_limits`` compute a pod's effective requests and
limits the way the kubelet and kube-scheduler do (``resourcehelper.PodRequests``
in Kubernetes 1.29+, with sidecar containers), and ``node_allocatable`` reads
what a node offers.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from volcano.api.frozen import FrozenDict
from volcano.api.quantity import QuantityError, format_milli, to_milli

__all__ = [
    "CPU",
    "EPHEMERAL_STORAGE",
    "GPU",
    "MEMORY",
    "PODS",
    "Resources",
    "node_allocatable",
    "pod_limits",
    "pod_requests",
]

CPU = "cpu"
MEMORY = "memory"
PODS = "pods"
EPHEMERAL_STORAGE = "ephemeral-storage"
GPU = "nvidia.com/gpu"

_BINARY_NAMES = frozenset((MEMORY, EPHEMERAL_STORAGE, "storage"))


def _is_binary(name: str) -> bool:
    """Whether Kubernetes conventionally prints this resource in BinarySI (memory-like)."""
    return name in _BINARY_NAMES or name.startswith("hugepages-")


class Resources(Mapping[str, int]):
    """An immutable vector of resource name -> integer milli-units (zero entries dropped).

    Supports ``+`` and ``-`` (element-wise; ``-`` may yield negative entries),
    ``fits_in`` (every entry <= the other's), ``max_with`` (element-wise
    maximum), equality and hashing. ``get(name)`` is 0 for an absent resource.
    """

    __slots__ = ("_hash", "_items")

    def __init__(self, amounts: Mapping[str, int] | Iterable[tuple[str, int]] = ()) -> None:
        items = amounts.items() if isinstance(amounts, Mapping) else amounts
        data: dict[str, int] = {}
        for name, value in items:
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"Resources amounts are integer milli-units: {name}={value!r}")
            if value:
                data[name] = value
        self._items = data
        self._hash: int | None = None

    @classmethod
    def _trusted(cls, data: dict[str, int]) -> Resources:
        """Wrap ``data`` (already zero-free, owned by the new vector) without checks."""
        out = cls.__new__(cls)
        out._items = data
        out._hash = None
        return out

    @classmethod
    def from_k8s(cls, quantities: Mapping[str, Any] | None, *, field: str = "resources") -> Resources:
        """Parse a Kubernetes ``ResourceList`` (``{"cpu": "500m", "memory": "1Gi"}``).

        ``None`` gives the empty vector. A bad quantity raises ``QuantityError``
        naming ``field``, the resource and the value.
        """
        if not quantities:
            return EMPTY
        if not isinstance(quantities, Mapping):
            raise QuantityError(f"{field} must be a mapping of resource name to quantity, got {quantities!r}")
        data: dict[str, int] = {}
        for name, value in quantities.items():
            try:
                milli = to_milli(value)
            except QuantityError as exc:
                raise type(exc)(f"{field}.{name}: {exc}") from None  # a range error stays one
            if milli:
                data[str(name)] = milli
        return cls._trusted(data)

    def to_k8s(self) -> dict[str, str]:
        """The vector as a Kubernetes ``ResourceList`` in canonical form (sorted by name)."""
        return {name: format_milli(self._items[name], binary=_is_binary(name)) for name in sorted(self._items)}

    def names(self) -> tuple[str, ...]:
        """The names of the non-zero resources, sorted."""
        return tuple(sorted(self._items))

    def get(self, name: str, default: int = 0) -> int:  # type: ignore[override]
        """The amount of ``name`` in milli-units (``default``, 0, when absent)."""
        return self._items.get(name, default)

    def __getitem__(self, name: str) -> int:
        return self._items[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, name: object) -> bool:
        return name in self._items

    def __add__(self, other: Mapping[str, int]) -> Resources:
        if not other:
            return self
        data = dict(self._items)
        for name, value in other.items():
            total = data.get(name, 0) + value
            if total:
                data[name] = total
            else:
                data.pop(name, None)
        return Resources._trusted(data)

    def __sub__(self, other: Mapping[str, int]) -> Resources:
        if not other:
            return self
        data = dict(self._items)
        for name, value in other.items():
            total = data.get(name, 0) - value
            if total:
                data[name] = total
            else:
                data.pop(name, None)
        return Resources._trusted(data)

    def max_with(self, other: Mapping[str, int]) -> Resources:
        """Element-wise maximum (absent entries count as 0)."""
        data = dict(self._items)
        for name, value in other.items():
            if value > data.get(name, 0):
                data[name] = value
        return Resources._trusted({k: v for k, v in data.items() if v})

    def fits_in(self, other: Mapping[str, int]) -> bool:
        """Whether every resource here is <= the same resource in ``other`` (absent = 0)."""
        get = other.get
        return all(value <= (get(name) or 0) for name, value in self._items.items())

    def is_zero(self) -> bool:
        """True when every entry is zero (the vector is empty)."""
        return not self._items

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Resources):
            return self._items == other._items
        if isinstance(other, Mapping):
            return self._items == {k: v for k, v in other.items() if v}
        return NotImplemented

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(frozenset(self._items.items()))
        return self._hash

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={format_milli(self._items[name], binary=_is_binary(name))}"
                          for name in sorted(self._items))
        return f"Resources({inner})"


EMPTY = Resources()


def _container_requests(container: Mapping[str, Any], field: str) -> Resources:
    """A container's effective requests: ``requests``, defaulted from ``limits`` per resource.

    Kubernetes' API defaulting sets a missing request to the limit of the same
    resource when the pod is created; computing it here means pods that never
    went through that defaulting are counted as the cluster would count them.
    """
    res = container.get("resources") or {}
    requests = Resources.from_k8s(res.get("requests"), field=f"{field}.resources.requests")
    limits = res.get("limits")
    if not limits:
        return requests
    lim = Resources.from_k8s(limits, field=f"{field}.resources.limits")
    extra = {name: value for name, value in lim.items() if name not in (res.get("requests") or {})}
    return requests + extra if extra else requests


def _container_requests_as_written(container: Mapping[str, Any], field: str) -> Resources:
    res = container.get("resources") or {}
    return Resources.from_k8s(res.get("requests"), field=f"{field}.resources.requests")


def _container_limits(container: Mapping[str, Any], field: str) -> Resources:
    res = container.get("resources") or {}
    return Resources.from_k8s(res.get("limits"), field=f"{field}.resources.limits")


def _aggregate(pod: Mapping[str, Any], per_container: Any) -> Resources:
    """Kubernetes' PodRequests/PodLimits fold over containers and init containers."""
    spec = pod.get("spec") or {}
    total = EMPTY
    for i, container in enumerate(spec.get("containers") or ()):
        total = total + per_container(container, f"spec.containers[{i}]")
    sidecars = EMPTY
    init_max = EMPTY
    for i, container in enumerate(spec.get("initContainers") or ()):
        amount = per_container(container, f"spec.initContainers[{i}]")
        if container.get("restartPolicy") == "Always":
            # A restartable (sidecar) init container keeps running next to the app containers.
            total = total + amount
            sidecars = sidecars + amount
            amount = sidecars
        else:
            amount = amount + sidecars
        init_max = init_max.max_with(amount)
    return total.max_with(init_max)


def pod_requests(pod: Mapping[str, Any], *, default_from_limits: bool = True) -> Resources:
    """What a pod asks for, as Kubernetes computes it (``resourcehelper.PodRequests``).

    The sum of the app containers' requests and of every restartable (sidecar,
    ``restartPolicy: Always``) init container's, raised element-wise to each
    regular init container's request plus the sidecars started before it,
    plus ``spec.overhead``.

    With ``default_from_limits`` (the default) a container's missing request
    for a resource it has a limit for counts as that limit, as API defaulting
    makes it for every created pod. Pass ``False`` for objects that were never
    API-defaulted and must be counted as written (e.g. a Job's pod template).
    """
    spec = pod.get("spec")
    if type(spec) is not dict and type(spec) is not FrozenDict:
        return _pod_requests(pod, default_from_limits)
    try:  # the answer is a function of these three values alone; pods of one workload share them
        key = (default_from_limits, repr((spec.get("containers"), spec.get("initContainers"), spec.get("overhead"))))
    except RecursionError:
        return _pod_requests(pod, default_from_limits)
    total = _POD_REQUESTS.get(key)
    if total is None:
        total = _pod_requests(pod, default_from_limits)
        if len(_POD_REQUESTS) >= 4096:
            _POD_REQUESTS.clear()
        _POD_REQUESTS[key] = total
    return total


_POD_REQUESTS: dict[tuple[bool, str], Resources] = {}
"""``pod_requests`` answers by the ``repr`` (types and order included) of the pod's containers,
init containers and overhead; bounded. Resources are immutable values, so one can be shared."""


def _pod_requests(pod: Mapping[str, Any], default_from_limits: bool) -> Resources:
    total = _aggregate(pod, _container_requests if default_from_limits else _container_requests_as_written)
    overhead = (pod.get("spec") or {}).get("overhead")
    if overhead:
        total = total + Resources.from_k8s(overhead, field="spec.overhead")
    return total


def pod_limits(pod: Mapping[str, Any]) -> Resources:
    """A pod's limits as Kubernetes computes them (``resourcehelper.PodLimits``).

    Same fold as ``pod_requests`` over ``limits``; ``spec.overhead`` is added
    only to resources that have a limit.
    """
    total = _aggregate(pod, _container_limits)
    overhead = (pod.get("spec") or {}).get("overhead")
    if overhead and total:
        extra = Resources.from_k8s(overhead, field="spec.overhead")
        total = total + {name: value for name, value in extra.items() if name in total}
    return total


def node_allocatable(node: Mapping[str, Any]) -> Resources:
    """What a node offers to pods: ``status.allocatable``, else ``status.capacity``."""
    status = node.get("status") or {}
    allocatable = status.get("allocatable")
    if allocatable:
        return Resources.from_k8s(allocatable, field="status.allocatable")
    return Resources.from_k8s(status.get("capacity"), field="status.capacity")
