"""The kinds this fake API server serves, and how names resolve to them.

A kind is addressed as kubectl addresses it: the bare kind (``Pod``,
``PodGroup``), or ``Kind.group`` to disambiguate (``Job.batch`` is
Kubernetes' batch/v1 Job; a bare ``Job`` is Volcano's batch.volcano.sh Job),
or the lower-case plural (``pods``, ``jobs.batch``). A manifest resolves by
its ``apiVersion`` and ``kind``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["KINDS", "STANDARD_VERBS", "KindInfo", "UnknownKindError", "kind_for_object", "resolve_kind"]


STANDARD_VERBS = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")
"""The verbs of a collection resource served by a real API server (discovery order: sorted)."""


@dataclass(frozen=True, slots=True)
class KindInfo:
    """One served kind: where it lives, how it behaves, and how discovery describes it.

    ``has_status`` means the kind is served with a ``/status`` subresource (create and
    update then ignore ``status``). Volcano's PodGroup CRD has none (``subresources: {}``):
    its status is written with plain updates, as the scheduler does.

    ``short_names`` and ``categories`` are what discovery advertises (``kubectl get po``,
    ``kubectl get all``); ``subresources`` lists the subresources served besides
    ``status`` (``binding``, ``eviction``, ``log``, ``scale``), each with its verbs.
    """

    group: str
    version: str
    kind: str
    plural: str
    namespaced: bool
    has_status: bool = True
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    subresources: tuple[tuple[str, str, tuple[str, ...]], ...] = ()
    """``(name, kind, verbs)`` of each subresource other than ``status``."""
    verbs: tuple[str, ...] = STANDARD_VERBS
    api_version: str = field(init=False, repr=False, compare=False)
    """``group/version``, or just ``version`` for the core group."""
    key: str = field(init=False, repr=False, compare=False)
    """Unique name: ``Kind`` for the core group, ``Kind.group`` otherwise (read on every write,
    so worked out once)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "api_version", f"{self.group}/{self.version}" if self.group else self.version)
        object.__setattr__(self, "key", f"{self.kind}.{self.group}" if self.group else self.kind)

    @property
    def singular(self) -> str:
        """The singular resource name (``pod``, ``podgroup``), as discovery reports it."""
        return self.kind.lower()

    @property
    def resource(self) -> str:
        """The group-qualified resource (``pods``, ``jobs.batch.volcano.sh``), as errors name it."""
        return f"{self.plural}.{self.group}" if self.group else self.plural


_STATUS_VERBS = ("get", "patch", "update")
_SCALE = ("scale", "Scale", _STATUS_VERBS)
_POD_SUBRESOURCES = (("binding", "Binding", ("create",)), ("eviction", "Eviction", ("create",)),
                     ("log", "Pod", ("get",)))
_NAMESPACE_VERBS = ("create", "delete", "get", "list", "patch", "update", "watch")

class UnknownKindError(LookupError):
    """Raised for a kind or apiVersion this server does not serve."""


KINDS: tuple[KindInfo, ...] = (
    KindInfo("", "v1", "Namespace", "namespaces", namespaced=False, short_names=("ns",), verbs=_NAMESPACE_VERBS),
    KindInfo("", "v1", "Node", "nodes", namespaced=False, short_names=("no",)),
    KindInfo("", "v1", "Pod", "pods", namespaced=True, short_names=("po",), categories=("all",),
             subresources=_POD_SUBRESOURCES),
    KindInfo("", "v1", "Service", "services", namespaced=True, short_names=("svc",), categories=("all",)),
    KindInfo("", "v1", "ConfigMap", "configmaps", namespaced=True, has_status=False, short_names=("cm",)),
    KindInfo("", "v1", "Secret", "secrets", namespaced=True, has_status=False),
    KindInfo("", "v1", "Event", "events", namespaced=True, has_status=False, short_names=("ev",)),
    KindInfo("", "v1", "PersistentVolumeClaim", "persistentvolumeclaims", namespaced=True, short_names=("pvc",)),
    KindInfo("", "v1", "ReplicationController", "replicationcontrollers", namespaced=True, short_names=("rc",),
             categories=("all",), subresources=(_SCALE,)),
    KindInfo("scheduling.k8s.io", "v1", "PriorityClass", "priorityclasses", namespaced=False,
             has_status=False, short_names=("pc",)),
    KindInfo("apps", "v1", "ReplicaSet", "replicasets", namespaced=True, short_names=("rs",), categories=("all",),
             subresources=(_SCALE,)),
    KindInfo("apps", "v1", "Deployment", "deployments", namespaced=True, short_names=("deploy",),
             categories=("all",), subresources=(_SCALE,)),
    KindInfo("apps", "v1", "StatefulSet", "statefulsets", namespaced=True, short_names=("sts",),
             categories=("all",), subresources=(_SCALE,)),
    KindInfo("batch", "v1", "Job", "jobs", namespaced=True, categories=("all",)),
    KindInfo("networking.k8s.io", "v1", "NetworkPolicy", "networkpolicies", namespaced=True,
             has_status=False, short_names=("netpol",)),
    KindInfo("coordination.k8s.io", "v1", "Lease", "leases", namespaced=True, has_status=False),
    KindInfo("batch.volcano.sh", "v1alpha1", "Job", "jobs", namespaced=True, short_names=("vcjob", "vj")),
    KindInfo("scheduling.volcano.sh", "v1beta1", "PodGroup", "podgroups", namespaced=True, has_status=False,
             short_names=("pg", "podgroup-v1beta1")),
    KindInfo("scheduling.volcano.sh", "v1beta1", "Queue", "queues", namespaced=False,
             short_names=("q", "queue-v1beta1")),
    KindInfo("bus.volcano.sh", "v1alpha1", "Command", "commands", namespaced=True, has_status=False),
    KindInfo("admissionregistration.k8s.io", "v1", "MutatingWebhookConfiguration", "mutatingwebhookconfigurations",
             namespaced=False, has_status=False),
    KindInfo("admissionregistration.k8s.io", "v1", "ValidatingWebhookConfiguration",
             "validatingwebhookconfigurations", namespaced=False, has_status=False),
)
"""Every served kind, in discovery order (core group first)."""

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
        for short in info.short_names:
            _BY_NAME.setdefault(short, info)
            if info.group:
                _BY_NAME.setdefault(f"{short}.{info.group}", info)
    for info in KINDS:
        for bare in (info.kind.lower(), info.plural):
            same = [k for k in KINDS if bare in (k.kind.lower(), k.plural)]
            if len(same) == 1 or info.group == "batch.volcano.sh":
                _BY_NAME[bare] = info


_index()


def resolve_kind(name: str) -> KindInfo:
    """The kind named ``name`` as kubectl accepts it: kind, plural or short name, case-insensitive,
    optionally ``.group``-qualified (``Pod``, ``pods``, ``po``, ``Job``, ``Job.batch``, ``vcjob``, ``pg``)."""
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
