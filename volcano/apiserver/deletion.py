"""How a delete proceeds: preconditions, a pod's grace period, finalizers and propagation.

``Deletion.delete`` is what a DELETE does once the request has been admitted:
an object with no finalizers and no grace period is removed at once; otherwise
it is marked (``deletionTimestamp``, ``deletionGracePeriodSeconds``,
generation + 1 for a kind that has one) and stays until its finalizers are gone and its grace period
has ended (the kubelet then deletes the pod with grace 0). ``Foreground`` and
``Orphan`` propagation add the garbage collector's finalizers when the object
has dependents. A second delete may only shorten a pod's grace period.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from volcano.api.frozen import FrozenDict
from volcano.api.kinds import KindInfo
from volcano.apiserver import namespaces
from volcano.apiserver.errors import ApiError, conflict, status_cause
from volcano.apiserver.gc import FOREGROUND, ORPHAN
from volcano.apiserver.meta import resource_name
from volcano.sim.clock import Clock

if TYPE_CHECKING:
    from volcano.apiserver.gc import GarbageCollector
    from volcano.apiserver.store import ObjectStore

__all__ = ["DEFAULT_GRACE_SECONDS", "GENERATION_KINDS", "PROPAGATION_POLICIES", "Deletion", "check_delete_options",
           "check_preconditions", "pod_grace_seconds", "tracks_generation"]

DEFAULT_GRACE_SECONDS = 30
GENERATION_KINDS = frozenset({
    "Pod", "ReplicationController", "ReplicaSet.apps", "Deployment.apps", "StatefulSet.apps", "Job.batch",
    "NetworkPolicy.networking.k8s.io", "MutatingWebhookConfiguration.admissionregistration.k8s.io",
    "ValidatingWebhookConfiguration.admissionregistration.k8s.io",
})
"""The built-in kinds whose registry strategy sets ``metadata.generation`` (1 at create, + 1 per spec
change); ConfigMaps, Secrets, Services, Namespaces, Nodes, Events, Leases, PriorityClasses and
PersistentVolumeClaims have none."""


PROPAGATION_POLICIES = ("Foreground", "Background", "Orphan")
"""The ``propagationPolicy`` values of a ``DeleteOptions``, in the order Kubernetes lists them."""


def check_delete_options(policy: str | None, orphan_dependents: bool | None = None) -> None:
    """apimachinery's ``ValidateDeleteOptions``: ``orphanDependents`` and ``propagationPolicy`` not
    both set, and a policy Kubernetes knows; every error in one 422 on ``DeleteOptions.meta.k8s.io``."""
    causes: list[str] = []
    if orphan_dependents is not None and policy is not None:
        causes.append(f'propagationPolicy: Invalid value: "{policy}": orphanDependents and deletionPropagation '
                      "cannot be both set")
    if policy is not None and policy not in PROPAGATION_POLICIES:
        causes.append(f'propagationPolicy: Unsupported value: "{policy}": supported values: "Foreground", '
                      '"Background", "Orphan", "nil"')
    if causes:
        text = causes[0] if len(causes) == 1 else "[" + ", ".join(causes) + "]"
        raise ApiError(422, "Invalid", f'DeleteOptions.meta.k8s.io "" is invalid: {text}',
                       {"group": "meta.k8s.io", "kind": "DeleteOptions", "causes": [status_cause(c) for c in causes]})


def tracks_generation(info: KindInfo) -> bool:
    """Whether objects of ``info``'s kind carry ``metadata.generation``: the kinds in
    ``GENERATION_KINDS`` and every custom resource (Volcano's kinds)."""
    return info.key in GENERATION_KINDS or info.group.endswith("volcano.sh")
"""Grace period of a pod without ``spec.terminationGracePeriodSeconds``."""

_TERMINAL = ("Succeeded", "Failed")


def check_preconditions(info: KindInfo, old: Any, pre: Any) -> None:
    """Raise Conflict when ``pre`` (``uid``, ``resourceVersion``) does not match the stored ``old``."""
    if not pre:
        return
    meta = old["metadata"]
    uid = pre.get("uid")
    if uid is not None and uid != meta["uid"]:
        raise conflict(resource_name(info), meta["name"],
                       f"Precondition failed: UID in precondition: {uid}, UID in object meta: {meta['uid']}")
    rv = pre.get("resourceVersion")
    if rv is not None and str(rv) != meta["resourceVersion"]:
        raise conflict(resource_name(info), meta["name"],
                       f"Precondition failed: ResourceVersion in precondition: {rv}, "
                       f"ResourceVersion in object meta: {meta['resourceVersion']}")


def pod_grace_seconds(pod: Any, requested: int | None) -> int:
    """Seconds a deleted pod keeps running: 0 when unbound or terminated (removed at once), else the
    request's grace period, else ``spec.terminationGracePeriodSeconds``, else 30."""
    spec = pod.get("spec") or {}
    status = pod.get("status") or {}
    if not spec.get("nodeName") or status.get("phase") in _TERMINAL:
        return 0
    if requested is not None:
        return requested
    value = spec.get("terminationGracePeriodSeconds")
    return DEFAULT_GRACE_SECONDS if value is None else int(value)


class Deletion:
    """The delete path over an ``ObjectStore`` (see the module docstring)."""

    def __init__(self, store: ObjectStore, clock: Clock, gc: GarbageCollector) -> None:
        self._store = store
        self._clock = clock
        self._gc = gc

    def delete(self, info: KindInfo, old: FrozenDict, grace: int | None, policy: str) -> FrozenDict | None:
        """Delete the stored ``old``; return the object if it still exists afterwards, else None."""
        meta = old["metadata"]
        if info.key == "Namespace":
            marked = namespaces.terminating(old, self._clock.timestamp())
            if marked is None:
                self._store.remove(info, old)
                return None
            return self._store.replace(info, old, marked)
        if meta.get("deletionTimestamp"):
            return self._delete_again(info, old, grace)
        seconds = pod_grace_seconds(old, grace) if info.key == "Pod" else 0
        finalizers = list(meta.get("finalizers") or ())
        if self._gc.has_dependents(meta["uid"]):
            extra = ORPHAN if policy == "Orphan" else FOREGROUND if policy == "Foreground" else None
            if extra is not None and extra not in finalizers:
                finalizers.append(extra)
        if not finalizers and seconds == 0:
            self._store.remove(info, old)
            return None
        new: dict[str, Any] = dict(old)
        new_meta = new["metadata"] = dict(meta)
        new_meta["deletionTimestamp"] = self._clock.timestamp(self._clock.now_ms + seconds * 1000)
        new_meta["deletionGracePeriodSeconds"] = seconds
        if finalizers:
            new_meta["finalizers"] = finalizers
        if meta.get("generation"):
            new_meta["generation"] = int(meta["generation"]) + 1
        return self._store.replace(info, old, new)

    def _delete_again(self, info: KindInfo, old: FrozenDict, grace: int | None) -> FrozenDict | None:
        """A delete of an object already being deleted may only shorten a pod's grace period."""
        meta = old["metadata"]
        current = meta.get("deletionGracePeriodSeconds") or 0
        if info.key != "Pod" or grace is None or grace >= current:
            return old
        # (``rest.BeforeDelete``) the deadline moves back by the difference, from the first request's
        # time, not from now; a deadline already passed becomes now, with a grace period of 1 second
        # unless 0 was asked (another actor still makes the final delete).
        now_ms = self._clock.now_ms
        first_ms = self._clock.parse_timestamp(meta["deletionTimestamp"])
        deadline_ms = now_ms if first_ms is None else first_ms - int(current) * 1000 + grace * 1000
        if deadline_ms < now_ms:
            deadline_ms = now_ms
            grace = min(grace, 1)
        new: dict[str, Any] = dict(old)
        new_meta = new["metadata"] = dict(meta)
        new_meta["deletionGracePeriodSeconds"] = grace
        new_meta["deletionTimestamp"] = self._clock.timestamp(deadline_ms)
        if grace == 0 and not new_meta.get("finalizers"):
            self._store.remove(info, old)
            return None
        return self._store.replace(info, old, new)
