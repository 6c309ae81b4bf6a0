"""The Job controller's operations (Volcano's ``job_controller_actions.go``), executed for
the transition the state table picks.

``JobActions.execute(job, action, target)`` looks the Job's phase and the action up
in the state table (``state.transition``) and runs its operation:

* ``SYNC``: ``sync.sync_job`` initiates or refreshes the Job, then counts, creates
  and deletes its pods;
* ``KILL_JOB`` / ``KILL_TARGET``: ``kill.kill_pods`` marks pods out of sync and
  deletes them (the whole Job, or one task, pod or partition).

Both read the Job's pods from the controller's per-Job pod index
(``index.JobPodIndex``), so their cost follows the pods they act on, not the
Job's size. What they share lives in ``common`` (re-exported here).
"""

from __future__ import annotations

from volcano.apiserver.client import Obj
from volcano.controllers.job.common import (
    ActionContext,
    EventSink,
    JobSyncError,
    Target,
    format_go_duration,
    normalize_status,
)
from volcano.controllers.job.kill import kill_pods
from volcano.controllers.job.state import KILL_JOB, RETAIN_NONE, SYNC, UpdateFn, transition
from volcano.controllers.job.sync import sync_job

__all__ = ["EventSink", "JobActions", "JobSyncError", "Target", "format_go_duration", "normalize_status"]


class JobActions(ActionContext):
    """Executes transitions against the API server; reads through a ``JobCache``."""

    def execute(self, job: Obj, action: str, target: Target | None = None) -> None:
        """Run ``action`` on ``job`` per the state table for its current phase."""
        phase = ((job.get("status") or {}).get("state") or {}).get("phase", "")
        t = transition(phase, action)
        if t.operation == SYNC:
            self.sync_job(job, t.update)
        elif t.operation == KILL_JOB:
            self.kill_pods(job, t.retain, None, t.update)
        else:
            self.kill_pods(job, RETAIN_NONE, target or Target(), t.update)

    def sync_job(self, job: Obj, update: UpdateFn | None) -> None:
        """Volcano's ``syncJob`` (``sync.sync_job``)."""
        sync_job(self, job, update)

    def kill_pods(self, job: Obj, retain: frozenset[str], target: Target | None, update: UpdateFn | None) -> None:
        """Volcano's ``killPods`` for a whole job (``target`` None) or one target (``kill.kill_pods``)."""
        kill_pods(self, job, retain, target, update)
