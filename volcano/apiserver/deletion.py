"""Delete-time rules: preconditions and the grace period of a pod."""

from __future__ import annotations

from typing import Any

from volcano.api.kinds import KindInfo
from volcano.apiserver.errors import conflict
from volcano.apiserver.meta import resource_name

__all__ = ["DEFAULT_GRACE_SECONDS", "check_preconditions", "pod_grace_seconds"]

DEFAULT_GRACE_SECONDS = 30
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
