"""The session model in one import: tasks, jobs, queues and nodes as the scheduler sees them.

Each concept has its own module (``task``, ``job``, ``queue``, ``node``); this
module re-exports them for callers that use several at once.
"""

from volcano.scheduler.framework.job import FitErrors, JobInfo, task_scheduling_reason
from volcano.scheduler.framework.node import NodeInfo, NodeSpec, NodeTable
from volcano.scheduler.framework.queue import QueueInfo
from volcano.scheduler.framework.task import (
    ALLOCATED_STATUSES,
    COMPLETED_STATUSES,
    PREEMPTABLE_STATUSES,
    READY_STATUSES,
    SCHEDULED_STATUSES,
    VALID_STATUSES,
    TaskInfo,
    TaskSpec,
    TaskStatus,
    default_task_less,
    parse_bool,
    task_status_of,
)

__all__ = [
    "ALLOCATED_STATUSES",
    "COMPLETED_STATUSES",
    "PREEMPTABLE_STATUSES",
    "READY_STATUSES",
    "SCHEDULED_STATUSES",
    "VALID_STATUSES",
    "FitErrors",
    "JobInfo",
    "NodeInfo",
    "NodeSpec",
    "NodeTable",
    "QueueInfo",
    "TaskInfo",
    "TaskSpec",
    "TaskStatus",
    "default_task_less",
    "parse_bool",
    "task_scheduling_reason",
    "task_status_of",
]
