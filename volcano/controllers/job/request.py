"""The Job controller's unit of work: one ``Request`` about one Job.

A request names the job and, for pod-triggered requests, the task, pod and pod
uid, the bus event that caused it, the exit code of a failed pod, an explicit
action (commands, delayed actions, internal re-queues) and the job version the
pod was created under. Requests are immutable and hashable so that a work
queue deduplicates identical requests while they wait, as Volcano's does.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Request"]


@dataclass(frozen=True, slots=True)
class Request:
    """One piece of work for the Job controller (Volcano's ``apis.Request``)."""

    namespace: str
    job_name: str
    job_uid: str = ""
    task_name: str = ""
    pod_name: str = ""
    pod_uid: str = ""
    partition_id: str = ""
    event: str = ""
    exit_code: int = 0
    action: str = ""
    job_version: int = 0

    @property
    def job_key(self) -> str:
        """``namespace/name`` of the job this request is about."""
        return f"{self.namespace}/{self.job_name}"

    def describe(self) -> str:
        """A short readable form for the decision trace."""
        parts = [f"event={self.event or '-'}"]
        if self.action:
            parts.append(f"action={self.action}")
        if self.pod_name:
            parts.append(f"pod={self.pod_name}")
        if self.exit_code:
            parts.append(f"exitCode={self.exit_code}")
        return " ".join(parts)
