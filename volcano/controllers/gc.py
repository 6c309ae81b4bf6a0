"""The garbage collector (Volcano's ``gc-controller``): ``ttlSecondsAfterFinished`` on Volcano Jobs.

A Volcano Job needs cleanup when ``spec.ttlSecondsAfterFinished`` is set and
its phase (``status.state.phase``) is ``Completed``, ``Failed`` or
``Terminated`` (``Aborted`` is not finished). The job finished at
``status.state.lastTransitionTime`` (a Job without one cannot be timed: the
request is retried with backoff, as Volcano does); it expires ``ttl`` seconds
later, on the simulated clock. Before that the job is looked at again when it
expires; once expired the controller reads the job afresh from the API
server, checks again, and deletes it with ``propagationPolicy: Foreground``
and the precondition ``uid = <the job's uid>`` (NotFound counts as done).
``ttlSecondsAfterFinished: 0`` deletes a job as soon as it finishes. Jobs
already being deleted are left alone.

Everything else a Job owns (pods, PodGroup, Services, ConfigMaps, Secrets,
NetworkPolicies, PVCs) goes with it through ownerReference garbage
collection in the API server.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from volcano.api import accessors
from volcano.apiserver.client import Obj
from volcano.apiserver.errors import ApiError
from volcano.controllers.base import Controller
from volcano.sim import Clock

__all__ = [
    "FINISHED_PHASES",
    "GarbageCollector",
    "GarbageCollectorController",
    "expire_at_ms",
    "needs_cleanup",
]

COMPONENT = "gc-controller"

FINISHED_PHASES = ("Completed", "Failed", "Terminated")
"""Job phases after which ``ttlSecondsAfterFinished`` starts counting."""

def needs_cleanup(job: Mapping[str, Any]) -> bool:
    """True when the job sets ``ttlSecondsAfterFinished`` and its phase is in ``FINISHED_PHASES``."""
    ttl = (job.get("spec") or {}).get("ttlSecondsAfterFinished")
    return ttl is not None and accessors.phase(job) in FINISHED_PHASES


def expire_at_ms(job: Mapping[str, Any], clock: Clock) -> int | None:
    """When a finished job expires (finish time + ttl, in ``clock`` ms); None when it needs no cleanup
    or its finish time is unknown."""
    if not needs_cleanup(job):
        return None
    state = accessors.status(job).get("state")
    finished = clock.parse_timestamp(state.get("lastTransitionTime") if isinstance(state, Mapping) else None)
    if finished is None:
        return None
    return finished + int(job["spec"]["ttlSecondsAfterFinished"]) * 1000


class GarbageCollector(Controller[str]):
    """Deletes finished Volcano Jobs once their ``ttlSecondsAfterFinished`` has passed (module docstring)."""

    COMPONENT = COMPONENT

    def _on_job(self, event: str, job: Obj, old: Obj | None) -> None:
        if event != "DELETED" and not accessors.meta(job).get("deletionTimestamp") and needs_cleanup(job):
            self.queue.add(f"{accessors.namespace(job)}/{accessors.name(job)}")

    WATCHES = MappingProxyType({"Job": _on_job})

    def _expired(self, key: str, job: Mapping[str, Any]) -> bool | None:
        """True when expired; False when not (re-queued for its expiry); None when not timeable."""
        if accessors.meta(job).get("deletionTimestamp") or not needs_cleanup(job):
            return False
        expire = expire_at_ms(job, self.clock)
        if expire is None:
            return None
        remaining = expire - self.clock.now_ms
        if remaining <= 0:
            return True
        self.queue.add_after(key, remaining)
        return False

    def process(self, key: str) -> None:
        """Delete the job ``namespace/name`` if it expired; look again when it will."""
        namespace, _, name = key.partition("/")
        job = self.informer("Job").get(name, namespace)
        if job is None:
            return
        expired = self._expired(key, job)
        if expired is None:
            self.record("NoFinishTime", key, "unable to find the time when the Job finished")
            self.queue.add_rate_limited(key)
            return
        if not expired:
            return
        try:
            fresh = self.client.get("Job", name, namespace)
        except ApiError as err:
            if err.reason == "NotFound":
                return
            raise
        expired = self._expired(key, fresh)
        if expired is None:
            self.queue.add_rate_limited(key)
            return
        if not expired:
            return
        uid = accessors.meta(fresh).get("uid")
        try:
            self.client.delete("Job", name, namespace, propagation_policy="Foreground",
                               preconditions={"uid": uid})
        except ApiError as err:
            if err.reason == "NotFound":
                return
            raise
        self.queue.forget(key)
        self.record("DeleteJob", key, f"ttlSecondsAfterFinished={fresh['spec']['ttlSecondsAfterFinished']}")


GarbageCollectorController = GarbageCollector
"""The same class under the ``XController`` naming the other controllers use."""
