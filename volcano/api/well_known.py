"""Well-known label, annotation and finalizer keys shared by more than one component.

A key used by one component only stays in that component's module; a key two
components must agree on (the pod annotation naming its PodGroup, the
preemptable marker, the simulated kubelet's ``sim.volcano.sh/*`` annotations,
...) lives here, under one name.
"""

from __future__ import annotations

__all__ = [
    "GROUP_NAME",
    "JOB_NAME",
    "PREEMPTABLE",
    "QUEUE_NAME",
    "SIM_DURATION",
    "SIM_EXIT_CODE",
    "SIM_PROGRESS",
    "TASK_PRIORITY",
    "TASK_SPEC",
]

GROUP_NAME = "scheduling.k8s.io/group-name"
"""Pod annotation naming the PodGroup the pod belongs to (Volcano's ``KubeGroupNameAnnotationKey``)."""

PREEMPTABLE = "volcano.sh/preemptable"
"""Pod or PodGroup annotation or label: ``"true"`` lets the scheduler preempt or reclaim it."""

TASK_SPEC = "volcano.sh/task-spec"
"""Pod annotation and label: the Volcano Job task the pod was made from."""

TASK_PRIORITY = "volcano.sh/task-priority"
"""Pod annotation: the task's priority within its job (orders tasks of one job)."""

JOB_NAME = "volcano.sh/job-name"
"""Pod annotation and label: the Volcano Job that owns the pod."""

QUEUE_NAME = "volcano.sh/queue-name"
"""Pod annotation: the queue of the pod's Volcano Job."""

SIM_DURATION = "sim.volcano.sh/duration"
"""Pod annotation read by the simulated kubelet: how long the containers work (absent: until deleted)."""

SIM_PROGRESS = "sim.volcano.sh/progress"
"""Pod annotation read by the simulated kubelet: ``alone`` or ``gang`` (work advances only while the
pod's PodGroup has at least ``minMember`` pods running or done)."""

SIM_EXIT_CODE = "sim.volcano.sh/exit-code"
"""Pod annotation read by the simulated kubelet: the exit code when the work is done (default 0)."""
