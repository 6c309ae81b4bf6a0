"""The kinds this fake API server serves, and how names resolve to them.

A kind is addressed as kubectl addresses it: the bare kind (``Pod``,
``PodGroup``), or ``Kind.group`` to disambiguate (``Job.batch`` is
Kubernetes' batch/v1 Job; a bare ``Job`` is Volcano's batch.volcano.sh Job),
or the lower-case plural (``pods``, ``jobs.batch``). A manifest resolves by
its ``apiVersion`` and ``kind``.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["KINDS", "KindInfo", "UnknownKindError", "kind_for_object", "resolve_kind"]


@dataclass(frozen=True, slots=True)
class KindInfo:
    """One served kind: where it lives and how it behaves.

    ``has_status`` means the kind is served with a ``/status`` subresource (create and
    update then ignore ``status``). Volcano's PodGroup CRD has none (``subresources: {}``):
    its status is written with plain updates, as the scheduler does.
    """

    group: str
    version: str
    kind: str
    plural: str
    namespaced: bool
    has_status: bool = True

    @property
    def api_version(self) -> str:
        """``group/version``, or just ``version`` for the core group."""
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def key(self) -> str:
        """Unique name: ``Kind`` for the core group, ``Kind.group`` otherwise."""
        return f"{self.kind}.{self.group}" if self.group else self.kind


class UnknownKindError(LookupError):
    """Raised for a kind or apiVersion this server does not serve."""


KINDS: tuple[KindInfo, ...] = (
    KindInfo("", "v1", "Namespace", "namespaces", namespaced=False),
    KindInfo("", "v1", "Node", "nodes", namespaced=False),
    KindInfo("", "v1", "Pod", "pods", namespaced=True),
    KindInfo("", "v1", "Service", "services", namespaced=True),
    KindInfo("", "v1", "ConfigMap", "configmaps", namespaced=True, has_status=False),
    KindInfo("", "v1", "Secret", "secrets", namespaced=True, has_status=False),
    KindInfo("", "v1", "Event", "events", namespaced=True, has_status=False),
    KindInfo("", "v1", "PersistentVolumeClaim", "persistentvolumeclaims", namespaced=True),
    KindInfo("", "v1", "ReplicationController", "replicationcontrollers", namespaced=True),
    KindInfo("scheduling.k8s.io", "v1", "PriorityClass", "priorityclasses", namespaced=False,
             has_status=False),
    KindInfo("apps", "v1", "ReplicaSet", "replicasets", namespaced=True),
    KindInfo("apps", "v1", "Deployment", "deployments", namespaced=True),
    KindInfo("apps", "v1", "StatefulSet", "statefulsets", namespaced=True),
    KindInfo("batch", "v1", "Job", "jobs", namespaced=True),
    KindInfo("networking.k8s.io", "v1", "NetworkPolicy", "networkpolicies", namespaced=True,
             has_status=False),
    KindInfo("batch.volcano.sh", "v1alpha1", "Job", "jobs", namespaced=True),
    KindInfo("scheduling.volcano.sh", "v1beta1", "PodGroup", "podgroups", namespaced=True, has_status=False),
    KindInfo("scheduling.volcano.sh", "v1beta1", "Queue", "queues", namespaced=False),
    KindInfo("bus.volcano.sh", "v1alpha1", "Command", "commands", namespaced=True, has_status=False),
)

_BY_NAME: dict[str, KindInfo] = {}
_BY_API: dict[tuple[str, str], KindInfo] = {}


def _index() -> None:
    for info in KINDS:
        _BY_API[(info.api_version, info.kind)] = info
        for name in (info.key, f"{info.kind}.{info.group}", f"{info.plural}.{info.group}",
                     f"{info.kind}.{info.version}.{info.group}".rstrip(".")):
            _BY_NAME.setdefault(name.lower().rstrip("."), info)
    # Bare names resolve to the only kind so named; "job"/"jobs" resolve to Volcano's Job, as
    # kubectl does on a Volcano cluster for the short name the product documents use.
    for info in KINDS:
        for bare in (info.kind.lower(), info.plural):
            same = [k for k in KINDS if bare in (k.kind.lower(), k.plural)]
            if len(same) == 1 or info.group == "batch.volcano.sh":
                _BY_NAME[bare] = info


_index()


def resolve_kind(name: str) -> KindInfo:
    """The kind named ``name`` (``Pod``, ``pods``, ``Job``, ``Job.batch``, ``PodGroup``, ...)."""
    info = _BY_NAME.get(name.lower())
    if info is None:
        raise UnknownKindError(f"the server doesn't have a resource type {name!r}")
    return info


def kind_for_object(obj: dict[str, object]) -> KindInfo:
    """The kind of a manifest, from its ``apiVersion`` and ``kind`` fields."""
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    if not isinstance(kind, str) or not kind:
        raise UnknownKindError("object has no 'kind' field")
    if not isinstance(api_version, str) or not api_version:
        raise UnknownKindError(f"object of kind {kind!r} has no 'apiVersion' field")
    info = _BY_API.get((api_version, kind))
    if info is None:
        raise UnknownKindError(f"no matches for kind {kind!r} in version {api_version!r}")
    return info
