"""Resource vectors inside the scheduler: a growing name index and numpy rows.

Everything in the scheduler is integer milli-units (``volcano.api.resources``):
cpu ``1`` is 1000, memory ``1Ki`` is 1,024,000, one pod is 1000 in the ``pods``
dimension. A ``ResourceSpace`` assigns each resource name a column; a vector is
a 1-D ``numpy.int64`` array over those columns. Node fit compares these
integers exactly: Volcano's 0.1-unit tolerance cannot change a comparison of
whole units. Where upstream compares fractional shares tolerantly (queue
quotas), ``volcano.scheduler.framework.quota`` keeps its tolerance; that module
states the rule.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
import numpy.typing as npt

from volcano.api.quantity import QuantityRangeError, format_milli
from volcano.api.resources import CPU, EPHEMERAL_STORAGE, MEMORY, PODS, Resources

__all__ = ["MAX_AMOUNT", "POD_UNIT", "ResourceSpace", "Vec", "checked", "is_scheduler_resource",
           "scheduler_resources"]

Vec = npt.NDArray[np.int64]
"""A resource vector (one int64 per column of a ``ResourceSpace``)."""

POD_UNIT = 1000
"""One pod in the ``pods`` dimension (milli-units, like every other resource)."""

MAX_AMOUNT = 2**62
"""The largest amount one object may hold in one resource (milli-units): vectors are int64, and
sums of two such amounts must not wrap. About 4.6e15 cpus or 4 EiB of memory."""


def checked(res: Resources, *, field: str) -> Resources:
    """``res`` when every amount fits ``MAX_AMOUNT``; else ``QuantityRangeError`` naming the field,
    the resource and the value (the component then skips the object, see ``informers.poison``)."""
    for name, value in res.items():
        if abs(value) > MAX_AMOUNT:
            raise QuantityRangeError(f"{field}.{name}: {format_milli(value)} is beyond the scheduler's "
                                     f"int64 milli-unit range (at most {format_milli(MAX_AMOUNT)})")
    return res


def is_scheduler_resource(name: str) -> bool:
    """Whether Volcano's ``NewResource`` keeps a ResourceList entry (reference §9.1).

    Kept: cpu, memory, pods, ephemeral-storage, and Kubernetes' scalar resource
    names (extended resources such as ``nvidia.com/gpu``, ``hugepages-*``,
    ``attachable-volumes-*``, ``kubernetes.io/``-prefixed names). Dropped:
    ``count/*`` quota keys and the ``requests.*`` / ``limits.*`` keys the Job
    controller writes into ``minResources`` beside the plain names.
    """
    if name in (CPU, MEMORY, PODS, EPHEMERAL_STORAGE):
        return True
    if name.startswith(("count/", "requests.", "limits.")):
        return False
    return name.startswith(("hugepages-", "attachable-volumes-")) or "/" in name


def scheduler_resources(mapping: Mapping[str, object] | None, *, field: str) -> Resources:
    """A ResourceList (queue capability, PodGroup minResources, ...) as the scheduler reads it:
    parsed exactly, keeping only the names ``is_scheduler_resource`` accepts. Bad quantities
    raise ``QuantityError`` naming ``field``."""
    kept = {k: v for k, v in (mapping or {}).items() if is_scheduler_resource(str(k))}
    return checked(Resources.from_k8s(kept, field=field), field=field)


class ResourceSpace:
    """The columns of resource vectors: ``cpu``, ``memory``, ``pods`` first, then
    every other name in the order it was first seen. The space only grows; a
    vector built when it was smaller is padded with zeros by ``fit``."""

    __slots__ = ("index", "names")

    def __init__(self, names: Iterable[str] = ()) -> None:
        self.names: list[str] = [CPU, MEMORY, PODS]
        self.index: dict[str, int] = {CPU: 0, MEMORY: 1, PODS: 2}
        for name in names:
            self.register(name)

    def __len__(self) -> int:
        return len(self.names)

    def register(self, name: str) -> int:
        """The column of ``name`` (added at the end when new)."""
        col = self.index.get(name)
        if col is None:
            col = len(self.names)
            self.names.append(name)
            self.index[name] = col
        return col

    def register_all(self, names: Iterable[str]) -> None:
        """Register every name (in the given order)."""
        for name in names:
            self.register(name)

    def vector(self, amounts: Mapping[str, int]) -> Vec:
        """A vector of ``amounts`` (unknown names are registered first)."""
        for name in amounts:
            if name not in self.index:
                self.register(name)
        vec = np.zeros(len(self.names), dtype=np.int64)
        for name, value in amounts.items():
            vec[self.index[name]] = value
        return vec

    def zeros(self) -> Vec:
        """An all-zero vector of the current width."""
        return np.zeros(len(self.names), dtype=np.int64)

    def fit(self, vec: Vec) -> Vec:
        """``vec`` padded with zeros to the current width."""
        n = len(self.names)
        if vec.shape[0] == n:
            return vec
        out = np.zeros(n, dtype=np.int64)
        out[: vec.shape[0]] = vec
        return out

    def to_resources(self, vec: Vec) -> Resources:
        """The ``Resources`` mapping of a vector (zero entries dropped)."""
        return Resources({self.names[i]: int(v) for i, v in enumerate(vec.tolist()) if v})
