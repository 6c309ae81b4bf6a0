"""A minimal batch/v1 Job controller (Kubernetes' Job, kind ``Job.batch``).

For every Job not yet finished:

* pods belong to the Job through their controller ownerReference; they are
  made from ``spec.template`` (labels, annotations, spec, including
  ``schedulerName``) plus the labels ``batch.kubernetes.io/controller-uid``,
  ``batch.kubernetes.io/job-name``, ``controller-uid`` and ``job-name``, and
  are named ``<job>-<5 chars>`` from the seeded ``controller.batchjob``
  random stream;
* the wanted number of active pods is ``min(parallelism, completions -
  succeeded)`` (``parallelism`` defaults to 1); without ``completions``
  (work-queue mode) it is ``parallelism`` until a pod succeeds, after which
  no new pod starts and the Job completes once no pod is active;
* a failed pod is replaced, after Kubernetes' pod-failure backoff
  (10 s doubling per failure, at most 6 min, counted from when the failure was
  observed), until more than ``backoffLimit`` (default 6) pods failed;
* ``status.succeeded`` / ``status.failed`` count pods that reached that phase
  (never decreasing, even when such pods are later deleted), ``active`` and
  ``ready`` the live pods, ``startTime`` the first sync;
* success (``succeeded >= completions``) adds condition ``Complete``
  (reason ``CompletionsReached``) and ``completionTime``; too many failures
  add condition ``Failed`` (reason ``BackoffLimitExceeded``, message "Job has
  reached the specified backoff limit"); either way remaining active pods are
  deleted and the Job is left alone afterwards.

Not modelled: Indexed completion mode, ``suspend``, ``activeDeadlineSeconds``,
pod failure and success policies, restart counting for ``OnFailure`` pods,
pod-tracking finalizers, and the interim ``SuccessCriteriaMet`` /
``FailureTarget`` conditions of recent Kubernetes versions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from volcano.api import accessors
from volcano.apiserver.client import Client, Obj
from volcano.controllers.base import Recorder
from volcano.controllers.builtin._common import (
    deletion_rank,
    int_field,
    is_pod_active,
    is_pod_ready,
    meta,
)
from volcano.controllers.builtin._owner import PodOwnerController
from volcano.informers import InformerFactory
from volcano.sim import Clock, RandomStreams, Trace

__all__ = ["BatchJobController", "failure_backoff_ms"]

COMPONENT = "batch-job-controller"
_BACKOFF_BASE_MS = 10_000
_BACKOFF_MAX_MS = 360_000


def failure_backoff_ms(failures: int) -> int:
    """Delay before a replacement pod after ``failures`` failed pods: 0, then 10 s doubling, at most 6 min."""
    if failures <= 0:
        return 0
    return min(_BACKOFF_BASE_MS * 2 ** min(failures - 1, 16), _BACKOFF_MAX_MS)


def _finished(job: Mapping[str, Any]) -> bool:
    for cond in accessors.status(job).get("conditions") or []:
        if cond.get("type") in ("Complete", "Failed") and cond.get("status") == "True":
            return True
    return False


class BatchJobController(PodOwnerController):
    """Reconciles batch/v1 Jobs (see the module docstring)."""

    OWNER = "Job.batch"
    OWNER_KIND = "Job"
    API_VERSION = "batch/v1"
    COMPONENT = COMPONENT
    NAME_STREAM = "controller.batchjob"

    def __init__(self, client: Client, informers: InformerFactory, clock: Clock, *,
                 streams: RandomStreams, trace: Trace | None = None, recorder: Recorder | None = None) -> None:
        super().__init__(client, informers, clock, streams=streams, trace=trace, recorder=recorder)
        self._terminal: dict[str, dict[str, str]] = {}  # job uid -> pod uid -> terminal phase seen
        self._last_failure_ms: dict[str, int] = {}

    def forget(self, key: str, owner: Mapping[str, Any]) -> None:
        """The Job is gone: drop its expectations, terminal pods and last failure."""
        super().forget(key, owner)
        self._terminal.pop(str(meta(owner).get("uid", "")), None)
        self._last_failure_ms.pop(str(meta(owner).get("uid", "")), None)

    def _count_terminal(self, job_uid: str, pods: Sequence[Mapping[str, Any]]) -> tuple[int, int]:
        seen = self._terminal.setdefault(job_uid, {})
        for pod in pods:
            phase = accessors.phase(pod)
            uid = str(meta(pod).get("uid", meta(pod).get("name", "")))
            if phase in ("Succeeded", "Failed") and uid not in seen:
                seen[uid] = str(phase)
                if phase == "Failed":
                    self._last_failure_ms[job_uid] = self.clock.now_ms
        succeeded = sum(1 for phase in seen.values() if phase == "Succeeded")
        return succeeded, len(seen) - succeeded

    def process(self, key: str) -> None:
        """One sync of the Job: count its pods, finish it or create/delete pods, write status."""
        namespace, _, name = key.partition("/")
        job = self.informer("Job.batch").get(name, namespace)
        if job is None or meta(job).get("deletionTimestamp") or _finished(job):
            return
        try:
            parallelism = int_field(job, "spec.parallelism", 1)
            backoff_limit = int_field(job, "spec.backoffLimit", 6)
            completions: int | None = int_field(job, "spec.completions", -1)
        except ValueError as err:
            self.record("InvalidSpec", key, str(err))  # a real controller logs it and moves on
            return
        if completions == -1:
            completions = None
        job_uid = str(meta(job).get("uid", ""))
        pods, unseen, deleting = self.owned_pods(job)
        succeeded, failed = self._count_terminal(job_uid, pods)
        old_status = accessors.status(job)
        succeeded = max(succeeded, int(old_status.get("succeeded") or 0))
        failed = max(failed, int(old_status.get("failed") or 0))
        active = [p for p in pods if is_pod_active(p) and meta(p).get("name") not in deleting]
        now = self.clock.timestamp()
        status: dict[str, Any] = {"startTime": old_status.get("startTime") or now}
        outcome: tuple[str, str, str] | None = None
        if failed > backoff_limit:
            outcome = ("Failed", "BackoffLimitExceeded", "Job has reached the specified backoff limit")
        elif (completions is not None and succeeded >= completions) or \
                (completions is None and succeeded > 0 and not active and unseen == 0):
            outcome = ("Complete", "CompletionsReached", "Reached expected number of succeeded pods")
        created = 0
        conditions = list(old_status.get("conditions") or [])
        completion_time = old_status.get("completionTime")
        if outcome is not None:
            self._finish(key, active, outcome)
            active = []
            conditions.append({"type": outcome[0], "status": "True", "lastProbeTime": now,
                               "lastTransitionTime": now, "reason": outcome[1], "message": outcome[2]})
            completion_time = now if outcome[0] == "Complete" else completion_time
        else:
            want = (parallelism if succeeded == 0 else len(active) + unseen) if completions is None \
                else max(min(parallelism, completions - succeeded), 0)
            created, active = self._scale(key, job, want, active, unseen, failed)
        status.update({"active": len(active) + unseen + created, "ready": sum(1 for p in active if is_pod_ready(p)),
                       "succeeded": succeeded, "failed": failed})
        if completion_time:
            status["completionTime"] = completion_time
        if conditions:
            status["conditions"] = conditions
        if any(old_status.get(k) != v for k, v in status.items()):
            self.client.patch("Job.batch", name, {"status": status}, namespace, subresource="status")

    def _finish(self, key: str, active: Sequence[Mapping[str, Any]], outcome: tuple[str, str, str]) -> None:
        """The Job reached ``outcome`` (condition type, reason, message): delete its active pods."""
        for pod in sorted(active, key=deletion_rank):
            self.delete_pod(key, pod)
        self.record(outcome[0], key, outcome[1])

    def _scale(self, key: str, job: Mapping[str, Any], want: int, active: list[Obj], unseen: int,
               failed: int) -> tuple[int, list[Obj]]:
        """Create pods up to ``want`` (after the failure backoff) or delete the surplus;
        returns (pods created, the active pods left)."""
        have = len(active) + unseen
        created = 0
        if have < want:
            job_uid = str(meta(job).get("uid", ""))
            ready_at = self._last_failure_ms.get(job_uid, 0) + failure_backoff_ms(failed)
            if failed and self.clock.now_ms < ready_at:
                self.queue.add_after(key, ready_at - self.clock.now_ms)
            else:
                for _ in range(want - have):
                    self._create_pod(key, job)
                    created += 1
        elif have > want:
            victims = sorted(active, key=deletion_rank)[:have - want]
            for pod in victims:
                self.delete_pod(key, pod)
            gone = {meta(p).get("name") for p in victims}
            active = [p for p in active if meta(p).get("name") not in gone]
        return created, active

    def _create_pod(self, key: str, job: Mapping[str, Any]) -> None:
        uid, name = str(meta(job).get("uid", "")), str(meta(job)["name"])
        self.create_pod(key, job, {"batch.kubernetes.io/controller-uid": uid, "batch.kubernetes.io/job-name": name,
                                   "controller-uid": uid, "job-name": name})
