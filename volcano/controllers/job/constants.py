"""Names the Volcano Job controller reads and writes: phases, bus events and actions,
well-known labels and annotations, and the controller's component name.

The values are Volcano's own strings (``batch.volcano.sh`` and ``bus.volcano.sh`` API
enums), so objects written here are what a real Volcano cluster would show.
"""

from __future__ import annotations

__all__ = [
    "ACTION_ABORT_JOB",
    "ACTION_COMPLETE_JOB",
    "ACTION_ENQUEUE_JOB",
    "ACTION_RESTART_JOB",
    "ACTION_RESTART_PARTITION",
    "ACTION_RESTART_POD",
    "ACTION_RESTART_TASK",
    "ACTION_RESUME_JOB",
    "ACTION_SYNC_JOB",
    "ACTION_TERMINATE_JOB",
    "ANN_CONTROLLER_OUT_OF_SYNC",
    "ANN_COOLDOWN_TIME",
    "ANN_JDB_MAX_UNAVAILABLE",
    "ANN_JDB_MIN_AVAILABLE",
    "ANN_JOB_FORWARDING",
    "ANN_JOB_RETRY_COUNT",
    "ANN_JOB_VERSION",
    "ANN_NUMA_POLICY",
    "ANN_REVOCABLE_ZONE",
    "ANN_TASK_INDEX",
    "ANN_TEMPLATE_UID",
    "COMPONENT",
    "EVENT_ANY",
    "EVENT_COMMAND_ISSUED",
    "EVENT_JOB_UPDATED",
    "EVENT_OUT_OF_SYNC",
    "EVENT_POD_EVICTED",
    "EVENT_POD_FAILED",
    "EVENT_POD_PENDING",
    "EVENT_POD_RUNNING",
    "EVENT_TASK_COMPLETED",
    "EVENT_TASK_FAILED",
    "EVENT_UNKNOWN",
    "FINISHED_PHASES",
    "JOB_API_VERSION",
    "JOB_KIND",
    "LABEL_JOB_NAMESPACE",
    "LABEL_PARTITION_ID",
    "PHASES",
    "PHASE_ABORTED",
    "PHASE_ABORTING",
    "PHASE_COMPLETED",
    "PHASE_COMPLETING",
    "PHASE_FAILED",
    "PHASE_PENDING",
    "PHASE_RESTARTING",
    "PHASE_RUNNING",
    "PHASE_TERMINATED",
    "PHASE_TERMINATING",
    "PODGROUP_API_VERSION",
]

COMPONENT = "vc-controller-manager"
"""Event source component, as Volcano's controller manager records it."""

JOB_API_VERSION = "batch.volcano.sh/v1alpha1"
JOB_KIND = "Job"
PODGROUP_API_VERSION = "scheduling.volcano.sh/v1beta1"

# Job phases (status.state.phase).
PHASE_PENDING = "Pending"
PHASE_ABORTING = "Aborting"
PHASE_ABORTED = "Aborted"
PHASE_RUNNING = "Running"
PHASE_RESTARTING = "Restarting"
PHASE_COMPLETING = "Completing"
PHASE_COMPLETED = "Completed"
PHASE_TERMINATING = "Terminating"
PHASE_TERMINATED = "Terminated"
PHASE_FAILED = "Failed"
PHASES: tuple[str, ...] = (PHASE_PENDING, PHASE_ABORTING, PHASE_ABORTED, PHASE_RUNNING, PHASE_RESTARTING,
                           PHASE_COMPLETING, PHASE_COMPLETED, PHASE_TERMINATING, PHASE_TERMINATED, PHASE_FAILED)
"""Every Job phase of the CRD enum."""
FINISHED_PHASES: frozenset[str] = frozenset({PHASE_COMPLETED, PHASE_FAILED, PHASE_TERMINATED})
"""Phases handled by Volcano's "finished" state."""

# Bus events (policy events and request events).
EVENT_ANY = "*"
EVENT_POD_FAILED = "PodFailed"
EVENT_POD_EVICTED = "PodEvicted"
EVENT_POD_PENDING = "PodPending"
EVENT_POD_RUNNING = "PodRunning"
EVENT_UNKNOWN = "Unknown"
EVENT_TASK_COMPLETED = "TaskCompleted"
EVENT_TASK_FAILED = "TaskFailed"
EVENT_OUT_OF_SYNC = "OutOfSync"
EVENT_COMMAND_ISSUED = "CommandIssued"
EVENT_JOB_UPDATED = "JobUpdated"

# Bus actions.
ACTION_ABORT_JOB = "AbortJob"
ACTION_RESTART_JOB = "RestartJob"
ACTION_RESTART_TASK = "RestartTask"
ACTION_RESTART_POD = "RestartPod"
ACTION_RESTART_PARTITION = "RestartPartition"
ACTION_TERMINATE_JOB = "TerminateJob"
ACTION_COMPLETE_JOB = "CompleteJob"
ACTION_RESUME_JOB = "ResumeJob"
ACTION_SYNC_JOB = "SyncJob"
ACTION_ENQUEUE_JOB = "EnqueueJob"

# Labels and annotations.
LABEL_JOB_NAMESPACE = "volcano.sh/job-namespace"
ANN_TASK_INDEX = "volcano.sh/task-index"
ANN_JOB_VERSION = "volcano.sh/job-version"
ANN_JOB_RETRY_COUNT = "volcano.sh/job-retry-count"
ANN_TEMPLATE_UID = "volcano.sh/template-uid"
LABEL_PARTITION_ID = "volcano.sh/partition-id"
ANN_JOB_FORWARDING = "volcano.sh/job-forwarding"
ANN_CONTROLLER_OUT_OF_SYNC = "volcano.sh/controller-out-of-sync"
ANN_NUMA_POLICY = "volcano.sh/numa-topology-policy"
ANN_COOLDOWN_TIME = "volcano.sh/cooldown-time"
ANN_REVOCABLE_ZONE = "volcano.sh/revocable-zone"
ANN_JDB_MIN_AVAILABLE = "volcano.sh/jdb-min-available"
ANN_JDB_MAX_UNAVAILABLE = "volcano.sh/jdb-max-unavailable"
